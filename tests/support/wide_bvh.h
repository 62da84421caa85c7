// The 8-wide compressed BVH (Ylitie, Karras and Laine, "Efficient Incoherent Ray Traversal on
// GPUs Through Compressed Wide BVHs", HPG 2017): the node layout, the collapse of a binary tree
// (LBVH or PLOC) into it, and its traversal. One header for the CPU and CUDA builds and both
// traversal paths, as bvh.h is for the binary tree.
#pragma once
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/bvh/bvh.h"
#include "kernels/core/math.h"

namespace wavefront {

/// One wide node, 80 bytes (five 16-byte loads). Its up to 8 children's boxes are quantised to
/// 8 bits per plane on a per-node grid: plane = p + q * 2^e per axis. A child is empty, an
/// internal node (its node index: childBase + the number of internal children in lower slots) or
/// a leaf of 1 to 3 primitives (at primBase + its offset in primData, kPrimWords per primitive).
/// meta[slot]: 0 empty; internal: 0b001 << 5 | (24 + slot); leaf: unary count (0b1, 0b11, 0b111)
/// << 5 | offset (0..23). Traversal turns these into the bits of a 32-bit hit mask: internal
/// children in the top 8 bits, ordered by the ray's octant; leaf primitives in the low 24.
struct alignas(16) WideNode {
    float p[3];               ///< grid origin
    std::uint8_t e[3];        ///< grid scale per axis as a float's biased exponent: 2^(e - 127)
    std::uint8_t imask;       ///< bit s: slot s holds an internal child
    std::uint32_t childBase;  ///< node index of the first internal child
    std::uint32_t primBase;   ///< primitive index of the first leaf primitive
    std::uint8_t meta[8];
    std::uint8_t qlo[3][8];   ///< per axis, per slot
    std::uint8_t qhi[3][8];
};
static_assert(sizeof(WideNode) == 80, "WideNode is five 16-byte loads");

/// The wide tree as traversal reads it.
struct WideBvhView {
    const WideNode* nodes = nullptr;  ///< root 0
    const Float4* primData = nullptr; ///< kPrimWords per primitive, each node's leaf primitives together
    int numPrims = 0;
    int numTriangles = 0;
};

/// Leaf primitives per child slot at most (the unary count of meta's top 3 bits).
constexpr int kWideLeafSize = 3;
/// Traversal stack entries: a node group and a postponed primitive group per wide level at most,
/// so the collapse accepts trees up to kWideStackSize / 2 - 1 levels deep (collapseToWide
/// returns nothing for deeper ones).
constexpr int kWideStackSize = 64;
constexpr int kMaxWideDepth = kWideStackSize / 2 - 1;
/// Closest-hit traversal postpones a node's primitive tests while fewer lanes than this are
/// active and the node has children to visit meanwhile, so that they run later together with
/// other lanes' tests (the paper's 20% of a warp).
constexpr int kPostponeLanes = 7;

// ---- The ray side ---------------------------------------------------------------------------

/// The 8-bit plane q as the float 2^15 + q, built by one byte permute (q into the mantissa's
/// second byte under the exponent of 2^15).
WF_CPU_GPU WF_INLINE float gridPlane(std::uint32_t word, int byte) {
    return uintAsFloat(bytePermute(word, 0x47000000u, 0x7504u | unsigned(byte) << 4));
}

/// Per-ray constants of the node test.
struct WideRay {
    vec3 origin;
    vec3 invDir;
    std::uint32_t octantInv;   ///< 7 - octant, octant bit k set when direction k is negative
    std::uint32_t octantInv4;  ///< octantInv in each byte
    WF_CPU_GPU WideRay(vec3 o, vec3 d) : origin(o), invDir(reciprocal(SlabRay::clampTiny(d))) {
        std::uint32_t octant = (invDir.x < 0.0f ? 1u : 0u) | (invDir.y < 0.0f ? 2u : 0u) | (invDir.z < 0.0f ? 4u : 0u);
        octantInv = 7u - octant;
        octantInv4 = octantInv * 0x01010101u;
    }
};

/// The node's five 16-byte words (read-only loads on the GPU).
struct WideNodeWords {
    std::uint32_t w[20];
    WF_CPU_GPU WF_INLINE explicit WideNodeWords(const WideNode* node) { loadReadOnlyWords(node, w, 5); }
};

/// A box the ray meets by less than the rounding of the plane distances still passes: a relative
/// slack on the exit distance here, an absolute one (collapse margin) in the quantised boxes.
constexpr float kWideExitSlack = 1.000001f;

/// Tests the ray against the node's 8 children within [0, tMax]. Returns the hit mask: for each
/// child hit, an internal child's bit 24 + (slot ^ octantInv) (so the highest bit is the child
/// nearest the ray's origin side) or a leaf's primitive bits at its offset.
WF_CPU_GPU WF_INLINE std::uint32_t intersectWideNode(const WideNodeWords& n, const WideRay& r, float tMax) {
    // Plane distance = (p + q 2^e - o) / d = (2^15 + q) A + C, with A = 2^e / d and C folding in
    // -2^15 A: one FMA per plane (the paper's per-node transform; 2^15 keeps C's rounding at
    // 2^-9 of a grid step, where 2^23 would lose half of one).
    vec3 adjInvDir, adjOrigin;
    WF_UNROLL
    for (int k = 0; k < 3; ++k) {
        float scale = uintAsFloat(((n.w[3] >> (8 * k)) & 0xffu) << 23);
        adjInvDir[k] = r.invDir[k] * scale;
        adjOrigin[k] = std::fma(-32768.0f, adjInvDir[k], (uintAsFloat(n.w[k]) - r.origin[k]) * r.invDir[k]);
    }
    std::uint32_t hitMask = 0;
    WF_UNROLL
    for (int half = 0; half < 2; ++half) {
        std::uint32_t meta4 = n.w[6 + half];
        // Entry and exit planes per axis: lo enters where the direction is positive.
        std::uint32_t lox = n.w[8 + half], loy = n.w[10 + half], loz = n.w[12 + half];
        std::uint32_t hix = n.w[14 + half], hiy = n.w[16 + half], hiz = n.w[18 + half];
        std::uint32_t nearX = r.invDir.x < 0.0f ? hix : lox, farX = r.invDir.x < 0.0f ? lox : hix;
        std::uint32_t nearY = r.invDir.y < 0.0f ? hiy : loy, farY = r.invDir.y < 0.0f ? loy : hiy;
        std::uint32_t nearZ = r.invDir.z < 0.0f ? hiz : loz, farZ = r.invDir.z < 0.0f ? loz : hiz;
        // Bit positions of the 4 children at once: internal children's slot ^ octantInv.
        std::uint32_t isInner4 = (meta4 & (meta4 << 1)) & 0x10101010u;
        std::uint32_t innerMask4 = (isInner4 >> 4) * 0xffu;
        std::uint32_t bitIndex4 = (meta4 ^ (r.octantInv4 & innerMask4)) & 0x1f1f1f1fu;
        std::uint32_t childBits4 = (meta4 >> 5) & 0x07070707u;
        WF_UNROLL
        for (int j = 0; j < 4; ++j) {
            float tx0 = std::fma(gridPlane(nearX, j), adjInvDir.x, adjOrigin.x);
            float ty0 = std::fma(gridPlane(nearY, j), adjInvDir.y, adjOrigin.y);
            float tz0 = std::fma(gridPlane(nearZ, j), adjInvDir.z, adjOrigin.z);
            float tx1 = std::fma(gridPlane(farX, j), adjInvDir.x, adjOrigin.x);
            float ty1 = std::fma(gridPlane(farY, j), adjInvDir.y, adjOrigin.y);
            float tz1 = std::fma(gridPlane(farZ, j), adjInvDir.z, adjOrigin.z);
            float tNear = maxOfThreeAndZero(tx0, ty0, tz0);
            float tFar = minOfThreeSignExact(tx1, ty1, minNum(tz1, tMax));
            if (tNear <= tFar * kWideExitSlack) {
                std::uint32_t bits = (childBits4 >> (8 * j)) & 7u;
                hitMask |= bits << ((bitIndex4 >> (8 * j)) & 31u);
            }
        }
    }
    return hitMask;
}

/// Closest hit in (0, ray.tMax), or any hit when kAnyHit, through the wide tree (the paper's
/// Algorithm 1). The stack holds groups: a node group (childBase, hit bits of internal children
/// in the top 8 bits | the parent's imask in the low 8) or a primitive group (primBase, hit bits
/// in the low 24). A node's children are visited highest bit first, near side first.
/// `nextRay` as in traverse(): traceReplacing gives a lane whose ray is done the next one.
template <bool kAnyHit, class NextRay = EndTraversal>
WF_CPU_GPU inline Hit traverseWide(const WideBvhView& bvh, const Ray& firstRay, const SimdProbe& probe = SimdProbe(),
                                   NextRay nextRay = NextRay()) {
    Ray ray = firstRay;
    Hit hit{ray.tMax, -1};
    if (bvh.numPrims == 0) {
        while (nextRay(hit, ray)) hit = Hit{ray.tMax, -1};
        return hit;
    }
    WatertightRay wr = bvh.numTriangles > 0 ? WatertightRay(ray.direction) : WatertightRay();
    WideRay r(ray.origin, ray.direction);
    std::uint32_t stackBase[kWideStackSize], stackBits[kWideStackSize];
    int top = 0;
    // The root as slot 0 of a group whose imask is 1.
    std::uint32_t groupBase = 0, groupBits = 1u << (24 + r.octantInv) | 1u;
    for (;;) {
        std::uint32_t primBase, primBits;
        if (groupBits > 0x00ffffffu) {
            int bit = highestBit(groupBits & 0xff000000u);
            groupBits &= ~(1u << bit);
            std::uint32_t slot = std::uint32_t(bit - 24) ^ r.octantInv;
            std::uint32_t index = groupBase + bitCount(groupBits & ((1u << slot) - 1u));
            if (groupBits > 0x00ffffffu) {
                stackBase[top] = groupBase;
                stackBits[top++] = groupBits;
            }
            probe.sample();
            WideNodeWords n(bvh.nodes + index);
            std::uint32_t hitMask = intersectWideNode(n, r, hit.t);
            groupBase = n.w[4];
            groupBits = (hitMask & 0xff000000u) | (n.w[3] >> 24);
            primBase = n.w[5];
            primBits = hitMask & 0x00ffffffu;
        } else {
            primBase = groupBase;
            primBits = groupBits;
            groupBits = 0;
        }
        bool done = false;  // an any-hit ray that found one
        while (primBits != 0) {
            if constexpr (!kAnyHit) {
                // Only while there are nodes to go on with: a group popped back would otherwise
                // be postponed again forever once the other lanes have finished.
                if (kHasWarps && groupBits > 0x00ffffffu && activeLaneCount() < kPostponeLanes) {
                    stackBase[top] = primBase;
                    stackBits[top++] = primBits;
                    break;
                }
            }
            int b = lowestBit(primBits);
            primBits &= primBits - 1u;
            probe.sample();
            if (intersectLeaf(bvh.primData, int(primBase) + b, wr, ray.origin, ray.direction, hit) && kAnyHit) {
                done = true;
                break;
            }
        }
        if (done || (groupBits <= 0x00ffffffu && top == 0)) {
            if (!nextRay(hit, ray)) break;
            hit = Hit{ray.tMax, -1};
            wr = bvh.numTriangles > 0 ? WatertightRay(ray.direction) : WatertightRay();
            r = WideRay(ray.origin, ray.direction);
            top = 0;
            groupBase = 0;
            groupBits = 1u << (24 + r.octantInv) | 1u;
        } else if (groupBits <= 0x00ffffffu) {
            --top;
            groupBase = stackBase[top];
            groupBits = stackBits[top];
        }
    }
    return hit;
}

// ---- The collapse ---------------------------------------------------------------------------

/// The collapse's bookkeeping, in exec memory: shared counters and the levels so far. The host
/// reads it back whole every few levels (collapseToWide).
struct CollapseState {
    int nodes;  ///< wide nodes allocated (the root is allocated before the first level)
    int prims;  ///< leaf primitives placed
    int levelStart[kMaxWideDepth + 2];  ///< first wide node of each level (level 0: the root)
    int levelCount[kMaxWideDepth + 2];  ///< nodes of each level; 0 past the last
};

/// Before the first level, one thread: the root, standing for the binary root, is level 0.
struct CollapseStartStage {
    CollapseState* state;
    int* subtreeOf;
    WF_CPU_GPU void operator()(int) const {
        state->nodes = 1;
        state->prims = 0;
        for (int l = 0; l < kMaxWideDepth + 2; ++l) state->levelStart[l] = state->levelCount[l] = 0;
        state->levelCount[0] = 1;
        subtreeOf[0] = 0;
    }
};

/// The wide tree is written top-down, one launch per level and one thread per wide node of the
/// level. A node's thread opens the binary subtree its parent named greedily: starting from the
/// subtree's two children, the internal child of largest surface area is replaced by its two
/// children until there are 8 or only leaves. A subtree of at most 3 primitives becomes a leaf.
/// Children take the slots of the octants they lie in from the parent's centre (the paper's
/// assignment, greedily), so traversal visits them near side first; internal children get the
/// next level's node indices from one atomic counter.
struct CollapseLevelStage {
    const BvhNode* binary;        ///< the binary tree (root 0)
    const Float4* binaryPrims;    ///< its leaves' primitive data
    WideNode* nodes;
    Float4* prims;                ///< the wide tree's primitive data, leaf children contiguous per node
    int* subtreeOf;               ///< per wide node: the binary node it stands for (set by its parent)
    CollapseState* state;
    int level;                    ///< this launch's (root = 0)

