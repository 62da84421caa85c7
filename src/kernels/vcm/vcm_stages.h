// VCM's stages (vcm.h) on two schedules. Naive (the baseline): one thread walks a whole light
// subpath (LightStage) or eye subpath with its connections and merges (EyeStage). Streaming (the
// default; van Antwerpen 2011, section 5, as BDPT's): the walks of a pass are compacted streams,
// one extend and one shade launch per bounce; the eye vertices a bounce stores become a stream of
// their own, and their connections (one thread per eye vertex and light vertex, BDPT's connect
// phase) and merges (one thread per eye vertex, sorted by grid cell so that a warp's lanes query
// the same buckets) are launches of their own. Both schedules share the light vertex cache:
// subpath j stores vertex k at staged[j * stride + k]; then, over a prefix sum of the per-subpath
// counts, the vertices that exist are compacted into the cache (subpath j's at [begin(j),
// begin(j) + count[j])) and the hash grid is built over those alone. The driver that launches them
// is host/integrators/vcm_driver.h.
#pragma once
#include <cstdint>

#include "kernels/bdpt/bdpt_stages.h"
#include "kernels/vcm/vcm.h"

namespace wavefront {

/// Control block and counters of a VCM render, in exec memory: the counters add up over the
/// driver's life; the stream counts are the streaming schedule's (one bounce at a time).
struct VcmCounters {
    unsigned long long extensionRays, shadowRays, connections, merges;
    int nextWalks;       ///< walks the bounce continued
    int shadowCount;     ///< shadow rays (s = 1, t = 1) of this bounce
    int eyeVertexCount;  ///< eye vertices stored by this bounce
};

enum VcmSimdKernel : int {
    kVcmLightWalk = 0, kVcmEyeWalk,  // naive
    kVcmExtend, kVcmLightShade, kVcmEyeShade, kVcmTrace, kVcmConnect, kVcmMerge,  // streaming
    kVcmSimdKernelCount
};
inline const char* vcmSimdLabel(int kernel) {
    static const char* labels[] = {"vcm light pass", "vcm eye pass", "vcm extend", "vcm light shade",
                                   "vcm eye shade",  "vcm trace",    "vcm connect", "vcm merge"};
    return labels[kernel];
}
static_assert(2 * kVcmSimdKernelCount <= kSimdSlots, "two counter slots per kernel");

namespace vcm {

/// Where the light passes put their vertices before compaction: subpath j's vertex k at
/// vertices[j * stride + k] (stride = BdptParams::storedVertices()), count[j] of them.
struct StagedVertices {
    PathVertex* vertices;
    float* dVM;
    int* count;
    int stride;
    WF_CPU_GPU std::size_t at(int j, int k) const { return std::size_t(j) * std::size_t(stride) + std::size_t(k); }
};

/// An iteration's light vertex cache, compacted: the vertices that exist, subpath j's at
/// [begin(j), begin(j) + count[j]), their dVM beside them.
struct LightCache {
    const PathVertex* vertices;
    const float* dVM;
    const int* count;
    const int* prefix;  ///< inclusive prefix sum of count
    WF_CPU_GPU int begin(int j) const { return prefix[j] - count[j]; }
};

/// Compaction of the staged vertices into the cache: one thread per staged entry (j, k).
struct CompactCacheStage {
    StagedVertices staged;
    const int* prefix;
    PathVertex* vertices;
    float* dVM;
    WF_CPU_GPU void operator()(int i) const {
        const int j = i / staged.stride, k = i % staged.stride;
        const int n = staged.count[j];
        if (k >= n) return;
        const std::size_t to = std::size_t(prefix[j] - n + k);
        vertices[to] = staged.vertices[i];
        dVM[to] = staged.dVM[i];
    }
};

/// Whether light subpath j's t = 1 splats belong to this render: the iteration's eye sample
/// that owns them (j mod the pass size) is in [splatBegin, splatEnd). A render of part of an
/// iteration traces every light subpath for the cache but splats only its own.
struct SplatOwners {
    std::uint64_t firstEye, splatBegin, splatEnd;
    int numPixels;
    WF_CPU_GPU bool owns(int j) const {
        const std::uint64_t owner = firstEye + std::uint64_t(j) % std::uint64_t(numPixels);
        return owner >= splatBegin && owner < splatEnd;
    }
};

/// Naive: one light subpath per thread. Light subpath j of the iteration is sample
/// `firstLight + j` (light dimensions only); its t = 1 splats go to the film when `owners` says so.
template <class C>
struct LightStage {
    static constexpr int kBlockSize = kTraversalBlock;
    C c;
    StagedVertices staged;
    VcmCounters* counters;
    std::uint64_t firstLight;
    SplatOwners owners;
    WF_CPU_GPU void operator()(int j) const {
        c.simd.entry(kVcmLightWalk).sample();
        const bool splats = owners.owns(j);
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
                const std::size_t at = staged.at(j, o.vertexIndex);
                staged.vertices[at] = o.vertex;
                staged.dVM[at] = o.vertexDVM;
            }
            stored = o.storedCount;
            if (!o.hasNext) break;
            w = o.next;
        }
        staged.count[j] = stored;
        addToCounter(&counters->extensionRays, extension);
        addToCounter(&counters->shadowRays, shadowRays);
    }
};

