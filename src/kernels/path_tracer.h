// The path-tracing estimator, written once: camera rays, surface shading with next-event
// estimation and MIS, Russian roulette, shadow-ray deposits. Every variant (megakernel, PT+R,
// SPT, SPT+R) and both backends call exactly these functions.
#pragma once
#include "kernels/material.h"

namespace wavefront {

struct PtParams {
    HashSampler sampler;
    int maxDepth = 16;       ///< longest path in segments
    int rouletteDepth = 3;   ///< roulette applies from this many segments on
    int numPixels = 0;
};

/// One path in flight, 48 bytes in three 16-byte words (stored SoA by PathStream).
struct PathState {
    Float4 origin;      ///< xyz; w = solid-angle pdf of the BSDF sample that made this ray (0: camera or specular)
    Float4 direction;   ///< xyz; w = low 32 bits of the global sample index
    Float4 throughput;  ///< xyz; w = (high bits of the sample index << 8) | segments so far

    WF_CPU_GPU std::uint64_t sampleIndex() const {
        return std::uint64_t(floatAsUint(direction.w)) | (std::uint64_t(floatAsUint(throughput.w) >> 8) << 32);
    }
    WF_CPU_GPU int depth() const { return int(floatAsUint(throughput.w) & 0xff); }
    WF_CPU_GPU void set(vec3 o, vec3 d, vec3 beta, float prevPdf, std::uint64_t sample, int depth) {
        origin = Float4(o, prevPdf);
        direction = Float4(d, uintAsFloat(std::uint32_t(sample)));
        throughput = Float4(beta, uintAsFloat(std::uint32_t(sample >> 32) << 8 | std::uint32_t(depth)));
    }
};
static_assert(sizeof(PathState) == 48, "path state is three 16-byte words");

/// A shadow (connection) ray with the contribution it deposits when unoccluded; 48 bytes.
struct ShadowRay {
    Float4 origin;        ///< xyz; w = pixel (int bits)
    Float4 direction;     ///< xyz; w = tMax
    Float4 contribution;  ///< rgb; w = sample slot (int bits; BDPT and MLT)
    WF_CPU_GPU int pixel() const { return floatAsInt(origin.w); }
    WF_CPU_GPU int slot() const { return floatAsInt(contribution.w); }
};
static_assert(sizeof(ShadowRay) == 48, "shadow ray is three 16-byte words");

/// One end of a shadow ray: a point on a surface (its geometric normal, either orientation, and
/// the bound on its rounding error), or a point without a surface (the pinhole camera).
struct RayEnd {
    vec3 p;
    vec3 n;       ///< geometric normal; unused without a surface
    float error;  ///< the point's error bound (kPointError); < 0: not on a surface, never offset

