// Microfacet building blocks: the Trowbridge-Reitz (GGX) distribution with the height-correlated
// Smith masking-shadowing term, sampling of its visible normals (Heitz 2018), and Fresnel
// reflectances (dielectric, conductor with a complex index, Schlick). Directions are in a local
// frame whose z axis is the macro-surface normal; microfacet normals wm always have wm.z > 0.
#pragma once
#include "kernels/core/math.h"

namespace wavefront {

/// Below this GGX alpha a microfacet material is treated as perfectly smooth: its lobe becomes a
/// delta (mirror or smooth dielectric), sampled only, never evaluated (pbrt-v4 uses the same 1e-3).
constexpr float kSmoothAlpha = 1e-3f;

// ---- Fresnel ----------------------------------------------------------------------------------

/// Unpolarised Fresnel reflectance of a smooth dielectric; cosI > 0 on the side of `eta` = n_t/n_i.
WF_CPU_GPU WF_INLINE float fresnelDielectric(float cosI, float eta) {
    float sin2T = (1.0f - cosI * cosI) / (eta * eta);
    if (sin2T >= 1.0f) return 1.0f;  // total internal reflection
    float cosT = std::sqrt(1.0f - sin2T);
    float rs = (cosI - eta * cosT) / (cosI + eta * cosT);
    float rp = (eta * cosI - cosT) / (eta * cosI + cosT);
    return 0.5f * (rs * rs + rp * rp);
}

/// The same for a cosine measured against the outward normal: `eta` = n_inside / n_outside, and
/// cosI < 0 means the light meets the interface from the inside.
WF_CPU_GPU WF_INLINE float fresnelDielectricSigned(float cosI, float eta) {
    if (cosI < 0.0f) return fresnelDielectric(glm::min(-cosI, 1.0f), 1.0f / eta);
    return fresnelDielectric(glm::min(cosI, 1.0f), eta);
}

/// Unpolarised Fresnel reflectance of a conductor of complex index eta + i k (relative to the
/// outside medium), cosI in [0, 1]. The closed form in real arithmetic of the complex Fresnel
/// equations (as in Mitsuba's fresnelConductorExact); with k = 0 it equals fresnelDielectric.
WF_CPU_GPU WF_INLINE float fresnelConductor(float cosI, float eta, float k) {
    float c = glm::clamp(cosI, 0.0f, 1.0f);
    float cos2 = c * c, sin2 = 1.0f - cos2;
    float t0 = eta * eta - k * k - sin2;
    float a2b2 = std::sqrt(glm::max(0.0f, t0 * t0 + 4.0f * eta * eta * k * k));  // a^2 + b^2
    float a = std::sqrt(glm::max(0.0f, 0.5f * (a2b2 + t0)));
    float t1 = a2b2 + cos2, t2 = 2.0f * c * a;
    float rs = t1 + t2 > 0.0f ? (t1 - t2) / (t1 + t2) : 1.0f;
    float t3 = cos2 * a2b2 + sin2 * sin2, t4 = t2 * sin2;
    float rp = t3 + t4 > 0.0f ? rs * (t3 - t4) / (t3 + t4) : 1.0f;
    return 0.5f * (rs + rp);
}

WF_CPU_GPU WF_INLINE vec3 fresnelConductor(float cosI, vec3 eta, vec3 k) {
    return vec3(fresnelConductor(cosI, eta.x, k.x), fresnelConductor(cosI, eta.y, k.y),
                fresnelConductor(cosI, eta.z, k.z));
}

/// Schlick's approximation with reflectance F0 at normal incidence.
WF_CPU_GPU WF_INLINE float schlickWeight(float cosI) {
    float m = 1.0f - glm::clamp(cosI, 0.0f, 1.0f);
    float m2 = m * m;
    return m2 * m2 * m;
}
WF_CPU_GPU WF_INLINE float fresnelSchlick(float F0, float cosI) { return F0 + (1.0f - F0) * schlickWeight(cosI); }
WF_CPU_GPU WF_INLINE vec3 fresnelSchlick(vec3 F0, float cosI) { return F0 + (vec3(1.0f) - F0) * schlickWeight(cosI); }

// ---- Directions ---------------------------------------------------------------------------------

/// Mirror image of w about the unit normal n (either side).
WF_CPU_GPU WF_INLINE vec3 reflectAbout(vec3 w, vec3 n) { return 2.0f * glm::dot(w, n) * n - w; }

/// Refracts w (pointing away from the surface) through the unit normal n, which may face either
/// way; `etap` = n_t / n_i, the index on the far side over the index on w's side. False on total
/// internal reflection.
WF_CPU_GPU WF_INLINE bool refractThrough(vec3 w, vec3 n, float etap, vec3& wt) {
    float cosI = glm::dot(w, n);
    if (cosI < 0.0f) {
        n = -n;
        cosI = -cosI;
    }
    float sin2T = glm::max(0.0f, 1.0f - cosI * cosI) / (etap * etap);
    if (sin2T >= 1.0f) return false;
    float cosT = std::sqrt(1.0f - sin2T);
    wt = -w / etap + (cosI / etap - cosT) * n;
    return true;
}

// ---- Trowbridge-Reitz (GGX), isotropic --------------------------------------------------------

struct Ggx {
    float alpha;

