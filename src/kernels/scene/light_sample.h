// Lights as every integrator samples them: a light chosen in proportion to power (an area light,
// or a point, spot or directional one) seen from a surface point (next-event estimation, BDPT's
// s = 1), light leaving an area or delta light or the environment map (BDPT's light subpaths).
#pragma once
#include "kernels/scene/shadow_ray.h"
#include "kernels/scene/surface.h"

namespace wavefront {

struct LightSample {
    vec3 p, n, Le;
    float error;    ///< bound on p's rounding error (as SurfaceHit::error)
    float pdfArea;  ///< selection probability / area
};

/// A uniform point on area light k (an entry of the light distribution below numAreaLights).
/// `pdfArea` includes the probability of choosing area lights over the environment. Kernels
/// compiled with textures scale the emission by the material's emission texture at the point.
template <class Materials = AllMaterials>
WF_CPU_GPU inline LightSample sampleAreaLight(const SceneView& scene, int k, vec2 u) {
    LightSample ls;
    int prim = scene.lights.primIds[k];
    int material = scene.materialOf(prim);
    int emissionMap = -1;
    if constexpr (Materials::kTextures)
        if (scene.materialTextures) emissionMap = scene.materialTextures[material].emission;
    vec2 uv(0.0f);
    if (prim < scene.numTriangles) {
        uvec3 t = scene.triangles[prim];
        vec3 a = scene.positions[t.x], b = scene.positions[t.y], c = scene.positions[t.z];
        vec2 bc = sampleUniformTriangle(u);
        float b0 = 1.0f - bc.x - bc.y;
        ls.p = b0 * a + bc.x * b + bc.y * c;
        ls.error = trianglePointError(b0, bc.x, bc.y, a, b, c);
        ls.n = glm::normalize(glm::cross(b - a, c - a));
        if (emissionMap >= 0 && scene.uvs) uv = b0 * scene.uvs[t.x] + bc.x * scene.uvs[t.y] + bc.y * scene.uvs[t.z];
    } else {
        Float4 s = scene.spheres[prim - scene.numTriangles];
        ls.n = sampleUniformSphere(u);
        ls.p = s.xyz() + s.w * ls.n;
        ls.error = spherePointError(s.xyz(), s.w);
        if (emissionMap >= 0) uv = sphereTextureCoordinates(ls.n);
    }
    ls.Le = scene.materials[material].emission();
    if (emissionMap >= 0) ls.Le *= scene.textures[emissionMap].sample(uv);
    ls.pdfArea = (1.0f - scene.environmentSelect) * scene.lights.primPmf[prim] / primitiveArea(scene, prim);
    return ls;
}

/// The light (area or delta) chosen by u in [0, 1), the environment's share already taken off.
WF_CPU_GPU WF_INLINE DistributionSample chooseLight(const SceneView& scene, float u) {
    return scene.lights.sample(glm::min(u, 0.99999994f));
}

// ---- Delta lights ----------------------------------------------------------------------------

/// A spot light's falloff at cosine cosTheta to its axis: 1 inside the inner cone, 0 outside the
/// outer one, a smoothstep in the cosine between (pbrt-v4's SpotLight::I).
WF_CPU_GPU WF_INLINE float spotFalloff(const DeltaLightData& l, float cosTheta) {
    float cosOuter = l.cosOuter(), cosInner = l.cosInner();
    if (cosTheta <= cosOuter) return 0.0f;
    if (cosTheta >= cosInner) return 1.0f;
    float t = (cosTheta - cosOuter) / (cosInner - cosOuter);
    return t * t * (3.0f - 2.0f * t);
}

/// Radiant intensity of a point or spot light towards unit direction w (from the light).
WF_CPU_GPU WF_INLINE vec3 deltaIntensity(const DeltaLightData& l, vec3 w) {
    vec3 I = l.intensity.xyz();
    return l.kind() == DeltaLightData::kSpot ? I * spotFalloff(l, glm::dot(w, l.axis.xyz())) : I;
}

/// Solid-angle density of the direction a point or spot light emits along when it starts a light
/// subpath: uniform on the sphere, or on the spot's outer cone.
WF_CPU_GPU WF_INLINE float deltaEmissionPdf(const DeltaLightData& l) {
    return l.kind() == DeltaLightData::kSpot ? 1.0f / (2.0f * kPi * (1.0f - l.cosOuter())) : 1.0f / (4.0f * kPi);
}

/// Area density of the point on the environment's emission disk: 1 / (pi R^2), R the radius of
/// the scene's bounding sphere.
WF_CPU_GPU WF_INLINE float environmentDiskPdf(const SceneView& scene) {
    return 1.0f / (kPi * scene.sceneRadius * scene.sceneRadius);
}

/// Light leaving the environment map into the scene (SmallVCM's BackgroundLight::Emit, pbrt-v4's
/// ImageInfiniteLight::SampleLe): a direction from the map's distribution, then an origin uniform
/// on a disk of the bounding sphere's radius, perpendicular to the direction and tangent to the
/// sphere on the environment's side, so that every ray along the direction that meets the scene
/// starts on the disk.
struct EnvironmentEmission {
    vec3 origin;
    vec3 direction;      ///< of travel, into the scene (the map is looked up at -direction)
    vec3 Le;
    float pdfDirection;  ///< solid angle, EnvironmentView::pdf(-direction)
    float pdfPosition;   ///< area on the disk, environmentDiskPdf
};

WF_CPU_GPU inline EnvironmentEmission sampleEnvironmentEmission(const SceneView& scene, vec2 uDirection, vec2 uDisk) {
    EnvironmentView::Sample es = scene.environment.sample(uDirection);
    Frame frame(es.direction);
    vec2 d = scene.sceneRadius * sampleConcentricDisk(uDisk);
    EnvironmentEmission e;
    e.origin = scene.sceneCenter + scene.sceneRadius * es.direction + d.x * frame.s + d.y * frame.t;
    e.direction = -es.direction;
    e.Le = es.radiance;
    e.pdfDirection = es.pdf;
    e.pdfPosition = environmentDiskPdf(scene);
    return e;
}

/// A light sample seen from a surface point (next-event estimation, BDPT's s = 1): the
/// environment with probability environmentSelect, else a light chosen by power: a point on an
/// area light, or a point, spot or directional light. Delta lights follow SmallVCM's conventions
/// (a point light is a point of unit area density with cosine 1; a directional light a direction
/// of unit solid-angle density), so that one set of formulas serves every kind: the contribution
/// is Le / pdfDirect, and the MIS weights leave BSDF sampling out where `delta`.
struct DirectLight {
    vec3 wi;          ///< unit, from the surface point towards the light
    vec3 Le;          ///< radiance (area lights, environment), intensity (point, spot), irradiance (directional)
    RayEnd end;       ///< the point on the light (the environment and directional lights: none, the ray is unbounded)
    float pdfDirect;  ///< solid angle at the surface point, light choice included; 0: no sample
    float pdfEmit;    ///< density of the light emitting it: area x solid angle (the environment and
                      ///< directional lights: direction x disk), light choice included
    float cosLight;   ///< at the light; 1 for the environment and delta lights
    bool infinite;    ///< the environment or a directional light
    bool delta;       ///< a point, spot or directional light: no other strategy finds it
};

template <class Materials = AllMaterials>
WF_CPU_GPU inline DirectLight sampleDirectLight(const SceneView& scene, vec3 p, float uChoice, vec2 u) {
    DirectLight d;
    d.pdfDirect = d.pdfEmit = 0.0f;
    d.cosLight = 1.0f;
    d.delta = false;
    if (uChoice < scene.environmentSelect) {
        EnvironmentView::Sample es = scene.environment.sample(u);
        d.wi = es.direction;
        d.Le = es.radiance;
        d.end = RayEnd::point(p);
        d.infinite = true;
        d.pdfDirect = scene.environmentSelect * es.pdf;
        d.pdfEmit = d.pdfDirect * environmentDiskPdf(scene);
        return d;
    }
    DistributionSample choice =
        chooseLight(scene, (uChoice - scene.environmentSelect) / (1.0f - scene.environmentSelect));
    if (choice.index >= scene.lights.numAreaLights) {
        const DeltaLightData& l = scene.lights.deltaLights[choice.index - scene.lights.numAreaLights];
        const float pmf = (1.0f - scene.environmentSelect) * choice.pmf;
        d.delta = true;
        if (l.kind() == DeltaLightData::kDirectional) {
            d.wi = -l.axis.xyz();
            d.Le = l.intensity.xyz();
            d.end = RayEnd::point(p);
            d.infinite = true;
            d.pdfDirect = pmf;
            d.pdfEmit = pmf * environmentDiskPdf(scene);
            return d;
        }
        vec3 toLight = l.position.xyz() - p;
        float dist2 = glm::dot(toLight, toLight), dist = std::sqrt(dist2);
        d.infinite = false;
        d.end = RayEnd::point(l.position.xyz());
        if (!(dist > 0.0f)) return d;
        d.wi = toLight / dist;
        d.Le = deltaIntensity(l, -d.wi);
        d.pdfDirect = pmf * dist2;
        d.pdfEmit = pmf * deltaEmissionPdf(l);
        return d;
    }
    LightSample ls = sampleAreaLight<Materials>(scene, choice.index, u);
    vec3 toLight = ls.p - p;
    float dist2 = glm::dot(toLight, toLight), dist = std::sqrt(dist2);
    d.wi = dist > 0.0f ? toLight / dist : ls.n;
    d.Le = ls.Le;
    d.end = RayEnd::surface(ls.p, ls.n, ls.error);
    d.infinite = false;
    d.cosLight = -glm::dot(ls.n, d.wi);
    if (d.cosLight > 0.0f && dist > 0.0f) {
        d.pdfDirect = ls.pdfArea * dist2 / d.cosLight;
        d.pdfEmit = ls.pdfArea * d.cosLight * kInvPi;
    }
    return d;
}

}  // namespace wavefront
