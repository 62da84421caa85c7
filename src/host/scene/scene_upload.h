// Uploads a validated Scene into one exec's memory, builds the LBVH there and the light CDF by a
// device-wide prefix sum. Template over the exec type, like the drivers.
#pragma once
#include <vector>

#include "host/scene/bvh_builder.h"
#include "host/scene/distribution_builder.h"
#include "host/scene/environment_buffers.h"
#include "kernels/lights/light_stages.h"
#include "kernels/materials/material_types.h"
#include "wavefront/scene.h"

namespace wavefront {

template <class Exec>
struct SceneBuffers {
    Buffer<vec3> positions, normals;
    Buffer<uvec3> triangles;
    Buffer<int> triangleMaterial;
    Buffer<std::uint8_t> hasNormals;
    Buffer<Float4> spheres;
    Buffer<int> sphereMaterial;
    Buffer<MaterialData> materials;
    Distribution<Exec> lightDistribution;
    Buffer<float> primPmf;
    Buffer<int> lightPrims;
    Bvh<Exec> bvh;
    EnvironmentBuffers<Exec> environment;
    CameraData camera{};
    Float4 boundingSphere{0.0f, 0.0f, 0.0f, 1.0f};  ///< centre, radius
    int numTriangles = 0, numSpheres = 0, numLights = 0;
    bool microfacetMaterials = false;  ///< some material is of a microfacet kind

    SceneView view(int width, int height) const {
        SceneView v;
        v.bvh = bvh.view();
        v.positions = positions.data();
        v.normals = normals.data();
        v.triangles = triangles.data();
        v.triangleMaterial = triangleMaterial.data();
        v.hasNormals = hasNormals.data();
        v.spheres = spheres.data();
        v.sphereMaterial = sphereMaterial.data();
        v.materials = materials.data();
        v.lights = LightView{lightDistribution.view(), lightPrims.data(), primPmf.data(), numLights};
        v.environment = environment.view();
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
CameraData makeCamera(const Camera& c);
/// A sphere (centre, radius) that strictly contains every primitive of the scene.
Float4 boundingSphere(const Scene& scene);

template <class Exec, class T>
Buffer<T> uploadVector(Exec& exec, const std::vector<T>& v) {
    Buffer<T> b = exec.template allocate<T>(v.size());
    exec.upload(b.data(), v.data(), v.size());
    return b;
}

/// `scene` must be validated.
template <class Exec>
SceneBuffers<Exec> uploadScene(Exec& exec, const Scene& scene, LightSampler lightSampler = LightSampler::BinarySearch) {
    SceneBuffers<Exec> s;
    s.numTriangles = int(scene.triangles().size());
    s.numSpheres = int(scene.spheres().size());
    s.positions = uploadVector(exec, scene.positions());
    s.normals = uploadVector(exec, scene.normals());
    s.triangles = uploadVector(exec, scene.triangles());
    s.triangleMaterial = uploadVector(exec, scene.triangleMaterials());
    s.hasNormals = uploadVector(exec, scene.triangleHasNormals());
    std::vector<Float4> spheres;
    std::vector<int> sphereMaterial;
    for (const Sphere& sp : scene.spheres()) {
        spheres.push_back(Float4(sp.center, sp.radius));
        sphereMaterial.push_back(sp.material);
    }
    s.spheres = uploadVector(exec, spheres);
    s.sphereMaterial = uploadVector(exec, sphereMaterial);
    std::vector<MaterialData> materials;
    for (const Material& m : scene.materials()) {
        materials.push_back(packMaterial(m));
        if (isMicrofacetType(materials.back().type())) s.microfacetMaterials = true;
    }
    s.materials = uploadVector(exec, materials);
    s.camera = makeCamera(scene.camera());
    s.boundingSphere = boundingSphere(scene);

    PrimitiveSource src{s.positions.data(), s.triangles.data(), s.spheres.data(), s.numTriangles, s.numSpheres};
    s.bvh = buildLbvh(exec, src);

    // Lights: the emissive primitives (known on the host from the materials), weighted and
    // prefix-summed on the exec.
    std::vector<int> lightPrims;
    for (int t = 0; t < s.numTriangles; ++t)
        if (scene.materials()[scene.triangleMaterials()[t]].isEmissive()) lightPrims.push_back(t);
    for (int k = 0; k < s.numSpheres; ++k)
        if (scene.materials()[scene.spheres()[k].material].isEmissive()) lightPrims.push_back(s.numTriangles + k);
    s.numLights = int(lightPrims.size());
    s.lightPrims = uploadVector(exec, lightPrims);
    int numPrims = s.numTriangles + s.numSpheres;
    s.primPmf = exec.template allocate<float>(numPrims);
    exec.fill(s.primPmf.data(), 0.0f, numPrims);
    if (s.numLights > 0) {
        Buffer<double> weights = exec.template allocate<double>(s.numLights);
        exec.parallelFor("light weights", s.numLights, lights::WeightStage{s.view(1, 1), s.lightPrims.data(), weights.data()});
        s.lightDistribution.build(exec, weights.data(), s.numLights, 1, lightSampler);
        exec.parallelFor("light pmf", s.numLights,
                         lights::PrimPmfStage{s.lightDistribution.view(), s.lightPrims.data(), s.primPmf.data()});
        exec.synchronize();
    }
    return s;
}

}  // namespace wavefront
