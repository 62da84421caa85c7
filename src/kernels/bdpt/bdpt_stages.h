// BDPT's stages (van Antwerpen 2011, section 5): regeneration, one walk step, the s = 1 / t = 1
// shadow rays, the connect phase (Algorithm 1) and the naive one-thread-per-sample baseline, over
// the estimator in bdpt.h and any sampler and sink (MLT runs them too). The driver that launches
// them is host/integrators/bdpt_driver.h.
#pragma once
#include <algorithm>

#include "kernels/bdpt/bdpt.h"
#include "kernels/core/launch.h"
#include "kernels/core/stream.h"
#include "kernels/core/work_range.h"

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
/// records for MLT), the per-slot sample records and the stored subpaths. `MaterialSet`: the
/// material kinds the shading stages are compiled for (material_types.h).
template <class Sampler, class Sink, class MaterialSet = AllMaterials>
struct Context {
    using Materials = MaterialSet;
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

/// A walk with zero throughput (a failed light start, a walk the sample's one strategy does not
/// use) is not traced: its shading ends it at once.
template <class C>
WF_CPU_GPU WF_INLINE Hit traceWalk(const C& c, const WalkState& w, const SimdProbe& probe) {
    if (isBlack(w.throughput.xyz())) return Hit{0.0f, -1};
    return traceClosest<typename C::Materials>(c.scene, Ray{w.origin.xyz(), w.direction.xyz(), FLT_MAX}, probe);
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
        c.sink.beginSample(i, c.sampler.pixelIndex(s, c.scene.width, c.scene.height),
                           c.sampler.strategy(s, c.params.maxDepth).scale);
        eyeWalks.store(k0.eyeCount[buffer] + k, startEyeWalk(c.scene, c.params, c.sampler, s, i));
        lightWalks.store(k0.lightCount[buffer] + k, startLightWalk<typename C::Materials>(c.scene, c.params, c.sampler, s, i));
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
    static constexpr int kBlockSize = kTraversalBlock;
    C c;
    SoaView<WalkState> walks;
    Hit* hits;
    WF_CPU_GPU void operator()(int i) const {
        c.simd.entry(kBdptExtend).sample();
        WalkState w = walks.load(i);
        if (!isBlack(w.throughput.xyz())) addToCounter(&c.control->extensionRays, 1u);
        hits[i] = traceWalk(c, w, c.simd.steps(kBdptExtend));
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
        WalkOutput o = kEye ? shadeEyeVertex<typename C::Materials>(c.scene, c.params, c.sampler, c.sink, w, hits[i])
                            : shadeLightVertex<typename C::Materials>(c.scene, c.params, c.sampler, w, hits[i]);
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

/// Traces a shadow ray and hands what is visible to the sink (times the media's transmittance).
template <class C>
WF_CPU_GPU WF_INLINE void traceToSink(const C& c, const ShadowRay& r, const SimdProbe& probe) {
    vec3 T = shadowRayTransmittance<typename C::Materials>(c.scene, r, probe);
    if (!isBlack(T)) c.sink.deposit(r.slot(), r.pixel(), r.contribution.xyz() * T);
}

/// Traces the s = 1 and t = 1 shadow rays of an iteration and deposits (splats) what is visible.
template <class C>
struct TraceStage {
    static constexpr int kBlockSize = kTraversalBlock;
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
        if (!connectVertices<typename C::Materials>(c.scene, c.params, e, l, pixel, slot, r)) return;
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
            if (!isBlack(w.throughput.xyz())) ++extension;
            c.sampler.useVertex(kEye, w.sampleIndex(), w.depth());
            WalkOutput o = kEye ? shadeEyeVertex<typename C::Materials>(c.scene, c.params, c.sampler, c.sink, w, hit)
                                : shadeLightVertex<typename C::Materials>(c.scene, c.params, c.sampler, w, hit);
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
        c.sink.beginSample(i, pixel, c.sampler.strategy(s, c.params.maxDepth).scale);
        unsigned extension = 0, shadowRays = 0, connections = 0;
        int nEye = walk<true>(startEyeWalk(c.scene, c.params, c.sampler, s, i), extension, shadowRays);
        int nLight = walk<false>(startLightWalk<typename C::Materials>(c.scene, c.params, c.sampler, s, i), extension, shadowRays);
        for (int a = 0; a < nEye; ++a)
            for (int b = 0; b < nLight; ++b) {
                c.simd.entry(kBdptNaiveConnect).sample();
                ShadowRay r;
                if (!connectVertices<typename C::Materials>(c.scene, c.params, *c.vertexAddress(true, i, a), *c.vertexAddress(false, i, b),
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

}  // namespace bdpt

}  // namespace wavefront
