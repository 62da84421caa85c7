// The path-tracing estimator, written once: camera rays, surface shading with next-event
// estimation and MIS (or, with it off, only the light the path hits), Russian roulette,
// shadow-ray deposits. Every variant (megakernel, PT+R, SPT, SPT+R) and both backends call
// exactly these functions.
#pragma once
#include <type_traits>

#include "kernels/scene/light_sample.h"
#include "kernels/materials/material.h"
#include "kernels/media/media_path.h"
#include "kernels/scene/shadow_ray.h"
#include "kernels/scene/surface.h"

namespace wavefront {

struct PtParams {
    HashSampler sampler;
    int maxDepth = 16;       ///< longest path in segments
    int rouletteDepth = 3;   ///< roulette applies from this many segments on
    bool nextEventEstimation = true;  ///< off: no light sampling, emission found by the path has weight 1
    int numPixels = 0;       ///< samples per pass: the film's pixels (a crop window's)
};

/// One path in flight, 48 bytes in three 16-byte words (stored SoA by SoaView, kernels/core/stream.h).
struct PathState {
    Float4 origin;      ///< xyz; w = solid-angle pdf of the BSDF or phase sample that made this ray (0: camera or specular)
    Float4 direction;   ///< xyz; w = low 32 bits of the global sample index
    Float4 throughput;  ///< xyz; w = (bits 32-47 of the sample index << 16) | medium code << 8 | segments so far

