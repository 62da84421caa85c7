// The scene as every integrator meets it: camera rays, the surface at a hit, primitive areas and
// emission.
#pragma once
#include "kernels/materials/material_types.h"
#include "kernels/materials/microfacet.h"
#include "kernels/scene/scene_view.h"

namespace wavefront {

/// Camera ray of global sample `sample` (every integrator's eye path starts here); the sampler
/// places it on the film.
template <class Sampler>
WF_CPU_GPU inline Ray cameraRay(const SceneView& scene, const Sampler& sampler, std::uint64_t sample) {
    vec2 raster = sampler.filmSample(sample, scene.width, scene.height).raster;
    const CameraData& cam = scene.camera;
    float sx = (2.0f * raster.x / scene.width - 1.0f) * cam.tanHalfFovY * cam.aspect;
    float sy = (1.0f - 2.0f * raster.y / scene.height) * cam.tanHalfFovY;
    vec3 dir = glm::normalize(cam.forward + sx * cam.right + sy * cam.up);
    vec3 origin = cam.position;
    if (cam.lensRadius > 0.0f) {
        vec2 lens = cam.lensRadius * sampleConcentricDisk(sampler.get2(sample, dims::kLens));
        vec3 focus = cam.position + dir * (cam.focusDistance / glm::dot(dir, cam.forward));
        origin = cam.position + lens.x * cam.right + lens.y * cam.up;
        dir = glm::normalize(focus - origin);
    }
    return Ray{origin, dir, FLT_MAX};
}

/// Geometry at a ray hit: position (re-projected onto the surface for accuracy) with its error
/// bound, the stored geometric normal (its side defines front for emission and outside for glass),
/// shading normal.
struct SurfaceHit {
    vec3 p;
    vec3 ng;
    vec3 ns;
    float error;  ///< bound on p's rounding error, largest axis (geometry.h, kPointError)
    vec2 uv;      ///< texture coordinates (0 on meshes without any; longitude and latitude on spheres)
    int material;
};

/// A sphere's texture coordinates at outward normal n: u = longitude / 2 pi, v = polar angle from
/// +y / pi.
WF_CPU_GPU WF_INLINE vec2 sphereTextureCoordinates(vec3 n) {
    return vec2(std::atan2(n.z, n.x) * (0.5f * kInvPi) + 0.5f, std::acos(glm::clamp(n.y, -1.0f, 1.0f)) * kInvPi);
}

/// Tangent-space normal mapping (glTF's normalTexture): the texel t gives n = (2t - 1) scaled by
/// (scale, scale, 1) in the frame x = dp/du, y = up in the image (against dp/dv: glTF's v runs
/// down), z = the shading normal. A mapped normal that would leave ng's side is not taken.
WF_CPU_GPU inline void applyNormalMap(const TextureView& map, float scale, vec3 dpdu, vec3 dpdv, SurfaceHit& h) {
    vec3 n = h.ns;
    vec3 t = dpdu - n * glm::dot(n, dpdu);
    float len = glm::length(t);
    if (!(len > 0.0f)) return;
    t /= len;
    vec3 b = glm::cross(n, t);
    if (glm::dot(b, dpdv) > 0.0f) b = -b;
    vec3 c = 2.0f * map.sample(h.uv) - vec3(1.0f);
    vec3 m = (scale * c.x) * t + (scale * c.y) * b + c.z * n;
    float mlen = glm::length(m);
    if (!(mlen > 0.0f) || !(glm::dot(m, h.ng) > 0.0f)) return;
    h.ns = m / mlen;
}

/// The surface at a ray hit (hit.prim >= 0) of the ray from `origin` along `dir`, in world space.
/// Kernels compiled with textures apply the material's normal map.
template <class Materials = InstancedMaterials>
WF_CPU_GPU inline SurfaceHit surfaceAt(const SceneView& scene, const Hit& hit, vec3 origin, vec3 dir) {
    const int prim = hit.prim;
    SurfaceHit h;
    h.material = scene.materialOf(prim);
    vec3 p = origin + hit.t * dir;
    int normalMap = -1;
    if constexpr (Materials::kTextures)
        if (scene.materialTextures) normalMap = scene.materialTextures[h.material].normal;
    if (prim < scene.numTriangles) {
        uvec3 tri = scene.triangles[prim];
        vec3 v0 = scene.positions[tri.x], v1 = scene.positions[tri.y], v2 = scene.positions[tri.z];
        // Whether the hit is an instance's, as a flag rather than a pointer tested against null:
        // nvcc 13.0 (sm_90) took `count > 0 && instance >= 0 ? &instances[instance] : nullptr`
        // for non-null with count 0 and instance -1 in the kernels with media (H200, printf).
        const bool placed = Materials::kInstances && scene.instances.count > 0 && hit.instance >= 0;
        const InstanceData* inst = placed ? &scene.instances.instances[hit.instance] : nullptr;
        float placementError = 0.0f;
        if (placed) {
            // An instance's triangle, placed in world space. Placing rounds each vertex by a few
            // units of |M| |v| + |t| (and rays re-enter object space with as much again): the
            // point's bound grows by kPointError of those magnitudes, which covers both.
            const Float4* m = inst->objectToWorld;
            placementError = kPointError * glm::max(placedMagnitude(m, v0), glm::max(placedMagnitude(m, v1), placedMagnitude(m, v2)));
            v0 = transformPoint(m, v0);
            v1 = transformPoint(m, v1);
            v2 = transformPoint(m, v2);
        }
        vec3 e1 = v1 - v0, e2 = v2 - v0;
        vec3 n = glm::cross(e1, e2);
        h.ng = glm::normalize(n);
        if (placed && inst->mirrors) h.ng = -h.ng;
        // Barycentrics of p by sub-triangle areas.
        vec3 d = p - v0;
        float d11 = glm::dot(e1, e1), d12 = glm::dot(e1, e2), d22 = glm::dot(e2, e2);
        float dp1 = glm::dot(d, e1), dp2 = glm::dot(d, e2);
        float denom = d11 * d22 - d12 * d12;
        float b1 = denom != 0.0f ? (d22 * dp1 - d12 * dp2) / denom : 0.0f;
        float b2 = denom != 0.0f ? (d11 * dp2 - d12 * dp1) / denom : 0.0f;
        b1 = glm::clamp(b1, 0.0f, 1.0f);
        b2 = glm::clamp(b2, 0.0f, 1.0f - b1);
        float b0 = 1.0f - b1 - b2;
        h.p = b0 * v0 + b1 * v1 + b2 * v2;
        h.error = trianglePointError(b0, b1, b2, v0, v1, v2) + placementError;
        h.uv = scene.uvs ? b0 * scene.uvs[tri.x] + b1 * scene.uvs[tri.y] + b2 * scene.uvs[tri.z] : vec2(0.0f);
        h.ns = h.ng;
        if (scene.hasNormals[prim]) {
            vec3 ns = b0 * scene.normals[tri.x] + b1 * scene.normals[tri.y] + b2 * scene.normals[tri.z];
            if (placed) ns = transformNormal(*inst, ns);
            float len = glm::length(ns);
            if (len > 0.0f) h.ns = ns / len;
            if (glm::dot(h.ns, h.ng) < 0.0f) h.ns = -h.ns;
        }
        if (normalMap >= 0 && scene.uvs) {
            // dp/du and dp/dv of the triangle's (linear) texture mapping.
            vec2 duv1 = scene.uvs[tri.y] - scene.uvs[tri.x], duv2 = scene.uvs[tri.z] - scene.uvs[tri.x];
            float det = duv1.x * duv2.y - duv1.y * duv2.x;
            if (det != 0.0f) {
                vec3 dpdu = (duv2.y * e1 - duv1.y * e2) / det, dpdv = (duv1.x * e2 - duv2.x * e1) / det;
                applyNormalMap(scene.textures[normalMap], scene.materials[h.material].normalScale(), dpdu, dpdv, h);
            }
        }
    } else {
        Float4 s = scene.spheres[prim - scene.numTriangles];
        h.ng = glm::normalize(p - s.xyz());
        h.p = s.xyz() + s.w * h.ng;
        h.error = spherePointError(s.xyz(), s.w);
        h.ns = h.ng;
        // Only textures read uv (an atan2 and an acos): skipped in scenes without any.
        h.uv = Materials::kTextures && scene.textured ? sphereTextureCoordinates(h.ng) : vec2(0.0f);
        // u grows along the longitude (-z, 0, x); v towards -y.
        if (normalMap >= 0)
            applyNormalMap(scene.textures[normalMap], scene.materials[h.material].normalScale(),
                           vec3(-h.ng.z, 0.0f, h.ng.x), vec3(0.0f, -1.0f, 0.0f), h);
    }
    return h;
}

/// The material at a surface point: the stored one, or, where it has textures (in kernels compiled
/// with textures), a copy in `scratch` with its factors scaled by the textures at `uv`: base colour
/// (the diffuse colour of Lambertian, Glossy and MetallicRoughness), metallic-roughness (glTF:
/// roughness by G, metallic by B) and emission. Every BSDF, continuation probability, pdf and
/// emission then sees one material. (Normal maps act on the shading normal: surfaceAt.)
template <class Materials>
WF_CPU_GPU WF_INLINE const MaterialData& materialAt(const SceneView& scene, int material, vec2 uv,
                                                    MaterialData& scratch) {
    const MaterialData& m = scene.materials[material];
    if constexpr (Materials::kTextures) {
        if (!scene.materialTextures) return m;
        MaterialTextures t = scene.materialTextures[material];
        if (t.baseColor < 0 && t.metallicRoughness < 0 && t.emission < 0) return m;
        scratch = m;
        if (t.baseColor >= 0) scratch.setDiffuse(m.diffuse() * scene.textures[t.baseColor].sample(uv));
        if (t.metallicRoughness >= 0) {
            vec3 mr = scene.textures[t.metallicRoughness].sample(uv);
            // alpha = roughness^2, so the roughness factor G scales alpha by G^2.
            scratch.setAlpha(glm::max(m.alpha() * mr.y * mr.y, kSmoothAlpha));
            scratch.setMetallic(m.metallic() * mr.z);
        }
        if (t.emission >= 0) scratch.setEmission(m.emission() * scene.textures[t.emission].sample(uv));
        return scratch;
    }
    return m;
}

WF_CPU_GPU WF_INLINE float primitiveArea(const SceneView& scene, int prim) {
    if (prim < scene.numTriangles) {
        uvec3 t = scene.triangles[prim];
        vec3 a = scene.positions[t.x], b = scene.positions[t.y], c = scene.positions[t.z];
        return 0.5f * glm::length(glm::cross(b - a, c - a));
    }
    float r = scene.spheres[prim - scene.numTriangles].w;
    return 4.0f * kPi * r * r;
}

/// Emitted radiance leaving an emitter towards w (one-sided: the geometric normal's side).
WF_CPU_GPU WF_INLINE vec3 emittedRadiance(const MaterialData& m, vec3 ng, vec3 w) {
    return glm::dot(ng, w) > 0.0f ? m.emission() : vec3(0.0f);
}

}  // namespace wavefront
