// BDPT drivers over one estimator (bdpt.h): the streaming version of van Antwerpen (2011),
// section 5 (eye and light walks compacted at write time, a parallel connection stream,
// regeneration at the end of both streams), and the naive one-thread-per-sample baseline.
// Templates over the exec type; instantiated for CpuExec and CudaExec.
#pragma once
#include <algorithm>
#include <climits>

#include "kernels/bdpt.h"
#include "kernels/schedule.h"
#include "kernels/stream.h"

namespace wavefront {

/// Device-resident control block of a streaming BDPT render.
struct BdptControl {
    int eyeCount[2];              ///< eye walks in each walk buffer (ping-pong)
    int lightCount[2];            ///< light walks in each walk buffer
    int shadowCount;              ///< s = 1 and t = 1 shadow rays of this iteration
    int complete;                 ///< slots whose two walks ended since the last connect phase
    int activeSlots;              ///< slots holding a sample
    int regenerated;              ///< complete slots visited by the running regeneration
    WorkRange work;               ///< samples still to hand out (MLT: the bound on mutation numbers)
    unsigned long long started;   ///< samples (MLT: mutations) started by this render
    unsigned long long extensionRays, shadowRays, connections;
};

/// Kernels whose SIMD efficiency is counted (two counter slots each: occupancy and per traversal
/// step, as for the path tracer).
enum BdptSimdKernel : int {
    kBdptRegenerate = 0, kBdptExtend, kBdptShade, kBdptTrace, kBdptConnect, kBdptNaiveWalk, kBdptNaiveConnect,
    kBdptSimdKernelCount
};
inline const char* bdptSimdLabel(int kernel) {
    static const char* labels[] = {"bdpt regenerate", "bdpt extend", "bdpt shade", "bdpt trace",
                                   "bdpt connect", "naive bdpt walk", "naive bdpt connect"};
    return labels[kernel];
}
static_assert(2 * kBdptSimdKernelCount <= kSimdSlots, "two counter slots per kernel");

namespace bdpt {

/// Slot states besides the count of walks still running (2, 1, 0 = complete): idle for the rest
/// of the render (no samples left), or waiting until the host hands its MLT chain more mutations.
constexpr int kSlotIdle = -1, kSlotWaiting = -2;

/// What every stage sees: the scene, where the numbers come from (HashSampler for BDPT, the
/// chains' primary samples for MLT), where contributions go (the film for BDPT, the chains'
/// records for MLT), the per-slot sample records and the stored subpaths.
template <class Sampler, class Sink>
struct Context {
    SceneView scene;
    BdptParams params;
    Sampler sampler;
    Sink sink;
    BdptControl* control;
    SimdCounters simd;
    std::uint64_t* slotSample;   ///< global sample index held by each slot
    int* eyeStored;              ///< stored eye vertices per slot (final once the eye walk ends)
    int* lightStored;
    int* status;                 ///< walks still running (2, 1, 0 = complete); kSlotIdle, kSlotWaiting
    PathVertex* eyeVertices;     ///< slot * storedVertices + k
    PathVertex* lightVertices;
    WF_CPU_GPU PathVertex* vertexAddress(bool eye, int slot, int k) const {
        return (eye ? eyeVertices : lightVertices) + std::size_t(slot) * params.storedVertices() + k;
    }
};

template <class C>
WF_CPU_GPU WF_INLINE Hit traceWalk(const C& c, const WalkState& w, const SimdProbe& probe) {
    return traverse<false>(c.scene.bvh, Ray{w.origin.xyz(), w.direction.xyz(), FLT_MAX}, probe);
}

/// Reads a stored vertex through the read-only cache.
WF_CPU_GPU WF_INLINE PathVertex loadVertex(const PathVertex* v) {
    const Float4* w = &v->position;
    PathVertex r;
    r.position = loadReadOnly(w);
    r.throughput = loadReadOnly(w + 1);
    r.wo = loadReadOnly(w + 2);
    r.normal = loadReadOnly(w + 3);
    return r;
}

/// A walk ended: record its stored vertex count; the second walk of a slot to end completes it.
template <class C>
WF_CPU_GPU WF_INLINE void finishWalk(const C& c, bool eye, int slot, int stored) {
    (eye ? c.eyeStored : c.lightStored)[slot] = stored;
    if (atomicFetchAdd(&c.status[slot], -1) == 1) atomicFetchAdd(&c.control->complete, 1);
}

/// Connect phase, regeneration half: every complete slot takes the next piece of work (or goes
/// idle when there is none); its new eye and light walks are appended at the end of both walk
/// streams. BDPT hands out samples in order: compaction over the slots gives each regenerated slot
/// its rank k, and it takes sample next + k. MLT chains take their own next mutation
/// (MltSampler::claim), so a chain's number of mutations never depends on how fast it runs.
template <class C>
struct RegenerateStage {
    static constexpr int kStreams = 1;
    struct Output {
        bool complete;
        WF_CPU_GPU bool active(int) const { return complete; }
    };
    C c;
    SoaView<WalkState> eyeWalks, lightWalks;
    int buffer;
    int* outCounter[kStreams];
    WF_CPU_GPU Output evaluate(int i) const {
        int st = c.status[i];
        if (!c.sampler.perSlotWork()) return Output{st == 0};
        if (st != 0 && st != kSlotWaiting) return Output{false};
        bool work = c.sampler.slotHasWork(i, c.control->work.end);
        if (!work) c.status[i] = kSlotWaiting;
        return Output{work};
    }
    WF_CPU_GPU void emit(int, int k, const Output&, int i) const {
        const BdptControl& k0 = *c.control;
        std::uint64_t s;
        if (c.sampler.perSlotWork()) {
            s = c.sampler.claim(i);
        } else {
            s = k0.work.next + std::uint64_t(k);
            if (s >= k0.work.end) {
                c.status[i] = kSlotIdle;
                return;
            }
        }
        c.simd.entry(kBdptRegenerate).sample();
        s = c.sampler.startSample(i, s);
        c.sink.beginSample(i, c.sampler.pixelIndex(s, c.scene.width, c.scene.height));
        eyeWalks.store(k0.eyeCount[buffer] + k, startEyeWalk(c.scene, c.params, c.sampler, s, i));
        lightWalks.store(k0.lightCount[buffer] + k, startLightWalk(c.scene, c.params, c.sampler, s, i));
        c.slotSample[i] = s;
        c.eyeStored[i] = 0;
        c.lightStored[i] = 0;
        c.status[i] = 2;
    }
};

/// One thread after regeneration: the new walks join the streams. The complete slots left the
/// active ones, the slots that took work joined them.
template <class C>
struct RegenerateBookkeepingStage {
    C c;
    int buffer;
    WF_CPU_GPU void operator()(int) const {
        BdptControl& k = *c.control;
        int added = k.regenerated;
        if (!c.sampler.perSlotWork()) {
            unsigned long long remaining = k.work.end > k.work.next ? k.work.end - k.work.next : 0;
            added = int(std::min<unsigned long long>(remaining, (unsigned long long)k.regenerated));
            k.work.next += (unsigned long long)added;
        }
        k.eyeCount[buffer] += added;
        k.lightCount[buffer] += added;
        k.started += (unsigned long long)added;
        k.activeSlots += added - k.complete;
        k.regenerated = 0;
        k.complete = 0;
    }
};

/// One thread before each walk iteration: empties the output streams.
template <class C>
struct WalkBookkeepingStage {
    C c;
    int buffer;
    WF_CPU_GPU void operator()(int) const {
        BdptControl& k = *c.control;
        k.eyeCount[buffer ^ 1] = 0;
        k.lightCount[buffer ^ 1] = 0;
        k.shadowCount = 0;
    }
};

template <class C>
struct ExtendStage {
    C c;
    SoaView<WalkState> walks;
    Hit* hits;
    WF_CPU_GPU void operator()(int i) const {
        c.simd.entry(kBdptExtend).sample();
        addToCounter(&c.control->extensionRays, 1u);
        hits[i] = traceWalk(c, walks.load(i), c.simd.steps(kBdptExtend));
    }
};

/// Shades one vertex of every eye (kEye) or light walk: continued walks go to the other walk
/// buffer and shadow rays to the connection stream, both compacted at write time; the new path
/// vertex is scattered to its sample's storage, coalesced through a warp transpose.
template <bool kEye, class C>
struct ShadeStage {
    static constexpr int kStreams = 2;
    static constexpr int kScatterWords = PathVertex::kWords;
    using Output = WalkOutput;
    C c;
    SoaView<WalkState> in;
    const Hit* hits;
    SoaView<WalkState> out;
    SoaView<ShadowRay> shadow;
    int* outCounter[kStreams];
    bool coalescedScatter;
    WF_CPU_GPU Output evaluate(int i) const {
        c.simd.entry(kBdptShade).sample();
        WalkState w = in.load(i);
        c.sampler.useVertex(kEye, w.sampleIndex(), w.depth());
        WalkOutput o = kEye ? shadeEyeVertex(c.scene, c.params, c.sampler, c.sink, w, hits[i])
                            : shadeLightVertex(c.scene, c.params, c.sampler, w, hits[i]);
        if (!o.hasNext) finishWalk(c, kEye, o.slot, o.storedCount);
        return o;
    }
    WF_CPU_GPU void emit(int stream, int slot, const Output& o, int) const {
        if (stream == WalkOutput::kNext) out.store(slot, o.next);
        else shadow.store(slot, o.shadow);
    }
    WF_CPU_GPU Float4* scatterTarget(const Output& o, int) const {
        return o.hasVertex ? &c.vertexAddress(kEye, o.slot, o.vertexIndex)->position : nullptr;
    }
    WF_CPU_GPU const Float4* scatterSource(const Output& o) const { return &o.vertex.position; }
};

/// Traces a shadow ray and hands what is visible to the sink.
template <class C>
WF_CPU_GPU WF_INLINE void traceToSink(const C& c, const ShadowRay& r, const SimdProbe& probe) {
    if (shadowRayUnoccluded(c.scene, r, probe)) c.sink.deposit(r.slot(), r.pixel(), r.contribution.xyz());
}

/// Traces the s = 1 and t = 1 shadow rays of an iteration and deposits (splats) what is visible.
template <class C>
struct TraceStage {
    C c;
    SoaView<ShadowRay> shadow;
    WF_CPU_GPU void operator()(int i) const {
        c.simd.entry(kBdptTrace).sample();
        addToCounter(&c.control->shadowRays, 1u);
        traceToSink(c, shadow.load(i), c.simd.steps(kBdptTrace));
    }
};

/// Algorithm 1, first half: the number of connections of each complete slot (0 for the others).
struct CountStage {
    const int* status;
    const int* eyeStored;
    const int* lightStored;
    int* counts;
    WF_CPU_GPU void operator()(int i) const { counts[i] = status[i] == 0 ? eyeStored[i] * lightStored[i] : 0; }
};

/// Algorithm 1, second half: one thread per connection finds its slot by binary search in the
/// inclusive scan (the first slot whose prefix sum exceeds j), then evaluates one vertex pair.
/// Neighbouring threads share the eye vertex and search for the same slot.
template <class C>
struct ConnectStage {
    /// 64 registers at most: the MLT instantiation needs 66 by itself, which costs a quarter of
    /// the resident warps (3 blocks of 256 threads per multiprocessor instead of 4).
    static constexpr int kMinBlocksPerSm = 4;
    C c;
    const int* prefix;  ///< inclusive scan of the counts
    int slots;
    WF_CPU_GPU void operator()(int j) const {
        c.simd.entry(kBdptConnect).sample();
        int lo = 0, hi = slots - 1;
        while (lo < hi) {
            int mid = (lo + hi) >> 1;
            if (prefix[mid] > j) hi = mid;
            else lo = mid + 1;
        }
        int slot = lo;
        int nLight = c.lightStored[slot];
        int n = c.eyeStored[slot] * nLight;
        int k = j - (prefix[slot] - n);
        PathVertex e = loadVertex(c.vertexAddress(true, slot, k / nLight));
        PathVertex l = loadVertex(c.vertexAddress(false, slot, k % nLight));
        ShadowRay r;
        int pixel = c.sampler.pixelIndex(c.slotSample[slot], c.scene.width, c.scene.height);
        if (!connectVertices(c.scene, c.params, e, l, pixel, slot, r)) return;
        addToCounter(&c.control->connections, 1u);
        traceToSink(c, r, c.simd.steps(kBdptConnect));
    }
};

/// The naive baseline (the paper's Table 3 setup): one thread builds a whole sample, both walks
/// then every connection one after another, with the same estimator functions. (MLT's replay
/// check runs it too: one thread rebuilds one chain's current sample.)
template <class C>
struct NaiveStage {
    C c;
    std::uint64_t firstSample;
    template <bool kEye>
    WF_CPU_GPU int walk(WalkState w, unsigned& extension, unsigned& shadowRays) const {
        for (;;) {
            c.simd.entry(kBdptNaiveWalk).sample();  // lanes whose walk is still alive at this step
            Hit hit = traceWalk(c, w, c.simd.steps(kBdptNaiveWalk));
            ++extension;
            c.sampler.useVertex(kEye, w.sampleIndex(), w.depth());
            WalkOutput o = kEye ? shadeEyeVertex(c.scene, c.params, c.sampler, c.sink, w, hit)
                                : shadeLightVertex(c.scene, c.params, c.sampler, w, hit);
            if (o.hasShadow) {
                ++shadowRays;
                traceToSink(c, o.shadow, c.simd.steps(kBdptNaiveWalk));
            }
            if (o.hasVertex) *c.vertexAddress(kEye, o.slot, o.vertexIndex) = o.vertex;
            if (!o.hasNext) return o.storedCount;
            w = o.next;
        }
    }
    WF_CPU_GPU void operator()(int i) const {
        std::uint64_t s = c.sampler.startSample(i, firstSample + std::uint64_t(i));
        int pixel = c.sampler.pixelIndex(s, c.scene.width, c.scene.height);
        c.sink.beginSample(i, pixel);
        unsigned extension = 0, shadowRays = 0, connections = 0;
        int nEye = walk<true>(startEyeWalk(c.scene, c.params, c.sampler, s, i), extension, shadowRays);
        int nLight = walk<false>(startLightWalk(c.scene, c.params, c.sampler, s, i), extension, shadowRays);
        for (int a = 0; a < nEye; ++a)
            for (int b = 0; b < nLight; ++b) {
                c.simd.entry(kBdptNaiveConnect).sample();
                ShadowRay r;
                if (!connectVertices(c.scene, c.params, *c.vertexAddress(true, i, a), *c.vertexAddress(false, i, b),
                                     pixel, i, r))
                    continue;
                ++connections;
                traceToSink(c, r, c.simd.steps(kBdptNaiveConnect));
            }
        addToCounter(&c.control->extensionRays, extension);
        addToCounter(&c.control->shadowRays, shadowRays);
        addToCounter(&c.control->connections, connections);
    }
};

struct ResetStage {
    BdptControl* control;
    unsigned long long firstSample, endSample;
    int slots;
    WF_CPU_GPU void operator()(int) const {
        BdptControl k{};
        k.work = WorkRange{firstSample, endSample};
        k.activeSlots = slots;  // every slot starts complete (with nothing to connect)
        k.complete = slots;
        *control = k;
    }
};

}  // namespace bdpt

/// Bytes per sample slot (film excluded), the paper's Table 6 measure.
inline std::size_t bdptBytesPerSlot(BdptVariant variant, int maxDepth) {
    BdptParams p;
    p.maxDepth = maxDepth;
    std::size_t vertices = 2 * std::size_t(p.storedVertices()) * sizeof(PathVertex);
    if (variant == BdptVariant::Naive) return vertices;
    return vertices + 4 * sizeof(WalkState) + 2 * sizeof(Hit) + 2 * sizeof(ShadowRay) + sizeof(std::uint64_t) +
           5 * sizeof(int);
}

/// Slots for a BDPT render: the requested stream capacity, bounded by memory (half of what is
/// free) and by the connection count fitting an int.
inline int bdptSlotLimit(std::size_t freeBytes, int maxDepth, BdptVariant variant) {
    BdptParams p;
    p.maxDepth = maxDepth;
    std::size_t byMemory = freeBytes / 2 / std::max<std::size_t>(bdptBytesPerSlot(variant, maxDepth), 1);
    std::size_t s = std::max(p.storedVertices(), 1);
    std::size_t byConnections = std::size_t(INT_MAX) / (s * s);
    return int(std::min<std::size_t>({byMemory, byConnections, std::size_t(INT_MAX / 4)}));
}

template <class Exec>
class BdptDriver {
public:
    BdptDriver(Exec& exec, BdptVariant variant, int slots, int maxDepth, float connectThreshold, bool coalescedScatter)
        : exec_(exec), variant_(variant), slots_(slots), threshold_(connectThreshold), coalesced_(coalescedScatter) {
        BdptParams p;
        p.maxDepth = maxDepth;
        std::size_t vertices = std::size_t(slots_) * p.storedVertices();
        control_ = exec_.template allocate<BdptControl>(1);
        simd_ = exec_.template allocate<unsigned long long>(2 * kSimdSlots);
        exec_.fill(simd_.data(), 0ull, 2 * kSimdSlots);
        eyeVertices_ = exec_.template allocate<PathVertex>(std::max<std::size_t>(vertices, 1));
        lightVertices_ = exec_.template allocate<PathVertex>(std::max<std::size_t>(vertices, 1));
        if (variant_ == BdptVariant::Naive) return;
        for (int b = 0; b < 2; ++b) {
            eyeWalkWords_[b] = exec_.template allocate<Float4>(std::size_t(4) * slots_);
            lightWalkWords_[b] = exec_.template allocate<Float4>(std::size_t(4) * slots_);
        }
        eyeHits_ = exec_.template allocate<Hit>(slots_);
        lightHits_ = exec_.template allocate<Hit>(slots_);
        shadowWords_ = exec_.template allocate<Float4>(std::size_t(3) * 2 * slots_);
        slotSample_ = exec_.template allocate<std::uint64_t>(slots_);
        eyeStored_ = exec_.template allocate<int>(slots_);
        lightStored_ = exec_.template allocate<int>(slots_);
        status_ = exec_.template allocate<int>(slots_);
        counts_ = exec_.template allocate<int>(slots_);
        prefix_ = exec_.template allocate<int>(slots_);
    }

