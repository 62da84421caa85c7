// BSDFs of the four material types, evaluated in the shading frame.
#pragma once
#include "kernels/scene/scene_view.h"

namespace wavefront {

enum : int { kLambertian = 0, kGlossy = 1, kMirror = 2, kDielectric = 3 };

/// Radiance: eye paths (the path tracer); Importance: light paths (BDPT). Refraction scales
/// radiance by 1/eta^2 but not importance (Veach 1997, 5.2).
enum class TransportMode { Radiance, Importance };

WF_CPU_GPU WF_INLINE bool isSpecular(const MaterialData& m) { return m.type() >= kMirror; }

/// Unpolarised Fresnel reflectance of a smooth dielectric; cosI > 0 on the side of `eta` = n_t/n_i.
WF_CPU_GPU WF_INLINE float fresnelDielectric(float cosI, float eta) {
    float sin2T = (1.0f - cosI * cosI) / (eta * eta);
    if (sin2T >= 1.0f) return 1.0f;  // total internal reflection
    float cosT = std::sqrt(1.0f - sin2T);
    float rs = (cosI - eta * cosT) / (cosI + eta * cosT);
    float rp = (eta * cosI - cosT) / (eta * cosI + cosT);
    return 0.5f * (rs * rs + rp * rp);
}

/// Probability of picking the diffuse lobe of a Glossy material.
WF_CPU_GPU WF_INLINE float diffuseLobeProbability(const MaterialData& m) {
    float d = luminance(m.diffuse.xyz()), s = luminance(m.specular.xyz());
    return d + s > 0.0f ? d / (d + s) : 1.0f;
}

/// f(wo, wi) for the non-specular materials, directions in the local frame (z = shading normal,
/// wo.z > 0). Zero when wi is below the surface.
WF_CPU_GPU WF_INLINE vec3 evalBsdf(const MaterialData& m, vec3 wo, vec3 wi) {
    if (wi.z <= 0.0f || wo.z <= 0.0f) return vec3(0.0f);
    vec3 f = m.diffuse.xyz() * kInvPi;
    if (m.type() == kGlossy) {
        float n = m.specular.w;
        vec3 h = glm::normalize(wo + wi);
        // Normalised Blinn-Phong: (n + 8) / (8 pi) cos^n(theta_h) (Akenine-Moller et al.).
        f += m.specular.xyz() * ((n + 8.0f) / (8.0f * kPi) * std::pow(glm::max(h.z, 0.0f), n));
    }
    return f;
}

/// Solid-angle pdf of sampleBsdf choosing wi, for the non-specular materials.
WF_CPU_GPU WF_INLINE float pdfBsdf(const MaterialData& m, vec3 wo, vec3 wi) {
    if (wi.z <= 0.0f || wo.z <= 0.0f) return 0.0f;
    float pdfDiffuse = wi.z * kInvPi;
    if (m.type() != kGlossy) return pdfDiffuse;
    float pd = diffuseLobeProbability(m);
    float n = m.specular.w;
    vec3 h = glm::normalize(wo + wi);
    float pdfH = (n + 1.0f) / (2.0f * kPi) * std::pow(glm::max(h.z, 0.0f), n);
    float pdfGlossy = pdfH / (4.0f * glm::dot(wo, h));
    return pd * pdfDiffuse + (1.0f - pd) * pdfGlossy;
}

struct BsdfSample {
    vec3 wi;        ///< local frame
    vec3 weight;    ///< f cos / pdf (for specular: the lobe's throughput factor)
    float pdf;      ///< solid angle; 0 for specular lobes
    bool specular;
    bool valid;
};

/// Samples wi given wo (local frame, wo.z may be negative only for dielectrics, which see the
/// geometric side through `entering`). uc picks the lobe, u the direction.
WF_CPU_GPU inline BsdfSample sampleBsdf(const MaterialData& m, vec3 wo, float uc, vec2 u, bool entering,
                                        TransportMode mode) {
    BsdfSample s{vec3(0.0f), vec3(0.0f), 0.0f, false, false};
    int type = m.type();
    if (type == kMirror) {
        s.wi = vec3(-wo.x, -wo.y, wo.z);
        s.weight = m.specular.xyz();
        s.specular = true;
        s.valid = wo.z > 0.0f;
        return s;
    }
    if (type == kDielectric) {
        // Local frame: z points to the outside; wo.z < 0 means we are inside the medium.
        float ior = m.emission.w;
        float eta = entering ? ior : 1.0f / ior;  // n_t / n_i
        float cosI = std::fabs(wo.z);
        float F = fresnelDielectric(cosI, eta);
        s.specular = true;
        s.valid = true;
        if (uc < F) {
            s.wi = vec3(-wo.x, -wo.y, wo.z);
            s.weight = vec3(1.0f);
            return s;
        }
        float sin2T = (1.0f - cosI * cosI) / (eta * eta);
        float cosT = std::sqrt(glm::max(0.0f, 1.0f - sin2T));
        float sign = wo.z > 0.0f ? -1.0f : 1.0f;  // transmitted direction is on the other side
        s.wi = vec3(-wo.x / eta, -wo.y / eta, sign * cosT);
        s.wi = glm::normalize(s.wi);
        s.weight = vec3(mode == TransportMode::Radiance ? 1.0f / (eta * eta) : 1.0f);
        return s;
    }
    if (wo.z <= 0.0f) return s;
    bool chooseDiffuse = type != kGlossy || uc < diffuseLobeProbability(m);
    if (chooseDiffuse) {
        s.wi = sampleCosineHemisphere(u);
    } else {
        float n = m.specular.w;
        float cosH = std::pow(u.x, 1.0f / (n + 1.0f));
        float sinH = std::sqrt(glm::max(0.0f, 1.0f - cosH * cosH));
        float phi = 2.0f * kPi * u.y;
        vec3 h(sinH * std::cos(phi), sinH * std::sin(phi), cosH);
        s.wi = 2.0f * glm::dot(wo, h) * h - wo;
    }
    if (s.wi.z <= 0.0f) return s;
    s.pdf = pdfBsdf(m, wo, s.wi);
    if (s.pdf <= 0.0f) return s;
    s.weight = evalBsdf(m, wo, s.wi) * (s.wi.z / s.pdf);
    s.valid = true;
    return s;
}

}  // namespace wavefront
