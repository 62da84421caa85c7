// Shadow (connection) rays: what they carry, the one constructor every integrator builds them
// with, and the any-hit test.
#pragma once
#include "kernels/bvh/bvh.h"
#include "kernels/scene/scene_view.h"

namespace wavefront {

/// A shadow (connection) ray with the contribution it deposits when unoccluded; 48 bytes.
struct ShadowRay {
    Float4 origin;        ///< xyz; w = pixel (int bits)
    Float4 direction;     ///< xyz; w = tMax
    Float4 contribution;  ///< rgb; w = sample slot (24 bits: MLT's chains, the one sink that reads
                          ///< it) | the code of the medium the ray starts in << 24 (int bits)
    static constexpr int kSlotBits = 24;
    WF_CPU_GPU int pixel() const { return floatAsInt(origin.w); }
    WF_CPU_GPU int slot() const { return floatAsInt(contribution.w) & ((1 << kSlotBits) - 1); }
    WF_CPU_GPU int medium() const { return int(floatAsUint(contribution.w) >> kSlotBits); }
    WF_CPU_GPU static float packSlot(int slot, int medium) {
        return uintAsFloat((std::uint32_t(slot) & ((1u << kSlotBits) - 1)) | std::uint32_t(medium) << kSlotBits);
    }
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
/// the sample in `slot`), times the transmittance of the media it crosses, starting in `medium`
/// (a code: kernels/media/medium.h).
WF_CPU_GPU WF_INLINE ShadowRay shadowRayBetween(const RayEnd& from, const RayEnd& to, int pixel, vec3 contribution,
                                                int slot = 0, int medium = 0) {
    vec3 o = from.offsetTowards(to.p - from.p), target = to.offsetTowards(from.p - to.p);
    vec3 d = target - o;
    float dist = glm::length(d);
    ShadowRay r;
    r.origin = Float4(o, intAsFloat(pixel));
    r.direction = Float4(dist > 0.0f ? d / dist : vec3(0.0f, 0.0f, 1.0f), dist * (1.0f - kShadowRayShortening));
    r.contribution = Float4(contribution, ShadowRay::packSlot(slot, medium));
    return r;
}

/// The directional form, towards a light at infinity (the environment): unbounded.
WF_CPU_GPU WF_INLINE ShadowRay shadowRayAlong(const RayEnd& from, vec3 direction, int pixel, vec3 contribution,
                                              int slot = 0, int medium = 0) {
    ShadowRay r;
    r.origin = Float4(from.offsetTowards(direction), intAsFloat(pixel));
    r.direction = Float4(direction, FLT_MAX);
    r.contribution = Float4(contribution, ShadowRay::packSlot(slot, medium));
    return r;
}

/// True when nothing blocks a shadow ray (kernels with media: shadowRayTransmittance).
template <class Materials>
WF_CPU_GPU WF_INLINE bool shadowRayUnoccluded(const SceneView& scene, const ShadowRay& s, const SimdProbe& probe) {
    return !traceOccluded<Materials>(scene, Ray{s.origin.xyz(), s.direction.xyz(), s.direction.w}, probe);
}

}  // namespace wavefront
