// Path-tracer drivers: the four scheduling variants of van Antwerpen (2011), section 4, over one
// estimator (path_tracer.h). Templates over the exec type; instantiated for CpuExec and CudaExec.
#pragma once
#include <algorithm>
#include <vector>

#include "kernels/path_tracer.h"
#include "kernels/schedule.h"
#include "kernels/stream.h"

namespace wavefront {

/// Device-resident control block of a streaming render: counters that kernels read and write,
/// so no stream size travels to the host inside the render loop.
struct StreamControl {
    int pathCount[2];                 ///< items in each path buffer (ping-pong)
    int shadowCount;                  ///< items in the shadow-ray (connection) stream
    int done;                         ///< set by bookkeeping when all samples are finished
    WorkRange work;                   ///< global sample indices still to generate
    unsigned long long extensionRays;
    unsigned long long shadowRays;
    unsigned long long alive;         ///< PT+R: paths in flight
};

/// Kernels whose SIMD efficiency is counted. Each has two counter slots: occupancy (the paper's
/// Table 1 measure: lanes of a warp holding live work when the stage starts on it; for the
/// megakernel, at the start of every bounce) and steps (lanes active at every traversal step, the
/// instruction-level figure that Nsight Compute's threads-per-instruction ratio also reflects).
enum SimdKernel : int { kSimdGenerate = 0, kSimdExtend, kSimdShade, kSimdConnect, kSimdMegakernel, kSimdKernelCount };
inline const char* simdKernelLabel(int kernel) {
    static const char* labels[] = {"generate", "extend", "shade", "connect", "megakernel"};
    return labels[kernel];
}
static_assert(2 * kSimdKernelCount <= kSimdSlots, "two counter slots per kernel");

namespace pt {

struct Common {
    SceneView scene;
    PtParams params;
    FilmView film;
    StreamControl* control;
    SimdCounters simd;
};


/// Starts a camera path for sample s in `slot`.
WF_CPU_GPU WF_INLINE void startPath(const Common& c, const SoaView<PathState>& paths, int slot, std::uint64_t s) {
    paths.store(slot, generateCameraPath(c.scene, c.params, s));
    c.film.countSample(pixelOfSample(s, c.params.numPixels));
}

/// SPT+R / SPT: fills [pathCount, capacity) with new samples, side by side at the end of the
/// compacted stream (SPT: only when the stream has drained).
struct RegenerateStage {
    Common c;
    SoaView<PathState> paths;
    int buffer;
    bool onlyWhenEmpty;
    WF_CPU_GPU void operator()(int i) const {
        int n = c.control->pathCount[buffer];
        if (i < n || (onlyWhenEmpty && n > 0)) return;
        c.simd.entry(kSimdGenerate).sample();
        std::uint64_t s = c.control->work.next + std::uint64_t(i - n);
        if (s < c.control->work.end) startPath(c, paths, i, s);
    }
};

/// One thread: advances the counters after regeneration and resets the output streams.
struct BookkeepingStage {
    Common c;
    int buffer;
    int capacity;
    bool onlyWhenEmpty;
    WF_CPU_GPU void operator()(int) const {
        StreamControl& k = *c.control;
        int n = k.pathCount[buffer];
        unsigned long long remaining = k.work.end > k.work.next ? k.work.end - k.work.next : 0;
        unsigned long long room = (onlyWhenEmpty && n > 0) ? 0 : (unsigned long long)(capacity - n);
        int added = int(remaining < room ? remaining : room);
        k.pathCount[buffer] = n + added;
        k.work.next += added;
        k.extensionRays += (unsigned long long)(n + added);
        k.shadowRays += (unsigned long long)k.shadowCount;  // connected in the previous iteration
        k.shadowCount = 0;
        k.pathCount[buffer ^ 1] = 0;
        k.done = (n + added == 0) ? 1 : 0;
    }
};

struct ExtendStage {
    Common c;
    SoaView<PathState> paths;
    Hit* hits;
    WF_CPU_GPU void operator()(int i) const {
        c.simd.entry(kSimdExtend).sample();
        PathState p = paths.load(i);
        Ray r{p.origin.xyz(), p.direction.xyz(), FLT_MAX};
        hits[i] = traverse<false>(c.scene.bvh, r, c.simd.steps(kSimdExtend));
    }
};

/// Shade with compaction at write time: continued paths go to the other path buffer, shadow
/// rays to the connection stream (exec.compactingFor reserves space once per block).
struct ShadeStage {
    static constexpr int kStreams = 2;
    using Output = ShadeOutput;
    Common c;
    SoaView<PathState> in;
    const Hit* hits;
    SoaView<PathState> outPaths;
    SoaView<ShadowRay> outShadow;
    int* outCounter[kStreams];
    WF_CPU_GPU Output evaluate(int i) const {
        c.simd.entry(kSimdShade).sample();
        return shadePath(c.scene, c.params, c.film, in.load(i), hits[i]);
    }
    WF_CPU_GPU void emit(int stream, int slot, const Output& o, int) const {
        if (stream == ShadeOutput::kExtension) outPaths.store(slot, o.next);
        else outShadow.store(slot, o.shadow);
    }
};

struct ConnectStage {
    Common c;
    SoaView<ShadowRay> shadow;
    WF_CPU_GPU void operator()(int i) const {
        c.simd.entry(kSimdConnect).sample();
        traceShadowRay(c.scene, c.film, shadow.load(i), c.simd.steps(kSimdConnect));
    }
};

// ---- PT+R: fixed-length stream, in-place regeneration (Novak et al. 2010) --------------------

struct InPlaceRegenerateStage {
    Common c;
    SoaView<PathState> paths;
    int* alive;
    WF_CPU_GPU void operator()(int i) const {
        if (alive[i]) return;
        c.simd.entry(kSimdGenerate).sample();
        // Each idle slot takes the next sample on its own: the samples a warp regenerates are
        // scattered over the image, which is what costs PT+R its primary-ray coherence.
        std::uint64_t s = atomicFetchAdd(&c.control->work.next, 1ull);
        if (s >= c.control->work.end) return;
        startPath(c, paths, i, s);
        alive[i] = 1;
        atomicFetchAdd(&c.control->alive, 1ull);
    }
};

struct InPlaceExtendStage {
    Common c;
    SoaView<PathState> paths;
    const int* alive;
    Hit* hits;
    WF_CPU_GPU void operator()(int i) const {
        if (!alive[i]) return;
        addToCounter(&c.control->extensionRays, 1u);
        c.simd.entry(kSimdExtend).sample();
        PathState p = paths.load(i);
        Ray r{p.origin.xyz(), p.direction.xyz(), FLT_MAX};
        hits[i] = traverse<false>(c.scene.bvh, r, c.simd.steps(kSimdExtend));
    }
};

struct InPlaceShadeStage {
    Common c;
    SoaView<PathState> paths;
    int* alive;
    const Hit* hits;
    SoaView<ShadowRay> shadow;  ///< one slot per path; tMax < 0 marks "no shadow ray"
    WF_CPU_GPU void operator()(int i) const {
        ShadowRay none;
        none.direction.w = -1.0f;
        if (!alive[i]) {
            shadow.store(i, none);
            return;
        }
        c.simd.entry(kSimdShade).sample();
        ShadeOutput o = shadePath(c.scene, c.params, c.film, paths.load(i), hits[i]);
        shadow.store(i, o.hasShadow ? o.shadow : none);
        if (o.hasNext) {
            paths.store(i, o.next);
        } else {
            alive[i] = 0;
            atomicFetchAdd(&c.control->alive, ~0ull);  // decrement (two's complement)
        }
    }
};

struct InPlaceConnectStage {
    Common c;
    SoaView<ShadowRay> shadow;
    WF_CPU_GPU void operator()(int i) const {
        ShadowRay s = shadow.load(i);
        if (s.direction.w < 0.0f) return;
        addToCounter(&c.control->shadowRays, 1u);
        c.simd.entry(kSimdConnect).sample();
        traceShadowRay(c.scene, c.film, s, c.simd.steps(kSimdConnect));
    }
};

struct InPlaceBookkeepingStage {
    Common c;
    WF_CPU_GPU void operator()(int) const {
        StreamControl& k = *c.control;
        k.done = (k.alive == 0 && k.work.next >= k.work.end) ? 1 : 0;
    }
};

// ---- Megakernel: one thread runs a whole path ------------------------------------------------

struct MegakernelStage {
    Common c;
    std::uint64_t firstSample;
    WF_CPU_GPU void operator()(int i) const {
        std::uint64_t s = firstSample + std::uint64_t(i);
        PathState path = generateCameraPath(c.scene, c.params, s);
        c.film.countSample(pixelOfSample(s, c.params.numPixels));
        unsigned extension = 0, shadowRays = 0;
        for (;;) {
            c.simd.entry(kSimdMegakernel).sample();  // lanes whose path is still alive at this bounce
            Ray r{path.origin.xyz(), path.direction.xyz(), FLT_MAX};
            Hit hit = traverse<false>(c.scene.bvh, r, c.simd.steps(kSimdMegakernel));
            ++extension;
            ShadeOutput o = shadePath(c.scene, c.params, c.film, path, hit);
            if (o.hasShadow) {
                ++shadowRays;
                traceShadowRay(c.scene, c.film, o.shadow, c.simd.steps(kSimdMegakernel));
            }
            if (!o.hasNext) break;
            path = o.next;
        }
        addToCounter(&c.control->extensionRays, extension);
        addToCounter(&c.control->shadowRays, shadowRays);
    }
};

struct ResetControlStage {
    StreamControl* control;
    unsigned long long firstSample, endSample;
    WF_CPU_GPU void operator()(int) const {
        StreamControl k{};
        k.work = WorkRange{firstSample, endSample};
        *control = k;
    }
};

}  // namespace pt

/// Bytes of stream state per sample slot for a variant (film excluded): Table 6 of the paper.
inline std::size_t ptBytesPerSlot(PtVariant v) {
    switch (v) {
    case PtVariant::Megakernel: return 0;  // state lives in registers
    case PtVariant::PtR: return sizeof(PathState) + sizeof(Hit) + sizeof(ShadowRay) + sizeof(int);
    default: return 2 * sizeof(PathState) + sizeof(Hit) + sizeof(ShadowRay);
    }
}

/// Runs the path tracer over a range of global sample indices.
template <class Exec>
class PathTracerDriver {
public:
    PathTracerDriver(Exec& exec, PtVariant variant, int capacity) : exec_(exec), variant_(variant), capacity_(capacity) {
        control_ = exec_.template allocate<StreamControl>(1);
        simd_ = exec_.template allocate<unsigned long long>(2 * kSimdSlots);
        exec_.fill(simd_.data(), 0ull, 2 * kSimdSlots);
        if (variant_ == PtVariant::Megakernel) return;
        int buffers = variant_ == PtVariant::PtR ? 1 : 2;
        for (int b = 0; b < buffers; ++b) pathWords_[b] = exec_.template allocate<Float4>(std::size_t(3) * capacity_);
        shadowWords_ = exec_.template allocate<Float4>(std::size_t(3) * capacity_);
        hits_ = exec_.template allocate<Hit>(capacity_);
        if (variant_ == PtVariant::PtR) alive_ = exec_.template allocate<int>(capacity_);
    }

