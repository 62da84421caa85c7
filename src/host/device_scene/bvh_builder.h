// Builds the binary BVH on an exec: the LBVH (Karras 2012) from the stages in kernels/bvh/lbvh.h,
// or PLOC (Meister and Bittner 2018) from kernels/bvh/ploc.h over the same sorted leaves.
#pragma once
#include <algorithm>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/backends/buffer.h"
#include "wavefront/types.h"
#include "kernels/bvh/lbvh.h"
#include "kernels/bvh/ploc.h"

namespace wavefront {

template <class Exec>
struct Bvh {
    Buffer<BvhNode> nodes;
    Buffer<Float4> primData;
    int numPrims = 0;
    int numTriangles = 0;
    BvhBuilder builtWith = BvhBuilder::Lbvh;  ///< Lbvh or Ploc: the tree these nodes are
    /// Kept from the first refit (refitBvh) for the next ones: the topology does not change.
    Buffer<int> refitParents, refitVisits;
    BvhView view() const { return BvhView{nodes.data(), primData.data(), numPrims, numTriangles}; }
};

namespace detail {

/// The leaves in Morton order: sorted keys and ids, and the packed primitives (bvh.primData).
struct SortedLeaves {
    Buffer<std::uint64_t> codes;
    Buffer<std::uint32_t> ids;
};

template <class Exec>
SortedLeaves sortLeaves(Exec& exec, const PrimitiveSource& src, Bvh<Exec>& bvh) {
    int n = src.count();
    SortedLeaves leaves;
    // Morton codes of the centroids with the large primitives' key bit (lbvh::isLargePrimitive),
    // sorted with their ids.
    Buffer<Aabb> centroidBoxes = exec.template allocate<Aabb>(2);
    exec.transformReduceDevice(n, Aabb(), lbvh::CentroidBox{src}, lbvh::Unite{}, centroidBoxes.data());
    exec.transformReduceDevice(n, Aabb(), lbvh::SmallCentroidBox{src, centroidBoxes.data()}, lbvh::Unite{},
                               centroidBoxes.data() + 1);
    leaves.codes = exec.template allocate<std::uint64_t>(n);
    leaves.ids = exec.template allocate<std::uint32_t>(n);
    exec.parallelFor("bvh morton codes", n,
                     lbvh::MortonStage{src, centroidBoxes.data(), leaves.codes.data(), leaves.ids.data()});
    exec.sortPairs(leaves.codes.data(), leaves.ids.data(), n, 64);
    bvh.primData = exec.template allocate<Float4>(std::size_t(kPrimWords) * n);
    exec.parallelFor("bvh gather leaves", n, lbvh::GatherLeavesStage{src, leaves.ids.data(), bvh.primData.data()});
    return leaves;
}

/// A tree over `src` with nothing built yet: its counts and builder.
template <class Exec>
Bvh<Exec> unbuilt(const PrimitiveSource& src, BvhBuilder builder) {
    Bvh<Exec> bvh;
    bvh.numPrims = src.count();
    bvh.numTriangles = src.numTriangles;
    bvh.builtWith = builder;
    return bvh;
}

}  // namespace detail

/// Builds the LBVH over `src` (which lives in `exec`'s memory space).
template <class Exec>
Bvh<Exec> buildLbvh(Exec& exec, const PrimitiveSource& src) {
    Bvh<Exec> bvh = detail::unbuilt<Exec>(src, BvhBuilder::Lbvh);
    int n = bvh.numPrims;
    if (n == 0) return bvh;
    detail::SortedLeaves leaves = detail::sortLeaves(exec, src, bvh);

    int numInternal = n > 1 ? n - 1 : 1;
    bvh.nodes = exec.template allocate<BvhNode>(numInternal);
    Buffer<int> parents = exec.template allocate<int>(numInternal + n);
    Buffer<int> visits = exec.template allocate<int>(numInternal);
    exec.fill(visits.data(), 0, numInternal);
    BvhBuildView view{bvh.nodes.data(), bvh.primData.data(), parents.data(), visits.data(),
                      leaves.codes.data(), leaves.ids.data(), n, numInternal};
    if (n == 1) {
        exec.parallelFor("bvh single leaf root", 1, lbvh::SingleLeafRootStage{view, src.numTriangles});
    } else {
        exec.parallelFor("bvh internal nodes", n - 1, lbvh::InternalNodeStage{view});
        exec.parallelFor("bvh refit", n, lbvh::RefitStage{view, src.numTriangles});
    }
    // No sync: the temporaries are released stream-ordered (CUDA) or the work is done (CPU).
    return bvh;
}

/// Rounds after which PLOC gives up for the LBVH: every round merges at least one pair, but inputs
/// built to defeat it (sizes growing geometrically along the Morton order) merge one pair a round
/// and make a chain as deep as the input; real scenes take about 30 rounds for a million leaves.
constexpr int kMaxPlocRounds = 256;

/// Builds the PLOC tree over `src`; falls back to the LBVH (with a one-line note on stderr) when
/// the tree would be deeper than traversal's stack or the rounds run out. The cluster count is
/// read back after every round (one sync each: about 30 for a million leaves).
template <class Exec>
Bvh<Exec> buildPloc(Exec& exec, const PrimitiveSource& src) {
    if (src.count() <= 1) return buildLbvh(exec, src);  // no clusters to merge: the LBVH's single-leaf root
    Bvh<Exec> bvh = detail::unbuilt<Exec>(src, BvhBuilder::Ploc);
    int n = bvh.numPrims;
    detail::sortLeaves(exec, src, bvh);

    bvh.nodes = exec.template allocate<BvhNode>(n - 1);
    Buffer<Aabb> boxes[2] = {exec.template allocate<Aabb>(n), exec.template allocate<Aabb>(n)};
    Buffer<int> refs[2] = {exec.template allocate<int>(n), exec.template allocate<int>(n)};
    Buffer<int> heights[2] = {exec.template allocate<int>(n), exec.template allocate<int>(n)};
    Buffer<int> sizes[2] = {exec.template allocate<int>(n), exec.template allocate<int>(n)};
    Buffer<int> nearest = exec.template allocate<int>(n);
    Buffer<int> makesNode = exec.template allocate<int>(n), stays = exec.template allocate<int>(n);
    Buffer<int> makesNodeScan = exec.template allocate<int>(n), staysScan = exec.template allocate<int>(n);
    Buffer<int> totals = exec.template allocate<int>(2);
    auto clusters = [&](int k) { return ploc::Clusters{boxes[k].data(), refs[k].data(), heights[k].data(), sizes[k].data()}; };
    exec.parallelFor("ploc leaves", n, ploc::InitStage{bvh.primData.data(), clusters(0)});

    int count = n, nodeTop = n - 2, cur = 0, rounds = 0;
    while (count > 1) {
        if (++rounds > kMaxPlocRounds) break;
        exec.parallelFor("ploc nearest", count, ploc::NearestNeighbourStage{boxes[cur].data(), count, nearest.data()});
        exec.parallelFor("ploc flags", count, ploc::MergeFlagsStage{nearest.data(), makesNode.data(), stays.data()});
        exec.inclusiveScan(makesNode.data(), makesNodeScan.data(), count);
        exec.inclusiveScan(stays.data(), staysScan.data(), count);
        exec.parallelFor("ploc merge", count,
                         ploc::MergeStage{clusters(cur), clusters(1 - cur), nearest.data(), makesNodeScan.data(),
                                          staysScan.data(), bvh.nodes.data(), nodeTop, count, totals.data()});
        int made[2];  // nodes made, clusters left
        exec.download(made, totals.data(), 2);
        nodeTop -= made[0];
        count = made[1];
        cur = 1 - cur;
    }
    int height = 0;
    if (count == 1) exec.download(&height, heights[cur].data(), 1);
    if (count != 1 || height > kTraversalStackSize - 1) {
        std::fprintf(stderr, "wavefront: the PLOC tree would be %s; building the LBVH instead\n",
                     count != 1 ? "too slow to converge" : "too deep for traversal");
        return buildLbvh(exec, src);
    }
    return bvh;
}

/// Refits `bvh` (built over `src`'s primitives, which have moved since: same ids, same count)
/// bottom-up: leaves packed again, every box recomputed, the topology kept. O(n), no sort: after
/// the first refit (which finds every node's parent and keeps them with the tree) one memset and
/// one launch.
template <class Exec>
void refitBvh(Exec& exec, Bvh<Exec>& bvh, const PrimitiveSource& src) {
    const int n = bvh.numPrims;
    if (n == 0) return;
    const int numInternal = int(bvh.nodes.size());
    BvhBuildView view{bvh.nodes.data(), bvh.primData.data(), nullptr, nullptr, nullptr, nullptr, n, numInternal};
    if (n > 1) {
        const bool first = bvh.refitParents.size() == 0;
        if (first) {
            bvh.refitParents = exec.template allocate<int>(std::size_t(numInternal) + n);
            bvh.refitVisits = exec.template allocate<int>(numInternal);
        }
        view.parents = bvh.refitParents.data();
        view.visits = bvh.refitVisits.data();
        if (first) exec.parallelFor("bvh refit parents", numInternal, lbvh::ParentsStage{view});
        exec.fill(view.visits, 0, numInternal);
    }
    exec.parallelFor("bvh refit", n, lbvh::RepackRefitStage{src, view});
}

/// The box of everything under the tree's root (empty for an empty tree): one node comes back.
template <class Exec>
Aabb rootBox(Exec& exec, const Bvh<Exec>& bvh) {
    if (bvh.nodes.size() == 0) return Aabb();
    BvhNode root;
    exec.download(&root, bvh.nodes.data(), 1);
    return Aabb::unite(root.box(0), root.box(1));
}

/// The tree's surface-area cost: the children's areas summed over the internal nodes, over the
/// root's area (the expected internal-node visits of a ray through the root box, up to a
/// constant). One value comes back to the host.
template <class Exec>
double bvhCost(Exec& exec, const Bvh<Exec>& bvh) {
    const int numInternal = int(bvh.nodes.size());
    if (numInternal == 0) return 0.0;
    Buffer<double> sum = exec.template allocate<double>(1);
    exec.transformReduceDevice(numInternal, 0.0, lbvh::NodeAreaSum{bvh.nodes.data()}, SumOf<double>{}, sum.data());
    double total = 0.0;
    exec.download(&total, sum.data(), 1);
    const double rootArea = halfArea(rootBox(exec, bvh));
    return rootArea > 0.0 ? total / rootArea : 0.0;
}

/// Auto: PLOC where there are triangles (meshes, whose primitive sizes vary, gain 5-10% in render
/// speed on the H100), the LBVH for spheres only (rtiow-final's grid of equal spheres renders 3%
/// slower on PLOC's tree; its Morton order already clusters them well).
inline BvhBuilder resolveBvhBuilder(BvhBuilder builder, int numTriangles) {
    if (builder != BvhBuilder::Auto) return builder;
    return numTriangles > 0 ? BvhBuilder::Ploc : BvhBuilder::Lbvh;
}

template <class Exec>
Bvh<Exec> buildBvh(Exec& exec, const PrimitiveSource& src, BvhBuilder builder) {
    return resolveBvhBuilder(builder, src.numTriangles) == BvhBuilder::Ploc ? buildPloc(exec, src) : buildLbvh(exec, src);
}

}  // namespace wavefront
