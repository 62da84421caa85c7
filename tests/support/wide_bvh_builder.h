// Collapses the library's binary BVH (LBVH or PLOC: host/device_scene/bvh_builder.h) into the 8-wide
// compressed tree of wide_bvh.h on an exec. Only bvh_bench and the BVH tests use it: the renders
// trace the binary tree, which was faster on the H100 (docs/decisions.md), so it is not part of
// the library.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>

#include "host/device_scene/bvh_builder.h"
#include "wide_bvh.h"

namespace wavefront {

/// The 8-wide compressed tree collapsed from a binary one (collapseToWide).
template <class Exec>
struct WideBvh {
    Buffer<WideNode> nodes;   ///< `nodeCount` used; sized for the most a binary tree can give
    Buffer<Float4> primData;  ///< the primitives in the wide leaves' order
    int nodeCount = 0;
    int depth = 0;            ///< wide levels, root = 1
    int numPrims = 0;
    int numTriangles = 0;
    WideBvhView view() const { return WideBvhView{nodes.data(), primData.data(), numPrims, numTriangles}; }
};

/// Collapses a binary tree (LBVH or PLOC) into the 8-wide compressed tree: wide_bvh.h's
/// CollapseLevelStage, one launch per wide level. The host does not know the level sizes: each
/// launch is sized for the most a level can hold (8^level nodes) and reads its count on the device,
/// and the counts come back every kCollapseLevelsPerCheck levels to see whether the tree is done.
/// Empty (with a one-line note on stderr) where the wide tree would be deeper than its traversal's
/// stack allows.
template <class Exec>
std::optional<WideBvh<Exec>> collapseToWide(Exec& exec, const Bvh<Exec>& binary) {
    constexpr int kCollapseLevelsPerCheck = 4;
    WideBvh<Exec> wide;
    wide.numPrims = binary.numPrims;
    wide.numTriangles = binary.numTriangles;
    int n = binary.numPrims;
    if (n == 0) return wide;
    int capacity = int(binary.nodes.size());  // one wide node per binary internal node at most
    wide.nodes = exec.template allocate<WideNode>(capacity);
    wide.primData = exec.template allocate<Float4>(std::size_t(kPrimWords) * n);
    Buffer<int> subtreeOf = exec.template allocate<int>(capacity);
    Buffer<CollapseState> state = exec.template allocate<CollapseState>(1);
    exec.parallelFor("bvh collapse start", 1, CollapseStartStage{state.data(), subtreeOf.data()});
    CollapseState done;
    int level = 0, depth = 0;
    while (depth == 0) {
        int end = std::min(level + kCollapseLevelsPerCheck, kMaxWideDepth + 1);
        for (; level < end; ++level) {
            std::int64_t most = std::int64_t(1) << std::min(3 * level, 40);
            exec.parallelFor("bvh collapse to 8-wide", ItemCount{int(std::min<std::int64_t>(most, capacity)), &state.data()->levelCount[level]},
                             CollapseLevelStage{binary.nodes.data(), binary.primData.data(), wide.nodes.data(),
                                                wide.primData.data(), subtreeOf.data(), state.data(), level});
            exec.parallelFor("bvh collapse level end", 1, CollapseLevelEndStage{state.data(), level});
        }
        exec.download(&done, state.data(), 1);
        for (int l = 0; l <= level && depth == 0; ++l)
            if (done.levelCount[l] == 0) depth = l;
        if (depth > kMaxWideDepth || (depth == 0 && level > kMaxWideDepth)) {
            std::fprintf(stderr, "wavefront: the 8-wide tree would be more than %d levels deep; not collapsing\n",
                         kMaxWideDepth);
            return std::nullopt;
        }
    }
    if (done.prims != n)  // a broken binary tree; the tests build none
        throw std::logic_error("the 8-wide collapse placed " + std::to_string(done.prims) + " of " + std::to_string(n) +
                               " primitives");
    wide.nodeCount = done.nodes;
    wide.depth = depth;
    return wide;
}

}  // namespace wavefront
