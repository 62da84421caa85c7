// A point on an area light chosen in proportion to power (next-event estimation, BDPT's s = 1
// and light-subpath starts).
#pragma once
#include "kernels/scene/surface.h"

namespace wavefront {

struct LightSample {
    vec3 p, n, Le;
    float error;    ///< bound on p's rounding error (as SurfaceHit::error)
    float pdfArea;  ///< selection probability / area
};

/// Picks an area light in proportion to power, then a uniform point on it. `pdfArea` includes the
/// probability of choosing area lights over the environment.
WF_CPU_GPU inline LightSample sampleLight(const SceneView& scene, float uChoice, vec2 u) {
    LightSample ls;
    int k = scene.lights.sample(uChoice);
    int prim = scene.lights.primIds[k];
    if (prim < scene.numTriangles) {
        uvec3 t = scene.triangles[prim];
        vec3 a = scene.positions[t.x], b = scene.positions[t.y], c = scene.positions[t.z];
        vec2 bc = sampleUniformTriangle(u);
        float b0 = 1.0f - bc.x - bc.y;
        ls.p = b0 * a + bc.x * b + bc.y * c;
        ls.error = trianglePointError(b0, bc.x, bc.y, a, b, c);
        ls.n = glm::normalize(glm::cross(b - a, c - a));
    } else {
        Float4 s = scene.spheres[prim - scene.numTriangles];
        ls.n = sampleUniformSphere(u);
        ls.p = s.xyz() + s.w * ls.n;
        ls.error = spherePointError(s.xyz(), s.w);
    }
    ls.Le = scene.materials[scene.materialOf(prim)].emission.xyz();
    ls.pdfArea = (1.0f - scene.environmentSelect) * scene.lights.primPmf[prim] / primitiveArea(scene, prim);
    return ls;
}

}  // namespace wavefront