/// The grid's sort key of every cached vertex: its bucket.
struct GridKeyStage {
    LightCache cache;
    MergeGrid grid;
    std::uint64_t* keys;
    std::uint32_t* values;
    WF_CPU_GPU void operator()(int i) const {
        values[i] = std::uint32_t(i);
        keys[i] = std::uint64_t(grid.bucketOf(cache.vertices[i].position.xyz()));
    }
};

/// After the sort: each bucket's range of sorted entries (buckets left out stay empty).
struct BucketRangeStage {
    const std::uint64_t* keys;
    int n;
    std::uint32_t* begin;
    std::uint32_t* end;
    WF_CPU_GPU void operator()(int i) const {
        const std::uint64_t key = keys[i];
        if (i == 0 || keys[i - 1] != key) begin[key] = std::uint32_t(i);
        if (i == n - 1 || keys[i + 1] != key) end[key] = std::uint32_t(i + 1);
    }
};

/// Naive: one eye subpath per thread, sample `first + i` of the iteration that starts at `firstEye`,
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
        const PathVertex* own = cache.vertices + cache.begin(j);
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

// ---- The streaming schedule ------------------------------------------------------------------

/// The eye vertices one bounce of the eye walks stored (compacted): each with its dVM and the
/// iteration slot of its sample.
struct EyeVertexStream {
    SoaView<PathVertex> vertices;
    float* dVM;
    int* slot;
};

/// Light subpath j of the iteration (sample `firstLight + j`) starts in walk slot j; its stored
/// count starts at 0 (a walk that fails at once stores nothing).
template <class C>
struct StartLightStage {
    C c;
    SoaView<WalkState> walks;
    int* count;
    std::uint64_t firstLight;
    WF_CPU_GPU void operator()(int j) const {
        count[j] = 0;
        walks.store(j, startLightWalk<typename C::Materials>(c.scene, c.params, c.sampler, firstLight + std::uint64_t(j), j));
    }
};

/// Eye sample `first + i` of the iteration that starts at `firstEye` starts in walk i; its
/// iteration slot (sample - firstEye) names its pixel (pixelOf) and its light subpath (slot mod
/// the light path count), as in the naive EyeStage.
template <class C>
struct StartEyeStage {
    C c;
    SoaView<WalkState> walks;
    int* pixelOf;
    std::uint64_t firstEye, first;
    WF_CPU_GPU void operator()(int i) const {
        const std::uint64_t work = first + std::uint64_t(i);
        const std::uint64_t s = c.sampler.startSample(i, work);  // a crop's work index names a frame sample
        const int slot = int(work - firstEye);
        const int pixel = c.sampler.pixelIndex(s, c.scene.width, c.scene.height);
        c.sink.beginSample(slot, pixel, 1.0f);
        pixelOf[slot] = pixel;
        walks.store(i, startEyeWalk(c.scene, c.params, c.sampler, s, slot));
    }
};

