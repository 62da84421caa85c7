// PLOC, parallel locally-ordered clustering (Meister and Bittner, "Parallel Locally-Ordered
// Clustering for Bounding Volume Hierarchy Construction", IEEE TVCG 2018): the stages, written
// once for both backends. The build that launches them is host/device_scene/bvh_builder.h (buildPloc).
//
// The leaves start as clusters in Morton order (the LBVH's sort). Every round, each cluster finds
// the cluster within kSearchRadius places of it in that order whose union with it has the least
// surface area; mutual nearest neighbours merge into a new node, and the clusters left are
// compacted, keeping their order. Merging only neighbours in the order keeps every node's leaves a
// contiguous range, and the surface-area choice gives a tree of lower SAH cost than the LBVH's,
// whose splits follow the Morton bits whatever the primitives' sizes.
#pragma once
#include "kernels/bvh/lbvh.h"

namespace wavefront {

namespace ploc {

/// Clusters searched on each side (the paper's radius; 16 and 25 trade build time for quality).
constexpr int kSearchRadius = 16;

/// One round's clusters: box, what the cluster is (internal node >= 0, leaf ~index), its
/// height (a leaf is 0), so the build can tell a tree too deep for traversal's stack, and its
/// primitive count (BvhNode::subtreeSize).
struct Clusters {
    Aabb* box;
    int* ref;
    int* height;
    int* size;
};

/// The leaves as the first clusters.
struct InitStage {
    const Float4* primData;
    Clusters out;
    WF_CPU_GPU void operator()(int i) const {
        const Float4* p = primData + kPrimWords * i;
        out.box[i] = primDataBounds(p, !isSphereLeaf(p));
        out.ref[i] = ~i;
        out.height[i] = 0;
        out.size[i] = 1;
    }
};

/// Where two pairs (i, j) and (i, k) cost the same: the order of pairs is (area, then an adjacent
/// pair whose lower index is even, then the index distance, then the lower index), a total order,
/// so the least pair of a round is mutual and every round merges at least once; and clusters of
/// equal boxes (coincident instances) pair off (0, 1), (2, 3), ... and halve every round, where
/// "lowest index first" would let only the first pair of them merge.
WF_CPU_GPU WF_INLINE std::uint64_t pairTieRank(int i, int j) {
    int lo = i < j ? i : j, distance = i < j ? j - i : i - j;
    std::uint64_t preferred = distance == 1 && (lo & 1) == 0 ? 0 : 1;
    return preferred << 40 | std::uint64_t(distance) << 32 | std::uint32_t(lo);
}

/// Nearest neighbour of each cluster within kSearchRadius places: the least half area of the union
/// (exact in double, so both backends choose the same), ties by pairTieRank.
struct NearestNeighbourStage {
    const Aabb* box;
    int count;
    int* nearest;
    WF_CPU_GPU void operator()(int i) const {
        Aabb b = box[i];
        int lo = i > kSearchRadius ? i - kSearchRadius : 0;
        int hi = i + kSearchRadius < count - 1 ? i + kSearchRadius : count - 1;
        double best = DBL_MAX;
        int bestIndex = -1;
        std::uint64_t bestRank = 0;
        for (int j = lo; j <= hi; ++j) {
            if (j == i) continue;
            double area = halfArea(Aabb::unite(b, box[j]));
            if (area > best) continue;
            std::uint64_t rank = pairTieRank(i, j);
            if (area < best || rank < bestRank) {
                best = area;
                bestIndex = j;
                bestRank = rank;
            }
        }
        nearest[i] = bestIndex;
    }
};

WF_CPU_GPU WF_INLINE bool mutualNeighbours(const int* nearest, int i) {
    int j = nearest[i];
    return j >= 0 && nearest[j] == i;
}

/// Per cluster: 1 when it makes a node (the lower of a mutual pair), and 1 when it stays a cluster
/// (all but the higher of a mutual pair); the scans of both place nodes and survivors.
struct MergeFlagsStage {
    const int* nearest;
    int* makesNode;
    int* stays;
    WF_CPU_GPU void operator()(int i) const {
        bool mutual = mutualNeighbours(nearest, i);
        makesNode[i] = mutual && i < nearest[i];
        stays[i] = !(mutual && i > nearest[i]);
    }
};

/// Writes the round's nodes and the next round's clusters. Nodes are numbered downwards from
/// `nodeTop` in cluster order, so the last merge, the root, is node 0.
struct MergeStage {
    Clusters in, out;
    const int* nearest;
    const int* makesNodeScan;  ///< inclusive scans of MergeFlagsStage's flags
    const int* staysScan;
    BvhNode* nodes;
    int nodeTop;
    int count;
    int* totals;  ///< the last cluster writes the round's nodes made and clusters left: one read-back
    WF_CPU_GPU void operator()(int i) const {
        if (i == count - 1) {
            totals[0] = makesNodeScan[i];
            totals[1] = staysScan[i];
        }
        bool mutual = mutualNeighbours(nearest, i);
        int j = nearest[i];
        if (mutual && i > j) return;  // merged into the node its lower neighbour makes
        int slot = staysScan[i] - 1;
        if (!mutual) {
            out.box[slot] = in.box[i];
            out.ref[slot] = in.ref[i];
            out.height[slot] = in.height[i];
            out.size[slot] = in.size[i];
            return;
        }
        int node = nodeTop - (makesNodeScan[i] - 1);
        Aabb a = in.box[i], b = in.box[j];
        BvhNode& n = nodes[node];
        n.lo0 = Float4(a.lo, intAsFloat(in.ref[i]));
        n.hi0 = Float4(a.hi, intAsFloat(in.ref[j]));
        n.lo1 = Float4(b.lo, intAsFloat(in.size[i]));
        n.hi1 = Float4(b.hi, intAsFloat(in.size[j]));
        out.box[slot] = Aabb::unite(a, b);
        out.ref[slot] = node;
        int ha = in.height[i], hb = in.height[j];
        out.height[slot] = (ha > hb ? ha : hb) + 1;
        out.size[slot] = in.size[i] + in.size[j];
    }
};

}  // namespace ploc

}  // namespace wavefront
