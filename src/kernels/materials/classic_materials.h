// The four classic BSDFs, one struct each (the members material.h's dispatch calls, listed
// there): Lambertian, normalised Blinn-Phong over a diffuse base, an ideal mirror and smooth
// glass. Directions are in the local shading frame (material.h says which frame).
#pragma once
#include "kernels/materials/material_types.h"
#include "kernels/materials/microfacet.h"  // Fresnel

namespace wavefront {

struct LambertianBsdf {
    static constexpr bool kMicrofacet = false;
    static constexpr bool kTransmissive = false;
    WF_CPU_GPU static bool isSpecular(const MaterialData&) { return false; }
    WF_CPU_GPU static vec3 evaluate(const MaterialData& m, vec3 wo, vec3 wi, TransportMode) {
        if (wi.z <= 0.0f || wo.z <= 0.0f) return vec3(0.0f);
        return m.diffuse() * kInvPi;
    }
    WF_CPU_GPU static float pdf(const MaterialData&, vec3 wo, vec3 wi) {
        if (wi.z <= 0.0f || wo.z <= 0.0f) return 0.0f;
        return wi.z * kInvPi;
    }
    WF_CPU_GPU static BsdfSample sample(const MaterialData& m, vec3 wo, float, vec2 u, bool, TransportMode mode) {
        BsdfSample s{vec3(0.0f), vec3(0.0f), 0.0f, false, false};
        if (wo.z <= 0.0f) return s;
        s.wi = sampleCosineHemisphere(u);
        if (s.wi.z <= 0.0f) return s;
        s.pdf = pdf(m, wo, s.wi);
        if (s.pdf <= 0.0f) return s;
        s.weight = evaluate(m, wo, s.wi, mode) * (s.wi.z / s.pdf);
        s.valid = true;
        return s;
    }
    WF_CPU_GPU static float continuation(const MaterialData& m) {
        return glm::clamp(maxComponent(m.diffuse()), 0.0f, 1.0f);
    }
    WF_CPU_GPU static vec3 albedo(const MaterialData& m) { return m.diffuse(); }
};

/// A diffuse base plus a normalised Blinn-Phong lobe; uc picks the lobe by their luminances.
struct GlossyBsdf {
    static constexpr bool kMicrofacet = false;
    static constexpr bool kTransmissive = false;
    WF_CPU_GPU static bool isSpecular(const MaterialData&) { return false; }
    /// Probability of picking the diffuse lobe.
    WF_CPU_GPU static float diffuseProbability(const MaterialData& m) {
        float d = luminance(m.diffuse()), s = luminance(m.specular());
        return d + s > 0.0f ? d / (d + s) : 1.0f;
    }
    WF_CPU_GPU static vec3 evaluate(const MaterialData& m, vec3 wo, vec3 wi, TransportMode) {
        if (wi.z <= 0.0f || wo.z <= 0.0f) return vec3(0.0f);
        vec3 f = m.diffuse() * kInvPi;
        float n = m.exponent();
        vec3 h = glm::normalize(wo + wi);
        // Normalised Blinn-Phong: (n + 8) / (8 pi) cos^n(theta_h) (Akenine-Moller et al.).
        f += m.specular() * ((n + 8.0f) / (8.0f * kPi) * std::pow(glm::max(h.z, 0.0f), n));
        return f;
    }
    WF_CPU_GPU static float pdf(const MaterialData& m, vec3 wo, vec3 wi) {
        if (wi.z <= 0.0f || wo.z <= 0.0f) return 0.0f;
        float pdfDiffuse = wi.z * kInvPi;
        float pd = diffuseProbability(m);
        float n = m.exponent();
        vec3 h = glm::normalize(wo + wi);
        float pdfH = (n + 1.0f) / (2.0f * kPi) * std::pow(glm::max(h.z, 0.0f), n);
        float pdfGlossy = pdfH / (4.0f * glm::dot(wo, h));
        return pd * pdfDiffuse + (1.0f - pd) * pdfGlossy;
    }
    WF_CPU_GPU static BsdfSample sample(const MaterialData& m, vec3 wo, float uc, vec2 u, bool, TransportMode mode) {
        BsdfSample s{vec3(0.0f), vec3(0.0f), 0.0f, false, false};
        if (wo.z <= 0.0f) return s;
        if (uc < diffuseProbability(m)) {
            s.wi = sampleCosineHemisphere(u);
        } else {
            float n = m.exponent();
            float cosH = std::pow(u.x, 1.0f / (n + 1.0f));
            float sinH = std::sqrt(glm::max(0.0f, 1.0f - cosH * cosH));
            float phi = 2.0f * kPi * u.y;
            vec3 h(sinH * std::cos(phi), sinH * std::sin(phi), cosH);
            s.wi = 2.0f * glm::dot(wo, h) * h - wo;
        }
        if (s.wi.z <= 0.0f) return s;
        s.pdf = pdf(m, wo, s.wi);
        if (s.pdf <= 0.0f) return s;
        s.weight = evaluate(m, wo, s.wi, mode) * (s.wi.z / s.pdf);
        s.valid = true;
        return s;
    }
    WF_CPU_GPU static float continuation(const MaterialData& m) {
        return glm::clamp(maxComponent(m.diffuse() + m.specular()), 0.0f, 1.0f);
    }
    WF_CPU_GPU static vec3 albedo(const MaterialData& m) { return m.diffuse() + m.specular(); }
};

/// Ideal reflection tinted by the specular colour: a delta lobe, sampled only.
struct MirrorBsdf {
    static constexpr bool kMicrofacet = false;
    static constexpr bool kTransmissive = false;
    WF_CPU_GPU static bool isSpecular(const MaterialData&) { return true; }
    WF_CPU_GPU static vec3 evaluate(const MaterialData&, vec3, vec3, TransportMode) { return vec3(0.0f); }
    WF_CPU_GPU static float pdf(const MaterialData&, vec3, vec3) { return 0.0f; }
    WF_CPU_GPU static BsdfSample sample(const MaterialData& m, vec3 wo, float, vec2, bool, TransportMode) {
        BsdfSample s{vec3(0.0f), vec3(0.0f), 0.0f, false, false};
        s.wi = vec3(-wo.x, -wo.y, wo.z);
        s.weight = m.specular();
        s.specular = true;
        s.valid = wo.z > 0.0f;
        return s;
    }
    WF_CPU_GPU static float continuation(const MaterialData& m) {
        return glm::clamp(maxComponent(m.specular()), 0.0f, 1.0f);
    }
    WF_CPU_GPU static vec3 albedo(const MaterialData& m) { return m.specular(); }
};

/// Smooth glass: Fresnel reflection or refraction, delta lobes, sampled only. The frame's z points
/// outside; `entering` says on which side wo lies.
struct DielectricBsdf {
    static constexpr bool kMicrofacet = false;
    static constexpr bool kTransmissive = true;
    WF_CPU_GPU static bool isSpecular(const MaterialData&) { return true; }
    WF_CPU_GPU static vec3 evaluate(const MaterialData&, vec3, vec3, TransportMode) { return vec3(0.0f); }
    WF_CPU_GPU static float pdf(const MaterialData&, vec3, vec3) { return 0.0f; }
    WF_CPU_GPU static BsdfSample sample(const MaterialData& m, vec3 wo, float uc, vec2, bool entering,
                                        TransportMode mode) {
        BsdfSample s{vec3(0.0f), vec3(0.0f), 0.0f, false, false};
        // Local frame: z points to the outside; wo.z < 0 means we are inside the medium.
        float ior = m.ior();
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
    /// Glass absorbs nothing: the walk always goes on.
    WF_CPU_GPU static float continuation(const MaterialData&) { return 1.0f; }
    WF_CPU_GPU static vec3 albedo(const MaterialData&) { return vec3(1.0f); }
};

/// No surface: the boundary of a medium (MaterialType::Interface). The kernels with media pass
/// rays through it before any shading (kernels/media/media_path.h), so these are never asked for
/// anything but its class; full kernel sets only (Scene::hasMedia runs them).
struct InterfaceBsdf {
    static constexpr bool kMicrofacet = true;
    static constexpr bool kTransmissive = true;
    WF_CPU_GPU static bool isSpecular(const MaterialData&) { return true; }
    WF_CPU_GPU static vec3 evaluate(const MaterialData&, vec3, vec3, TransportMode) { return vec3(0.0f); }
    WF_CPU_GPU static float pdf(const MaterialData&, vec3, vec3) { return 0.0f; }
    WF_CPU_GPU static BsdfSample sample(const MaterialData&, vec3 wo, float, vec2, bool, TransportMode) {
        return BsdfSample{-wo, vec3(1.0f), 0.0f, true, true};
    }
    WF_CPU_GPU static float continuation(const MaterialData&) { return 1.0f; }
    WF_CPU_GPU static vec3 albedo(const MaterialData&) { return vec3(0.0f); }
};

}  // namespace wavefront
