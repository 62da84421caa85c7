// Scene data as kernels see it: materials packed into 16-byte words, the camera's basis.
#include "host/device_scene/scene_upload.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include <wavefront/error.h>

#include "host/scene/material_kinds.h"
#include "kernels/materials/material.h"

namespace wavefront {

MaterialData packMaterial(const Material& m) {
    // The shared words, then the type's own (its row of the material table); alpha, metallic and
    // the complex-index flag stay zero where a type has none.
    MaterialData d;
    d.setKind(m.type);
    d.setDiffuse(m.diffuse);
    d.setSpecular(m.specular, m.exponent);
    d.setEmission(m.emission);
    d.setIor(m.ior);
    d.setNormalScale(m.normalScale);
    if (const auto pack = materialKind(m.type)->pack) pack(m, d);
    return d;
}

MaterialTextures packMaterialTextures(const Material& m) {
    const MaterialKindSpec& kind = *materialKind(m.type);
    MaterialTextures t;
    // Base colour: the types whose diffuse colour is a colour (a conductor's diffuse is eta).
    if (kind.baseColourTexture) t.baseColor = m.baseColorTexture;
    if (kind.metallicRoughnessTexture) t.metallicRoughness = m.metallicRoughnessTexture;
    t.normal = m.normalTexture;
    if (m.isEmissive()) t.emission = m.emissionTexture;
    return t;
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
    d.targetDistance = glm::length(c.target - c.position);
    return d;
}

std::vector<DeltaLightData> packDeltaLights(const Scene& scene) {
    static_assert(int(LightType::Point) == DeltaLightData::kPoint && int(LightType::Spot) == DeltaLightData::kSpot &&
                      int(LightType::Directional) == DeltaLightData::kDirectional,
                  "DeltaLightData's kinds are the values of LightType");
    std::vector<DeltaLightData> out;
    for (const Light& l : scene.lights()) {
        const float toRadians = kPi / 180.0f;
        DeltaLightData d;
        d.position = Float4(l.position, intAsFloat(int(l.type) | mediumcode::of(l.medium) << 8));
        d.intensity = Float4(l.intensity, std::cos(l.outerConeDegrees * toRadians));
        d.axis = Float4(l.direction, std::cos(l.innerConeDegrees * toRadians));
        out.push_back(d);
    }
    return out;
}

std::vector<double> deltaLightWeights(const Scene& scene, float sceneRadius) {
    std::vector<double> weights;
    for (const Light& l : scene.lights()) {
        const double I = luminance(l.intensity), toRadians = kPi / 180.0;
        switch (l.type) {
        case LightType::Point: weights.push_back(4.0 * I); break;
        case LightType::Spot:
            weights.push_back(2.0 * (1.0 - 0.5 * (std::cos(l.innerConeDegrees * toRadians) +
                                                 std::cos(l.outerConeDegrees * toRadians))) * I);
            break;
        case LightType::Directional: weights.push_back(double(sceneRadius) * sceneRadius * I); break;
        }
    }
    return weights;
}

Float4 boundingSphere(const Aabb& box) {
    const vec3 lo = box.lo, hi = box.hi;
    if (!(lo.x <= hi.x)) return Float4(0.0f, 0.0f, 0.0f, 1.0f);  // no primitives
    vec3 centre = 0.5f * (lo + hi);
    float radius = 0.5f * glm::length(hi - lo);
    // A little larger, so that rounding cannot leave a primitive outside (light leaving the
    // environment starts on the sphere's tangent planes).
    float scale = glm::max(glm::max(std::fabs(centre.x), std::fabs(centre.y)), glm::max(std::fabs(centre.z), radius));
    radius = radius * 1.001f + scale * 1e-5f;
    return Float4(centre, radius > 0.0f ? radius : 1.0f);
}

CombinedGeometry combineGeometry(const Scene& scene) {
    CombinedGeometry g;
    g.positions = scene.positions();
    g.normals = scene.normals();
    g.uvs = scene.uvs();
    g.triangles = scene.triangles();
    g.triangleMaterials = scene.triangleMaterials();
    g.triangleHasNormals = scene.triangleHasNormals();
    bool normals = !g.normals.empty(), uvs = !g.uvs.empty();
    for (const ObjectGeometry& o : scene.objects()) {
        normals = normals || !o.normals.empty();
        uvs = uvs || !o.uvs.empty();
    }
    // Normals and texture coordinates: none, or one per vertex of everything (zeros where a
    // part has none), as the scene keeps its own.
    if (normals) g.normals.resize(g.positions.size(), vec3(0.0f));
    if (uvs) g.uvs.resize(g.positions.size(), vec2(0.0f));
    for (const ObjectGeometry& o : scene.objects()) {
        const std::uint32_t firstVertex = std::uint32_t(g.positions.size());
        g.objectFirstTriangle.push_back(int(g.triangles.size()));
        g.positions.insert(g.positions.end(), o.positions.begin(), o.positions.end());
        if (normals) {
            if (o.normals.empty()) g.normals.resize(g.positions.size(), vec3(0.0f));
            else g.normals.insert(g.normals.end(), o.normals.begin(), o.normals.end());
        }
        if (uvs) {
            if (o.uvs.empty()) g.uvs.resize(g.positions.size(), vec2(0.0f));
            else g.uvs.insert(g.uvs.end(), o.uvs.begin(), o.uvs.end());
        }
        for (const uvec3& t : o.triangles) g.triangles.push_back(t + uvec3(firstVertex));
        g.triangleMaterials.insert(g.triangleMaterials.end(), o.triangleMaterials.begin(), o.triangleMaterials.end());
        g.triangleHasNormals.insert(g.triangleHasNormals.end(), o.triangleHasNormals.begin(), o.triangleHasNormals.end());
    }
    if (g.triangles.size() > std::size_t(std::numeric_limits<int>::max() / 2))
        throw InputError("the scene and its objects hold more than 2^30 triangles");
    return g;
}

InstanceData packInstance(const Scene& scene, int index) {
    const Instance& instance = scene.instances()[std::size_t(index)];
    const glm::dmat4 toWorld(instance.objectToWorld);
    const glm::dmat4 toObject = glm::inverse(toWorld);
    InstanceData d{};
    for (int r = 0; r < 3; ++r) {  // glm is column-major: m[column][row]
        d.objectToWorld[r] = Float4(float(toWorld[0][r]), float(toWorld[1][r]), float(toWorld[2][r]), float(toWorld[3][r]));
        d.worldToObject[r] = Float4(float(toObject[0][r]), float(toObject[1][r]), float(toObject[2][r]), float(toObject[3][r]));
    }
    d.object = instance.object;
    d.mirrors = glm::determinant(glm::dmat3(toWorld)) < 0.0 ? 1 : 0;
    return d;
}

void paddedInstanceBox(const Scene& scene, int index, vec3 corners[2]) {
    vec3 lo, hi;
    scene.instanceBounds(index, lo, hi);
    // The corners were transformed in float: widen by the point error of their magnitude.
    const vec3 pad = vec3(kPointError) * (glm::max(glm::abs(lo), glm::abs(hi)) + (hi - lo));
    corners[0] = lo - pad;
    corners[1] = hi + pad;
}

}  // namespace wavefront