    /// Renders samples [first, first + count) into the film, asking `budget.check(done)` now and
    /// then (done: samples started so far); the budget can end the render early at a pass
    /// boundary of `params.numPixels` samples or at once. Returns the samples rendered.
    template <class Budget>
    std::uint64_t render(const SceneView& scene, const BdptParams& params, const HashSampler& sampler,
                         const FilmView& film, std::uint64_t first, std::uint64_t count, Budget& budget) {
        auto c = context(scene, params, sampler, FilmSink{film});
        if (variant_ == BdptVariant::Naive) return renderNaive(c, first, count, budget);
        WorkSteering steering(first, std::uint64_t(params.numPixels));
        BdptControl k = renderStreaming(c, first, count, [](const auto&) {}, [&](const BdptControl& seen, bool) {
            steering.apply(exec_, &control_.data()->work, budget.check(seen.started));
            return false;  // the end only ever moves back
        });
        return k.started;
    }

    /// The stage context over this driver's slot records and vertex storage.
    template <class Sampler, class Sink>
    bdpt::Context<Sampler, Sink> context(const SceneView& scene, const BdptParams& params, const Sampler& sampler,
                                         const Sink& sink) {
        return bdpt::Context<Sampler, Sink>{scene, params, sampler, sink, control_.data(), {simd_.data()},
                                            slotSample_.data(), eyeStored_.data(), lightStored_.data(), status_.data(),
                                            eyeVertices_.data(), lightVertices_.data()};
    }

