// An edit of an uploaded scene (Renderer::set*): the host Scene has been changed and checked
// already; this brings the exec's copy in line, touching only what the edit names.
#pragma once
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "host/device_scene/scene_upload.h"
#include "wavefront/error.h"
#include "wavefront/types.h"

namespace wavefront {

struct SceneEdit {
    enum Kind { Camera, Material, Texture, Light, Environment, Positions, Instance };
    Kind kind = Camera;
    int index = -1;              ///< material, texture, light, mesh or instance
    bool emissionChanged = false;  ///< Material/Texture: the light distribution must be built again
    bool normals = false;        ///< Positions: the mesh's normals changed too
    /// Positions: the new positions in the GPU's memory (Renderer::setMeshPositionsOnDevice),
    /// not in the host scene, which keeps the old ones.
    const vec3* deviceSource = nullptr;
    BvhUpdate bvh = BvhUpdate::Auto;
};

/// 1 for a vertex with a coordinate that is not finite or beyond +-limit (Scene::kMaxCoordinate),
/// else 0: summed, the device's count of Scene::setMeshPositions' refusals.
struct VertexOutOfRange {
    const vec3* positions;
    float limit;
    WF_CPU_GPU unsigned operator()(int i) const {
        const vec3 p = positions[i];
        return !(std::fabs(p.x) <= limit && std::fabs(p.y) <= limit && std::fabs(p.z) <= limit);
    }
};

/// Copies a mesh's new positions from the GPU's memory (`e.deviceSource`) into the scene's
/// buffer after Scene::setMeshPositions' checks, made on a staged copy so that a refused edit
/// changes nothing (the copy also reaches one device from another's memory).
template <class Exec>
void copyDevicePositions(Exec& exec, SceneBuffers<Exec>& s, const Scene& scene, const SceneEdit& e) {
    const MeshRange& r = scene.meshes()[std::size_t(e.index)];
    if constexpr (!Exec::kIsGpu) {
        throw InputError("positions in device memory need the CUDA backend");
    } else {
        Exec::checkDeviceMemory(e.deviceSource, "the positions");
        Buffer<vec3> staged = exec.template allocate<vec3>(r.vertexCount);
        Buffer<unsigned> bad = exec.template allocate<unsigned>(1);
        exec.copy(staged.data(), e.deviceSource, r.vertexCount);
        exec.transformReduceDevice(int(r.vertexCount), 0u, VertexOutOfRange{staged.data(), Scene::kMaxCoordinate},
                                   SumOf<unsigned>{}, bad.data());
        unsigned badCount = 0;
        exec.download(&badCount, bad.data(), 1);
        if (badCount > 0) {
            std::vector<glm::vec3> host(r.vertexCount);
            exec.download(host.data(), staged.data(), host.size());
            scene.checkMeshPositions(e.index, host.data(), host.size());  // throws, naming the first
            throw std::logic_error("the device refused positions the host check accepts");
        }
        exec.copy(s.positions.data() + r.firstVertex, staged.data(), r.vertexCount);
    }
}

/// Takes the scene's bounding sphere again after geometry moved; returns whether the lights must
/// be built again: the bounds weigh directional lights (deltaLightWeights) and place the
/// environment's emission disk (SceneView::sceneRadius).
template <class Exec>
bool updateBounds(Exec& exec, SceneBuffers<Exec>& s, const Scene& scene) {
    const Float4 bounds = sceneBoundingSphere(exec, s);
    const bool moved = bounds.x != s.boundingSphere.x || bounds.y != s.boundingSphere.y ||
                       bounds.z != s.boundingSphere.z || bounds.w != s.boundingSphere.w;
    s.boundingSphere = bounds;
    bool directional = false;
    for (const wavefront::Light& l : scene.lights()) directional = directional || l.type == LightType::Directional;
    return moved && directional;
}

/// Applies `e` (already applied to `scene`) to `s`; `builder`: the renderer's BVH builder.
/// Synchronous: the returned seconds include the device work.
template <class Exec>
EditStats applySceneEdit(Exec& exec, SceneBuffers<Exec>& s, const Scene& scene, const SceneEdit& e,
                         LightSampler lightSampler, BvhBuilder builder) {
    const auto start = std::chrono::steady_clock::now();
    EditStats st;
    std::size_t bytes = 0;
    bool lights = false;
    switch (e.kind) {
    case SceneEdit::Camera:
        st.what = "camera";
        s.camera = makeCamera(scene.camera());
        s.cameraMedium = mediumcode::of(scene.camera().medium);
        break;
    case SceneEdit::Material: {
        st.what = "material " + std::to_string(e.index);
        const std::vector<wavefront::Material>& all = scene.materials();
        const MaterialData packed = packMaterial(all[std::size_t(e.index)]);
        exec.upload(s.materials.data() + e.index, &packed, 1);
        bytes += sizeof(MaterialData);
        // The kernel set and the texture table follow every material, as at upload.
        bool textured = false;
        s.microfacetMaterials = false;
        for (const wavefront::Material& m : all) {
            textured = textured || packMaterialTextures(m).any();
            s.microfacetMaterials = s.microfacetMaterials || materialKind(m.type)->microfacet;
        }
        if (!textured) {
            s.materialTextures = Buffer<MaterialTextures>();
        } else if (s.materialTextures.size() == 0) {
            std::vector<MaterialTextures> table;
            for (const wavefront::Material& m : all) table.push_back(packMaterialTextures(m));
            s.materialTextures = uploadVector(exec, table);
            bytes += table.size() * sizeof(MaterialTextures);
        } else {
            const MaterialTextures t = packMaterialTextures(all[std::size_t(e.index)]);
            exec.upload(s.materialTextures.data() + e.index, &t, 1);
            bytes += sizeof(MaterialTextures);
        }
        lights = e.emissionChanged;
        // A material turned into an interface, or one no longer: the scene runs the kernels with
        // media, or without, and its interfaces with them.
        if (scene.hasMedia() != s.hasMedia) bytes += uploadMedia(exec, scene, s);
        break;
    }
    case SceneEdit::Texture: {
        st.what = "texture " + std::to_string(e.index);
        const wavefront::Texture& t = scene.textures()[std::size_t(e.index)];
        TextureView view = s.textureViewsHost[std::size_t(e.index)];
        const bool eightBit = !t.rgba8.empty();
        if (view.width == t.width && view.height == t.height && (view.rgba8 != nullptr) == eightBit) {
            // Same size and format: its texels in place, and its view (the sRGB flag may change).
            std::vector<std::uint32_t> words;
            std::vector<Float4> floats;
            packTexels(t, words, floats);
            const std::size_t at = s.textureOffsets[std::size_t(e.index)];
            if (eightBit) exec.upload(s.texels8.data() + at, words.data(), words.size());
            else exec.upload(s.texelsFloat.data() + at, floats.data(), floats.size());
            bytes += words.size() * sizeof(std::uint32_t) + floats.size() * sizeof(Float4);
            view.srgb = t.srgb ? 1 : 0;
            s.textureViewsHost[std::size_t(e.index)] = view;
            exec.upload(s.textures.data() + e.index, &view, 1);
            bytes += sizeof(TextureView);
        } else {
            uploadTextures(exec, scene, s);
            bytes += s.textureBytes + s.textureViewsHost.size() * sizeof(TextureView);
        }
        lights = e.emissionChanged;
        break;
    }
    case SceneEdit::Light:
        st.what = "light " + std::to_string(e.index);
        lights = true;
        break;
    case SceneEdit::Environment:
        st.what = "environment";
        bytes += uploadEnvironment(exec, scene, s, lightSampler);
        break;
    case SceneEdit::Positions: {
        st.what = "mesh " + std::to_string(e.index);
        const MeshRange& r = scene.meshes()[std::size_t(e.index)];
        if (e.deviceSource) {
            copyDevicePositions(exec, s, scene, e);  // device to device: no host bytes
        } else {
            exec.upload(s.positions.data() + r.firstVertex, scene.positions().data() + r.firstVertex, r.vertexCount);
            bytes += std::size_t(r.vertexCount) * sizeof(vec3);
        }
        if (e.normals) {
            exec.upload(s.normals.data() + r.firstVertex, scene.normals().data() + r.firstVertex, r.vertexCount);
            bytes += std::size_t(r.vertexCount) * sizeof(vec3);
            // A zero or non-finite normal turns its triangles to their geometric normal, and back.
            exec.upload(s.hasNormals.data() + r.firstTriangle, scene.triangleHasNormals().data() + r.firstTriangle,
                        r.triangleCount);
            bytes += r.triangleCount * sizeof(std::uint8_t);
        }
        const PrimitiveSource src = s.ownPrimitives();
        exec.synchronize();  // the upload ends before the BVH's time starts
        const auto bvhStart = std::chrono::steady_clock::now();
        bool rebuild = e.bvh == BvhUpdate::Rebuild;
        if (!rebuild) {
            // Only Auto needs the costs (a plain refit, e.g. once per animation frame, skips them):
            // the tree's as built, measured before its first refit, and the refitted one's.
            const bool judge = e.bvh == BvhUpdate::Auto;
            if (judge && s.bvhCostAtBuild < 0.0) s.bvhCostAtBuild = bvhCost(exec, s.bvh);
            refitBvh(exec, s.bvh, src);
            st.bvh = "refit";
            if (judge) st.bvhCostRatio = s.bvhCostAtBuild > 0.0 ? bvhCost(exec, s.bvh) / s.bvhCostAtBuild : 1.0;
            rebuild = judge && st.bvhCostRatio > kRefitCostLimit;
        }
        if (rebuild) {
            // Auto rebuilds with the LBVH: an edit's rebuild is per-frame work, where PLOC's rounds
            // (a read-back each) cost more than its better tree saves (docs/decisions.md, "Edits").
            s.bvh = buildBvh(exec, src, builder == BvhBuilder::Auto ? BvhBuilder::Lbvh : builder);
            s.bvhCostAtBuild = -1.0;
            st.bvh = st.bvh == "refit" ? "refit, rebuild" : "rebuild";
        }
        exec.synchronize();
        st.bvhSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - bvhStart).count();
        const bool boundsLights = updateBounds(exec, s, scene);
        lights = scene.materials()[std::size_t(r.material)].isEmissive() || boundsLights;
        break;
    }
    case SceneEdit::Instance: {
        // One instance's transforms and box, then the top level over every box: rebuilt (an LBVH
        // over the instances, O(n log n) in the sort) unless a refit is asked for.
        st.what = "instance " + std::to_string(e.index);
        const InstanceData d = packInstance(scene, e.index);
        vec3 corners[2];
        paddedInstanceBox(scene, e.index, corners);
        exec.upload(s.instances.data() + e.index, &d, 1);
        exec.upload(s.instanceCorners.data() + 2 * std::size_t(e.index), corners, 2);
        bytes += sizeof(InstanceData) + sizeof(corners);
        exec.synchronize();
        const auto bvhStart = std::chrono::steady_clock::now();
        if (e.bvh == BvhUpdate::Refit) {
            refitBvh(exec, s.instanceTop, s.instanceBoxSource());
            st.bvh = "refit";
        } else {
            s.instanceTop = buildLbvh(exec, s.instanceBoxSource());
            st.bvh = "rebuild";
        }
        exec.synchronize();
        st.bvhSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - bvhStart).count();
        lights = updateBounds(exec, s, scene);
        break;
    }
    }
    if (lights) {
        bytes += uploadLights(exec, scene, s, lightSampler);
        st.lightsRebuilt = true;
    }
    exec.synchronize();
    st.bytesUploaded = bytes;
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return st;
}

}  // namespace wavefront