/// One thread before each bounce: empties the bounce's output streams.
struct BounceBookkeepingStage {
    VcmCounters* k;
    WF_CPU_GPU void operator()(int) const {
        k->nextWalks = 0;
        k->shadowCount = 0;
        k->eyeVertexCount = 0;
    }
};

/// The closest hit of every walk in the stream (light or eye).
template <class C>
struct ExtendStage {
    static constexpr int kBlockSize = kTraversalBlock;
    C c;
    VcmCounters* counters;
    SoaView<WalkState> walks;
    Hit* hits;
    WF_CPU_GPU void operator()(int i) const {
        c.simd.entry(kVcmExtend).sample();
        const WalkState w = walks.load(i);
        if (!isBlack(w.throughput.xyz())) addToCounter(&counters->extensionRays, 1u);
        hits[i] = traceWalk(c, w, c.simd.steps(kVcmExtend));
    }
};

/// Shades one vertex of every light walk: continued walks and the t = 1 shadow rays this render
/// splats are compacted at write time; the stored vertex goes to its subpath's staging entry
/// (coalesced through a warp transpose, as BDPT's ShadeStage), its dVM beside it.
template <class C>
struct LightShadeStage {
    static constexpr int kStreams = 2;
    static constexpr int kScatterWords = PathVertex::kWords;
    static constexpr bool coalescedScatter = true;
    using Output = WalkOutput;
    C c;
    SoaView<WalkState> in;
    const Hit* hits;
    SoaView<WalkState> out;
    SoaView<ShadowRay> shadow;
    StagedVertices staged;
    SplatOwners owners;
    int* outCounter[kStreams];
    WF_CPU_GPU Output evaluate(int i) const {
        c.simd.entry(kVcmLightShade).sample();
        WalkOutput o = shadeLightVertex<typename C::Materials>(c.scene, c.params, c.sampler, in.load(i), hits[i]);
        o.hasShadow = o.hasShadow && owners.owns(o.slot);
        if (o.hasVertex) staged.dVM[staged.at(o.slot, o.vertexIndex)] = o.vertexDVM;
        if (!o.hasNext) staged.count[o.slot] = o.storedCount;
        return o;
    }
    WF_CPU_GPU void emit(int stream, int slot, const Output& o, int) const {
        if (stream == WalkOutput::kNext) out.store(slot, o.next);
        else shadow.store(slot, o.shadow);
    }
    WF_CPU_GPU Float4* scatterTarget(const Output& o, int) const {
        return o.hasVertex ? &staged.vertices[staged.at(o.slot, o.vertexIndex)].position : nullptr;
    }
    WF_CPU_GPU const Float4* scatterSource(const Output& o) const { return &o.vertex.position; }
};

/// Shades one vertex of every eye walk (s = 0 deposited at once): continued walks, s = 1 shadow
/// rays and the stored eye vertex (the one connections and merges start from) are compacted at
/// write time. PPM's walk ends at its first stored vertex, where it merges.
template <class C>
struct EyeShadeStage {
    static constexpr int kStreams = 3, kEyeVertex = 2;
    struct Output {
        WalkOutput o;
        WF_CPU_GPU bool active(int stream) const { return stream == kEyeVertex ? o.hasVertex : o.active(stream); }
    };
    C c;
    SoaView<WalkState> in;
    const Hit* hits;
    SoaView<WalkState> out;
    SoaView<ShadowRay> shadow;
    EyeVertexStream eye;
    bool firstHitOnly;
    int* outCounter[kStreams];
    WF_CPU_GPU Output evaluate(int i) const {
        c.simd.entry(kVcmEyeShade).sample();
        Output r{shadeEyeVertex<typename C::Materials>(c.scene, c.params, c.sampler, c.sink, in.load(i), hits[i])};
        if (firstHitOnly && r.o.hasVertex) r.o.hasNext = false;
        return r;
    }
    WF_CPU_GPU void emit(int stream, int slot, const Output& r, int) const {
        if (stream == WalkOutput::kNext) {
            out.store(slot, r.o.next);
        } else if (stream == WalkOutput::kShadow) {
            shadow.store(slot, r.o.shadow);
        } else {
            eye.vertices.store(slot, r.o.vertex);
            eye.dVM[slot] = r.o.vertexDVM;
            eye.slot[slot] = r.o.slot;
        }
    }
};

