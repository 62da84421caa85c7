// Uploads a validated Scene into one exec's memory, builds the LBVH there and the light CDF by a
// device-wide prefix sum. Template over the exec type, like the drivers.
#pragma once
#include <vector>

#include "host/device_scene/bvh_builder.h"
#include "host/device_scene/distribution_builder.h"
#include "host/device_scene/environment_buffers.h"
#include "host/scene/material_kinds.h"
#include "kernels/scene/light_stages.h"
#include "kernels/materials/material_types.h"
#include "wavefront/scene.h"

namespace wavefront {

template <class Exec>
struct SceneBuffers {
    Buffer<vec3> positions, normals;
    Buffer<vec2> uvs;
    Buffer<std::uint32_t> texels8;  ///< every 8-bit texture, one after another
    Buffer<Float4> texelsFloat;     ///< every float texture
    Buffer<TextureView> textures;
    std::size_t textureBytes = 0;   ///< texels on the exec
    std::vector<std::size_t> textureOffsets;  ///< per texture: its first texel in texels8 or texelsFloat
    std::vector<TextureView> textureViewsHost;  ///< what `textures` holds, kept for in-place edits
    Buffer<uvec3> triangles;
    Buffer<int> triangleMaterial;
    Buffer<std::uint8_t> hasNormals;
    Buffer<Float4> spheres;
    Buffer<int> sphereMaterial;
    Buffer<MaterialData> materials;
    Buffer<MaterialTextures> materialTextures;  ///< empty when no material has a texture
    Distribution<Exec> lightDistribution;
    Buffer<float> primPmf;
    Buffer<int> lightPrims;
    Buffer<DeltaLightData> deltaLights;
    Bvh<Exec> bvh;  ///< over the scene's own primitives (ownPrimitives)
    // Instancing (kernels/bvh/instances.h): a BVH per object, the objects' views, the instances
    // and the top-level BVH over their world boxes.
    std::vector<Bvh<Exec>> objectBvhs;
    Buffer<ObjectView> objects;
    Buffer<InstanceData> instances;
    Buffer<vec3> instanceCorners;    ///< lo, hi per instance: their world boxes, kept for edits
    Buffer<uvec3> instanceBoxes;     ///< the degenerate triangles the top level is built over
    Bvh<Exec> instanceTop;
    int numInstances = 0;
    double bvhCostAtBuild = -1.0;  ///< surface-area cost of the tree as last built; < 0: not measured yet
    EnvironmentBuffers<Exec> environment;
    // Participating media (kernels/media/medium.h): only for a scene with media (Scene::hasMedia).
    Buffer<MediumData> media;
    Buffer<float> mediumValues;             ///< grid densities and majorants
    Buffer<std::uint16_t> primInterface;   ///< per primitive: the media codes inside and outside
    int cameraMedium = 0;                   ///< code
    bool hasMedia = false;
    CameraData camera{};
    Float4 boundingSphere{0.0f, 0.0f, 0.0f, 1.0f};  ///< centre, radius
    /// Triangles on the exec: the scene's own, then the objects' (numOwnTriangles are the own).
    int numTriangles = 0, numSpheres = 0;
    int numOwnTriangles = 0;
    int numLights = 0, numAreaLights = 0;  ///< entries of the light distribution: area lights, then delta lights
    bool microfacetMaterials = false;  ///< some material is of a microfacet kind

    /// The scene's own primitives, which `bvh` holds: its triangles and spheres, the spheres' ids
    /// after the objects' triangles.
    PrimitiveSource ownPrimitives() const {
        return PrimitiveSource{positions.data(), triangles.data(), spheres.data(), numOwnTriangles, numSpheres,
                               numTriangles - numOwnTriangles};
    }

    /// The instances' boxes as the top-level BVH's primitives.
    PrimitiveSource instanceBoxSource() const {
        return PrimitiveSource{instanceCorners.data(), instanceBoxes.data(), nullptr, numInstances, 0};
    }

