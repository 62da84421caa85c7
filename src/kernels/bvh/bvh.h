// The LBVH: node layout, the build stages (Karras 2012) and stack-based traversal. One header is
// included by the CPU builder, the CUDA builder and both traversal paths, so the layout cannot
// drift between them.
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/core/launch.h"
#include "kernels/core/geometry.h"

namespace wavefront {

/// One internal node: the boxes of both children, so traversal tests two boxes per node fetch
/// (Aila and Laine 2009). Child index >= 0: internal node; < 0: leaf ~index. Each child's
/// primitive count rides in the spare words: the 8-wide collapse tells small subtrees by it
/// without loading them.
struct BvhNode {
    Float4 lo0;  ///< child 0 box min, w = child 0 index (int bits)
    Float4 hi0;  ///< child 0 box max, w = child 1 index (int bits)
    Float4 lo1;  ///< child 1 box min, w = primitives under child 0 (int bits)
    Float4 hi1;  ///< child 1 box max, w = primitives under child 1 (int bits)
    WF_CPU_GPU int child(int c) const { return floatAsInt(c == 0 ? lo0.w : hi0.w); }
    WF_CPU_GPU int subtreeSize(int c) const { return floatAsInt(c == 0 ? lo1.w : hi1.w); }
    WF_CPU_GPU Aabb box(int c) const {
        Aabb b;
        b.lo = c == 0 ? lo0.xyz() : lo1.xyz();
        b.hi = c == 0 ? hi0.xyz() : hi1.xyz();
        return b;
    }
};
static_assert(sizeof(BvhNode) == 64, "BvhNode is four 16-byte loads");
static_assert(alignof(BvhNode) == 16, "BvhNode must be 16-byte aligned");

/// A leaf holds one primitive; leaf i's data is 3 Float4 at primData[3 i]:
/// triangle: v0 (w = original primitive id, >= 0), v1, v2; sphere: centre and -radius (the sign
/// bit marks a sphere: one load tells the kinds apart), (id, 0, 0, 0), unused.
/// Leaves are stored in Morton order, so neighbouring leaves sit together in memory.
constexpr int kPrimWords = 3;

/// Karras trees over 64-bit keys (a Morton code and the large-primitive bit) with index
/// tie-breaking have at most 64 + 32 internal nodes on a root-to-leaf path:
/// every level down a root-to-leaf path lengthens the common prefix of the 96-bit (key, index)
/// keys. Traversal pushes at most one entry per level, so this stack never overflows.
constexpr int kTraversalStackSize = 96;

struct BvhView {
    const BvhNode* nodes = nullptr;   ///< numPrims - 1 internal nodes (one when numPrims == 1); root 0
    const Float4* primData = nullptr; ///< kPrimWords per leaf
    int numPrims = 0;
    int numTriangles = 0;             ///< original ids < numTriangles are triangles, the rest spheres
};

struct Hit {
    float t;
    int prim;           ///< original primitive id, -1 for a miss
    int instance = -1;  ///< the instance hit (kernels/bvh/instances.h), -1 for the scene's own primitives
};

// ---- Build stages --------------------------------------------------------------------------

/// Spreads the low 21 bits of v so there are two zero bits between each.
WF_CPU_GPU WF_INLINE std::uint64_t expandBits21(std::uint64_t v) {
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

/// 63-bit Morton code of a point inside `bounds`.
WF_CPU_GPU WF_INLINE std::uint64_t mortonCode63(vec3 p, const Aabb& bounds) {
    vec3 extent = bounds.hi - bounds.lo;
    vec3 rel = (p - bounds.lo) / glm::max(extent, vec3(1e-30f));
    auto quantise = [](float x) -> std::uint64_t {
        float s = x * 2097152.0f;  // 2^21
        return std::uint64_t(glm::min(glm::max(s, 0.0f), 2097151.0f));
    };
    return expandBits21(quantise(rel.x)) << 2 | expandBits21(quantise(rel.y)) << 1 | expandBits21(quantise(rel.z));
}

/// Length of the common prefix of sorted keys i and j; equal codes are told apart by their
/// index, which makes every key unique (Karras 2012, section 4). -1 outside [0, n).
WF_CPU_GPU WF_INLINE int commonPrefix(const std::uint64_t* codes, int n, int i, int j) {
    if (j < 0 || j >= n) return -1;
    std::uint64_t a = codes[i], b = codes[j];
    if (a != b) return countLeadingZeros64(a ^ b);
    return 64 + countLeadingZeros64(std::uint64_t(std::uint32_t(i) ^ std::uint32_t(j))) - 32;
}

/// Mutable view the build stages write through.
struct BvhBuildView {
    BvhNode* nodes;
    Float4* primData;
    int* parents;        ///< parent of internal node i at [i], of leaf j at [numInternal + j]
    int* visits;         ///< one arrival flag per internal node, zeroed before the refit
    const std::uint64_t* sortedCodes;
    const std::uint32_t* sortedPrims;  ///< original primitive id per leaf
    int numPrims;
    int numInternal;
};

/// Internal node i: find the range of keys it covers and its split (Karras 2012, Figure 4).
WF_CPU_GPU WF_INLINE void buildInternalNode(const BvhBuildView& v, int i) {
    const std::uint64_t* codes = v.sortedCodes;
    int n = v.numPrims;
    int d = commonPrefix(codes, n, i, i + 1) - commonPrefix(codes, n, i, i - 1) > 0 ? 1 : -1;
    int deltaMin = commonPrefix(codes, n, i, i - d);
    int lMax = 2;
    while (commonPrefix(codes, n, i, i + lMax * d) > deltaMin) lMax *= 2;
    int l = 0;
    for (int t = lMax / 2; t >= 1; t /= 2)
        if (commonPrefix(codes, n, i, i + (l + t) * d) > deltaMin) l += t;
    int j = i + l * d;
    int deltaNode = commonPrefix(codes, n, i, j);
    int s = 0;
    for (int div = 2;; div *= 2) {
        int t = (l + div - 1) / div;
        if (commonPrefix(codes, n, i, i + (s + t) * d) > deltaNode) s += t;
        if (t <= 1) break;
    }
    int gamma = i + s * d + (d < 0 ? d : 0);
    int lo = i < j ? i : j, hi = i < j ? j : i;
    int left = lo == gamma ? ~gamma : gamma;
    int right = hi == gamma + 1 ? ~(gamma + 1) : gamma + 1;
    BvhNode& node = v.nodes[i];
    node.lo0.w = intAsFloat(left);
    node.hi0.w = intAsFloat(right);
    node.lo1.w = intAsFloat(gamma - lo + 1);
    node.hi1.w = intAsFloat(hi - gamma);
    v.parents[left >= 0 ? left : v.numInternal + ~left] = i;
    v.parents[right >= 0 ? right : v.numInternal + ~right] = i;
}

/// Writes `box` into the slot of `child` inside its parent node (the w words stay).
WF_CPU_GPU WF_INLINE void storeChildBox(BvhNode& parent, int child, const Aabb& box) {
    Float4& lo = floatAsInt(parent.lo0.w) == child ? parent.lo0 : parent.lo1;
    Float4& hi = floatAsInt(parent.lo0.w) == child ? parent.hi0 : parent.hi1;
    lo.x = box.lo.x; lo.y = box.lo.y; lo.z = box.lo.z;
    hi.x = box.hi.x; hi.y = box.hi.y; hi.z = box.hi.z;
}

WF_CPU_GPU WF_INLINE Aabb loadNodeBounds(const BvhNode* node) {
    // The sibling's box was written by another thread: read around the L1 cache.
    const float* f = reinterpret_cast<const float*>(node);
    Aabb b;
    for (int k = 0; k < 3; ++k) {
        b.lo[k] = glm::min(loadCoherent(f + k), loadCoherent(f + 8 + k));
        b.hi[k] = glm::max(loadCoherent(f + 4 + k), loadCoherent(f + 12 + k));
    }
    return b;
}

WF_CPU_GPU WF_INLINE Aabb primDataBounds(const Float4* prim, bool isTriangle) {
    Aabb b;
    if (isTriangle) {
        b.extend(prim[0].xyz());
        b.extend(prim[1].xyz());
        b.extend(prim[2].xyz());
    } else {
        vec3 c = prim[0].xyz();
        b.lo = c - vec3(-prim[0].w);
        b.hi = c + vec3(-prim[0].w);
    }
    return b;
}

/// Half the surface area of a box (the SAH needs only ratios). Float products are exact in double,
/// so the value is the same on both backends and in every kernel, fused multiply-adds or not: the
/// PLOC build compares it between clusters and must choose the same neighbours on both.
WF_CPU_GPU WF_INLINE double halfArea(const Aabb& b) {
    vec3 d = b.hi - b.lo;
    return double(d.x) * d.y + double(d.y) * d.z + double(d.z) * d.x;
}

/// Bottom-up refit above leaf `leaf`, whose box is `box`: each thread climbs while it is the
/// second to arrive at a node, so every node's box is computed exactly once, after both children
/// are final.
WF_CPU_GPU WF_INLINE void refitAbove(const BvhBuildView& v, int leaf, Aabb box) {
    int child = ~leaf;
    int node = v.parents[v.numInternal + leaf];
    while (node >= 0) {
        storeChildBox(v.nodes[node], child, box);
        // The first to arrive publishes its box and leaves; the second reads it and goes on.
        if (arriveAcquireRelease(&v.visits[node]) == 0) return;
        box = loadNodeBounds(&v.nodes[node]);
        child = node;
        node = node == 0 ? -1 : v.parents[node];
    }
}

/// refitAbove from the leaf's packed primitive (the build: sortedPrims tells triangles apart).
WF_CPU_GPU WF_INLINE void refitFromLeaf(const BvhBuildView& v, int leaf, int numTriangles) {
    const bool isTriangle = int(v.sortedPrims[leaf]) < numTriangles;
    refitAbove(v, leaf, primDataBounds(v.primData + kPrimWords * leaf, isTriangle));
}

/// The root of a tree of one primitive, whose box is `box`: both child slots name the one leaf.
WF_CPU_GPU WF_INLINE void writeSingleLeafRoot(BvhNode& root, const Aabb& box) {
    root.lo0 = Float4(box.lo, intAsFloat(~0));
    root.hi0 = Float4(box.hi, intAsFloat(~0));
    root.lo1 = Float4(box.lo, intAsFloat(1));
    root.hi1 = Float4(box.hi, intAsFloat(1));
}

// ---- Traversal -----------------------------------------------------------------------------

/// Whether leaf data `p` holds a sphere (packSphere's marker, a negative radius) rather than a
/// triangle (whose first word's w is its id, >= 0).
WF_CPU_GPU WF_INLINE bool isSphereLeaf(const Float4* p) { return floatAsInt(p[0].w) < 0; }

/// Intersects one leaf primitive; updates `hit` if closer than hit.t.
WF_CPU_GPU WF_INLINE bool intersectLeaf(const Float4* primData, int leaf, const WatertightRay& wr, vec3 org, vec3 dir,
                                        Hit& hit) {
    const Float4* p = primData + kPrimWords * leaf;
    Float4 a = p[0];
    bool sphere = floatAsInt(a.w) < 0;  // isSphereLeaf on the word already loaded
    float t;
    bool found;
    if (sphere) {
        found = intersectSphere(org, dir, hit.t, a.xyz(), -a.w, t);
    } else {
        TriangleHit th;
        found = intersectTriangle(wr, org, hit.t, a.xyz(), p[1].xyz(), p[2].xyz(), th);
        t = th.t;
    }
    if (found) {
        hit.t = t;
        hit.prim = sphere ? floatAsInt(p[1].x) : floatAsInt(a.w);  // a sphere's id only when it is hit
    }
    return found;
}

/// What traverse() does when a ray is done: the default ends the traversal. traceReplacing's
/// stores the hit and hands the lane its next ray, and the traversal goes on with that one.
struct EndTraversal {
    WF_CPU_GPU bool operator()(const Hit&, Ray&) const { return false; }
};

/// Closest hit along the ray in (0, ray.tMax), or any hit when kAnyHit (shadow rays).
/// While-while traversal with postponed leaves (Aila and Laine 2009): a lane that reaches a leaf
/// keeps it aside and goes on through internal nodes until every active lane of its warp holds a
/// leaf; then the warp tests primitives together. Primitive tests are the expensive part, so this
/// keeps them from running with a few lanes at a time. Any-hit queries test leaves at once instead.
/// On the CPU the vote is absent and the loop is an ordinary stack traversal.
template <bool kAnyHit, class NextRay = EndTraversal>
WF_CPU_GPU WF_INLINE Hit traverse(const BvhView& bvh, const Ray& firstRay, const SimdProbe& probe = SimdProbe(),
                               NextRay nextRay = NextRay()) {
    // One ray returns from an any-hit at once, as before the hook: without that early return
    // ptxas spills differently in some render kernels (sm_90, measured).
    constexpr bool kOneRay = std::is_same<NextRay, EndTraversal>::value;
    Ray ray = firstRay;
    Hit hit{ray.tMax, -1};
    if (bvh.numPrims == 0) {
        while (nextRay(hit, ray)) hit = Hit{ray.tMax, -1};
        return hit;
    }
    constexpr int kNone = 0x7fffffff;  // empty stack / no postponed leaf (internal indices are smaller)
    // Only triangle tests use the shear: sphere-only scenes skip its divisions.
    WatertightRay wr = bvh.numTriangles > 0 ? WatertightRay(ray.direction) : WatertightRay();
    SlabRay slabs(ray.origin, ray.direction);
    int stack[kTraversalStackSize];
    int top = 0;
    int node = 0;       // internal node (>= 0), leaf (~index, < 0) or kNone
    int leaf = kNone;   // postponed leaf
    for (;;) {
        // Internal nodes, until this lane has a postponed leaf and so have all others.
        while (node >= 0 && node != kNone) {
            probe.sample();
            const BvhNode& n = bvh.nodes[node];
            Float4 lo0 = n.lo0, hi0 = n.hi0, lo1 = n.lo1, hi1 = n.hi1;
            float t0, t1;
            bool go0 = slabTest(lo0.xyz(), hi0.xyz(), slabs, hit.t, t0);
            bool go1 = slabTest(lo1.xyz(), hi1.xyz(), slabs, hit.t, t1);
            int c0 = floatAsInt(lo0.w), c1 = floatAsInt(hi0.w);
            if (go0 && go1) {
                bool nearFirst = t0 <= t1;
                stack[top++] = nearFirst ? c1 : c0;
                node = nearFirst ? c0 : c1;
            } else if (go0 || go1) {
                node = go0 ? c0 : c1;
            } else {
                node = top > 0 ? stack[--top] : kNone;
            }
            if constexpr (kAnyHit) {
                // Shadow rays test leaves at once: postponing delays the early exit of an occluded
                // ray (measured: -11% any-hit rays/s on mesh-1m) and did not raise connect's SIMD use.
                while (node < 0) {
                    if (intersectLeaf(bvh.primData, ~node, wr, ray.origin, ray.direction, hit)) {
                        if constexpr (kOneRay) return hit;
                        node = kNone;  // done: on to the next ray below
                        break;
                    }
                    node = top > 0 ? stack[--top] : kNone;
                }
            } else {
                if (node < 0 && leaf == kNone) {
                    leaf = node;
                    node = top > 0 ? stack[--top] : kNone;
                }
                if constexpr (kHasWarps)
                    if (wholeWarpAgrees(leaf != kNone)) break;
            }
        }
        // Postponed leaf, then any leaves that come next on the stack (closest hit only).
        while (leaf != kNone) {
            probe.sample();
            intersectLeaf(bvh.primData, ~leaf, wr, ray.origin, ray.direction, hit);
            leaf = kNone;
            if (node < 0) {
                leaf = node;
                node = top > 0 ? stack[--top] : kNone;
            }
        }
        if (node == kNone) {
            if (!nextRay(hit, ray)) break;
            hit = Hit{ray.tMax, -1};
            wr = bvh.numTriangles > 0 ? WatertightRay(ray.direction) : WatertightRay();
            slabs = SlabRay(ray.origin, ray.direction);
            top = 0;
            node = 0;
        }
    }
    return hit;
}

/// Persistent threads with ray replacement (Aila and Laine 2009): launched with about as many
/// items as run at once, each takes rays from `next`, and a lane whose ray is done takes the next
/// at once instead of idling until the slowest ray of its warp is done. Lanes that finish together
/// share one atomic (claimNext). `traverseFn(bvh, ray, nextRay)` is traverse (or
/// the 8-wide tree's traverseWide, which bvh_bench measures: tests/support/wide_bvh.h).
template <class View, class TraverseFn>
WF_CPU_GPU void traceReplacing(const View& bvh, const Ray* rays, Hit* hits, unsigned long long numRays,
                               unsigned long long* next, TraverseFn traverseFn) {
    unsigned long long i = claimNext(next);
    if (i >= numRays) return;
    auto nextRay = [&](const Hit& hit, Ray& ray) {
        hits[i] = hit;
        i = claimNext(next);
        if (i >= numRays) return false;
        ray = rays[i];
        return true;
    };
    traverseFn(bvh, rays[i], nextRay);
}

/// Packs a sphere leaf (radius > 0, as scene validation requires) with -radius, the marker that
/// intersectLeaf tells it from a triangle by: a triangle's id there is >= 0.
WF_CPU_GPU WF_INLINE void packSphere(Float4* p, vec3 center, float radius, int id) {
    p[0] = Float4(center, -radius);
    p[1] = Float4(intAsFloat(id), 0.0f, 0.0f, 0.0f);
    p[2] = Float4(0.0f, 0.0f, 0.0f, 0.0f);
}
WF_CPU_GPU WF_INLINE void packTriangle(Float4* p, vec3 v0, vec3 v1, vec3 v2, int id) {
    p[0] = Float4(v0, intAsFloat(id));
    p[1] = Float4(v1, intAsFloat(-1));
    p[2] = Float4(v2, intAsFloat(-1));
}

}  // namespace wavefront