    struct Child {
        Aabb box;
        int ref;          ///< binary node (>= 0) or ~leaf
        int numPrims;     ///< the subtree's primitives; more than kWideLeafSize: a wide node
        int prims[kWideLeafSize];  ///< a leaf's, once leafPrims has run
        WF_CPU_GPU bool isLeaf() const { return numPrims <= kWideLeafSize; }
    };

    /// Child c of binary node n: its box, reference and primitive count, without loading it.
    WF_CPU_GPU WF_INLINE static Child childOf(const BvhNode& n, int c) {
        return Child{n.box(c), n.child(c), n.subtreeSize(c), {}};
    }

    /// The primitives of a leaf child (a subtree of at most 3): at most two dependent loads,
    /// independent of the other children's, so they overlap.
    WF_CPU_GPU WF_INLINE void leafPrims(Child& c) const {
        int* prims = c.prims;
        if (c.ref < 0) {
            prims[0] = ~c.ref;
            return;
        }
        const BvhNode& n = binary[c.ref];
        int a = n.child(0), b = n.child(1);
        if (a < 0 && b < 0) {  // two primitives
            prims[0] = ~a;
            prims[1] = ~b;
            return;
        }
        int inner = a >= 0 ? a : b, leaf = a >= 0 ? b : a;  // three: a leaf and a node of two
        const BvhNode& m = binary[inner];
        prims[0] = ~leaf;
        prims[1] = ~m.child(0);
        prims[2] = ~m.child(1);
    }