    /// The streaming schedule over work [first, first + count) with any sampler and sink.
    /// `decide(c)` runs in every connect phase after the connections and before regeneration,
    /// while the complete slots still hold their samples (MLT accepts or rejects there).
    /// `steer(seen, idle)` gets every control snapshot the host reads and may move the end of the
    /// work range (control()->work); `idle`: nothing is running any more, and the render ends
    /// unless steer returns true, having moved the end forward. Returns the final control block.
    template <class C, class Decide, class Steer>
    BdptControl renderStreaming(const C& c, std::uint64_t first, std::uint64_t count, const Decide& decide,
                                const Steer& steer) {
        if (variant_ == BdptVariant::Naive) throw Error("the naive BDPT driver has no streaming schedule");
        exec_.parallelFor("reset control", 1, bdpt::ResetStage{control_.data(), first, first + count, slots_});
        streamingLoop(c, decide, steer);
        return collectCounters();
    }

    /// The naive schedule: one thread per sample, slot = sample - first (at most `slots` per launch).
    template <class C, class Budget>
    std::uint64_t renderNaive(const C& c, std::uint64_t first, std::uint64_t count, Budget& budget) {
        exec_.parallelFor("reset control", 1, bdpt::ResetStage{control_.data(), first, first + count, slots_});
        std::uint64_t done = runChunked(exec_, count, std::uint64_t(slots_), std::uint64_t(c.params.numPixels), budget,
                                        [&](std::uint64_t offset, std::uint64_t n) {
                                            exec_.parallelFor("naive bdpt", int(n), bdpt::NaiveStage<C>{c, first + offset});
                                        });
        collectCounters();
        return done;
    }

