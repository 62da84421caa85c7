// VCM's stages (vcm.h), one thread per subpath: the light pass (walks, t = 1 splats, the light
// vertex cache), the hash grid's build (a bucket key per cached vertex, sorted by the driver,
// then each bucket's range), and the eye pass (walks with s = 0 and s = 1, connections to the
// sample's own light subpath, merges). The driver that launches them is
// host/integrators/vcm_driver.h.
#pragma once
#include <cstdint>

#include "kernels/bdpt/bdpt_stages.h"
#include "kernels/vcm/vcm.h"

namespace wavefront {

/// Counters of a VCM render, in exec memory.
struct VcmCounters {
    unsigned long long extensionRays, shadowRays, connections, merges;
};

enum VcmSimdKernel : int { kVcmLightWalk = 0, kVcmEyeWalk, kVcmSimdKernelCount };
inline const char* vcmSimdLabel(int kernel) {
    static const char* labels[] = {"vcm light pass", "vcm eye pass"};
    return labels[kernel];
}

namespace vcm {

/// An iteration's light vertex cache: light subpath j keeps its vertices at
/// vertices[j * stride + k], k < count[j] (stride = BdptParams::storedVertices()), and their dVM
/// beside them.
struct LightCache {
    PathVertex* vertices;
    float* dVM;
    int* count;
    int stride;
};

/// One light subpath per thread: light subpath j of the iteration is sample `firstLight + j`
/// (light dimensions only). Its t = 1 splats go to the film only when the eye sample that owns
/// them (the iteration's eye sample j mod the pass size) is in [splatBegin, splatEnd): a render
/// of part of an iteration traces every light subpath for the cache but splats only its own.
template <class C>
struct LightStage {
    static constexpr int kBlockSize = kTraversalBlock;
    C c;
    LightCache cache;
    VcmCounters* counters;
    std::uint64_t firstLight, firstEye, splatBegin, splatEnd;
    WF_CPU_GPU void operator()(int j) const {
        c.simd.entry(kVcmLightWalk).sample();
        const std::uint64_t owner = firstEye + std::uint64_t(j) % std::uint64_t(c.params.numPixels);
        const bool splats = owner >= splatBegin && owner < splatEnd;
        unsigned extension = 0, shadowRays = 0;
        WalkState w = startLightWalk<typename C::Materials>(c.scene, c.params, c.sampler, firstLight + std::uint64_t(j), j);
        int stored = 0;
        for (;;) {
            Hit hit = traceWalk(c, w, c.simd.steps(kVcmLightWalk));
            if (!isBlack(w.throughput.xyz())) ++extension;
            WalkOutput o = shadeLightVertex<typename C::Materials>(c.scene, c.params, c.sampler, w, hit);
            if (o.hasShadow && splats) {
                ++shadowRays;
                traceToSink(c, o.shadow, c.simd.steps(kVcmLightWalk));
            }
            if (o.hasVertex) {
                const std::size_t at = std::size_t(j) * std::size_t(cache.stride) + std::size_t(o.vertexIndex);
                cache.vertices[at] = o.vertex;
                cache.dVM[at] = o.vertexDVM;
            }
            stored = o.storedCount;
            if (!o.hasNext) break;
            w = o.next;
        }
        cache.count[j] = stored;
        addToCounter(&counters->extensionRays, extension);
        addToCounter(&counters->shadowRays, shadowRays);
    }
};

/// The grid's sort key of every cache entry: its bucket, or `unused` (past every bucket) for
/// entries a subpath did not fill.
struct GridKeyStage {
    LightCache cache;
    MergeGrid grid;
    std::uint64_t unused;
    std::uint64_t* keys;
    std::uint32_t* values;
    WF_CPU_GPU void operator()(int i) const {
        const int j = i / cache.stride, k = i % cache.stride;
        values[i] = std::uint32_t(i);
        keys[i] = k < cache.count[j] ? std::uint64_t(grid.bucketOf(cache.vertices[i].position.xyz())) : unused;
    }
};

/// After the sort: each bucket's range of sorted entries (buckets left out stay empty).
struct BucketRangeStage {
    const std::uint64_t* keys;
    int n;
    std::uint64_t unused;
    std::uint32_t* begin;
    std::uint32_t* end;
    WF_CPU_GPU void operator()(int i) const {
        const std::uint64_t key = keys[i];
        if (key == unused) return;
        if (i == 0 || keys[i - 1] != key) begin[key] = std::uint32_t(i);
        if (i == n - 1 || keys[i + 1] != key) end[key] = std::uint32_t(i + 1);
    }
};

/// One eye subpath per thread: sample `first + i` of the iteration that starts at `firstEye`,
/// paired with light subpath (sample - firstEye) mod the light path count for connections.
template <class C>
struct EyeStage {
    static constexpr int kBlockSize = kTraversalBlock;
    C c;
    LightCache cache;
    MergeGrid grid;
    VcmCounters* counters;
    std::uint64_t firstEye, first;
    int lightPaths;
    WF_CPU_GPU void operator()(int i) const {
        c.simd.entry(kVcmEyeWalk).sample();
        const std::uint64_t work = first + std::uint64_t(i);
        const std::uint64_t s = c.sampler.startSample(i, work);  // a crop's work index names a frame sample
        const int slot = int(work - firstEye);
        const int pixel = c.sampler.pixelIndex(s, c.scene.width, c.scene.height);
        c.sink.beginSample(slot, pixel, 1.0f);
        const int j = slot % lightPaths;
        const PathVertex* own = cache.vertices + std::size_t(j) * std::size_t(cache.stride);
        const int ownCount = cache.count[j];
        unsigned extension = 0, shadowRays = 0, connections = 0, merges = 0;
        WalkState w = startEyeWalk(c.scene, c.params, c.sampler, s, slot);
        for (;;) {
            Hit hit = traceWalk(c, w, c.simd.steps(kVcmEyeWalk));
            if (!isBlack(w.throughput.xyz())) ++extension;
            WalkOutput o = shadeEyeVertex<typename C::Materials>(c.scene, c.params, c.sampler, c.sink, w, hit);
            if (o.hasShadow) {
                ++shadowRays;
                traceToSink(c, o.shadow, c.simd.steps(kVcmEyeWalk));
            }
            if (o.hasVertex) {
                if (c.params.connecting)
                    for (int b = 0; b < ownCount; ++b) {
                        ShadowRay r;
                        if (!connectVertices<typename C::Materials>(c.scene, c.params, o.vertex, bdpt::loadVertex(own + b),
                                                                    pixel, slot, r))
                            continue;
                        ++connections;
                        traceToSink(c, r, c.simd.steps(kVcmEyeWalk));
                    }
                vec3 m = mergeLightVertices<typename C::Materials>(c.scene, c.params, grid, o.vertex, o.vertexDVM,
                                                                   cache.vertices, cache.dVM, merges);
                if (!isBlack(m)) c.sink.deposit(slot, pixel, o.vertex.throughput.xyz() * m * grid.normalization);
                if (grid.firstHitOnly) break;
            }
            if (!o.hasNext) break;
            w = o.next;
        }
        addToCounter(&counters->extensionRays, extension);
        addToCounter(&counters->shadowRays, shadowRays + connections);
        addToCounter(&counters->connections, connections);
        addToCounter(&counters->merges, merges);
    }
};

}  // namespace vcm

}  // namespace wavefront
