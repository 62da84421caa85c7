// Scene data as kernels see it: materials packed into 16-byte words, the camera's basis.
#include "host/scene/scene_upload.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "kernels/materials/microfacet.h"

namespace wavefront {

MaterialData packMaterial(const Material& m) {
    MaterialData d;
    d.diffuse = Float4(m.diffuse, intAsFloat(int(m.type)));
    d.specular = Float4(m.type == MaterialType::Mirror && m.specular == vec3(0.0f) ? m.diffuse : m.specular, m.exponent);
    d.emission = Float4(m.emission, m.ior);
    switch (m.type) {
    case MaterialType::Conductor:
        if (m.complexIor) {
            d.diffuse = Float4(m.eta, d.diffuse.w);
            d.specular = Float4(m.k, d.specular.w);
        }
        d.params = Float4(m.roughness, 0.0f, m.complexIor ? 1.0f : 0.0f, 0.0f);
        break;
    case MaterialType::RoughDielectric: d.params = Float4(m.roughness, 0.0f, 0.0f, 0.0f); break;
    case MaterialType::MetallicRoughness:
        // alpha = roughness^2 (glTF), kept rough: this material has no delta limit.
        d.params = Float4(std::max(m.roughness * m.roughness, kSmoothAlpha), m.metallic, 0.0f, 0.0f);
        break;
    default: break;  // the original four: params stay zero
    }
    d.params.w = m.normalScale;
    return d;
}

MaterialTextures packMaterialTextures(const Material& m) {
    MaterialTextures t;
    // Base colour: the types whose diffuse colour is a colour (a conductor's diffuse is eta).
    if (m.type == MaterialType::Lambertian || m.type == MaterialType::Glossy || m.type == MaterialType::MetallicRoughness)
        t.baseColor = m.baseColorTexture;
    if (m.type == MaterialType::MetallicRoughness) t.metallicRoughness = m.metallicRoughnessTexture;
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
    return d;
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