    WorkRange* workRange() { return &control_.data()->work; }
    int slots() const { return slots_; }

    std::uint64_t extensionRays() const { return extensionRays_; }
    /// Shadow rays of the walks (s = 1, t = 1) and of the connect phase.
    std::uint64_t shadowRays() const { return shadowRays_ + connections_; }
    std::uint64_t connections() const { return connections_; }
    std::uint64_t connectPhases() const { return connectPhases_; }

    /// Per counter slot: average active-lane fraction (negative where nothing was sampled).
    std::vector<double> simdEfficiency() {
        std::vector<unsigned long long> raw = simdCounts();
        std::vector<double> r(kSimdSlots);
        for (int s = 0; s < kSimdSlots; ++s) r[s] = simdFraction(raw, {s});
        return r;
    }
    /// SIMD occupancy of the random-walk and connect phases (the paper's Table 3 measure): lanes
    /// holding work whenever a walk step or a connection starts, over all walk or connect kernels
    /// (occupancy is counter slot 2k of kernel k).
    std::pair<double, double> phaseSimdEfficiency() {
        std::vector<unsigned long long> raw = simdCounts();
        if (variant_ == BdptVariant::Naive)
            return {simdFraction(raw, {2 * kBdptNaiveWalk}), simdFraction(raw, {2 * kBdptNaiveConnect})};
        return {simdFraction(raw, {2 * kBdptExtend, 2 * kBdptShade, 2 * kBdptTrace}), simdFraction(raw, {2 * kBdptConnect})};
    }

private:
    std::vector<unsigned long long> simdCounts() {
        std::vector<unsigned long long> raw(2 * kSimdSlots);
        exec_.download(raw.data(), simd_.data(), raw.size());
        return raw;
    }
    SoaView<WalkState> eyeWalks(int b) const { return SoaView<WalkState>{eyeWalkWords_[b].data(), slots_}; }
    SoaView<WalkState> lightWalks(int b) const { return SoaView<WalkState>{lightWalkWords_[b].data(), slots_}; }
    SoaView<ShadowRay> shadow() const { return SoaView<ShadowRay>{shadowWords_.data(), 2 * slots_}; }

