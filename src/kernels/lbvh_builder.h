// LBVH construction (Karras 2012), written once over the exec type: CpuExec and CudaExec run
// the same stages (lbvh_cpu in host/cpu_backend.cpp, lbvh_cuda.cu).
#pragma once
#include "kernels/bvh.h"

namespace wavefront {

/// The scene's primitives in their original order, on the exec side. Ids [0, numTriangles) are
/// triangles, [numTriangles, numTriangles + numSpheres) spheres.
struct PrimitiveSource {
    const vec3* positions = nullptr;
    const uvec3* triangles = nullptr;
    const Float4* spheres = nullptr;  ///< centre, radius
    int numTriangles = 0;
    int numSpheres = 0;

    WF_CPU_GPU int count() const { return numTriangles + numSpheres; }
    WF_CPU_GPU Aabb bounds(int id) const {
        Aabb b;
        if (id < numTriangles) {
            uvec3 t = triangles[id];
            b.extend(positions[t.x]);
            b.extend(positions[t.y]);
            b.extend(positions[t.z]);
        } else {
            Float4 s = spheres[id - numTriangles];
            b.lo = s.xyz() - vec3(s.w);
            b.hi = s.xyz() + vec3(s.w);
        }
        return b;
    }
    WF_CPU_GPU void pack(int id, Float4* out) const {
        if (id < numTriangles) {
            uvec3 t = triangles[id];
            packTriangle(out, positions[t.x], positions[t.y], positions[t.z], id);
        } else {
            Float4 s = spheres[id - numTriangles];
            packSphere(out, s.xyz(), s.w, id);
        }
    }
};

template <class Exec>
struct Bvh {
    Buffer<BvhNode> nodes;
    Buffer<Float4> primData;
    int numPrims = 0;
    int numTriangles = 0;
    BvhView view() const { return BvhView{nodes.data(), primData.data(), numPrims, numTriangles}; }
};

namespace lbvh {

struct CentroidBox {
    PrimitiveSource src;
    WF_CPU_GPU Aabb operator()(int i) const {
        Aabb b;
        b.extend(src.bounds(i).center());
        return b;
    }
};
struct Unite {
    WF_CPU_GPU Aabb operator()(const Aabb& a, const Aabb& b) const { return Aabb::unite(a, b); }
};
struct MortonStage {
    PrimitiveSource src;
    const Aabb* centroidBounds;  ///< in exec memory: the reduction's result never visits the host
    std::uint64_t* codes;
    std::uint32_t* ids;
    WF_CPU_GPU void operator()(int i) const {
        codes[i] = mortonCode63(src.bounds(i).center(), *centroidBounds);
        ids[i] = std::uint32_t(i);
    }
};
struct GatherLeavesStage {
    PrimitiveSource src;
    const std::uint32_t* sortedIds;
    Float4* primData;
    WF_CPU_GPU void operator()(int leaf) const { src.pack(int(sortedIds[leaf]), primData + kPrimWords * leaf); }
};
struct InternalNodeStage {
    BvhBuildView v;
    WF_CPU_GPU void operator()(int i) const { buildInternalNode(v, i); }
};
/// A single primitive still gets a root node: both child slots name the one leaf.
struct SingleLeafRootStage {
    BvhBuildView v;
    int numTriangles;
    WF_CPU_GPU void operator()(int) const {
        Aabb b = primDataBounds(v.primData, int(v.sortedPrims[0]) < numTriangles);
        BvhNode& root = v.nodes[0];
        root.lo0 = Float4(b.lo, intAsFloat(~0));
        root.hi0 = Float4(b.hi, intAsFloat(~0));
        root.lo1 = Float4(b.lo, 0.0f);
        root.hi1 = Float4(b.hi, 0.0f);
    }
};
struct RefitStage {
    BvhBuildView v;
    int numTriangles;
    WF_CPU_GPU void operator()(int leaf) const { refitFromLeaf(v, leaf, numTriangles); }
};

}  // namespace lbvh

/// Builds the LBVH over `src` (which lives in `exec`'s memory space).
template <class Exec>
Bvh<Exec> buildLbvh(Exec& exec, const PrimitiveSource& src) {
    Bvh<Exec> bvh;
    int n = src.count();
    bvh.numPrims = n;
    bvh.numTriangles = src.numTriangles;
    if (n == 0) return bvh;

    // Morton codes of the centroids, quantised in the centroid bounds, sorted with their ids.
    Buffer<Aabb> centroidBounds = exec.template allocate<Aabb>(1);
    exec.transformReduceDevice(n, Aabb(), lbvh::CentroidBox{src}, lbvh::Unite{}, centroidBounds.data());
    Buffer<std::uint64_t> codes = exec.template allocate<std::uint64_t>(n);
    Buffer<std::uint32_t> ids = exec.template allocate<std::uint32_t>(n);
    exec.parallelFor("bvh morton codes", n, lbvh::MortonStage{src, centroidBounds.data(), codes.data(), ids.data()});
    exec.sortPairs(codes.data(), ids.data(), n, 63);

    int numInternal = n > 1 ? n - 1 : 1;
    bvh.nodes = exec.template allocate<BvhNode>(numInternal);
    bvh.primData = exec.template allocate<Float4>(std::size_t(kPrimWords) * n);
    Buffer<int> parents = exec.template allocate<int>(numInternal + n);
    Buffer<int> visits = exec.template allocate<int>(numInternal);
    exec.fill(visits.data(), 0, numInternal);
    BvhBuildView view{bvh.nodes.data(), bvh.primData.data(), parents.data(), visits.data(),
                      codes.data(), ids.data(), n, numInternal};

    exec.parallelFor("bvh gather leaves", n, lbvh::GatherLeavesStage{src, ids.data(), bvh.primData.data()});
    if (n == 1) {
        exec.parallelFor("bvh single leaf root", 1, lbvh::SingleLeafRootStage{view, src.numTriangles});
    } else {
        exec.parallelFor("bvh internal nodes", n - 1, lbvh::InternalNodeStage{view});
        exec.parallelFor("bvh refit", n, lbvh::RefitStage{view, src.numTriangles});
    }
    // No sync: the temporaries are released stream-ordered (CUDA) or the work is done (CPU).
    return bvh;
}

}  // namespace wavefront
