// Builds the LBVH (Karras 2012) on an exec from the stages in kernels/bvh/lbvh.h.
#pragma once
#include "host/exec/buffer.h"
#include "kernels/bvh/lbvh.h"

namespace wavefront {

template <class Exec>
struct Bvh {
    Buffer<BvhNode> nodes;
    Buffer<Float4> primData;
    int numPrims = 0;
    int numTriangles = 0;
    BvhView view() const { return BvhView{nodes.data(), primData.data(), numPrims, numTriangles}; }
};

/// Builds the LBVH over `src` (which lives in `exec`'s memory space).
template <class Exec>
Bvh<Exec> buildLbvh(Exec& exec, const PrimitiveSource& src) {
    Bvh<Exec> bvh;
    int n = src.count();
    bvh.numPrims = n;
    bvh.numTriangles = src.numTriangles;
    if (n == 0) return bvh;

    // Morton codes of the centroids with the large primitives' key bit (lbvh::isLargePrimitive),
    // sorted with their ids.
    Buffer<Aabb> centroidBoxes = exec.template allocate<Aabb>(2);
    exec.transformReduceDevice(n, Aabb(), lbvh::CentroidBox{src}, lbvh::Unite{}, centroidBoxes.data());
    exec.transformReduceDevice(n, Aabb(), lbvh::SmallCentroidBox{src, centroidBoxes.data()}, lbvh::Unite{},
                               centroidBoxes.data() + 1);
    Buffer<std::uint64_t> codes = exec.template allocate<std::uint64_t>(n);
    Buffer<std::uint32_t> ids = exec.template allocate<std::uint32_t>(n);
    exec.parallelFor("bvh morton codes", n, lbvh::MortonStage{src, centroidBoxes.data(), codes.data(), ids.data()});
    exec.sortPairs(codes.data(), ids.data(), n, 64);

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
