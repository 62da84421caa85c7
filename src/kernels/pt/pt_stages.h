// The path tracer's stages (van Antwerpen 2011, section 4): what each kernel of the four
// schedules does to one item, over the estimator in path_tracer.h. The driver that launches them
// is host/integrators/pt_driver.h.
#pragma once
#include "kernels/core/launch.h"
#include "kernels/core/stream.h"
#include "kernels/core/work_range.h"
#include "kernels/pt/path_tracer.h"

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
    unsigned long long claimed;       ///< PT+R: samples of the current launch handed out
};

/// Kernels whose SIMD efficiency is counted. Each has two counter slots: occupancy (the paper's
/// Table 1 measure: lanes of a warp holding live work when the stage starts on it; for the
/// megakernel, at the start of every bounce) and steps (lanes active at every traversal step, the
/// instruction-level figure that Nsight Compute's threads-per-instruction ratio also reflects).
enum SimdKernel : int { kSimdGenerate = 0, kSimdExtend, kSimdShade, kSimdConnect, kSimdMegakernel, kSimdDrain, kSimdPersistent, kSimdKernelCount };
inline const char* simdKernelLabel(int kernel) {
    static const char* labels[] = {"generate", "extend", "shade", "connect", "megakernel", "drain", "persistent"};
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

/// The camera path of work index k (its global sample: HashSampler::startSample), counted in its
/// pixel: how every schedule starts a path.
WF_CPU_GPU WF_INLINE PathState startCameraPath(const Common& c, std::uint64_t k) {
    std::uint64_t s = c.params.sampler.startSample(0, k);
    PathState path = generateCameraPath(c.scene, c.params, s);
    c.film.countSample(pixelOfSample(c.scene, c.params, s));
    return path;
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
        if (s < c.control->work.end) paths.store(i, startCameraPath(c, s));
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

template <class Materials>
struct ExtendStage {
    static constexpr int kBlockSize = kTraversalBlock;
    Common c;
    SoaView<PathState> paths;
    Hit* hits;
    WF_CPU_GPU void operator()(int i) const {
        c.simd.entry(kSimdExtend).sample();
        PathState p = paths.load(i);
        Ray r{p.origin.xyz(), p.direction.xyz(), FLT_MAX};
        hits[i] = traceClosest<Materials>(c.scene, r, c.simd.steps(kSimdExtend));
    }
};

/// Shade with compaction at write time: continued paths go to the other path buffer, shadow
/// rays to the connection stream (exec.compactingFor reserves space once per block). The stages
/// that shade are compiled per material set (material_types.h).
template <class Materials, bool kNextEvent = true>
struct ShadeStage {
    static constexpr int kStreams = 2;
    /// 3 blocks of 256 (at most 85 registers): the occupancy PT shading has without the microfacet
    /// materials (76 registers) kept when they are compiled in (107 without a cap). Without NEE
    /// the kernel is smaller and 4 blocks (64 registers) win (rtiow-final spt-r -1.8% time; with
    /// NEE they lost 2.4%).
    static constexpr int kMinBlocksPerSm = kNextEvent ? 3 : 4;
    using Output = ShadeOutput;
    Common c;
    SoaView<PathState> in;
    const Hit* hits;
    SoaView<PathState> outPaths;
    SoaView<ShadowRay> outShadow;
    int* outCounter[kStreams];
    WF_CPU_GPU Output evaluate(int i) const {
        c.simd.entry(kSimdShade).sample();
        return shadePath<Materials, kNextEvent>(c.scene, c.params, c.film, in.load(i), hits[i]);
    }
    WF_CPU_GPU void emit(int stream, int slot, const Output& o, int) const {
        if (stream == ShadeOutput::kExtension) outPaths.store(slot, o.next);
        else outShadow.store(slot, o.shadow);
    }
};

template <class Materials>
struct ConnectStage {
    static constexpr int kBlockSize = kTraversalBlock;
    Common c;
    SoaView<ShadowRay> shadow;
    WF_CPU_GPU void operator()(int i) const {
        c.simd.entry(kSimdConnect).sample();
        traceShadowRay<Materials>(c.scene, c.film, shadow.load(i), c.simd.steps(kSimdConnect));
    }
};

// ---- Megakernel: one thread runs a whole path ------------------------------------------------

/// One thread runs `path` to its end: trace, shade, trace the shadow ray, continue. The
/// megakernel's body and the streaming schedules' drain. Counts the traversals and shadow rays.
template <class Materials, bool kNextEvent, int kSimdKernel>
WF_CPU_GPU WF_INLINE void tracePathToEnd(const Common& c, PathState path, unsigned& extension, unsigned& shadowRays) {
    for (;;) {
        c.simd.entry(kSimdKernel).sample();  // lanes whose path is still alive at this bounce
        Ray r{path.origin.xyz(), path.direction.xyz(), FLT_MAX};
        Hit hit = traceClosest<Materials>(c.scene, r, c.simd.steps(kSimdKernel));
        ++extension;
        ShadeOutput o = shadePath<Materials, kNextEvent>(c.scene, c.params, c.film, path, hit);
        if (o.hasShadow) {
            ++shadowRays;
            traceShadowRay<Materials>(c.scene, c.film, o.shadow, c.simd.steps(kSimdKernel));
        }
        if (!o.hasNext) break;
        path = o.next;
    }
}

/// Launch shape of the kernels that run whole paths (MegakernelStage, DrainStage): blocks of 64
/// threads, since a block holds its registers until its longest path ends, so smaller blocks give
/// them back sooner (against 256: rtiow-final 9.58 -> 9.42 ms, cornell-box +6%, mesh-1m +11%); 64
/// registers (16 blocks per SM), where the spills cost less than the occupancy gains (72
/// registers: rtiow-final equal with NEE off, 9% slower with it on, the other scenes 4-9% slower;
/// 56: rtiow-final 25% slower). results/h100.md.
constexpr int kWholePathBlock = 64;
constexpr int kWholePathBlocksPerSm = 16;

template <class Materials, bool kNextEvent = true>
struct MegakernelStage {
    static constexpr int kBlockSize = kWholePathBlock;
    static constexpr int kMinBlocksPerSm = kWholePathBlocksPerSm;
    Common c;
    std::uint64_t firstSample;
    WF_CPU_GPU void operator()(int i) const {
        std::uint64_t s = firstSample + std::uint64_t(i);
        PathState path = startCameraPath(c, s);
        unsigned extension = 0, shadowRays = 0;
        tracePathToEnd<Materials, kNextEvent, kSimdMegakernel>(c, path, extension, shadowRays);
        addToCounter(&c.control->extensionRays, extension);
        addToCounter(&c.control->shadowRays, shadowRays);
    }
};

/// The end of a streaming render: once every sample is handed out and few paths are left, one
/// launch runs each of them to its end, where each bounce took three launches over a nearly empty
/// stream (the drain was 48 of the 84 iterations of an rtiow-final frame). The bookkeeping launch
/// before it counted each path's next traversal.
template <class Materials, bool kNextEvent = true>
struct DrainStage {
    static constexpr int kBlockSize = kWholePathBlock;
    static constexpr int kMinBlocksPerSm = kWholePathBlocksPerSm;
    Common c;
    SoaView<PathState> paths;
    WF_CPU_GPU void operator()(int i) const {
        unsigned extension = 0, shadowRays = 0;
        tracePathToEnd<Materials, kNextEvent, kSimdDrain>(c, paths.load(i), extension, shadowRays);
        addToCounter(&c.control->extensionRays, extension - 1);  // the first was counted already
        addToCounter(&c.control->shadowRays, shadowRays);
    }
};

// ---- PT+R: persistent threads, a new path as soon as one ends (Novak et al. 2010) -------------

/// PT+R as its authors ran it: as many threads as the GPU keeps resident (CudaExec::
/// residentThreads), each looping trace and shade, and starting the next sample of the launch as
/// soon as its own path ends. Unlike the megakernel, a warp does not wait for its longest path:
/// lanes whose paths ended take new ones at the next bounce. Unlike the streaming schedules, the
/// path state stays in registers. Samples are handed out in order, one warp-aggregated atomic per
/// bounce for the lanes that need one, so the paths a warp starts together are neighbours.
/// The bounce is written out here as in tracePathToEnd, on purpose (H100, sm_90; branch
/// `shared-loop`): the bounce as a shared function raised the drain's spills from 24 to 40 bytes,
/// and one loop that asks for a next path left the megakernel and the drain as they are but made
/// this stage 3% slower on rtiow-final without NEE (5.87 against 5.71 ms).
template <class Materials, bool kNextEvent = true>
struct PersistentRegenerateStage {
    static constexpr int kBlockSize = kWholePathBlock;
    static constexpr int kMinBlocksPerSm = kWholePathBlocksPerSm;
    Common c;
    std::uint64_t firstSample;  ///< this launch runs samples [firstSample, firstSample + count)
    std::uint64_t count;
    WF_CPU_GPU void operator()(int) const {
        unsigned extension = 0, shadowRays = 0;
        PathState path;
        bool live = false;
        for (;;) {
            if (!live) {
                std::uint64_t k = claimNext(&c.control->claimed);
                if (k >= count) break;
                path = startCameraPath(c, firstSample + k);
                live = true;
            }
            c.simd.entry(kSimdPersistent).sample();
            Ray r{path.origin.xyz(), path.direction.xyz(), FLT_MAX};
            Hit hit = traceClosest<Materials>(c.scene, r, c.simd.steps(kSimdPersistent));
            ++extension;
            ShadeOutput o = shadePath<Materials, kNextEvent>(c.scene, c.params, c.film, path, hit);
            if (o.hasShadow) {
                ++shadowRays;
                traceShadowRay<Materials>(c.scene, c.film, o.shadow, c.simd.steps(kSimdPersistent));
            }
            live = o.hasNext;
            if (live) path = o.next;
        }
        addToCounter(&c.control->extensionRays, extension);
        addToCounter(&c.control->shadowRays, shadowRays);
    }
};

}  // namespace pt

}  // namespace wavefront