    SceneView view(int width, int height) const {
        SceneView v;
        v.bvh = bvh.view();
        v.instances = InstancesView{instanceTop.view(), instances.data(), objects.data(), numInstances};
        v.positions = positions.data();
        v.normals = normals.data();
        v.uvs = uvs.size() > 0 ? uvs.data() : nullptr;
        v.textures = textures.data();
        v.textured = materialTextures.size() > 0;  // uploaded only when some material has a texture
        v.triangles = triangles.data();
        v.triangleMaterial = triangleMaterial.data();
        v.hasNormals = hasNormals.data();
        v.spheres = spheres.data();
        v.sphereMaterial = sphereMaterial.data();
        v.materials = materials.data();
        v.materialTextures = materialTextures.size() > 0 ? materialTextures.data() : nullptr;
        v.lights = LightView{lightDistribution.view(), lightPrims.data(), primPmf.data(), deltaLights.data(), numLights,
                             numAreaLights};
        v.environment = environment.view();
        v.media = MediaView{media.data(), mediumValues.data(), primInterface.data(), int(media.size()), cameraMedium};
        v.hasMedia = hasMedia;
        bool env = v.environment.present();
        v.environmentSelect = !env ? 0.0f : (numLights == 0 ? 1.0f : 0.5f);
        v.sceneCenter = boundingSphere.xyz();
        v.sceneRadius = boundingSphere.w;
        v.camera = camera;
        v.microfacetMaterials = microfacetMaterials;
        v.camera.aspect = float(width) / float(height);
        v.numTriangles = numTriangles;
        v.numSpheres = numSpheres;
        v.width = width;
        v.height = height;
        return v;
    }
};

MaterialData packMaterial(const Material& m);
/// The scene's media as kernels read them: one record each, the grids' densities and majorants in
/// `values`, and per primitive (`numTriangles` of the exec, the objects' included, then the
/// spheres) the codes of the media inside and outside.
struct PackedMedia {
    std::vector<MediumData> media;
    std::vector<float> values;
    std::vector<std::uint16_t> primInterface;
};
PackedMedia packMedia(const Scene& scene, int numTriangles);

/// The textures the kernels apply to `m` (a texture a material type does not use is left out).
MaterialTextures packMaterialTextures(const Material& m);
CameraData makeCamera(const Camera& c);
/// The scene's point, spot and directional lights as kernels read them.
std::vector<DeltaLightData> packDeltaLights(const Scene& scene);
/// Their weights in the light distribution: power / pi, the scale of the area lights' area x
/// luminance (point 4 I, spot 2 (1 - (cos inner + cos outer) / 2) I, directional R^2 E with R
/// the radius of the disk it crosses the scene from), by luminance.
std::vector<double> deltaLightWeights(const Scene& scene, float sceneRadius);
/// A sphere (centre, radius) that strictly contains `box`; (0, 0, 0, 1) for an empty box.
Float4 boundingSphere(const Aabb& box);

/// The scene's own geometry followed by every object's, as the exec holds it: vertex indices
/// of the objects' triangles moved past the vertices before them. `objectFirstTriangle`: per
/// object, where its triangles start.
struct CombinedGeometry {
    std::vector<vec3> positions, normals;
    std::vector<vec2> uvs;
    std::vector<uvec3> triangles;
    std::vector<int> triangleMaterials;
    std::vector<std::uint8_t> triangleHasNormals;
    std::vector<int> objectFirstTriangle;
};
CombinedGeometry combineGeometry(const Scene& scene);
/// Instance `index`'s transforms as kernels read them.
InstanceData packInstance(const Scene& scene, int index);
/// Instance `index`'s world box (lo, hi), a little larger so rounding cannot shrink it.
void paddedInstanceBox(const Scene& scene, int index, vec3 corners[2]);

template <class Exec, class T>
Buffer<T> uploadVector(Exec& exec, const std::vector<T>& v) {
    Buffer<T> b = exec.template allocate<T>(v.size());
    exec.upload(b.data(), v.data(), v.size());
    return b;
}

/// The scene's media in place of what `s` held (nothing for a scene without: Scene::hasMedia);
/// returns the bytes it uploaded.
template <class Exec>
std::size_t uploadMedia(Exec& exec, const Scene& scene, SceneBuffers<Exec>& s) {
    s.hasMedia = scene.hasMedia();
    s.cameraMedium = mediumcode::of(scene.camera().medium);
    if (!s.hasMedia) {
        s.media = Buffer<MediumData>();
        s.mediumValues = Buffer<float>();
        s.primInterface = Buffer<std::uint16_t>();
        return 0;
    }
    const PackedMedia packed = packMedia(scene, s.numTriangles);
    s.media = uploadVector(exec, packed.media);
    s.mediumValues = uploadVector(exec, packed.values);
    s.primInterface = uploadVector(exec, packed.primInterface);
    return packed.media.size() * sizeof(MediumData) + packed.values.size() * sizeof(float) +
           packed.primInterface.size() * sizeof(std::uint16_t);
}

/// Texture `t`'s texels as the exec holds them: packed RGBA8 words (into `words`) or Float4s.
inline void packTexels(const Texture& t, std::vector<std::uint32_t>& words, std::vector<Float4>& floats) {
    if (!t.rgba8.empty()) {
        for (std::size_t i = 0; i + 3 < t.rgba8.size(); i += 4)
            words.push_back(std::uint32_t(t.rgba8[i]) | std::uint32_t(t.rgba8[i + 1]) << 8 |
                            std::uint32_t(t.rgba8[i + 2]) << 16 | std::uint32_t(t.rgba8[i + 3]) << 24);
    } else {
        for (std::size_t i = 0; i + 3 < t.rgbaFloat.size(); i += 4)
            floats.push_back(Float4(t.rgbaFloat[i], t.rgbaFloat[i + 1], t.rgbaFloat[i + 2], t.rgbaFloat[i + 3]));
    }
}

/// The scene's textures, their texels in two buffers (8-bit and float) and one view each.
template <class Exec>
void uploadTextures(Exec& exec, const Scene& scene, SceneBuffers<Exec>& s) {
    std::vector<std::uint32_t> texels8;
    std::vector<Float4> texelsFloat;
    std::vector<std::size_t> offsets;
    for (const Texture& t : scene.textures()) {
        offsets.push_back(!t.rgba8.empty() ? texels8.size() : texelsFloat.size());
        packTexels(t, texels8, texelsFloat);
    }
    s.texels8 = uploadVector(exec, texels8);
    s.texelsFloat = uploadVector(exec, texelsFloat);
    s.textureBytes = texels8.size() * sizeof(std::uint32_t) + texelsFloat.size() * sizeof(Float4);
    std::vector<TextureView> views;
    for (std::size_t k = 0; k < scene.textures().size(); ++k) {
        const Texture& t = scene.textures()[k];
        TextureView v;
        v.width = t.width;
        v.height = t.height;
        v.srgb = t.srgb ? 1 : 0;
        if (!t.rgba8.empty()) v.rgba8 = s.texels8.data() + offsets[k];
        else v.rgbaFloat = s.texelsFloat.data() + offsets[k];
        views.push_back(v);
    }
    s.textures = uploadVector(exec, views);
    s.textureOffsets = offsets;
    s.textureViewsHost = views;
}

/// The light distribution over the emissive primitives (known on the host from the materials),
/// weighted and prefix-summed on the exec, then the delta lights: all of it from the scene and
/// the uploaded geometry (again after an edit that changes a light, an emission or an emitter's
/// vertices).
/// Returns the bytes it uploaded.
template <class Exec>
std::size_t uploadLights(Exec& exec, const Scene& scene, SceneBuffers<Exec>& s, LightSampler lightSampler) {
    std::vector<int> lightPrims;
    for (int t = 0; t < s.numOwnTriangles; ++t)  // objects do not emit (Scene::addObject)
        if (scene.materials()[scene.triangleMaterials()[t]].isEmissive()) lightPrims.push_back(t);
    for (int k = 0; k < s.numSpheres; ++k)
        if (scene.materials()[scene.spheres()[k].material].isEmissive()) lightPrims.push_back(s.numTriangles + k);
    s.numAreaLights = int(lightPrims.size());
    s.lightPrims = uploadVector(exec, lightPrims);
    const std::vector<DeltaLightData> deltaLights = packDeltaLights(scene);
    s.deltaLights = uploadVector(exec, deltaLights);
    s.numLights = s.numAreaLights + int(deltaLights.size());
    int numPrims = s.numTriangles + s.numSpheres;
    s.primPmf = exec.template allocate<float>(numPrims);
    exec.fill(s.primPmf.data(), 0.0f, numPrims);
    s.lightDistribution = Distribution<Exec>();
    std::size_t bytes = lightPrims.size() * sizeof(int) + deltaLights.size() * sizeof(DeltaLightData);
    if (s.numLights > 0) {
        Buffer<double> weights = exec.template allocate<double>(s.numLights);
        if (s.numAreaLights > 0)
            exec.parallelFor("light weights", s.numAreaLights,
                             lights::WeightStage{s.view(1, 1), s.lightPrims.data(), weights.data()});
        const std::vector<double> deltaWeights = deltaLightWeights(scene, s.boundingSphere.w);
        exec.upload(weights.data() + s.numAreaLights, deltaWeights.data(), deltaWeights.size());
        bytes += deltaWeights.size() * sizeof(double);
        s.lightDistribution.build(exec, weights.data(), s.numLights, 1, lightSampler);
        exec.parallelFor("light pmf", s.numAreaLights,
                         lights::PrimPmfStage{s.lightDistribution.view(), s.lightPrims.data(), s.primPmf.data()});
        exec.synchronize();
    }
    return bytes;
}

/// The scene's environment (an image, already scaled, or the procedural sky) in place of what
/// `s` held; returns the bytes it uploaded.
template <class Exec>
std::size_t uploadEnvironment(Exec& exec, const Scene& scene, SceneBuffers<Exec>& s, LightSampler lightSampler) {
    s.environment = EnvironmentBuffers<Exec>();
    if (scene.hasSkyGradient()) {
        s.environment.setGradient(scene.skyGradient().nadir, scene.skyGradient().zenith);
    } else if (scene.hasEnvironment()) {
        const Image& env = scene.environment();
        s.environment.build(exec, env.rgb, env.width, env.height, lightSampler);
        return std::size_t(env.width) * env.height * sizeof(Float4);
    }
    return 0;
}

/// The scene's bounding sphere from its BVHs' root boxes (the scene's own and the instances'
/// top level): two nodes come back, where a pass over the host's triangles took 6 ms for a
/// million (the animated mesh's edit, profiled).
template <class Exec>
Float4 sceneBoundingSphere(Exec& exec, const SceneBuffers<Exec>& s) {
    return boundingSphere(Aabb::unite(rootBox(exec, s.bvh), rootBox(exec, s.instanceTop)));
}

/// The objects' BVHs (one build each, over their triangles in `s`, already uploaded), the
/// instances and the top-level BVH over them.
template <class Exec>
void uploadInstances(Exec& exec, const Scene& scene, const std::vector<int>& objectFirstTriangle, BvhBuilder builder,
                     SceneBuffers<Exec>& s) {
    std::vector<ObjectView> objects;
    for (std::size_t k = 0; k < scene.objects().size(); ++k) {
        const int first = objectFirstTriangle[k];
        const int count = int(scene.objects()[k].triangles.size());
        PrimitiveSource src{s.positions.data(), s.triangles.data() + first, nullptr, count, 0};
        s.objectBvhs.push_back(buildBvh(exec, src, builder));
        objects.push_back(ObjectView{s.objectBvhs.back().view(), first});
    }
    s.objects = uploadVector(exec, objects);
    s.numInstances = int(scene.instances().size());
    std::vector<InstanceData> instances;
    std::vector<vec3> corners(2 * std::size_t(s.numInstances));
    std::vector<uvec3> boxes;
    for (int k = 0; k < s.numInstances; ++k) {
        instances.push_back(packInstance(scene, k));
        paddedInstanceBox(scene, k, &corners[2 * std::size_t(k)]);
        boxes.push_back(uvec3(2 * k, 2 * k + 1, 2 * k));  // (lo, hi, lo): bounds = the box
    }
    s.instances = uploadVector(exec, instances);
    s.instanceCorners = uploadVector(exec, corners);
    s.instanceBoxes = uploadVector(exec, boxes);
    s.instanceTop = buildLbvh(exec, s.instanceBoxSource());
}

/// `scene` must be validated.
template <class Exec>
SceneBuffers<Exec> uploadScene(Exec& exec, const Scene& scene, LightSampler lightSampler = LightSampler::BinarySearch,
                               BvhBuilder bvhBuilder = BvhBuilder::Auto) {
    SceneBuffers<Exec> s;
    s.numOwnTriangles = int(scene.triangles().size());
    s.numSpheres = int(scene.spheres().size());
    // The scene's own arrays as they are, or (with objects) a combined copy of them and the objects'.
    const bool objects = !scene.objects().empty();
    const CombinedGeometry combined = objects ? combineGeometry(scene) : CombinedGeometry{};
    auto geometry = [&](const auto& own, const auto& all) -> decltype(own) { return objects ? all : own; };
    s.positions = uploadVector(exec, geometry(scene.positions(), combined.positions));
    s.normals = uploadVector(exec, geometry(scene.normals(), combined.normals));
    s.triangles = uploadVector(exec, geometry(scene.triangles(), combined.triangles));
    s.triangleMaterial = uploadVector(exec, geometry(scene.triangleMaterials(), combined.triangleMaterials));
    s.hasNormals = uploadVector(exec, geometry(scene.triangleHasNormals(), combined.triangleHasNormals));
    s.uvs = uploadVector(exec, geometry(scene.uvs(), combined.uvs));
    s.numTriangles = int(s.triangles.size());
    if (objects) uploadInstances(exec, scene, combined.objectFirstTriangle, bvhBuilder, s);
    uploadTextures(exec, scene, s);
    std::vector<Float4> spheres;
    std::vector<int> sphereMaterial;
    for (const Sphere& sp : scene.spheres()) {
        spheres.push_back(Float4(sp.center, sp.radius));
        sphereMaterial.push_back(sp.material);
    }
    s.spheres = uploadVector(exec, spheres);
    s.sphereMaterial = uploadVector(exec, sphereMaterial);
    std::vector<MaterialData> materials;
    std::vector<MaterialTextures> materialTextures;
    bool textured = false;
    for (const Material& m : scene.materials()) {
        materials.push_back(packMaterial(m));
        materialTextures.push_back(packMaterialTextures(m));
        if (materialKind(m.type)->microfacet) s.microfacetMaterials = true;
        textured = textured || materialTextures.back().any();
    }
    s.materials = uploadVector(exec, materials);
    if (textured) s.materialTextures = uploadVector(exec, materialTextures);
    s.camera = makeCamera(scene.camera());
    uploadMedia(exec, scene, s);

    s.bvh = buildBvh(exec, s.ownPrimitives(), bvhBuilder);
    s.boundingSphere = sceneBoundingSphere(exec, s);

    uploadLights(exec, scene, s, lightSampler);
    return s;
}

}  // namespace wavefront
