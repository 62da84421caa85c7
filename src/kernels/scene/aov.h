// Arbitrary output variables: what a denoiser or adaptive sampling reads beside the colour.
// One first-hit pass over the pixels serves every integrator (the same camera ray the path
// tracer starts sample i with), and per-pass moments of the film give the variance of PT's and
// BDPT's estimates.
#pragma once
#include "kernels/materials/material.h"
#include "kernels/scene/surface.h"

namespace wavefront {

/// Doubles per pixel of the first-hit sums: albedo (3), shading normal (3), depth (1).
constexpr int kAovWords = 7;

/// The colour a surface reflects at its first hit, in [0, 1] per channel (what OIDN calls albedo):
/// each BSDF's albedo (bsdfAlbedo: the diffuse colour (textured) of diffuse and glossy surfaces
/// plus the glossy lobe's colour, a mirror's tint, a metal's reflectance at normal incidence,
/// glass 1), clamped.
template <class Materials = AllMaterials>
WF_CPU_GPU inline vec3 firstHitAlbedo(const MaterialData& m) {
    return glm::clamp(bsdfAlbedo<Materials>(m), vec3(0.0f), vec3(1.0f));
}

/// Adds one first-hit sample per film pixel: the camera ray of work index firstSample + pixel (its
/// global sample: Sampler::startSample, the full frame's numbering under a crop window), its
/// closest hit's albedo, shading normal (world space, turned to face the camera) and distance
/// from the ray's origin. A ray that hits nothing adds zeros.
template <class Sampler>
struct AovStage {
    SceneView scene;
    Sampler sampler;
    std::uint64_t firstSample;
    double* sums;  ///< kAovWords per pixel
    WF_CPU_GPU void operator()(int pixel) const {
        Ray r = cameraRay(scene, sampler, sampler.startSample(0, firstSample + std::uint64_t(pixel)));
        Hit h = traceClosest(scene, r);
        if (h.prim < 0) return;
        SurfaceHit s = surfaceAt<InstancedMaterials>(scene, h, r.origin, r.direction);
        MaterialData scratch;
        vec3 albedo = firstHitAlbedo(materialAt<AllMaterials>(scene, s.material, s.uv, scratch));
        vec3 n = glm::dot(s.ng, r.direction) > 0.0f ? -s.ns : s.ns;
        double* out = sums + kAovWords * pixel;
        for (int c = 0; c < 3; ++c) {
            out[c] += double(albedo[c]);
            out[3 + c] += double(n[c]);
        }
        out[6] += double(h.t);
    }
};

/// After a pass (one sample per pixel) of PT or BDPT: the pass's estimate of each pixel (what
/// the film gained over what it gained in samples) added to the sums of estimates and of their
/// squares, from which Film::resolveAovs forms the variance of the mean.
struct PassMomentsStage {
    const double* sum;         ///< the film: 3 per pixel
    const unsigned* counts;    ///< the film's samples per pixel
    double* previous;          ///< 3 per pixel: the film's sums after the last pass
    unsigned* previousCounts;  ///< per pixel
    double* moments;           ///< 6 per pixel: sums of pass estimates (3), of their squares (3)
    WF_CPU_GPU void operator()(int pixel) const {
        unsigned n = counts[pixel] - previousCounts[pixel];
        previousCounts[pixel] = counts[pixel];
        for (int c = 0; c < 3; ++c) {
            double gained = sum[3 * pixel + c] - previous[3 * pixel + c];
            previous[3 * pixel + c] = sum[3 * pixel + c];
            double estimate = n > 0 ? gained / n : 0.0;
            moments[6 * pixel + c] += estimate;
            moments[6 * pixel + 3 + c] += estimate * estimate;
        }
    }
};

}  // namespace wavefront
