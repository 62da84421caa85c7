// Uploads a validated Scene into one exec's memory, builds the LBVH there and the light CDF by a
// device-wide prefix sum. Template over the exec type, like the drivers.
#pragma once
#include <vector>

#include "kernels/lbvh_builder.h"
#include "kernels/path_tracer.h"
#include "wavefront/scene.h"

namespace wavefront {

namespace lights {
/// Power of each emissive primitive: area x luminance of its emission.
struct WeightStage {
    SceneView scene;
    const int* primIds;
    double* weights;
    WF_CPU_GPU void operator()(int k) const {
        int prim = primIds[k];
        vec3 Le = scene.materials[scene.materialOf(prim)].emission.xyz();
        weights[k] = double(primitiveArea(scene, prim)) * double(luminance(Le));
    }
};
/// Normalises the inclusive sums into the CDF and each light's selection probability.
struct NormaliseStage {
    const double* sums;
    const int* primIds;
    int numLights;
    float* cdf;
    float* primPmf;
    WF_CPU_GPU void operator()(int k) const {
        double total = sums[numLights - 1];
        double prev = k > 0 ? sums[k - 1] : 0.0;
        cdf[k] = k == numLights - 1 ? 1.0f : float(sums[k] / total);
        primPmf[primIds[k]] = float((sums[k] - prev) / total);
    }
};
}  // namespace lights

template <class Exec>
struct SceneBuffers {
    Buffer<vec3> positions, normals;
    Buffer<uvec3> triangles;
    Buffer<int> triangleMaterial;
    Buffer<std::uint8_t> hasNormals;
    Buffer<Float4> spheres;
    Buffer<int> sphereMaterial;
    Buffer<MaterialData> materials;
    Buffer<float> lightCdf, primPmf;
    Buffer<int> lightPrims;
    Bvh<Exec> bvh;
    CameraData camera{};
    int numTriangles = 0, numSpheres = 0, numLights = 0;

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
        v.lights = LightView{lightCdf.data(), lightPrims.data(), primPmf.data(), numLights};
        v.camera = camera;
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

template <class Exec, class T>
Buffer<T> uploadVector(Exec& exec, const std::vector<T>& v) {
    Buffer<T> b = exec.template allocate<T>(v.size());
    exec.upload(b.data(), v.data(), v.size());
    return b;
}

/// `scene` must be validated.
template <class Exec>
SceneBuffers<Exec> uploadScene(Exec& exec, const Scene& scene) {
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
    for (const Material& m : scene.materials()) materials.push_back(packMaterial(m));
    s.materials = uploadVector(exec, materials);
    s.camera = makeCamera(scene.camera());

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
    s.lightCdf = exec.template allocate<float>(s.numLights);
    if (s.numLights > 0) {
        Buffer<double> weights = exec.template allocate<double>(s.numLights);
        Buffer<double> sums = exec.template allocate<double>(s.numLights);
        exec.parallelFor("light weights", s.numLights, lights::WeightStage{s.view(1, 1), s.lightPrims.data(), weights.data()});
        exec.inclusiveScan(weights.data(), sums.data(), s.numLights);
        exec.parallelFor("light cdf", s.numLights,
                         lights::NormaliseStage{sums.data(), s.lightPrims.data(), s.numLights, s.lightCdf.data(), s.primPmf.data()});
        exec.synchronize();
    }
    return s;
}

}  // namespace wavefront
