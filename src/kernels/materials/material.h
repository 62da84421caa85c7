// The material kinds and their BSDFs, evaluated in the local shading frame (opaque materials face
// wo, transmissive ones keep the outward normal): every kind's eval, pdf, sample, continuation
// probability and class (specular, transmissive) is dispatched here, once. The four original
// kinds live here; the microfacet ones in microfacet_materials.h. The host's half of a kind is
// its row of the material table (host/scene/material_kinds.cpp).
#pragma once
#include "kernels/materials/material_types.h"
#include "kernels/materials/microfacet_materials.h"

namespace wavefront {

/// The material kinds; the values of the public wavefront::MaterialType (scene_upload.cpp
/// static_asserts every pair).
enum MaterialKind : int {
    kLambertian = 0,
    kGlossy = 1,
    kMirror = 2,
    kDielectric = 3,
    kConductor = 4,          ///< GGX metal (microfacet_materials.h)
    kRoughDielectric = 5,    ///< GGX glass, Walter et al. 2007
    kMetallicRoughness = 6,  ///< glTF 2.0 style: GGX metal / GGX coat over a diffuse base
};
constexpr int kMaterialKindCount = 7;

/// Materials that transmit. Their local frame's z is the stored (outward) geometric normal and wo
/// may lie on either side (wo.z < 0: inside); every other material is opaque and shaded in a
/// frame turned towards wo (wo.z > 0), with nothing below the surface.
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE bool isTransmissive(const MaterialData& m) {
    return m.kind() == kDielectric || (Materials::kMicrofacet && m.kind() == kRoughDielectric);
}

/// Delta BSDFs: sampled only, never evaluated (no next-event estimation, no BDPT vertex). The
/// microfacet conductor and rough dielectric are delta only in their smooth limit.
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE bool isSpecular(const MaterialData& m) {
    int type = m.kind();
    if (type == kMirror || type == kDielectric) return true;
    return Materials::kMicrofacet && (type == kConductor || type == kRoughDielectric) && m.alpha() < kSmoothAlpha;
}

/// Probability of picking the diffuse lobe of a Glossy material.
WF_CPU_GPU WF_INLINE float diffuseLobeProbability(const MaterialData& m) {
    float d = luminance(m.diffuse()), s = luminance(m.specular());
    return d + s > 0.0f ? d / (d + s) : 1.0f;
}

/// Whether direction w meets the shading normal ns on the side it meets the geometric normal ng.
WF_CPU_GPU WF_INLINE bool agreesWithShading(vec3 ng, vec3 ns, vec3 w) {
    return (glm::dot(w, ns) > 0.0f) == (glm::dot(w, ng) > 0.0f);
}

/// The normals a BSDF is evaluated against at a vertex: one rule for every integrator and both
/// transport directions. Opaque materials are two-sided: both normals turn to wo's side;
/// transmissive ones keep the outward normal (wo inside: wo.z < 0). The BSDF of a pair of
/// directions is evaluated in the shading normal's frame where both agree with it
/// (agreesWithShading), in the geometric normal's where neither does, and is zero where one does
/// and the other does not. That makes it a function of the pair alone, whichever direction the
/// walk came from, so BDPT's and MLT's light walks scatter with the BSDF the path tracer's eye
/// walks see (docs/decisions.md, "Shading normals: one BSDF for both directions").
struct ShadingNormals {
    vec3 ng;       ///< geometric: on wo's side (opaque) or outward (transmissive)
    vec3 ns;       ///< shading, on ng's side
    bool shading;  ///< wo agrees with ns: the frame is ns's, else ng's
    WF_CPU_GPU vec3 frameNormal() const { return shading ? ns : ng; }
    /// Whether the pair (wo, w) scatters at all: w agrees with ns exactly when wo does.
    WF_CPU_GPU bool pairs(vec3 w) const { return agreesWithShading(ng, ns, w) == shading; }
};

/// The normals at a vertex reached from wo: ng and ns as stored (ns on ng's side); `entering`:
/// wo on ng's side.
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE ShadingNormals shadingNormals(const MaterialData& m, vec3 wo, bool entering, vec3 ng, vec3 ns) {
    if (!isTransmissive<Materials>(m) && !entering) {
        ng = -ng;
        ns = -ns;
    }
    return ShadingNormals{ng, ns, agreesWithShading(ng, ns, wo)};
}

/// f(wo, wi) for the non-specular materials (delta lobes give 0), directions in the local frame.
/// Opaque materials: zero unless wo and wi are above the surface. `mode` matters for transmission
/// only: Importance gives the adjoint f(wi, wo) used on light paths.
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE vec3 evalBsdf(const MaterialData& m, vec3 wo, vec3 wi, TransportMode mode) {
    if constexpr (Materials::kMicrofacet) {
        switch (m.kind()) {
        case kConductor: return evalConductor(m, wo, wi);
        case kRoughDielectric: return vec3(roughDielectric(m, wo, wi, mode).f);
        case kMetallicRoughness: return evalMetallicRoughness(m, wo, wi);
        default: break;
        }
    }
    if (wi.z <= 0.0f || wo.z <= 0.0f) return vec3(0.0f);
    vec3 f = m.diffuse() * kInvPi;
    if (m.kind() == kGlossy) {
        float n = m.exponent();
        vec3 h = glm::normalize(wo + wi);
        // Normalised Blinn-Phong: (n + 8) / (8 pi) cos^n(theta_h) (Akenine-Moller et al.).
        f += m.specular() * ((n + 8.0f) / (8.0f * kPi) * std::pow(glm::max(h.z, 0.0f), n));
    }
    return f;
}

/// Solid-angle pdf of sampleBsdf choosing wi through a non-delta lobe (the same in both modes).
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE float pdfBsdf(const MaterialData& m, vec3 wo, vec3 wi) {
    if constexpr (Materials::kMicrofacet) {
        switch (m.kind()) {
        case kConductor: return pdfConductor(m, wo, wi);
        case kRoughDielectric: return roughDielectric(m, wo, wi, TransportMode::Radiance).pdf;
        case kMetallicRoughness: return pdfMetallicRoughness(m, wo, wi);
        default: break;
        }
    }
    if (wi.z <= 0.0f || wo.z <= 0.0f) return 0.0f;
    float pdfDiffuse = wi.z * kInvPi;
    if (m.kind() != kGlossy) return pdfDiffuse;
    float pd = diffuseLobeProbability(m);
    float n = m.exponent();
    vec3 h = glm::normalize(wo + wi);
    float pdfH = (n + 1.0f) / (2.0f * kPi) * std::pow(glm::max(h.z, 0.0f), n);
    float pdfGlossy = pdfH / (4.0f * glm::dot(wo, h));
    return pd * pdfDiffuse + (1.0f - pd) * pdfGlossy;
}

/// Samples wi given wo (local frame, wo.z may be negative only for the transmissive materials;
/// the smooth dielectric sees the geometric side through `entering`, the rough one through the
/// sign of wo.z). uc picks the lobe, u the direction.
template <class Materials = AllMaterials>
WF_CPU_GPU inline BsdfSample sampleBsdf(const MaterialData& m, vec3 wo, float uc, vec2 u, bool entering,
                                        TransportMode mode) {
    BsdfSample s{vec3(0.0f), vec3(0.0f), 0.0f, false, false};
    int type = m.kind();
    if constexpr (Materials::kMicrofacet) {
        if (type == kConductor) return sampleConductor(m, wo, u);
        if (type == kMetallicRoughness) return sampleMetallicRoughness(m, wo, uc, u);
        if (type == kRoughDielectric) {
            if (m.alpha() >= kSmoothAlpha) return sampleRoughDielectric(m, wo, uc, u, mode);
            type = kDielectric;  // smooth limit: the smooth dielectric below, same ior
        }
    }
    if (type == kMirror) {
        s.wi = vec3(-wo.x, -wo.y, wo.z);
        s.weight = m.specular();
        s.specular = true;
        s.valid = wo.z > 0.0f;
        return s;
    }
    if (type == kDielectric) {
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
    if (wo.z <= 0.0f) return s;
    bool chooseDiffuse = type != kGlossy || uc < diffuseLobeProbability(m);
    if (chooseDiffuse) {
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
    s.pdf = pdfBsdf<ClassicMaterials>(m, wo, s.wi);  // the classic lobes: no microfacet case reaches here
    if (s.pdf <= 0.0f) return s;
    s.weight = evalBsdf<ClassicMaterials>(m, wo, s.wi, mode) * (s.wi.z / s.pdf);
    s.valid = true;
    return s;
}

/// Russian roulette of BDPT and MLT: the probability that a walk continues at a vertex of this
/// material, the largest albedo component, depending on nothing else, so that the same factor is
/// right in the reverse direction (the reverse pdfs of the MIS weights).
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE float continuationProbability(const MaterialData& m) {
    int type = m.kind();
    if (isTransmissive<Materials>(m)) return 1.0f;
    if constexpr (Materials::kMicrofacet) {
        // Reflectance at normal incidence (grazing reflects more), at least 0.1.
        if (type == kConductor) return glm::clamp(maxComponent(conductorFresnel(m, 1.0f)), 0.1f, 1.0f);
        if (type == kMetallicRoughness) return glm::clamp(maxComponent(m.diffuse()) + kCoatF0, 0.1f, 1.0f);
    }
    vec3 albedo = type == kMirror ? m.specular() : m.diffuse();
    if (type == kGlossy) albedo += m.specular();
    return glm::clamp(maxComponent(albedo), 0.0f, 1.0f);
}

}  // namespace wavefront