    WF_CPU_GPU static RayEnd surface(vec3 p, vec3 n, float error) { return RayEnd{p, n, error}; }
    WF_CPU_GPU static RayEnd point(vec3 p) { return RayEnd{p, vec3(0.0f), -1.0f}; }
    /// The point moved off its surface to the side that faces `towards` (a direction).
    WF_CPU_GPU vec3 offsetTowards(vec3 towards) const {
        if (error < 0.0f) return p;
        return offsetRayOrigin(p, error, glm::dot(n, towards) >= 0.0f ? n : -n);
    }
};

/// Shadow rays stop this fraction short of their target (pbrt-v4's ShadowEpsilon): both ends are
/// already off their surfaces, this only absorbs the traversal's rounding of t near the target.
constexpr float kShadowRayShortening = 1e-4f;

/// The one shadow-ray constructor of every integrator (PT next-event estimation, BDPT s = 1,
/// t = 1 and the connect phase): from `from` to `to`, both ends offset off their surfaces, each
/// to the side that faces the other end, so that neither surface can occlude the ray and the ray
/// ends at the target (not beside it). It deposits `contribution` to `pixel` when unoccluded (for
/// the sample in `slot`).
WF_CPU_GPU WF_INLINE ShadowRay shadowRayBetween(const RayEnd& from, const RayEnd& to, int pixel, vec3 contribution,
                                                int slot = 0) {
    vec3 o = from.offsetTowards(to.p - from.p), target = to.offsetTowards(from.p - to.p);
    vec3 d = target - o;
    float dist = glm::length(d);
    ShadowRay r;
    r.origin = Float4(o, intAsFloat(pixel));
    r.direction = Float4(dist > 0.0f ? d / dist : vec3(0.0f, 0.0f, 1.0f), dist * (1.0f - kShadowRayShortening));
    r.contribution = Float4(contribution, intAsFloat(slot));
    return r;
}

/// The directional form, towards a light at infinity (the environment): unbounded.
WF_CPU_GPU WF_INLINE ShadowRay shadowRayAlong(const RayEnd& from, vec3 direction, int pixel, vec3 contribution,
                                              int slot = 0) {
    ShadowRay r;
    r.origin = Float4(from.offsetTowards(direction), intAsFloat(pixel));
    r.direction = Float4(direction, FLT_MAX);
    r.contribution = Float4(contribution, intAsFloat(slot));
    return r;
}

/// Pixel of global sample `sample` under the default sampler (HashSampler::filmSample).
WF_CPU_GPU WF_INLINE int pixelOfSample(std::uint64_t sample, int numPixels) { return int(sample % std::uint64_t(numPixels)); }

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

WF_CPU_GPU inline PathState generateCameraPath(const SceneView& scene, const PtParams& params, std::uint64_t sample) {
    Ray r = cameraRay(scene, params.sampler, sample);
    PathState s;
    s.set(r.origin, r.direction, vec3(1.0f), 0.0f, sample, 0);
    return s;
}

/// Geometry at a ray hit: position (re-projected onto the surface for accuracy) with its error
/// bound, the stored geometric normal (its side defines front for emission and outside for glass),
/// shading normal.
struct SurfaceHit {
    vec3 p;
    vec3 ng;
    vec3 ns;
    float error;  ///< bound on p's rounding error, largest axis (geometry.h, kPointError)
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

/// Shades the hit of `path` (hit.prim < 0: the ray escaped). Emission found here is deposited
/// directly; next-event estimation and the continuation are returned.
WF_CPU_GPU inline ShadeOutput shadePath(const SceneView& scene, const PtParams& params, const FilmView& film,
                                        const PathState& path, Hit hit) {
    ShadeOutput out;
    std::uint64_t sample = path.sampleIndex();
    int pixel = pixelOfSample(sample, params.numPixels);
    if (hit.prim < 0) {
        // Escaped: the environment, weighted against sampling it at the previous vertex.
        if (scene.environment.present()) {
            vec3 d = path.direction.xyz();
            float prevPdf = path.origin.w;
            float w = prevPdf > 0.0f ? powerHeuristic(prevPdf, scene.environmentSelect * scene.environment.pdf(d)) : 1.0f;
            film.deposit(pixel, path.throughput.xyz() * scene.environment.radiance(d) * w);
        }
        return out;
    }
    int depth = path.depth() + 1;  // segments including the ray that made this hit
    vec3 rayDir = path.direction.xyz();
    vec3 beta = path.throughput.xyz();
    float prevPdf = path.origin.w;
    SurfaceHit sh = surfaceAt(scene, hit.prim, path.origin.xyz(), rayDir, hit.t);
    const MaterialData m = scene.materials[sh.material];
    vec3 wo = -rayDir;

    // Emission, weighted against the light sampling that could have found it one vertex earlier.
    if (m.emissive()) {
        vec3 Le = emittedRadiance(m, sh.ng, wo);
        if (!isBlack(Le)) {
            float w = 1.0f;
            if (prevPdf > 0.0f) {
                float cosL = glm::dot(sh.ng, wo);
                float pdfLight = (1.0f - scene.environmentSelect) * scene.lights.primPmf[hit.prim] /
                                 primitiveArea(scene, hit.prim) * hit.t * hit.t / cosL;
                w = powerHeuristic(prevPdf, pdfLight);
            }
            film.deposit(pixel, beta * Le * w);
        }
    }
    if (depth + 1 > params.maxDepth) return out;

    // Local shading frame. Opaque materials are two-sided: face the normals towards wo.
    bool entering = glm::dot(wo, sh.ng) > 0.0f;
    bool dielectric = m.type() == kDielectric;
    vec3 ng = sh.ng, ns = sh.ns;
    if (!dielectric && !entering) { ng = -ng; ns = -ns; }
    if (!dielectric && glm::dot(wo, ns) <= 0.0f) ns = ng;  // shading normal facing away: fall back
    Frame frame(ns);
    vec3 woLocal = frame.toLocal(wo);
    int vertex = depth - 1;

    // Next-event estimation: the environment or an area light chosen by power.
    if (!isSpecular(m) && (scene.lights.numLights > 0 || scene.environment.present())) {
        float uLight = params.sampler.get(sample, dims::vertex(vertex, dims::kLightChoice));
        vec2 uPos = params.sampler.get2(sample, dims::vertex(vertex, dims::kLightPosition));
        RayEnd here = RayEnd::surface(sh.p, ng, sh.error);
        vec3 wi, Le;
        float pdfLight = 0.0f;
        ShadowRay ray;
        if (uLight < scene.environmentSelect) {
            EnvironmentView::Sample es = scene.environment.sample(uPos);
            wi = es.direction;
            Le = es.radiance;
            pdfLight = scene.environmentSelect * es.pdf;
            ray = shadowRayAlong(here, wi, pixel, vec3(0.0f));
        } else {
            LightSample ls;
            float u = (uLight - scene.environmentSelect) / (1.0f - scene.environmentSelect);
            ls = sampleLight(scene, glm::min(u, 0.99999994f), uPos);
            vec3 toLight = ls.p - sh.p;
            float dist2 = glm::dot(toLight, toLight);
            float dist = std::sqrt(dist2);
            wi = dist > 0.0f ? toLight / dist : vec3(0.0f, 0.0f, 1.0f);
            float cosL = -glm::dot(ls.n, wi);
            Le = ls.Le;
            pdfLight = cosL > 0.0f && dist > 0.0f ? ls.pdfArea * dist2 / cosL : 0.0f;
            ray = shadowRayBetween(here, RayEnd::surface(ls.p, ls.n, ls.error), pixel, vec3(0.0f));
        }
        if (pdfLight > 0.0f && glm::dot(wi, ng) > 0.0f) {
            vec3 wiLocal = frame.toLocal(wi);
            vec3 f = evalBsdf(m, woLocal, wiLocal);
            if (!isBlack(f) && !isBlack(Le)) {
                float w = powerHeuristic(pdfLight, pdfBsdf(m, woLocal, wiLocal));
                vec3 contribution = beta * f * (std::fabs(wiLocal.z) * w / pdfLight) * Le;
                ray.contribution = Float4(contribution, 0.0f);
                out.shadow = ray;
                out.hasShadow = true;
            }
        }
    }

    // Russian roulette with the current throughput; the surviving number is reused (rescaled)
    // to pick the BSDF lobe, so each vertex needs only 4 extension numbers.
    float uc = params.sampler.get(sample, dims::vertex(vertex, dims::kComponent));
    if (depth >= params.rouletteDepth) {
        float q = glm::min(maxComponent(beta), 0.95f);
        if (uc >= q) return out;
        beta /= q;
        uc /= q;
    }
    BsdfSample bs = sampleBsdf(m, woLocal, uc, params.sampler.get2(sample, dims::vertex(vertex, dims::kDirection)),
                               entering, TransportMode::Radiance);
    if (!bs.valid || isBlack(bs.weight)) return out;
    vec3 wi = glm::normalize(frame.toWorld(bs.wi));
    vec3 side = glm::dot(wi, sh.ng) > 0.0f ? sh.ng : -sh.ng;
    out.next.set(offsetRayOrigin(sh.p, sh.error, side), wi, beta * bs.weight, bs.specular ? 0.0f : bs.pdf, sample,
                 depth);
    out.hasNext = true;
    return out;
}

/// True when nothing blocks a shadow ray.
WF_CPU_GPU WF_INLINE bool shadowRayUnoccluded(const SceneView& scene, const ShadowRay& s, const SimdProbe& probe) {
    return traverse<true>(scene.bvh, Ray{s.origin.xyz(), s.direction.xyz(), s.direction.w}, probe).prim < 0;
}

/// Connect stage body: deposits a shadow ray's contribution when nothing blocks it.
WF_CPU_GPU inline void traceShadowRay(const SceneView& scene, const FilmView& film, const ShadowRay& s,
                                      const SimdProbe& probe) {
    if (shadowRayUnoccluded(scene, s, probe)) film.deposit(s.pixel(), s.contribution.xyz());
}

}  // namespace wavefront