    BdptControl collectCounters() {
        exec_.synchronize();
        BdptControl k;
        exec_.download(&k, control_.data(), 1);
        extensionRays_ += k.extensionRays;
        shadowRays_ += k.shadowRays;
        connections_ += k.connections;
        return k;
    }

    /// Connect phase: count, scan, one thread per connection, the decision, then regeneration of
    /// complete slots at the end of the walk streams in buffer `cur`. Returns the control block
    /// afterwards.
    template <class C, class Decide>
    BdptControl connectPhase(const C& c, int cur, const Decide& decide) {
        ++connectPhases_;
        exec_.parallelFor("bdpt count", slots_, bdpt::CountStage{status_.data(), eyeStored_.data(), lightStored_.data(),
                                                                 counts_.data()});
        exec_.inclusiveScan(counts_.data(), prefix_.data(), slots_);
        int total = 0;
        exec_.download(&total, prefix_.data() + (slots_ - 1), 1);
        if (total > 0) exec_.parallelFor("bdpt connect", total, bdpt::ConnectStage<C>{c, prefix_.data(), slots_});
        decide(c);
        BdptControl* k = control_.data();
        exec_.compactingFor("bdpt regenerate", ItemCount{slots_, nullptr},
                            bdpt::RegenerateStage<C>{c, eyeWalks(cur), lightWalks(cur), cur, {&k->regenerated}});
        exec_.parallelFor("bdpt bookkeeping", 1, bdpt::RegenerateBookkeepingStage<C>{c, cur});
        BdptControl now;
        exec_.download(&now, k, 1);
        return now;
    }
    static int walking(const BdptControl& k, int buffer) { return k.eyeCount[buffer] + k.lightCount[buffer]; }

