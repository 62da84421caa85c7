// The three microfacet BSDFs, one struct each (the members material.h's dispatch calls, listed
// there), in the local shading frame (material.h says which frame): a GGX conductor, a GGX rough
// dielectric (Walter et al. 2007) and a glTF-style metallic-roughness material. The perfectly
// smooth limits (alpha < kSmoothAlpha) are delta lobes: the conductor's a mirror with its
// Fresnel, the rough dielectric's the smooth dielectric's sampler.
#pragma once
#include "kernels/materials/classic_materials.h"
#include "kernels/materials/material_types.h"
#include "kernels/materials/microfacet.h"

namespace wavefront {

// ---- Shared GGX reflection ------------------------------------------------------------------

/// D(wm) G(wo, wi) / (4 cos_o cos_i) with wm the half vector, both directions above the surface;
/// 0 (and wm untouched) otherwise. Multiply by a Fresnel term of dot(wo, wm) for the BRDF.
WF_CPU_GPU inline float ggxReflection(const Ggx& ggx, vec3 wo, vec3 wi, vec3& wm) {
    if (wo.z <= 0.0f || wi.z <= 0.0f) return 0.0f;
    vec3 h = wo + wi;
    float len2 = glm::dot(h, h);
    if (!(len2 > 0.0f)) return 0.0f;
    wm = h / std::sqrt(len2);
    return ggx.D(wm) * ggx.G(wo, wi) / (4.0f * wo.z * wi.z);
}

/// Solid-angle density of wi when wm is drawn from the visible normals of wo and wi = reflect(wo, wm).
WF_CPU_GPU inline float ggxReflectionPdf(const Ggx& ggx, vec3 wo, vec3 wi) {
    if (wo.z <= 0.0f || wi.z <= 0.0f) return 0.0f;
    vec3 h = wo + wi;
    float len2 = glm::dot(h, h);
    if (!(len2 > 0.0f)) return 0.0f;
    vec3 wm = h / std::sqrt(len2);
    float c = glm::dot(wo, wm);
    return c > 0.0f ? ggx.visibleD(wo, wm) / (4.0f * c) : 0.0f;
}

// ---- Conductor ------------------------------------------------------------------------------
// Rough metal: GGX with the conductor's Fresnel. MaterialData: params.x alpha; params.z != 0: a
// complex index (diffuse.xyz = eta, specular.xyz = k), else Schlick with F0 = specular.xyz.

struct ConductorBsdf {
    static constexpr bool kMicrofacet = true;
    static constexpr bool kTransmissive = false;
    WF_CPU_GPU static bool isSpecular(const MaterialData& m) { return m.alpha() < kSmoothAlpha; }

    WF_CPU_GPU WF_INLINE static vec3 fresnel(const MaterialData& m, float cosI) {
        return m.complexIor() ? fresnelConductor(cosI, m.diffuse(), m.specular())
                              : fresnelSchlick(m.specular(), cosI);
    }

    WF_CPU_GPU static vec3 evaluate(const MaterialData& m, vec3 wo, vec3 wi, TransportMode) {
        vec3 wm(0.0f, 0.0f, 1.0f);
        float s = ggxReflection(Ggx{m.alpha()}, wo, wi, wm);
        return s > 0.0f ? fresnel(m, glm::dot(wo, wm)) * s : vec3(0.0f);
    }

    WF_CPU_GPU static float pdf(const MaterialData& m, vec3 wo, vec3 wi) {
        return ggxReflectionPdf(Ggx{m.alpha()}, wo, wi);
    }

    WF_CPU_GPU static BsdfSample sample(const MaterialData& m, vec3 wo, float, vec2 u, bool, TransportMode mode) {
        BsdfSample s{vec3(0.0f), vec3(0.0f), 0.0f, false, false};
        if (wo.z <= 0.0f) return s;
        if (m.alpha() < kSmoothAlpha) {  // smooth: a mirror with the conductor's Fresnel
            s.wi = vec3(-wo.x, -wo.y, wo.z);
            s.weight = fresnel(m, wo.z);
            s.specular = true;
            s.valid = true;
            return s;
        }
        Ggx ggx{m.alpha()};
        vec3 wi = reflectAbout(wo, ggx.sampleVisible(wo, u));
        if (wi.z <= 0.0f) return s;
        s.pdf = pdf(m, wo, wi);
        if (!(s.pdf > 0.0f)) return s;
        s.wi = wi;
        s.weight = evaluate(m, wo, wi, mode) * (wi.z / s.pdf);
        s.valid = true;
        return s;
    }

