// The one dispatch over the material kinds: each kind is a BSDF struct (classic_materials.h,
// microfacet_materials.h) and one case of withBsdf below; evaluate, pdf, sample, continuation
// probability, albedo and class (specular, transmissive) reach it through here. A BSDF struct has,
// all static, directions in the local shading frame:
//   kMicrofacet      compiled only into kernels of a set with Materials::kMicrofacet
//                    (material_types.h); the host reads it too (needsFullMaterialSet)
//   kTransmissive    its frame's z is the outward geometric normal and wo may lie below; every
//                    other BSDF is opaque, shaded in a frame turned towards wo (wo.z > 0)
//   isSpecular(m)    delta: sampled only, never evaluated (no next-event estimation, no BDPT
//                    vertex); evaluate and pdf then give 0 (a microfacet lobe in its smooth
//                    limit gives what its formula gives: nobody asks)
//   evaluate(m, wo, wi, mode)  f(wo, wi); `mode` matters for transmission only: Importance gives
//                    the adjoint f(wi, wo) used on light paths
//   pdf(m, wo, wi)   solid-angle density of sample choosing wi through a non-delta lobe (the
//                    same in both modes)
//   sample(m, wo, uc, u, entering, mode)  uc picks the lobe, u the direction; `entering`: wo on
//                    the geometric normal's side (the smooth dielectric's only input of it)
//   continuation(m)  Russian roulette of BDPT and MLT: the probability a walk goes on at it
//   albedo(m)        what it reflects at first sight, unclamped (the AOV's albedo)
// The host's half of a kind is its row of the material table (host/scene/material_kinds.cpp).
#pragma once
#include "kernels/materials/classic_materials.h"
#include "kernels/materials/layered.h"
#include "kernels/materials/material_types.h"
#include "kernels/materials/microfacet_materials.h"

namespace wavefront {

/// Whether the kernels of material set Materials hold Bsdf (kMicrofacet: only the full sets).
template <class Materials, class Bsdf>
constexpr bool kCompiledIn = Materials::kMicrofacet || !Bsdf::kMicrofacet;

/// Calls f(Bsdf{}) with the BSDF struct of `kind` and returns what it returns: the one switch
/// over the kinds (a kind without its case is a -Wswitch warning). Lambertian is the way out of
/// the switch, shared with the kinds a material set leaves out (the drivers pick a set that holds
/// every kind of the scene: withMaterialSet), so that it is inlined once.
template <class Materials = AllMaterials, class F>
WF_CPU_GPU WF_INLINE auto withBsdf(MaterialType kind, F&& f) {
    switch (kind) {
    case MaterialType::Lambertian: break;
    case MaterialType::Glossy: return f(GlossyBsdf{});
    case MaterialType::Mirror: return f(MirrorBsdf{});
    case MaterialType::Dielectric: return f(DielectricBsdf{});
    case MaterialType::Conductor:
        if constexpr (kCompiledIn<Materials, ConductorBsdf>) return f(ConductorBsdf{});
        break;
    case MaterialType::RoughDielectric:
        if constexpr (kCompiledIn<Materials, RoughDielectricBsdf>) return f(RoughDielectricBsdf{});
        break;
    case MaterialType::MetallicRoughness:
        if constexpr (kCompiledIn<Materials, MetallicRoughnessBsdf>) return f(MetallicRoughnessBsdf{});
        break;
    case MaterialType::CoatedDiffuse:
        if constexpr (kCompiledIn<Materials, CoatedDiffuseBsdf>) return f(CoatedDiffuseBsdf{});
        break;
    case MaterialType::CoatedConductor:
        if constexpr (kCompiledIn<Materials, CoatedConductorBsdf>) return f(CoatedConductorBsdf{});
        break;
    case MaterialType::Interface:
        if constexpr (kCompiledIn<Materials, InterfaceBsdf>) return f(InterfaceBsdf{});
        break;
    }
    return f(LambertianBsdf{});
}

/// Whether kernels need the full material set for a material of `kind` (BSDF kMicrofacet): the
/// host's row of the kind (MaterialKindSpec::microfacet) reads it.
inline bool needsFullMaterialSet(MaterialType kind) {
    return withBsdf(kind, [](auto b) { return decltype(b)::kMicrofacet; });
}

/// Materials that transmit (BSDF kTransmissive).
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE bool isTransmissive(const MaterialData& m) {
    return withBsdf<Materials>(m.kind(), [](auto b) { return decltype(b)::kTransmissive; });
}

/// Delta BSDFs: sampled only, never evaluated (no next-event estimation, no BDPT vertex). The
/// microfacet conductor and rough dielectric are delta only in their smooth limit.
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE bool isSpecular(const MaterialData& m) {
    return withBsdf<Materials>(m.kind(), [&](auto b) { return decltype(b)::isSpecular(m); });
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

/// f(wo, wi), directions in the local frame; delta lobes give 0. Opaque materials: zero unless
/// wo and wi are above the surface. `mode` matters for transmission only: Importance gives the
/// adjoint f(wi, wo) used on light paths.
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE vec3 evalBsdf(const MaterialData& m, vec3 wo, vec3 wi, TransportMode mode) {
    return withBsdf<Materials>(m.kind(), [&](auto b) { return decltype(b)::evaluate(m, wo, wi, mode); });
}

/// Solid-angle pdf of sampleBsdf choosing wi through a non-delta lobe (the same in both modes).
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE float pdfBsdf(const MaterialData& m, vec3 wo, vec3 wi) {
    return withBsdf<Materials>(m.kind(), [&](auto b) { return decltype(b)::pdf(m, wo, wi); });
}

/// Samples wi given wo (local frame, wo.z may be negative only for the transmissive materials;
/// the smooth dielectric sees the geometric side through `entering`, the rough one through the
/// sign of wo.z). uc picks the lobe, u the direction.
template <class Materials = AllMaterials>
WF_CPU_GPU inline BsdfSample sampleBsdf(const MaterialData& m, vec3 wo, float uc, vec2 u, bool entering,
                                        TransportMode mode) {
    return withBsdf<Materials>(m.kind(),
                               [&](auto b) { return decltype(b)::sample(m, wo, uc, u, entering, mode); });
}

/// Russian roulette of BDPT and MLT: the probability that a walk continues at a vertex of this
/// material, depending on nothing else, so that the same factor is right in the reverse direction
/// (the reverse pdfs of the MIS weights).
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE float continuationProbability(const MaterialData& m) {
    return withBsdf<Materials>(m.kind(), [&](auto b) { return decltype(b)::continuation(m); });
}

/// What a surface of this material reflects at first sight, unclamped (the AOV's albedo).
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE vec3 bsdfAlbedo(const MaterialData& m) {
    return withBsdf<Materials>(m.kind(), [&](auto b) { return decltype(b)::albedo(m); });
}

}  // namespace wavefront