    /// Renders samples [first, first + count) into the film, asking `budget.check(done)` now and
    /// then (done: samples handed out so far); the budget can end the render early at a pass
    /// boundary of `params.numPixels` samples or at once. Returns the samples rendered.
    template <class Budget>
    std::uint64_t render(const SceneView& scene, const PtParams& params, const FilmView& film, std::uint64_t first,
                         std::uint64_t count, Budget& budget) {
        pt::Common c{scene, params, film, control_.data(), {simd_.data()}};
        exec_.parallelFor("reset control", 1, pt::ResetControlStage{control_.data(), first, first + count});
        WorkSteering steering(first, std::uint64_t(params.numPixels));
        std::uint64_t chunked = 0;
        switch (variant_) {
        case PtVariant::Megakernel: chunked = renderMegakernel(c, first, count, budget); break;
        case PtVariant::PtR: renderInPlace(c, first, steering, budget); break;
        case PtVariant::Spt: renderStreaming(c, true, first, steering, budget); break;
        case PtVariant::SptR: renderStreaming(c, false, first, steering, budget); break;
        }
        exec_.synchronize();
        StreamControl k;
        exec_.download(&k, control_.data(), 1);
        extensionRays_ += k.extensionRays;
        shadowRays_ += k.shadowRays;
        return variant_ == PtVariant::Megakernel ? chunked : std::min(k.work.next, k.work.end) - first;
    }