    /// Normal distribution D(wm), normalised so that the integral of D(wm) cos(theta_m) is 1.
    /// Written with the tangent-plane components so it keeps its precision near wm = z.
    WF_CPU_GPU float D(vec3 wm) const {
        if (wm.z <= 0.0f) return 0.0f;
        float a2 = alpha * alpha;
        float d = wm.x * wm.x + wm.y * wm.y + a2 * wm.z * wm.z;
        return d > 0.0f ? a2 / (kPi * d * d) : 0.0f;
    }

    /// Smith's auxiliary function Lambda(w) (Heitz 2014): G1 = 1 / (1 + Lambda).
    WF_CPU_GPU float lambda(vec3 w) const {
        float z2 = w.z * w.z;
        if (z2 <= 0.0f) return 1e30f;
        float tan2 = (w.x * w.x + w.y * w.y) / z2;
        return 0.5f * (std::sqrt(1.0f + alpha * alpha * tan2) - 1.0f);
    }

    WF_CPU_GPU float G1(vec3 w) const { return 1.0f / (1.0f + lambda(w)); }

    /// Height-correlated masking-shadowing (Heitz 2014, eq. 99): symmetric in wo and wi.
    WF_CPU_GPU float G(vec3 wo, vec3 wi) const { return 1.0f / (1.0f + lambda(wo) + lambda(wi)); }

    /// Density of the normals visible from w (Heitz 2018, eq. 3): G1(w) max(0, w.wm) D(wm) / |w.z|.
    /// w below the surface is mirrored to the upper side first (the sampler does the same).
    WF_CPU_GPU float visibleD(vec3 w, vec3 wm) const {
        if (w.z < 0.0f) w = -w;
        if (!(w.z > 0.0f)) return 0.0f;
        float c = glm::dot(w, wm);
        if (c <= 0.0f) return 0.0f;
        return G1(w) * c * D(wm) / w.z;
    }

    /// Samples a normal from visibleD(w, .) (Heitz 2018, "Sampling the GGX Distribution of Visible
    /// Normals"): stretch w to the hemisphere configuration, sample the projected disk, unstretch.
    WF_CPU_GPU vec3 sampleVisible(vec3 w, vec2 u) const {
        if (w.z < 0.0f) w = -w;
        vec3 wh = glm::normalize(vec3(alpha * w.x, alpha * w.y, w.z));
        float len2 = wh.x * wh.x + wh.y * wh.y;
        vec3 t1 = len2 > 0.0f ? vec3(-wh.y, wh.x, 0.0f) / std::sqrt(len2) : vec3(1.0f, 0.0f, 0.0f);
        vec3 t2 = glm::cross(wh, t1);
        float r = std::sqrt(u.x), phi = 2.0f * kPi * u.y;
        float p1 = r * std::cos(phi), p2 = r * std::sin(phi);
        float s = 0.5f * (1.0f + wh.z);
        p2 = (1.0f - s) * std::sqrt(glm::max(0.0f, 1.0f - p1 * p1)) + s * p2;
        vec3 nh = p1 * t1 + p2 * t2 + std::sqrt(glm::max(0.0f, 1.0f - p1 * p1 - p2 * p2)) * wh;
        return glm::normalize(vec3(alpha * nh.x, alpha * nh.y, glm::max(1e-6f, nh.z)));
    }
};

}  // namespace wavefront