    template <class C, class Decide, class Steer>
    void streamingLoop(const C& c, const Decide& decide, const Steer& steer) {
        exec_.fill(status_.data(), 0, slots_);  // every slot starts complete, with no connections
        exec_.fill(eyeStored_.data(), 0, slots_);
        exec_.fill(lightStored_.data(), 0, slots_);
        BdptControl* k = control_.data();
        int cur = 0;
        // The first phase only fills the slots: nothing is complete yet, so nothing to decide.
        BdptControl now = connectPhase(c, cur, [](const C&) {});
        ControlPoll<Exec, BdptControl> poll(exec_, k);
        for (;;) {
            // Right after a connect phase: if nothing runs, the render ends unless the host adds work.
            while (walking(now, cur) == 0) {
                if (!steer(now, true)) return;
                now = connectPhase(c, cur, decide);
            }
            poll.post();  // a snapshot after the phase
            int postedBuffer = cur;
            // Between connect phases walks only end, so the last counts the host has seen bound
            // the grids: a phase's last iterations, with few walks left, launch few blocks.
            int eyeBound = now.eyeCount[cur], lightBound = now.lightCount[cur];
            for (;;) {
                exec_.parallelFor("bdpt bookkeeping", 1, bdpt::WalkBookkeepingStage<C>{c, cur});
                ItemCount eyes{eyeBound, &k->eyeCount[cur]}, lights{lightBound, &k->lightCount[cur]};
                exec_.parallelFor("bdpt extend", eyes, bdpt::ExtendStage<C>{c, eyeWalks(cur), eyeHits_.data()});
                exec_.parallelFor("bdpt extend", lights, bdpt::ExtendStage<C>{c, lightWalks(cur), lightHits_.data()});
                exec_.compactingFor("bdpt shade", eyes,
                                    bdpt::ShadeStage<true, C>{c, eyeWalks(cur), eyeHits_.data(), eyeWalks(cur ^ 1),
                                                              shadow(), {&k->eyeCount[cur ^ 1], &k->shadowCount},
                                                              coalesced_});
                exec_.compactingFor("bdpt shade", lights,
                                    bdpt::ShadeStage<false, C>{c, lightWalks(cur), lightHits_.data(), lightWalks(cur ^ 1),
                                                               shadow(), {&k->lightCount[cur ^ 1], &k->shadowCount},
                                                               coalesced_});
                exec_.parallelFor("bdpt trace", ItemCount{eyeBound + lightBound, &k->shadowCount},
                                  bdpt::TraceStage<C>{c, shadow()});
                cur ^= 1;
                // The decision uses the control block of the previous iteration (read asynchronously
                // while this one runs), so the host never stalls the GPU inside the walk phase.
                BdptControl seen;
                poll.take(seen);
                int seenBuffer = postedBuffer;
                poll.post();
                postedBuffer = cur;
                steer(seen, false);
                eyeBound = std::min(eyeBound, seen.eyeCount[seenBuffer]);
                lightBound = std::min(lightBound, seen.lightCount[seenBuffer]);
                if (walking(seen, seenBuffer) == 0 || double(seen.complete) >= double(threshold_) * seen.activeSlots) break;
            }
            now = connectPhase(c, cur, decide);
            steer(now, false);
        }
    }

    Exec& exec_;
    BdptVariant variant_;
    int slots_;
    float threshold_;
    bool coalesced_;
    Buffer<BdptControl> control_;
    Buffer<unsigned long long> simd_;
    Buffer<PathVertex> eyeVertices_, lightVertices_;
    Buffer<Float4> eyeWalkWords_[2], lightWalkWords_[2];
    Buffer<Hit> eyeHits_, lightHits_;
    Buffer<Float4> shadowWords_;
    Buffer<std::uint64_t> slotSample_;
    Buffer<int> eyeStored_, lightStored_, status_, counts_, prefix_;
    std::uint64_t extensionRays_ = 0, shadowRays_ = 0, connections_ = 0, connectPhases_ = 0;
};

}  // namespace wavefront