    /// Reflectance at normal incidence (grazing reflects more), at least 0.1.
    WF_CPU_GPU static float continuation(const MaterialData& m) {
        return glm::clamp(maxComponent(fresnel(m, 1.0f)), 0.1f, 1.0f);
    }
    WF_CPU_GPU static vec3 albedo(const MaterialData& m) { return fresnel(m, 1.0f); }
};

// ---- Rough dielectric (Walter, Marschner, Li and Torrance 2007) ------------------------------
// Frame z = outward normal; eta = ior() = n_inside / n_outside; params.x alpha. Reflection
// and transmission through the generalised half vector wm ~ etap wi + wo (etap: index on wi's
// side over index on wo's side). The BTDF in Radiance mode carries the 1/etap^2 of radiance
// crossing into another medium; in Importance mode it does not (f_Importance(wo, wi) =
// f_Radiance(wi, wo), Veach 1997, 5.2), exactly like the smooth dielectric's weights.

struct RoughDielectricBsdf {
    static constexpr bool kMicrofacet = true;
    static constexpr bool kTransmissive = true;
    WF_CPU_GPU static bool isSpecular(const MaterialData& m) { return m.alpha() < kSmoothAlpha; }

    struct Value {
        float f;    ///< BSDF value for the mode
        float pdf;  ///< solid-angle density of sample choosing wi
        float lobe; ///< the probability of wi's lobe at its microfacet normal: F (reflection) or 1 - F
    };

    WF_CPU_GPU static Value value(const MaterialData& m, vec3 wo, vec3 wi, TransportMode mode) {
        Value r{0.0f, 0.0f, 0.0f};
        if (wo.z == 0.0f || wi.z == 0.0f || m.alpha() < kSmoothAlpha) return r;
        float eta = m.ior();
        Ggx ggx{m.alpha()};
        bool reflection = wo.z * wi.z > 0.0f;
        float etap = reflection ? 1.0f : (wo.z > 0.0f ? eta : 1.0f / eta);
        vec3 wm = wi * etap + wo;
        float len2 = glm::dot(wm, wm);
        if (!(len2 > 0.0f)) return r;
        wm /= std::sqrt(len2);
        if (wm.z < 0.0f) wm = -wm;
        float cosO = glm::dot(wo, wm), cosI = glm::dot(wi, wm);
        // Only microfacets that face both directions (from their own sides) take part.
        if (cosO * wo.z <= 0.0f || cosI * wi.z <= 0.0f) return r;
        // Transmission: the Fresnel term from the direction on the optically thinner side (the
        // same value by Snell's law, without the denser side's loss of precision near the critical
        // angle; reciprocal by construction).
        bool woThinner = (wo.z > 0.0f) == (eta >= 1.0f);
        float F = fresnelDielectricSigned(reflection || woThinner ? cosO : cosI, eta);
        float DG = ggx.D(wm) * ggx.G(wo, wi);
        float visible = ggx.visibleD(wo, wm);
        if (reflection) {
            r.f = DG * F / (4.0f * std::fabs(wo.z * wi.z));
            r.pdf = visible / (4.0f * std::fabs(cosO)) * F;
            r.lobe = F;
            return r;
        }
        float denom = sqr(cosI + cosO / etap);
        if (!(denom > 0.0f)) return r;
        float f = (1.0f - F) * DG * std::fabs(cosI * cosO / (wi.z * wo.z * denom));
        r.f = mode == TransportMode::Radiance ? f / (etap * etap) : f;
        r.pdf = visible * std::fabs(cosI) / denom * (1.0f - F);  // |d wm / d wi| = |wi.wm| / denom
        r.lobe = 1.0f - F;
        return r;
    }

    WF_CPU_GPU static vec3 evaluate(const MaterialData& m, vec3 wo, vec3 wi, TransportMode mode) {
        return vec3(value(m, wo, wi, mode).f);
    }
    WF_CPU_GPU static float pdf(const MaterialData& m, vec3 wo, vec3 wi) {
        return value(m, wo, wi, TransportMode::Radiance).pdf;
    }

    /// Rough (alpha >= kSmoothAlpha): a visible normal, then reflection with probability
    /// F(wo.wm), refraction otherwise. Smooth: the smooth dielectric, same ior.
    WF_CPU_GPU static BsdfSample sample(const MaterialData& m, vec3 wo, float uc, vec2 u, bool entering,
                                        TransportMode mode) {
        if (m.alpha() < kSmoothAlpha) return DielectricBsdf::sample(m, wo, uc, u, entering, mode);
        BsdfSample s{vec3(0.0f), vec3(0.0f), 0.0f, false, false};
        if (wo.z == 0.0f) return s;
        float eta = m.ior();
        Ggx ggx{m.alpha()};
        vec3 wm = ggx.sampleVisible(wo, u);
        float cosO = glm::dot(wo, wm);
        float F = fresnelDielectricSigned(cosO, eta);
        vec3 wi;
        if (uc < F) {
            wi = reflectAbout(wo, wm);
            if (wi.z * wo.z <= 0.0f) return s;
        } else {
            float etap = wo.z > 0.0f ? eta : 1.0f / eta;
            if (!refractThrough(wo, wm, etap, wi)) return s;
            if (wi.z * wo.z >= 0.0f) return s;
        }
        wi = glm::normalize(wi);
        Value v = value(m, wo, wi, mode);
        if (!(v.pdf > 0.0f)) return s;
        s.wi = wi;
        s.pdf = v.pdf;
        s.weight = vec3(v.f * std::fabs(wi.z) / v.pdf);
        s.valid = true;
        return s;
    }

