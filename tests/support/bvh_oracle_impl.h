// Template bodies of bvh_oracle.h, instantiated for each exec (oracles.cpp, bvh_oracle_cuda.cu).
#pragma once
#include <chrono>
#include <optional>
#include <type_traits>

#include "bvh_oracle.h"
#include "host/device_scene/scene_upload.h"

namespace wavefront {

template <class Exec>
struct PrimitiveBuffers {
    Buffer<vec3> positions;
    Buffer<uvec3> triangles;
    Buffer<Float4> spheres;
    PrimitiveBuffers(Exec& exec, const PrimitiveArrays& p)
        : positions(uploadVector(exec, p.positions)), triangles(uploadVector(exec, p.triangles)),
          spheres(uploadVector(exec, p.spheres)) {}
    PrimitiveSource source(const PrimitiveArrays& p) const {
        return PrimitiveSource{positions.data(), triangles.data(), spheres.data(), int(p.triangles.size()),
                               int(p.spheres.size())};
    }
};

template <class Exec>
BvhSnapshot buildBvhSnapshotOn(Exec& exec, const PrimitiveArrays& prims, BvhBuilder builder, bool wide) {
    PrimitiveBuffers<Exec> buffers(exec, prims);
    exec.synchronize();
    exec.clearStats();
    auto start = std::chrono::steady_clock::now();
    Bvh<Exec> bvh = buildBvh(exec, buffers.source(prims), builder);
    std::optional<WideBvh<Exec>> wideBvh;
    if (wide) wideBvh = collapseToWide(exec, bvh);
    exec.synchronize();
    BvhSnapshot snap;
    snap.buildMilliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    snap.stages = exec.kernelStats();
    snap.numPrims = bvh.numPrims;
    snap.numTriangles = bvh.numTriangles;
    snap.nodes.resize(bvh.nodes.size());
    snap.primData.resize(bvh.primData.size());
    exec.download(snap.nodes.data(), bvh.nodes.data(), snap.nodes.size());
    exec.download(snap.primData.data(), bvh.primData.data(), snap.primData.size());
    if (wideBvh) {
        snap.wideNodes.resize(wideBvh->nodeCount);
        snap.widePrimData.resize(wideBvh->primData.size());
        exec.download(snap.wideNodes.data(), wideBvh->nodes.data(), snap.wideNodes.size());
        exec.download(snap.widePrimData.data(), wideBvh->primData.data(), snap.widePrimData.size());
        snap.wideDepth = wideBvh->depth;
    }
    return snap;
}

template <bool kAnyHit>
struct TraceStage {
    BvhView bvh;
    const Ray* rays;
    Hit* hits;
    WF_CPU_GPU void operator()(int i) const { hits[i] = traverse<kAnyHit>(bvh, rays[i]); }
};
template <bool kAnyHit>
struct TraceWideStage {
    WideBvhView bvh;
    const Ray* rays;
    Hit* hits;
    WF_CPU_GPU void operator()(int i) const { hits[i] = traverseWide<kAnyHit>(bvh, rays[i]); }
};
/// Persistent threads with ray replacement (traceReplacing) over either tree.
template <bool kAnyHit, bool kWide>
struct TraceReplacingStage {
    using View = std::conditional_t<kWide, WideBvhView, BvhView>;
    View bvh;
    const Ray* rays;
    Hit* hits;
    unsigned long long numRays;
    unsigned long long* next;
    WF_CPU_GPU void operator()(int) const {
        traceReplacing(bvh, rays, hits, numRays, next, [](const View& b, const Ray& ray, auto nextRay) {
            if constexpr (kWide) return traverseWide<kAnyHit>(b, ray, SimdProbe(), nextRay);
            else return traverse<kAnyHit>(b, ray, SimdProbe(), nextRay);
        });
    }
};

template <class Exec>
TraceResult traceRaysOn(Exec& exec, const PrimitiveArrays& prims, const std::vector<Ray>& rays, bool anyHit,
                        BvhBuilder builder, bool wide, TraceSchedule schedule) {
    PrimitiveBuffers<Exec> buffers(exec, prims);
    Bvh<Exec> bvh = buildBvh(exec, buffers.source(prims), builder);
    std::optional<WideBvh<Exec>> wideBvh;
    if (wide && !(wideBvh = collapseToWide(exec, bvh))) throw InputError("the 8-wide tree would be too deep");
    Buffer<Ray> dRays = uploadVector(exec, rays);
    Buffer<Hit> dHits = exec.template allocate<Hit>(rays.size());
    int n = int(rays.size());
    Buffer<unsigned long long> next = exec.template allocate<unsigned long long>(1);
    const unsigned long long zero = 0;
    exec.upload(next.data(), &zero, 1);
    // Launched with as many items as run at once; each loops until the rays run out.
    auto replacing = [&](const char* label, auto stage) {
        exec.parallelFor(label, exec.template residentThreads<decltype(stage)>(), stage);
    };
    exec.synchronize();
    auto start = std::chrono::steady_clock::now();
    if (schedule == TraceSchedule::RayReplacement) {
        const unsigned long long count = rays.size();
        if (wideBvh && anyHit)
            replacing("trace any-hit 8-wide, ray replacement", TraceReplacingStage<true, true>{wideBvh->view(), dRays.data(), dHits.data(), count, next.data()});
        else if (wideBvh)
            replacing("trace closest-hit 8-wide, ray replacement", TraceReplacingStage<false, true>{wideBvh->view(), dRays.data(), dHits.data(), count, next.data()});
        else if (anyHit)
            replacing("trace any-hit, ray replacement", TraceReplacingStage<true, false>{bvh.view(), dRays.data(), dHits.data(), count, next.data()});
        else
            replacing("trace closest-hit, ray replacement", TraceReplacingStage<false, false>{bvh.view(), dRays.data(), dHits.data(), count, next.data()});
    } else if (wideBvh && anyHit) exec.parallelFor("trace any-hit 8-wide", n, TraceWideStage<true>{wideBvh->view(), dRays.data(), dHits.data()});
    else if (wideBvh) exec.parallelFor("trace closest-hit 8-wide", n, TraceWideStage<false>{wideBvh->view(), dRays.data(), dHits.data()});
    else if (anyHit) exec.parallelFor("trace any-hit", n, TraceStage<true>{bvh.view(), dRays.data(), dHits.data()});
    else exec.parallelFor("trace closest-hit", n, TraceStage<false>{bvh.view(), dRays.data(), dHits.data()});
    exec.synchronize();
    TraceResult r;
    r.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    r.hits.resize(rays.size());
    exec.download(r.hits.data(), dHits.data(), r.hits.size());
    return r;
}

}  // namespace wavefront
