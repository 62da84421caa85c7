// CPU instantiations of the exec templates, and host helpers shared by both backends.
#include <sstream>

#include "host/bvh_api_impl.h"
#include "kernels/compaction_bench.h"
#include "host/exec_render_backend.h"
#include "kernels/cpu_exec.h"

namespace wavefront {

MaterialData packMaterial(const Material& m) {
    MaterialData d;
    d.diffuse = Float4(m.diffuse, intAsFloat(int(m.type)));
    d.specular = Float4(m.type == MaterialType::Mirror && m.specular == vec3(0.0f) ? m.diffuse : m.specular, m.exponent);
    d.emission = Float4(m.emission, m.ior);
    return d;
}

CameraData makeCamera(const Camera& c) {
    CameraData d;
    d.position = c.position;
    d.forward = glm::normalize(c.target - c.position);
    d.right = glm::normalize(glm::cross(d.forward, c.up));
    d.up = glm::cross(d.right, d.forward);
    d.tanHalfFovY = std::tan(0.5f * c.verticalFovDegrees * kPi / 180.0f);
    d.aspect = 1.0f;
    d.lensRadius = c.lensRadius;
    d.focusDistance = c.focusDistance;
    return d;
}

std::unique_ptr<RenderBackend> makeCpuRenderBackend(const Scene& scene, const RenderOptions& options) {
    return std::make_unique<ExecRenderBackend<CpuExec>>(scene, options);
}

#if defined(WAVEFRONT_HAS_CUDA)
CompactionTimes measureCompactionCuda(int n, float keepFraction, int repetitions);
BvhSnapshot buildBvhSnapshotCuda(const PrimitiveArrays& prims);
TraceResult traceRaysCuda(const PrimitiveArrays& prims, const std::vector<Ray>& rays, bool anyHit);
#endif

[[maybe_unused]] static void requireCudaBuild() {
#if !defined(WAVEFRONT_HAS_CUDA)
    throw InputError("this build of wavefront has no CUDA backend (configure with WAVEFRONT_ENABLE_CUDA)");
#endif
}

BvhSnapshot buildBvhSnapshot(Backend backend, const PrimitiveArrays& prims) {
    if (backend == Backend::Cpu) {
        CpuExec exec;
        return buildBvhSnapshotOn(exec, prims);
    }
#if defined(WAVEFRONT_HAS_CUDA)
    return buildBvhSnapshotCuda(prims);
#else
    requireCudaBuild();
    return {};
#endif
}

TraceResult traceRays(Backend backend, const PrimitiveArrays& prims, const std::vector<Ray>& rays, bool anyHit) {
    if (backend == Backend::Cpu) {
        CpuExec exec;
        return traceRaysOn(exec, prims, rays, anyHit);
    }
#if defined(WAVEFRONT_HAS_CUDA)
    return traceRaysCuda(prims, rays, anyHit);
#else
    requireCudaBuild();
    return {};
#endif
}

CompactionTimes measureCompaction(Backend backend, int n, float keepFraction, int repetitions) {
    if (backend == Backend::Cpu) {
        CpuExec exec;
        auto noFlagged = [](const CompactionItem*, const char*, CompactionItem*, int*, int) {};
        CompactionTimes t = measureCompaction(exec, n, keepFraction, repetitions, noFlagged);
        t.flaggedMs = -1;
        return t;
    }
#if defined(WAVEFRONT_HAS_CUDA)
    return measureCompactionCuda(n, keepFraction, repetitions);
#else
    requireCudaBuild();
    return {};
#endif
}

std::string validateBvh(const BvhSnapshot& bvh) {
    std::ostringstream problem;
    int n = bvh.numPrims;
    if (n == 0) return bvh.nodes.empty() ? "" : "nodes without primitives";
    std::vector<int> leafSeen(n, 0), idSeen(n, 0);
    Aabb all;
    for (int leaf = 0; leaf < n; ++leaf) {
        const Float4* p = &bvh.primData[kPrimWords * leaf];
        bool sphere = p[1].w == 0.0f && floatAsInt(p[2].w) == 1;
        int id = sphere ? floatAsInt(p[1].x) : floatAsInt(p[0].w);
        if (id < 0 || id >= n) return "leaf " + std::to_string(leaf) + " holds invalid primitive id " + std::to_string(id);
        if (sphere != (id >= bvh.numTriangles)) return "leaf " + std::to_string(leaf) + " has the wrong primitive type";
        if (idSeen[id]++) return "primitive " + std::to_string(id) + " is in more than one leaf";
        all.extend(primDataBounds(p, !sphere));
    }
    // Walk from the root: every internal node reached once, every leaf reached once.
    std::vector<int> nodeSeen(bvh.nodes.size(), 0);
    std::vector<std::pair<int, Aabb>> stack;  // (child index, box stored for it in the parent)
    const BvhNode& root = bvh.nodes[0];
    Aabb rootBox = Aabb::unite(root.box(0), root.box(1));
    if (!rootBox.contains(all)) return "root box does not cover the scene";
    if (n == 1) {
        // A single primitive's root names its leaf in both slots (lbvh_builder.h).
        if (root.child(0) != ~0 || root.child(1) != ~0) return "single-primitive root is malformed";
        if (!root.box(0).contains(primDataBounds(&bvh.primData[0], bvh.numTriangles == 1))) return "leaf box too small";
        return "";
    }
    stack.push_back({0, rootBox});
    while (!stack.empty()) {
        auto [index, parentBox] = stack.back();
        stack.pop_back();
        if (index < 0) {
            int leaf = ~index;
            if (leaf >= n) return "child names leaf " + std::to_string(leaf) + " out of range";
            if (leafSeen[leaf]++) return "leaf " + std::to_string(leaf) + " is reached twice";
            const Float4* p = &bvh.primData[kPrimWords * leaf];
            bool sphere = p[1].w == 0.0f && floatAsInt(p[2].w) == 1;
            if (!parentBox.contains(primDataBounds(p, !sphere))) return "leaf " + std::to_string(leaf) + " sticks out of its box";
            continue;
        }
        if (index >= int(bvh.nodes.size())) return "child names node " + std::to_string(index) + " out of range";
        if (nodeSeen[index]++) return "node " + std::to_string(index) + " is reached twice";
        const BvhNode& node = bvh.nodes[index];
        for (int c = 0; c < 2; ++c) {
            if (!parentBox.contains(node.box(c))) return "node " + std::to_string(index) + " child box not inside its parent box";
            stack.push_back({node.child(c), node.box(c)});
        }
    }
    for (int leaf = 0; leaf < n; ++leaf)
        if (!leafSeen[leaf]) return "leaf " + std::to_string(leaf) + " is unreachable";
    return "";
}

int bvhDepth(const BvhSnapshot& bvh) {
    if (bvh.numPrims == 0) return 0;
    int deepest = 0;
    std::vector<std::pair<int, int>> stack{{0, 1}};
    while (!stack.empty()) {
        auto [index, depth] = stack.back();
        stack.pop_back();
        if (index < 0) {
            deepest = std::max(deepest, depth);
            continue;
        }
        for (int c = 0; c < 2; ++c) stack.push_back({bvh.nodes[index].child(c), depth + 1});
    }
    return deepest;
}

}  // namespace wavefront