    WF_CPU_GPU static float continuation(const MaterialData&) { return 1.0f; }
    WF_CPU_GPU static vec3 albedo(const MaterialData&) { return vec3(1.0f); }
};

// ---- Metallic-roughness (glTF 2.0 style) ------------------------------------------------------
// MaterialData: diffuse.xyz = base colour, params.x = alpha (roughness^2, at least kSmoothAlpha),
// params.y = metallic. f = metallic * (GGX, Schlick F0 = base colour)
//                      + (1 - metallic) * (GGX coat, Schlick F0 = 0.04, i.e. IOR 1.5
//                                          + base / pi * (1 - Fc(cos_o)) (1 - Fc(cos_i))).
// The diffuse base under the coat loses what the coat reflects at both ends, measured with the
// coat's Fresnel at the macro normal: symmetric in wo and wi (reciprocal), and with a white base
// the coat plus base reflect at most 1 (docs/decisions.md; checked by the furnace test).

constexpr float kCoatF0 = 0.04f;

struct MetallicRoughnessBsdf {
    static constexpr bool kMicrofacet = true;
    static constexpr bool kTransmissive = false;
    /// Never delta: packing keeps alpha at least kSmoothAlpha.
    WF_CPU_GPU static bool isSpecular(const MaterialData&) { return false; }

    /// Probability of sampling the GGX lobe rather than the diffuse base, from wo and the material.
    WF_CPU_GPU static float specularProbability(const MaterialData& m, float cosO) {
        float metal = m.metallic();
        vec3 base = m.diffuse();
        float Fc = fresnelSchlick(kCoatF0, cosO);
        float ws = metal * luminance(fresnelSchlick(base, cosO)) + (1.0f - metal) * Fc;
        float wd = (1.0f - metal) * luminance(base) * (1.0f - Fc);
        return ws + wd > 0.0f ? ws / (ws + wd) : 1.0f;
    }

    WF_CPU_GPU static vec3 evaluate(const MaterialData& m, vec3 wo, vec3 wi, TransportMode) {
        if (wo.z <= 0.0f || wi.z <= 0.0f) return vec3(0.0f);
        float metal = m.metallic();
        vec3 base = m.diffuse();
        vec3 f = base * ((1.0f - metal) * kInvPi * (1.0f - fresnelSchlick(kCoatF0, wo.z)) *
                         (1.0f - fresnelSchlick(kCoatF0, wi.z)));
        vec3 wm(0.0f, 0.0f, 1.0f);
        float s = ggxReflection(Ggx{m.alpha()}, wo, wi, wm);
        if (s > 0.0f) {
            float c = glm::dot(wo, wm);
            f += (metal * fresnelSchlick(base, c) + vec3((1.0f - metal) * fresnelSchlick(kCoatF0, c))) * s;
        }
        return f;
    }

    WF_CPU_GPU static float pdf(const MaterialData& m, vec3 wo, vec3 wi) {
        if (wo.z <= 0.0f || wi.z <= 0.0f) return 0.0f;
        float p = specularProbability(m, wo.z);
        return p * ggxReflectionPdf(Ggx{m.alpha()}, wo, wi) + (1.0f - p) * wi.z * kInvPi;
    }

    WF_CPU_GPU static BsdfSample sample(const MaterialData& m, vec3 wo, float uc, vec2 u, bool, TransportMode mode) {
        BsdfSample s{vec3(0.0f), vec3(0.0f), 0.0f, false, false};
        if (wo.z <= 0.0f) return s;
        vec3 wi = uc < specularProbability(m, wo.z) ? reflectAbout(wo, Ggx{m.alpha()}.sampleVisible(wo, u))
                                                    : sampleCosineHemisphere(u);
        if (wi.z <= 0.0f) return s;
        s.pdf = pdf(m, wo, wi);
        if (!(s.pdf > 0.0f)) return s;
        s.wi = wi;
        s.weight = evaluate(m, wo, wi, mode) * (wi.z / s.pdf);
        s.valid = true;
        return s;
    }

    /// The base colour plus the coat's reflectance at normal incidence, at least 0.1.
    WF_CPU_GPU static float continuation(const MaterialData& m) {
        return glm::clamp(maxComponent(m.diffuse()) + kCoatF0, 0.1f, 1.0f);
    }
    WF_CPU_GPU static vec3 albedo(const MaterialData& m) { return m.diffuse(); }
};

}  // namespace wavefront
