// Scene data as kernels see it: materials packed into 16-byte words, the camera's basis.
#include "host/scene/scene_upload.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "host/scene/material_kinds.h"
#include "kernels/materials/material.h"

namespace wavefront {

// Material kinds are the public MaterialType values, pair by pair.
static_assert(int(MaterialType::Lambertian) == kLambertian && int(MaterialType::Glossy) == kGlossy &&
                  int(MaterialType::Mirror) == kMirror && int(MaterialType::Dielectric) == kDielectric &&
                  int(MaterialType::Conductor) == kConductor && int(MaterialType::RoughDielectric) == kRoughDielectric &&
                  int(MaterialType::MetallicRoughness) == kMetallicRoughness,
              "MaterialKind and MaterialType must agree");

MaterialData packMaterial(const Material& m) {
    // The shared words, then the type's own (its row of the material table); alpha, metallic and
    // the complex-index flag stay zero where a type has none.
    MaterialData d;
    d.setKind(int(m.type));
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
        d.position = Float4(l.position, intAsFloat(int(l.type)));
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

Float4 boundingSphere(const Scene& scene) {
    vec3 lo(FLT_MAX), hi(-FLT_MAX);
    for (const uvec3& t : scene.triangles())
        for (int k = 0; k < 3; ++k) {
            lo = glm::min(lo, scene.positions()[t[k]]);
            hi = glm::max(hi, scene.positions()[t[k]]);
        }
    for (const Sphere& s : scene.spheres()) {
        lo = glm::min(lo, s.center - vec3(s.radius));
        hi = glm::max(hi, s.center + vec3(s.radius));
    }
    if (!(lo.x <= hi.x)) return Float4(0.0f, 0.0f, 0.0f, 1.0f);  // no primitives
    vec3 centre = 0.5f * (lo + hi);
    float radius = 0.5f * glm::length(hi - lo);
    // A little larger, so that rounding cannot leave a primitive outside (light leaving the
    // environment starts on the sphere's tangent planes).
    float scale = glm::max(glm::max(std::fabs(centre.x), std::fabs(centre.y)), glm::max(std::fabs(centre.z), radius));
    radius = radius * 1.001f + scale * 1e-5f;
    return Float4(centre, radius > 0.0f ? radius : 1.0f);
}

}  // namespace wavefront
