// BSDFs of the material types, evaluated in the local shading frame (material_types.h: opaque
// materials face wo, transmissive ones keep the outward normal). The four original types live
// here; the microfacet ones in microfacet_materials.h.
#pragma once
#include "kernels/materials/material_types.h"
#include "kernels/materials/microfacet_materials.h"

namespace wavefront {

/// Delta BSDFs: sampled only, never evaluated (no next-event estimation, no BDPT vertex). The
/// microfacet conductor and rough dielectric are delta only in their smooth limit.
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE bool isSpecular(const MaterialData& m) {
    int type = m.type();
    if (type == kMirror || type == kDielectric) return true;
    return Materials::kMicrofacet && (type == kConductor || type == kRoughDielectric) && m.alpha() < kSmoothAlpha;
}

/// The material at a surface point: the stored one, or, where it has textures (in kernels compiled
/// with textures), a copy in `scratch` with its factors scaled by the textures at `uv`: base colour
/// (the diffuse colour of Lambertian, Glossy and MetallicRoughness), metallic-roughness (glTF:
/// roughness by G, metallic by B) and emission. Every BSDF, continuation probability, pdf and
/// emission then sees one material. (Normal maps act on the shading normal: surfaceAt.)
template <class Materials>
WF_CPU_GPU WF_INLINE const MaterialData& materialAt(const SceneView& scene, int material, vec2 uv,
                                                    MaterialData& scratch) {
    const MaterialData& m = scene.materials[material];
    if constexpr (Materials::kTextures) {
        if (!scene.materialTextures) return m;
        MaterialTextures t = scene.materialTextures[material];
        if (t.baseColor < 0 && t.metallicRoughness < 0 && t.emission < 0) return m;
        scratch = m;
        if (t.baseColor >= 0)
            scratch.diffuse = Float4(m.diffuse.xyz() * scene.textures[t.baseColor].sample(uv), m.diffuse.w);
        if (t.metallicRoughness >= 0) {
            vec3 mr = scene.textures[t.metallicRoughness].sample(uv);
            // alpha = roughness^2, so the roughness factor G scales alpha by G^2.
            scratch.params.x = glm::max(m.params.x * mr.y * mr.y, kSmoothAlpha);
            scratch.params.y = m.params.y * mr.z;
        }
        if (t.emission >= 0)
            scratch.emission = Float4(m.emission.xyz() * scene.textures[t.emission].sample(uv), m.emission.w);
        return scratch;
    }
    return m;
}

/// Probability of picking the diffuse lobe of a Glossy material.
WF_CPU_GPU WF_INLINE float diffuseLobeProbability(const MaterialData& m) {
    float d = luminance(m.diffuse.xyz()), s = luminance(m.specular.xyz());
    return d + s > 0.0f ? d / (d + s) : 1.0f;
}

/// The normals a BSDF is evaluated against, one rule for every integrator. In: ng and ns as stored
/// (ns on ng's side); `entering`: wo on ng's side. Opaque materials are two-sided: both normals
/// turn to wo's side, and a shading normal that faces away from wo falls back to ng. Transmissive
/// ones keep the outward normal (wo inside: wo.z < 0); rough glass falls back to ng where the
/// shading normal would put wo on the other side than the geometric one (it tells inside from
/// outside by the sign of wo.z).
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE void orientShadingNormals(const MaterialData& m, vec3 wo, bool entering, vec3& ng, vec3& ns) {
    bool transmissive = isTransmissive<Materials>(m);
    if (!transmissive && !entering) {
        ng = -ng;
        ns = -ns;
    }
    if (!transmissive && glm::dot(wo, ns) <= 0.0f) ns = ng;
    if (Materials::kMicrofacet && m.type() == kRoughDielectric && (glm::dot(wo, ns) > 0.0f) != entering) ns = ng;
}

/// f(wo, wi) for the non-specular materials (delta lobes give 0), directions in the local frame.
/// Opaque materials: zero unless wo and wi are above the surface. `mode` matters for transmission
/// only: Importance gives the adjoint f(wi, wo) used on light paths.
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE vec3 evalBsdf(const MaterialData& m, vec3 wo, vec3 wi, TransportMode mode) {
    if constexpr (Materials::kMicrofacet) {
        switch (m.type()) {
        case kConductor: return evalConductor(m, wo, wi);
        case kRoughDielectric: return vec3(roughDielectric(m, wo, wi, mode).f);
        case kMetallicRoughness: return evalMetallicRoughness(m, wo, wi);
        default: break;
        }
    }
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

/// Solid-angle pdf of sampleBsdf choosing wi through a non-delta lobe (the same in both modes).
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE float pdfBsdf(const MaterialData& m, vec3 wo, vec3 wi) {
    if constexpr (Materials::kMicrofacet) {
        switch (m.type()) {
        case kConductor: return pdfConductor(m, wo, wi);
        case kRoughDielectric: return roughDielectric(m, wo, wi, TransportMode::Radiance).pdf;
        case kMetallicRoughness: return pdfMetallicRoughness(m, wo, wi);
        default: break;
        }
    }
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

/// Samples wi given wo (local frame, wo.z may be negative only for the transmissive materials;
/// the smooth dielectric sees the geometric side through `entering`, the rough one through the
/// sign of wo.z). uc picks the lobe, u the direction.
template <class Materials = AllMaterials>
WF_CPU_GPU inline BsdfSample sampleBsdf(const MaterialData& m, vec3 wo, float uc, vec2 u, bool entering,
                                        TransportMode mode) {
    BsdfSample s{vec3(0.0f), vec3(0.0f), 0.0f, false, false};
    int type = m.type();
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
    s.pdf = pdfBsdf<ClassicMaterials>(m, wo, s.wi);  // the classic lobes: no microfacet case reaches here
    if (s.pdf <= 0.0f) return s;
    s.weight = evalBsdf<ClassicMaterials>(m, wo, s.wi, mode) * (s.wi.z / s.pdf);
    s.valid = true;
    return s;
}

}  // namespace wavefront
