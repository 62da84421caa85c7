// LBVH construction (Karras 2012): the stages, written once for both backends. The build that
// launches them is host/device_scene/bvh_builder.h.
#pragma once
#include "kernels/bvh/bvh.h"

namespace wavefront {

/// The scene's primitives in their original order, on the exec side. Ids [0, numTriangles) are
/// triangles, [numTriangles, numTriangles + numSpheres) spheres.
struct PrimitiveSource {
    const vec3* positions = nullptr;
    const uvec3* triangles = nullptr;
    const Float4* spheres = nullptr;  ///< centre, radius
    int numTriangles = 0;
    int numSpheres = 0;
    /// Added to a sphere's id in its leaf (the id hits report): the scene's primitive ids count
    /// instanced objects' triangles after its own, before its spheres.
    int sphereIdShift = 0;

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
            packSphere(out, s.xyz(), s.w, id + sphereIdShift);
        }
    }
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
/// Large primitives: a box side longer than a quarter of the longest side of the centroid box
/// (`all`, the CentroidBox reduction). One huge primitive (rtiow-final's ground, a sphere of
/// radius 1000 centred 1000 below the others) would otherwise stretch the quantisation box, leave
/// every other centroid the same high bits on that axis (a two-dimensional Morton order), and
/// sit deep in the tree with its box in every ancestor. So large primitives get the top key bit:
/// the root splits them from the rest, and the small ones are quantised in their own centroid box
/// (node visits of the three trees: docs/decisions.md).
WF_CPU_GPU WF_INLINE bool isLargePrimitive(const Aabb& box, const Aabb& all) {
    return maxComponent(box.hi - box.lo) > 0.25f * maxComponent(all.hi - all.lo);
}
constexpr std::uint64_t kLargePrimitiveBit = 1ull << 63;
/// Centroid box of the primitives that are not large.
struct SmallCentroidBox {
    PrimitiveSource src;
    const Aabb* all;
    WF_CPU_GPU Aabb operator()(int i) const {
        Aabb b = src.bounds(i), r;
        if (!isLargePrimitive(b, *all)) r.extend(b.center());
        return r;
    }
};
struct Unite {
    WF_CPU_GPU Aabb operator()(const Aabb& a, const Aabb& b) const { return Aabb::unite(a, b); }
};
struct MortonStage {
    PrimitiveSource src;
    /// In exec memory (the reductions' results never visit the host): CentroidBox's, then
    /// SmallCentroidBox's (empty when every primitive is large).
    const Aabb* centroidBoxes;
    std::uint64_t* codes;
    std::uint32_t* ids;
    WF_CPU_GPU void operator()(int i) const {
        Aabb b = src.bounds(i);
        const Aabb& all = centroidBoxes[0];
        codes[i] = isLargePrimitive(b, all) ? kLargePrimitiveBit | mortonCode63(b.center(), all)
                                            : mortonCode63(b.center(), centroidBoxes[1]);
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
        writeSingleLeafRoot(v.nodes[0], primDataBounds(v.primData, int(v.sortedPrims[0]) < numTriangles));
    }
};
struct RefitStage {
    BvhBuildView v;
    int numTriangles;
    WF_CPU_GPU void operator()(int leaf) const { refitFromLeaf(v, leaf, numTriangles); }
};

// ---- Refit of a built tree (LBVH or PLOC) after its primitives moved --------------------------

/// The parent of every child of internal node i (the builders' parents are temporaries).
struct ParentsStage {
    BvhBuildView v;
    WF_CPU_GPU void operator()(int i) const {
        for (int c = 0; c < 2; ++c) {
            int child = floatAsInt(c == 0 ? v.nodes[i].lo0.w : v.nodes[i].hi0.w);
            v.parents[child >= 0 ? child : v.numInternal + ~child] = i;
        }
    }
};
/// Leaf `leaf` packed again from the moved primitives, its original id read from the leaf itself
/// (triangle: the first word's w; sphere: the second word's x), then the boxes above it refitted:
/// one pass over the leaves, nothing sorted or gathered.
struct RepackRefitStage {
    PrimitiveSource src;
    BvhBuildView v;  ///< parents as ParentsStage made them, visits zeroed; no codes or ids
    WF_CPU_GPU void operator()(int leaf) const {
        Float4* p = v.primData + kPrimWords * leaf;
        // The leaf holds the id hits report; a sphere's is its source id shifted (sphereIdShift).
        const int id = isSphereLeaf(p) ? floatAsInt(p[1].x) - src.sphereIdShift : floatAsInt(p[0].w);
        src.pack(id, p);
        const Aabb box = primDataBounds(p, id < src.numTriangles);
        if (v.numPrims == 1) writeSingleLeafRoot(v.nodes[0], box);
        else refitAbove(v, leaf, box);
    }
};
/// Surface-area cost of internal node i's children, relative to nothing: summed over the nodes
/// and divided by the root's, the tree's SAH cost of traversal steps (the refit rule's measure).
struct NodeAreaSum {
    const BvhNode* nodes;
    WF_CPU_GPU double operator()(int i) const { return halfArea(nodes[i].box(0)) + halfArea(nodes[i].box(1)); }
};

}  // namespace lbvh

}  // namespace wavefront
