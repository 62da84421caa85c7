// The scene as every integrator meets it: camera rays, the surface at a hit, primitive areas and
// emission.
#pragma once
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

WF_CPU_GPU inline SurfaceHit surfaceAt(const SceneView& scene, int prim, vec3 origin, vec3 dir, float t) {
    SurfaceHit h;
    h.material = scene.materialOf(prim);
    vec3 p = origin + t * dir;
    if (prim < scene.numTriangles) {
        uvec3 tri = scene.triangles[prim];
        vec3 v0 = scene.positions[tri.x], v1 = scene.positions[tri.y], v2 = scene.positions[tri.z];
        vec3 e1 = v1 - v0, e2 = v2 - v0;
        vec3 n = glm::cross(e1, e2);
        h.ng = glm::normalize(n);
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
        h.error = trianglePointError(b0, b1, b2, v0, v1, v2);
        h.uv = scene.uvs ? b0 * scene.uvs[tri.x] + b1 * scene.uvs[tri.y] + b2 * scene.uvs[tri.z] : vec2(0.0f);
        h.ns = h.ng;
        if (scene.hasNormals[prim]) {
            vec3 ns = b0 * scene.normals[tri.x] + b1 * scene.normals[tri.y] + b2 * scene.normals[tri.z];
            float len = glm::length(ns);
            if (len > 0.0f) h.ns = ns / len;
            if (glm::dot(h.ns, h.ng) < 0.0f) h.ns = -h.ns;
        }
    } else {
        Float4 s = scene.spheres[prim - scene.numTriangles];
        h.ng = glm::normalize(p - s.xyz());
        h.p = s.xyz() + s.w * h.ng;
        h.error = spherePointError(s.xyz(), s.w);
        h.ns = h.ng;
        h.uv = vec2(std::atan2(h.ng.z, h.ng.x) * (0.5f * kInvPi) + 0.5f, std::acos(glm::clamp(h.ng.y, -1.0f, 1.0f)) * kInvPi);
    }
    return h;
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
    return glm::dot(ng, w) > 0.0f ? m.emission.xyz() : vec3(0.0f);
}

}  // namespace wavefront
