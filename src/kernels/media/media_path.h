// Rays through media and the surfaces that bound them, for every integrator: which medium a ray
// leaving a surface enters, a path segment resolved through interfaces to its first real event
// (a collision in a medium, a surface that scatters, or the environment), and the transmittance
// of shadow rays and connections. Only kernels of a set with Materials::kMedia call these.
#pragma once
#include "kernels/media/medium.h"
#include "kernels/scene/shadow_ray.h"
#include "kernels/scene/surface.h"

namespace wavefront {

/// A ray is refused beyond this many interface crossings on one segment (weight 0): closed
/// boundaries are crossed a few times, only overlapping or degenerate ones many times.
constexpr int kMaxInterfaceCrossings = 64;

/// The code of the medium a ray leaving primitive `prim` along w enters: the side of the
/// primitive's interface that w points to (ng: the stored, outward geometric normal), or, where
/// the primitive bounds no medium, `current` (pbrt-v4's rule: only a transition changes it).
WF_CPU_GPU WF_INLINE int mediumLeaving(const SceneView& scene, int prim, vec3 ng, vec3 w, int current) {
    const std::uint16_t mi = scene.media.primInterface[prim];
    const int inside = mi & 0xff, outside = mi >> 8;
    if (inside == outside) return current;
    return glm::dot(w, ng) > 0.0f ? outside : inside;
}

template <class Materials>
WF_CPU_GPU WF_INLINE bool isInterface(const SceneView& scene, int prim) {
    return scene.materials[scene.materialOf(prim)].kind() == MaterialType::Interface;
}

/// How a path segment ends once media and interfaces are accounted for.
struct MediaSegment {
    Hit hit;             ///< the surface ending it (prim < 0: it escaped), as hit from `origin`
    vec3 origin;         ///< the start of its last piece (surfaceAt's origin for `hit`)
    vec3 weight;         ///< the trackers' weights along it
    vec3 point;          ///< scattered: the collision
    float distance;      ///< from its start to the collision or the surface
    int medium;          ///< code of the medium it ends in: the collision's, or the one it reached the surface through
    bool scattered;      ///< a real collision in a medium ended it
};

/// Resolves the segment o + t d (d unit) whose first surface `hit` was traced, starting in medium
/// `medium` (a code): delta tracking in each medium it crosses, interfaces passed (traced here,
/// on the stream entry that met them) until a collision, a surface with a BSDF or the
/// environment. `u`: the sampler number seeding the trackers (dims::kMedium of the vertex the
/// segment leaves); `beta`: the path's throughput (the trackers' choice of events follows it).
template <class Materials>
WF_CPU_GPU WF_INLINE MediaSegment traceThroughMedia(const SceneView& scene, vec3 o, vec3 d, Hit hit, int medium,
                                                    float u, vec3 beta, const SimdProbe& probe = SimdProbe()) {
    MediaSegment s;
    s.origin = o;
    s.weight = vec3(1.0f);
    s.point = o;
    s.distance = 0.0f;
    s.medium = medium;
    s.scattered = false;
    for (int crossing = 0;; ++crossing) {
        if (s.medium != mediumcode::kVacuum) {
            MediumRng rng(u, s.origin);
            const MediumData& m = scene.media.media[mediumcode::index(s.medium)];
            MediumSample ms = sampleMediumDistance(scene.media, m, s.origin, d, hit.prim >= 0 ? hit.t : FLT_MAX, rng,
                                                   beta * s.weight);
            s.weight *= ms.weight;
            if (ms.scattered) {
                s.scattered = true;
                s.point = s.origin + ms.t * d;
                s.distance += ms.t;
                s.hit = hit;
                return s;
            }
        }
        s.hit = hit;
        if (hit.prim < 0) return s;
        s.distance += hit.t;
        if (!isInterface<Materials>(scene, hit.prim)) return s;
        if (crossing >= kMaxInterfaceCrossings) {
            s.weight = vec3(0.0f);
            s.hit.prim = -1;
            return s;
        }
        SurfaceHit sh = surfaceAt<Materials>(scene, hit, s.origin, d);
        s.medium = mediumLeaving(scene, hit.prim, sh.ng, d, s.medium);
        s.origin = offsetRayOrigin(sh.p, sh.error, glm::dot(d, sh.ng) > 0.0f ? sh.ng : -sh.ng);
        hit = traceClosest<Materials>(scene, Ray{s.origin, d, FLT_MAX}, probe);
    }
}

/// The segment from o along d (d unit) whose first surface `hit` was traced, from a walk of
/// throughput `beta` in medium `medium` (a code): traceThroughMedia in kernels with media (u()
/// gives its seed), else the hit as it is.
template <class Materials, class SeedFn>
WF_CPU_GPU WF_INLINE MediaSegment resolveSegment(const SceneView& scene, vec3 o, vec3 d, Hit hit, int medium, vec3 beta,
                                                 SeedFn&& u) {
    if constexpr (Materials::kMedia)
        if (scene.hasMedia) return traceThroughMedia<Materials>(scene, o, d, hit, medium, u(), beta);
    MediaSegment s;
    s.hit = hit;
    s.origin = o;
    s.weight = vec3(1.0f);
    s.point = o;
    s.distance = hit.t;
    s.medium = mediumcode::kVacuum;
    s.scattered = false;
    return s;
}

/// What reaches the end of a shadow ray per unit of its contribution: 1 or 0 (occluded) without
/// media; with them, the transmittance of the media it crosses from its start medium through
/// interfaces, 0 where a surface with a BSDF blocks it. The trackers' numbers are a function of
/// the ray (its contribution and origin), so a replayed sample sees the same transmittance.
template <class Materials>
WF_CPU_GPU WF_INLINE vec3 shadowRayTransmittance(const SceneView& scene, const ShadowRay& s, const SimdProbe& probe) {
    if constexpr (!Materials::kMedia) {
        return vec3(shadowRayUnoccluded<Materials>(scene, s, probe) ? 1.0f : 0.0f);
    } else {
        if (!scene.hasMedia) return vec3(shadowRayUnoccluded<Materials>(scene, s, probe) ? 1.0f : 0.0f);
        vec3 o = s.origin.xyz(), d = s.direction.xyz();
        float remaining = s.direction.w;
        int medium = s.medium();
        vec3 T(1.0f);
        for (int crossing = 0; crossing <= kMaxInterfaceCrossings; ++crossing) {
            Hit hit = traceClosest<Materials>(scene, Ray{o, d, remaining}, probe);
            if (medium != mediumcode::kVacuum) {
                MediumRng rng(s.contribution.x + s.contribution.y, o);
                T *= mediumTransmittance(scene.media, scene.media.media[mediumcode::index(medium)], o, d,
                                         hit.prim >= 0 ? hit.t : remaining, rng);
                if (isBlack(T)) return T;
            }
            if (hit.prim < 0) return T;
            if (!isInterface<Materials>(scene, hit.prim)) return vec3(0.0f);
            SurfaceHit sh = surfaceAt<Materials>(scene, hit, o, d);
            medium = mediumLeaving(scene, hit.prim, sh.ng, d, medium);
            if (remaining < FLT_MAX) remaining -= hit.t;
            o = offsetRayOrigin(sh.p, sh.error, glm::dot(d, sh.ng) > 0.0f ? sh.ng : -sh.ng);
        }
        return vec3(0.0f);
    }
}

/// The medium code on the side of a surface point that direction w leaves to (a vertex's
/// continuation or its connection): see mediumLeaving. Kernels without media: vacuum.
template <class Materials>
WF_CPU_GPU WF_INLINE int mediumTowards(const SceneView& scene, int prim, vec3 ng, vec3 w, int current) {
    if constexpr (!Materials::kMedia) return mediumcode::kVacuum;
    else return scene.hasMedia ? mediumLeaving(scene, prim, ng, w, current) : mediumcode::kVacuum;
}

}  // namespace wavefront