    WF_CPU_GPU std::uint64_t sampleIndex() const {
        return std::uint64_t(floatAsUint(direction.w)) | (std::uint64_t(floatAsUint(throughput.w) >> 16) << 32);
    }
    WF_CPU_GPU int depth() const { return int(floatAsUint(throughput.w) & 0xff); }
    /// The medium the ray travels in (a code: kernels/media/medium.h).
    WF_CPU_GPU int medium() const { return int((floatAsUint(throughput.w) >> 8) & 0xff); }
    WF_CPU_GPU void set(vec3 o, vec3 d, vec3 beta, float prevPdf, std::uint64_t sample, int depth, int medium = 0) {
        origin = Float4(o, prevPdf);
        direction = Float4(d, uintAsFloat(std::uint32_t(sample)));
        throughput = Float4(beta, uintAsFloat(std::uint32_t(sample >> 32) << 16 | std::uint32_t(medium) << 8 |
                                              std::uint32_t(depth)));
    }
};
static_assert(sizeof(PathState) == 48, "path state is three 16-byte words");

/// Full-frame pixel of global sample `sample` (HashSampler::filmSample).
WF_CPU_GPU WF_INLINE int pixelOfSample(const SceneView& scene, const PtParams& params, std::uint64_t sample) {
    return params.sampler.pixelIndex(sample, scene.width, scene.height);
}

WF_CPU_GPU inline PathState generateCameraPath(const SceneView& scene, const PtParams& params, std::uint64_t sample) {
    Ray r = cameraRay(scene, params.sampler, sample);
    PathState s;
    s.set(r.origin, r.direction, vec3(1.0f), 0.0f, sample, 0, scene.media.cameraMedium);
    return s;
}

/// What shading one hit produces: the continued path (extension stream) and a shadow ray
/// (connection stream); either may be absent.
struct ShadeOutput {
    static constexpr int kExtension = 0, kShadow = 1;
    PathState next;
    ShadowRay shadow;
    bool hasNext = false;
    bool hasShadow = false;
    WF_CPU_GPU bool active(int stream) const { return stream == kExtension ? hasNext : hasShadow; }
};

/// Russian roulette from `rouletteDepth` segments on, with the current throughput: false ends the
/// path; a survivor's throughput is divided by the probability and the number `u` rescaled, so
/// that it can still pick a BSDF lobe.
WF_CPU_GPU WF_INLINE bool survivesRoulette(const PtParams& params, int depth, vec3& beta, float& u) {
    if (depth < params.rouletteDepth) return true;
    float q = glm::min(maxComponent(beta), 0.95f);
    if (u >= q) return false;
    beta /= q;
    u /= q;
    return true;
}

/// Shades a collision in a medium at p (code `medium`) that the path reached along -wo with
/// throughput beta at `depth` segments: next-event estimation weighted against phase sampling
/// (the power heuristic on the directions' densities: the transmittance is estimated the same
/// way whichever strategy found the light), Russian roulette and the phase-sampled continuation.
template <class Materials, bool kNextEvent>
WF_CPU_GPU inline ShadeOutput shadeMediumVertex(const SceneView& scene, const PtParams& params, std::uint64_t sample,
                                                int pixel, vec3 p, vec3 wo, vec3 beta, int depth, int medium) {
    ShadeOutput out;
    if (depth + 1 > params.maxDepth) return out;
    const int vertex = depth - 1;
    const float g = scene.media.media[mediumcode::index(medium)].g();
    if (kNextEvent && params.nextEventEstimation && (scene.lights.numLights > 0 || scene.environment.present())) {
        DirectLight dl = sampleDirectLight<Materials>(scene, p, params.sampler.get(sample, dims::vertex(vertex, dims::kLightChoice)),
                                                      params.sampler.get2(sample, dims::vertex(vertex, dims::kLightPosition)));
        if (dl.pdfDirect > 0.0f && !isBlack(dl.Le)) {
            float phase = henyeyGreenstein(glm::dot(wo, dl.wi), g);
            float w = dl.delta ? 1.0f : powerHeuristic(dl.pdfDirect, phase);
            vec3 contribution = beta * dl.Le * (phase * w / dl.pdfDirect);
            out.shadow = dl.infinite ? shadowRayAlong(RayEnd::point(p), dl.wi, pixel, contribution, 0, medium)
                                     : shadowRayBetween(RayEnd::point(p), dl.end, pixel, contribution, 0, medium);
            out.hasShadow = true;
        }
    }
    float uc = params.sampler.get(sample, dims::vertex(vertex, dims::kComponent));
    if (!survivesRoulette(params, depth, beta, uc)) return out;
    // The phase function is its own density: the throughput keeps its value.
    vec3 wi = sampleHenyeyGreenstein(wo, g, params.sampler.get2(sample, dims::vertex(vertex, dims::kDirection)));
    out.next.set(p, wi, beta, henyeyGreenstein(glm::dot(wo, wi), g), sample, depth, medium);
    out.hasNext = true;
    return out;
}

/// Shades the hit of `path` (hit.prim < 0: the ray escaped). Emission found here is deposited
/// directly; next-event estimation and the continuation are returned. `Materials`: the material
/// kinds compiled in (material_types.h). kNextEvent false compiles next-event estimation out, for
/// params.nextEventEstimation off (withNextEventSetting): compiled in but never run, its light
/// sampling and MIS weights still cost the rtiow-final megakernel 11% (registers and spills).
template <class Materials, bool kNextEvent = true>
WF_CPU_GPU inline ShadeOutput shadePath(const SceneView& scene, const PtParams& params, const FilmView& film,
                                        const PathState& path, Hit hit) {
    const bool nextEvent = kNextEvent && params.nextEventEstimation;
    ShadeOutput out;
    std::uint64_t sample = path.sampleIndex();
    // The pixel (a 64-bit remainder) where a deposit or a shadow ray needs it, not on every bounce.
    auto pixel = [&] { return pixelOfSample(scene, params, sample); };
    int depth = path.depth() + 1;  // segments including the ray that made this hit
    vec3 rayDir = path.direction.xyz();
    vec3 beta = path.throughput.xyz();
    float prevPdf = path.origin.w;
    vec3 rayOrigin = path.origin.xyz();  // where the ray's last piece starts (media: past the interfaces it crossed)
    float hitDistance = hit.t;           // from the previous vertex
    int medium = mediumcode::kVacuum;    // the one the ray reached the surface through
    if constexpr (Materials::kMedia) {
        if (scene.hasMedia) {
            MediaSegment seg = traceThroughMedia<Materials>(scene, rayOrigin, rayDir, hit, path.medium(),
                                                            params.sampler.get(sample, dims::vertex(depth - 1, dims::kMedium)),
                                                            beta);
            beta *= seg.weight;
            if (isBlack(beta)) return out;
            if (seg.scattered)
                return shadeMediumVertex<Materials, kNextEvent>(scene, params, sample, pixel(), seg.point, -rayDir, beta,
                                                                depth, seg.medium);
            hit = seg.hit;
            rayOrigin = seg.origin;
            hitDistance = seg.distance;
            medium = seg.medium;
        }
    }
    if (hit.prim < 0) {
        // Escaped: the environment, weighted against sampling it at the previous vertex.
        if (scene.environment.present()) {
            float w = nextEvent && prevPdf > 0.0f
                          ? powerHeuristic(prevPdf, scene.environmentSelect * scene.environment.pdf(rayDir))
                          : 1.0f;
            film.deposit(pixel(), beta * scene.environment.radiance(rayDir) * w);
        }
        return out;
    }
    SurfaceHit sh = surfaceAt<Materials>(scene, hit, rayOrigin, rayDir);
    // By reference: the fields are read where used (a copy held all 64 bytes in registers).
    MaterialData textured;
    const MaterialData& m = materialAt<Materials>(scene, sh.material, sh.uv, textured);
    vec3 wo = -rayDir;

    // Emission, weighted against the light sampling that could have found it one vertex earlier.
    if (m.emissive()) {
        vec3 Le = emittedRadiance(m, sh.ng, wo);
        if (!isBlack(Le)) {
            float w = 1.0f;
            if (nextEvent && prevPdf > 0.0f) {
                float cosL = glm::dot(sh.ng, wo);
                float pdfLight = (1.0f - scene.environmentSelect) * scene.lights.primPmf[hit.prim] /
                                 primitiveArea(scene, hit.prim) * hitDistance * hitDistance / cosL;
                w = powerHeuristic(prevPdf, pdfLight);
            }
            film.deposit(pixel(), beta * Le * w);
        }
    }
    if (depth + 1 > params.maxDepth) return out;

    // Local shading frame (shadingNormals: opaque materials face wo, transmissive ones keep the
    // outward normal, wo.z < 0 inside; the shading normal where wo agrees with it).
    bool entering = glm::dot(wo, sh.ng) > 0.0f;
    bool dielectric = isTransmissive<Materials>(m);
    ShadingNormals sn = shadingNormals<Materials>(m, wo, entering, sh.ng, sh.ns);
    vec3 ng = sn.ng;
    Frame frame(sn.frameNormal());
    vec3 woLocal = frame.toLocal(wo);
    int vertex = depth - 1;

    // Next-event estimation: the environment, or a light chosen by power (area or delta).
    if (nextEvent && !isSpecular<Materials>(m) &&
        (scene.lights.numLights > 0 || scene.environment.present())) {
        DirectLight dl = sampleDirectLight<Materials>(scene, sh.p, params.sampler.get(sample, dims::vertex(vertex, dims::kLightChoice)),
                                                      params.sampler.get2(sample, dims::vertex(vertex, dims::kLightPosition)));
        // Opaque surfaces see lights on wo's side only; rough glass also through itself. A light
        // on the other side of the shading normal than wo scatters nothing (sn.pairs).
        if (dl.pdfDirect > 0.0f && (dielectric || glm::dot(dl.wi, ng) > 0.0f) && sn.pairs(dl.wi)) {
            vec3 wiLocal = frame.toLocal(dl.wi);
            vec3 f = evalBsdf<Materials>(m, woLocal, wiLocal, TransportMode::Radiance);
            if (!isBlack(f) && !isBlack(dl.Le)) {
                // A delta light is found by light sampling alone: weight 1.
                float w = dl.delta ? 1.0f : powerHeuristic(dl.pdfDirect, pdfBsdf<Materials>(m, woLocal, wiLocal));
                vec3 contribution = beta * f * (std::fabs(wiLocal.z) * w / dl.pdfDirect) * dl.Le;
                RayEnd here = RayEnd::surface(sh.p, ng, sh.error);
                int towards = mediumTowards<Materials>(scene, hit.prim, sh.ng, dl.wi, medium);
                out.shadow = dl.infinite ? shadowRayAlong(here, dl.wi, pixel(), contribution, 0, towards)
                                         : shadowRayBetween(here, dl.end, pixel(), contribution, 0, towards);
                out.hasShadow = true;
            }
        }
    }

    // Russian roulette with the current throughput; the surviving number is reused (rescaled)
    // to pick the BSDF lobe, so each vertex needs only 4 extension numbers.
    float uc = params.sampler.get(sample, dims::vertex(vertex, dims::kComponent));
    if (!survivesRoulette(params, depth, beta, uc)) return out;
    BsdfSample bs = sampleBsdf<Materials>(m, woLocal, uc, params.sampler.get2(sample, dims::vertex(vertex, dims::kDirection)),
                               entering, TransportMode::Radiance);
    if (!bs.valid || isBlack(bs.weight)) return out;
    vec3 wi = glm::normalize(frame.toWorld(bs.wi));
    // Opaque materials only reflect: a direction the shading normal allows below the geometric
    // surface ends the path (next-event estimation never samples one, and BDPT does the same), as
    // does one whose pair with wo does not scatter.
    if ((!dielectric && glm::dot(wi, ng) <= 0.0f) || !sn.pairs(wi)) return out;
    vec3 side = glm::dot(wi, sh.ng) > 0.0f ? sh.ng : -sh.ng;
    out.next.set(offsetRayOrigin(sh.p, sh.error, side), wi, beta * bs.weight, bs.specular ? 0.0f : bs.pdf, sample,
                 depth, mediumTowards<Materials>(scene, hit.prim, sh.ng, wi, medium));
    out.hasNext = true;
    return out;
}

/// Calls f(std::true_type{}) or f(std::false_type{}) by params.nextEventEstimation: the stages
/// that shade are compiled both ways (shadePath's kNextEvent).
template <class F>
decltype(auto) withNextEventSetting(const PtParams& params, F&& f) {
    if (params.nextEventEstimation) return f(std::true_type{});
    return f(std::false_type{});
}

/// Connect stage body: deposits a shadow ray's contribution when nothing blocks it (times the
/// transmittance of the media it crosses).
template <class Materials>
WF_CPU_GPU inline void traceShadowRay(const SceneView& scene, const FilmView& film, const ShadowRay& s,
                                      const SimdProbe& probe) {
    vec3 T = shadowRayTransmittance<Materials>(scene, s, probe);
    if (!isBlack(T)) film.deposit(s.pixel(), s.contribution.xyz() * T);
}

}  // namespace wavefront