/// Traces the bounce's s = 1 / t = 1 shadow rays and deposits what is visible.
template <class C>
struct TraceStage {
    static constexpr int kBlockSize = kTraversalBlock;
    C c;
    VcmCounters* counters;
    SoaView<ShadowRay> shadow;
    WF_CPU_GPU void operator()(int i) const {
        c.simd.entry(kVcmTrace).sample();
        addToCounter(&counters->shadowRays, 1u);
        traceToSink(c, shadow.load(i), c.simd.steps(kVcmTrace));
    }
};

/// The connections of every eye vertex of the bounce: its light subpath's stored vertices.
struct ConnectCountStage {
    LightCache cache;
    const int* eyeSlot;
    int lightPaths;
    int* counts;
    WF_CPU_GPU void operator()(int v) const { counts[v] = cache.count[eyeSlot[v] % lightPaths]; }
};

/// One thread per (eye vertex, light vertex) connection, BDPT's connect phase (Algorithm 1): its
/// eye vertex by binary search in the inclusive scan of the counts, then one shadow ray.
/// Neighbouring threads share the eye vertex and read neighbouring light vertices.
template <class C>
struct ConnectStage {
    static constexpr int kMinBlocksPerSm = 4;
    C c;
    VcmCounters* counters;
    LightCache cache;
    EyeVertexStream eye;
    const int* pixelOf;
    const int* prefix;  ///< inclusive scan of the counts
    int eyeVertices, lightPaths;
    WF_CPU_GPU void operator()(int j) const {
        c.simd.entry(kVcmConnect).sample();
        int lo = 0, hi = eyeVertices - 1;
        while (lo < hi) {
            const int mid = (lo + hi) >> 1;
            if (prefix[mid] > j) hi = mid;
            else lo = mid + 1;
        }
        const int v = lo, slot = eye.slot[v], light = slot % lightPaths;
        const int b = j - (prefix[v] - cache.count[light]);
        const PathVertex e = eye.vertices.load(v);
        const PathVertex l = bdpt::loadVertex(cache.vertices + cache.begin(light) + b);
        ShadowRay r;
        if (!connectVertices<typename C::Materials>(c.scene, c.params, e, l, pixelOf[slot], slot, r)) return;
        addToCounter(&counters->connections, 1u);
        addToCounter(&counters->shadowRays, 1u);
        traceToSink(c, r, c.simd.steps(kVcmConnect));
    }
};

/// The merge order's key of every eye vertex of the bounce: the bucket of the first of the
/// 2 x 2 x 2 cells its query visits, so that eye vertices with the same query sit side by side.
struct MergeKeyStage {
    MergeGrid grid;
    SoaView<PathVertex> vertices;
    std::uint64_t* keys;
    std::uint32_t* values;
    WF_CPU_GPU void operator()(int v) const {
        int x0, y0, z0;
        grid.queryCorner(vertices.load(v).position.xyz(), x0, y0, z0);
        keys[v] = grid.bucket(x0, y0, z0);
        values[v] = std::uint32_t(v);
    }
};

/// One thread per eye vertex of the bounce, in the merge order: its merges with the cache.
template <class C>
struct MergeStage {
    C c;
    VcmCounters* counters;
    LightCache cache;
    MergeGrid grid;
    EyeVertexStream eye;
    const int* pixelOf;
    const std::uint32_t* order;
    WF_CPU_GPU void operator()(int i) const {
        c.simd.entry(kVcmMerge).sample();
        const int v = int(order[i]);
        const PathVertex e = eye.vertices.load(v);
        const int slot = eye.slot[v];
        unsigned merges = 0;
        const vec3 m = mergeLightVertices<typename C::Materials>(c.scene, c.params, grid, e, eye.dVM[v], cache.vertices,
                                                                 cache.dVM, merges);
        if (!isBlack(m)) c.sink.deposit(slot, pixelOf[slot], e.throughput.xyz() * m * grid.normalization);
        addToCounter(&counters->merges, merges);
    }
};

}  // namespace vcm

}  // namespace wavefront