    std::uint64_t extensionRays() const { return extensionRays_; }
    std::uint64_t shadowRays() const { return shadowRays_; }
    /// Average active-lane fraction per counter slot (negative where nothing was sampled);
    /// slot 2k is kernel k's occupancy, 2k + 1 its per-step figure.
    std::vector<double> simdEfficiency() {
        std::vector<unsigned long long> raw(2 * kSimdSlots);
        exec_.download(raw.data(), simd_.data(), raw.size());
        std::vector<double> r(kSimdSlots);
        for (int s = 0; s < kSimdSlots; ++s) r[s] = simdFraction(raw, {s});
        return r;
    }
    int capacity() const { return capacity_; }

private:
    SoaView<PathState> paths(int b) const { return SoaView<PathState>{pathWords_[b].data(), capacity_}; }
    SoaView<ShadowRay> shadow() const { return SoaView<ShadowRay>{shadowWords_.data(), capacity_}; }

    /// Polls the control block every few iterations without stalling the GPU (ControlPoll), asks
    /// the budget and steers the work range; true once the render has finished. Once a snapshot
    /// shows every sample handed out, paths only end: its counts bound the grids (`live`), so the
    /// drain at the end of a render launches few blocks.
    template <class Budget>
    bool finished(int iteration, ControlPoll<Exec, StreamControl>& poll, std::uint64_t first, WorkSteering& steering,
                  Budget& budget, int& live) {
        constexpr int kPollEvery = 4;
        if (iteration % kPollEvery != kPollEvery - 1) return false;
        StreamControl k;
        bool have = poll.take(k);
        poll.post();
        if (!have) return false;
        if (k.done) return true;
        if (k.work.next >= k.work.end) live = std::min(live, std::max(k.pathCount[0], k.pathCount[1]));
        steering.apply(exec_, &control_.data()->work, budget.check(std::min(k.work.next, k.work.end) - first));
        return false;
    }

