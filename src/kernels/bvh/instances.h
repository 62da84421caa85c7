// Instancing: a top-level BVH over instances, each an object's own BVH placed by an affine
// transform (the two-level scheme of pbrt-v4's and OptiX's instance acceleration structures).
// Rays enter an object in its own space, so memory grows with the objects, not their copies.
#pragma once
#include "kernels/bvh/bvh.h"

namespace wavefront {

/// One placement: the rows of the 3x4 world-to-object and object-to-world matrices.
struct InstanceData {
    Float4 worldToObject[3];
    Float4 objectToWorld[3];
    int object;
    /// 1 when the transform mirrors (negative determinant): the winding then turns the geometric
    /// normal inwards, and it is flipped back so that front and outside stay the object's.
    int mirrors;
    int pad[2];
};

/// An object as traversal sees it: its BVH (leaf ids count from 0) and where its triangles start
/// in the scene's triangle array (the id a hit reports is firstTriangle + the leaf's id).
struct ObjectView {
    BvhView bvh;
    int firstTriangle = 0;
};

/// The instances of a scene. The top level is an ordinary BVH whose leaves are the instances'
/// world boxes, packed as the degenerate triangle (lo, hi, lo) with the instance index as the
/// triangle id: its bounds are the box, so the LBVH stages build it unchanged.
struct InstancesView {
    BvhView top;
    const InstanceData* instances = nullptr;
    const ObjectView* objects = nullptr;
    int count = 0;
};

/// Object space to world space of point p (translation included) or vector v (none).
WF_CPU_GPU WF_INLINE vec3 transformPoint(const Float4* rows, vec3 p) {
    return vec3(rows[0].x * p.x + rows[0].y * p.y + rows[0].z * p.z + rows[0].w,
                rows[1].x * p.x + rows[1].y * p.y + rows[1].z * p.z + rows[1].w,
                rows[2].x * p.x + rows[2].y * p.y + rows[2].z * p.z + rows[2].w);
}
WF_CPU_GPU WF_INLINE vec3 transformVector(const Float4* rows, vec3 v) {
    return vec3(rows[0].x * v.x + rows[0].y * v.y + rows[0].z * v.z, rows[1].x * v.x + rows[1].y * v.y + rows[1].z * v.z,
                rows[2].x * v.x + rows[2].y * v.y + rows[2].z * v.z);
}
/// The largest coordinate of |M| |v| + |t| for the rows (M t): the magnitude that placing v
/// rounds against.
WF_CPU_GPU WF_INLINE float placedMagnitude(const Float4* rows, vec3 v) {
    vec3 a = glm::abs(v);
    float m = 0.0f;
    for (int r = 0; r < 3; ++r)
        m = glm::max(m, std::fabs(rows[r].x) * a.x + std::fabs(rows[r].y) * a.y + std::fabs(rows[r].z) * a.z +
                            std::fabs(rows[r].w));
    return m;
}

/// A normal n of object space in world space: the inverse transpose, i.e. the world-to-object
/// rows' transpose applied to n (unnormalised).
WF_CPU_GPU WF_INLINE vec3 transformNormal(const InstanceData& inst, vec3 n) {
    const Float4* r = inst.worldToObject;
    return vec3(r[0].x * n.x + r[1].x * n.y + r[2].x * n.z, r[0].y * n.x + r[1].y * n.y + r[2].y * n.z,
                r[0].z * n.x + r[1].z * n.y + r[2].z * n.z);
}

/// The instances' part of a trace: narrows `hit` (which holds what the scene's own BVH found,
/// hit.t its bound) to the closest instance hit, or any when kAnyHit. One stack loop walks both
/// levels: at an instance leaf the ray moves into the object's space (the direction transformed,
/// not normalised, so the parametric distance stays the world one) and a kReturn entry marks
/// where the object ends and the world ray comes back. Out of line on the GPU. A kernel's
/// registers are still the most any code it calls needs: kernels that can reach this run at
/// 72-86 registers against 54, so only scenes with instances run them (InstancedMaterials,
/// material_types.h).
template <bool kAnyHit>
#if defined(__CUDACC__)
__noinline__
#endif
WF_CPU_GPU void traverseInstances(const InstancesView& inst, const Ray& ray, Hit& hit, const SimdProbe& probe) {
    constexpr int kReturn = 0x7ffffffe;  // above every internal node index
    const BvhNode* nodes = inst.top.nodes;
    const Float4* primData = nullptr;    // the current object's leaves
    vec3 org = ray.origin, dir = ray.direction;
    SlabRay slabs(org, dir);
    WatertightRay wr;
    int current = -1, firstTriangle = 0;  // the instance being walked (-1: the top level)
    // Each level's depth is within kTraversalStackSize (bvh.h), so both together within twice.
    int stack[2 * kTraversalStackSize];
    int top = 0;
    int node = 0;
    for (;;) {
        if (node == kReturn) {
            current = -1;
            nodes = inst.top.nodes;
            org = ray.origin;
            dir = ray.direction;
            slabs = SlabRay(org, dir);
        } else if (node >= 0) {
            probe.sample();
            const BvhNode& n = nodes[node];
            float t0, t1;
            bool go0 = slabTest(n.lo0.xyz(), n.hi0.xyz(), slabs, hit.t, t0);
            bool go1 = slabTest(n.lo1.xyz(), n.hi1.xyz(), slabs, hit.t, t1);
            int c0 = floatAsInt(n.lo0.w), c1 = floatAsInt(n.hi0.w);
            if (go0 && go1) {
                bool nearFirst = t0 <= t1;
                stack[top++] = nearFirst ? c1 : c0;
                node = nearFirst ? c0 : c1;
                continue;
            }
            if (go0 || go1) {
                node = go0 ? c0 : c1;
                continue;
            }
        } else if (current < 0) {
            // An instance: into its object's space and tree.
            current = floatAsInt(inst.top.primData[kPrimWords * ~node].w);
            const InstanceData& d = inst.instances[current];
            const ObjectView& object = inst.objects[d.object];
            org = transformPoint(d.worldToObject, ray.origin);
            dir = transformVector(d.worldToObject, ray.direction);
            slabs = SlabRay(org, dir);
            wr = WatertightRay(dir);
            nodes = object.bvh.nodes;
            primData = object.bvh.primData;
            firstTriangle = object.firstTriangle;
            stack[top++] = kReturn;
            node = 0;
            continue;
        } else {
            probe.sample();
            if (intersectLeaf(primData, ~node, wr, org, dir, hit)) {  // changes hit only when closer
                hit.prim += firstTriangle;
                hit.instance = current;
                if constexpr (kAnyHit) return;
            }
        }
        if (top == 0) return;
        node = stack[--top];
    }
}

}  // namespace wavefront