    WF_CPU_GPU void operator()(int i) const {
        int w = state->levelStart[level] + i;
        writeNode(w, subtreeOf[w]);
    }

    /// The greedy opening loads one binary node per step, the one it opens: the children's
    /// primitive counts ride in their parent (BvhNode::subtreeSize).
    WF_CPU_GPU void writeNode(int w, int subtree) const {
        Child children[8];
        int count = 0;
        {
            const BvhNode& root = binary[subtree];
            children[count++] = childOf(root, 0);
            if (root.child(1) != root.child(0)) children[count++] = childOf(root, 1);  // else a single primitive's root
        }
        while (count < 8) {
            int open = -1;
            double largest = -1.0;
            for (int i = 0; i < count; ++i)
                if (!children[i].isLeaf() && halfArea(children[i].box) > largest) {
                    largest = halfArea(children[i].box);
                    open = i;
                }
            if (open < 0) break;
            const BvhNode& n = binary[children[open].ref];
            children[count++] = childOf(n, 1);
            children[open] = childOf(n, 0);
        }
        for (int i = 0; i < count; ++i)
            if (children[i].isLeaf()) leafPrims(children[i]);

        // Slots by octant: repeatedly the (child, slot) pair whose centroid offset points most
        // along the slot's diagonal.
        Aabb box;
        for (int i = 0; i < count; ++i) box.extend(children[i].box);
        vec3 centre = box.center();
        int childOfSlot[8];
        for (int s = 0; s < 8; ++s) childOfSlot[s] = -1;
        unsigned placed = 0;
        for (int round = 0; round < count; ++round) {
            float best = -FLT_MAX;
            int bestChild = 0, bestSlot = 0;
            for (int i = 0; i < count; ++i) {
                if (placed >> i & 1u) continue;
                vec3 d = children[i].box.center() - centre;
                for (int s = 0; s < 8; ++s) {
                    if (childOfSlot[s] >= 0) continue;
                    float v = (s & 1 ? d.x : -d.x) + (s & 2 ? d.y : -d.y) + (s & 4 ? d.z : -d.z);
                    if (v > best) {
                        best = v;
                        bestChild = i;
                        bestSlot = s;
                    }
                }
            }
            childOfSlot[bestSlot] = bestChild;
            placed |= 1u << bestChild;
        }

        int numInternal = 0, numLeafPrims = 0;
        for (int i = 0; i < count; ++i) {
            if (children[i].isLeaf()) numLeafPrims += children[i].numPrims;
            else ++numInternal;
        }
        int childBase = numInternal > 0 ? atomicFetchAdd(&state->nodes, numInternal) : 0;
        int primBase = numLeafPrims > 0 ? atomicFetchAdd(&state->prims, numLeafPrims) : 0;

        WideNode node;
        node.childBase = std::uint32_t(childBase);
        node.primBase = std::uint32_t(primBase);
        node.imask = 0;
        // The grid: the box widened by 2^-15 of its extent and 2^-20 of its coordinates, margins
        // that cover the traversal's rounding of the plane distances (about 2^-16 of the extent,
        // from the folded offset, and 2^-23 of the coordinates, through p - o).
        double lo[3], margin[3];
        for (int k = 0; k < 3; ++k) {
            double l = box.lo[k], h = box.hi[k];
            margin[k] = (h - l) * (1.0 / 32768.0) + std::fmax(std::fabs(l), std::fabs(h)) * (1.0 / 1048576.0);
            float p = float(l - margin[k]);
            if (double(p) > l - margin[k]) p = std::nextafter(p, -FLT_MAX);
            node.p[k] = p;
            lo[k] = p;
            double extent = h + margin[k] - lo[k];
            int exponent = -126;
            if (extent > 0.0) {
                exponent = int(std::ceil(std::log2(extent / 255.0)));
                if (std::ldexp(255.0, exponent) < extent) ++exponent;  // log2's rounding
                exponent = exponent < -126 ? -126 : exponent;
            }
            node.e[k] = std::uint8_t(exponent + 127);
        }
        int offset = 0, rank = 0;
        for (int s = 0; s < 8; ++s) {
            int i = childOfSlot[s];
            if (i < 0) {
                node.meta[s] = 0;
                for (int k = 0; k < 3; ++k) node.qlo[k][s] = node.qhi[k][s] = 0;
                continue;
            }
            const Child& c = children[i];
            for (int k = 0; k < 3; ++k) {
                double step = std::ldexp(1.0, int(node.e[k]) - 127);
                double qlo = std::floor((double(c.box.lo[k]) - margin[k] - lo[k]) / step);
                double qhi = std::ceil((double(c.box.hi[k]) + margin[k] - lo[k]) / step);
                node.qlo[k][s] = std::uint8_t(qlo < 0.0 ? 0.0 : (qlo > 255.0 ? 255.0 : qlo));
                node.qhi[k][s] = std::uint8_t(qhi < 0.0 ? 0.0 : (qhi > 255.0 ? 255.0 : qhi));
            }
            if (!c.isLeaf()) {
                node.imask |= std::uint8_t(1u << s);
                node.meta[s] = std::uint8_t(1u << 5 | (24u + unsigned(s)));
                subtreeOf[childBase + rank++] = c.ref;
            } else {
                node.meta[s] = std::uint8_t(((1u << c.numPrims) - 1u) << 5 | unsigned(offset));
                for (int k = 0; k < c.numPrims; ++k)
                    for (int word = 0; word < kPrimWords; ++word)
                        prims[kPrimWords * (primBase + offset + k) + word] = binaryPrims[kPrimWords * c.prims[k] + word];
                offset += c.numPrims;
            }
        }
        // Five 16-byte stores (a plain struct copy writes byte by byte).
        const Float4* words = reinterpret_cast<const Float4*>(&node);
        Float4* out = reinterpret_cast<Float4*>(nodes + w);
        for (int k = 0; k < 5; ++k) out[k] = words[k];
    }
};

/// Between two levels, one thread: where the next level starts and how many nodes it has.
struct CollapseLevelEndStage {
    CollapseState* state;
    int level;  ///< the level just written
    WF_CPU_GPU void operator()(int) const {
        state->levelStart[level + 1] = state->levelStart[level] + state->levelCount[level];
        state->levelCount[level + 1] = state->nodes - state->levelStart[level + 1];
    }
};

}  // namespace wavefront