    template <class Budget>
    void renderStreaming(const pt::Common& c, bool onlyWhenEmpty, std::uint64_t first, WorkSteering& steering,
                         Budget& budget) {
        int cur = 0, bound = capacity_;
        StreamControl* k = control_.data();
        ControlPoll<Exec, StreamControl> poll(exec_, k);
        for (int iteration = 0;; ++iteration) {
            exec_.parallelFor("generate", bound, pt::RegenerateStage{c, paths(cur), cur, onlyWhenEmpty});
            exec_.parallelFor("bookkeeping", 1, pt::BookkeepingStage{c, cur, capacity_, onlyWhenEmpty});
            ItemCount live{bound, &k->pathCount[cur]};
            exec_.parallelFor("extend", live, pt::ExtendStage{c, paths(cur), hits_.data()});
            pt::ShadeStage shade{c, paths(cur), hits_.data(), paths(cur ^ 1), shadow(), {&k->pathCount[cur ^ 1], &k->shadowCount}};
            exec_.compactingFor("shade", live, shade);
            exec_.parallelFor("connect", ItemCount{bound, &k->shadowCount}, pt::ConnectStage{c, shadow()});
            cur ^= 1;
            if (finished(iteration, poll, first, steering, budget, bound)) break;
        }
        // Drain: the last poll can see `done` only after a bookkeeping pass that found nothing.
    }

    template <class Budget>
    void renderInPlace(const pt::Common& c, std::uint64_t first, WorkSteering& steering, Budget& budget) {
        exec_.fill(alive_.data(), 0, capacity_);
        ControlPoll<Exec, StreamControl> poll(exec_, control_.data());
        for (int iteration = 0;; ++iteration) {
            exec_.parallelFor("generate", capacity_, pt::InPlaceRegenerateStage{c, paths(0), alive_.data()});
            exec_.parallelFor("extend", capacity_, pt::InPlaceExtendStage{c, paths(0), alive_.data(), hits_.data()});
            exec_.parallelFor("shade", capacity_, pt::InPlaceShadeStage{c, paths(0), alive_.data(), hits_.data(), shadow()});
            exec_.parallelFor("connect", capacity_, pt::InPlaceConnectStage{c, shadow()});
            exec_.parallelFor("bookkeeping", 1, pt::InPlaceBookkeepingStage{c});
            int fixedStream = capacity_;  // PT+R keeps its slots in place: no bound
            if (finished(iteration, poll, first, steering, budget, fixedStream)) break;
        }
    }

    /// One launch per `capacity` samples keeps launches short enough for progress reports.
    template <class Budget>
    std::uint64_t renderMegakernel(const pt::Common& c, std::uint64_t first, std::uint64_t count, Budget& budget) {
        return runChunked(exec_, count, std::uint64_t(capacity_), std::uint64_t(c.params.numPixels), budget,
                          [&](std::uint64_t offset, std::uint64_t n) {
                              exec_.parallelFor("megakernel", int(n), pt::MegakernelStage{c, first + offset});
                          });
    }

    Exec& exec_;
    PtVariant variant_;
    int capacity_;
    Buffer<StreamControl> control_;
    Buffer<unsigned long long> simd_;
    Buffer<Float4> pathWords_[2];
    Buffer<Float4> shadowWords_;
    Buffer<Hit> hits_;
    Buffer<int> alive_;
    std::uint64_t extensionRays_ = 0, shadowRays_ = 0;
};

}  // namespace wavefront
