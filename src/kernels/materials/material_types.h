// What every BSDF shares: the material type codes, the transport mode and a sampled direction.
#pragma once
#include "kernels/scene/scene_view.h"

namespace wavefront {

/// MaterialData::type(); the values of wavefront::MaterialType.
enum : int {
    kLambertian = 0,
    kGlossy = 1,
    kMirror = 2,
    kDielectric = 3,
    kConductor = 4,          ///< GGX metal (microfacet_materials.h)
    kRoughDielectric = 5,    ///< GGX glass, Walter et al. 2007
    kMetallicRoughness = 6,  ///< glTF 2.0 style: GGX metal / GGX coat over a diffuse base
};

WF_CPU_GPU WF_INLINE bool isMicrofacetType(int type) {
    return type == kConductor || type == kRoughDielectric || type == kMetallicRoughness;
}

/// The material kinds a shading kernel is compiled for, as Cycles compiles its kernels per feature
/// set: inlining every BSDF into one switch costs every shading kernel registers (the megakernel
/// went from 79 to 107), so scenes of the four classic kinds run kernels built without the
/// microfacet cases. The drivers pick the set from the uploaded scene (withMaterialSet); the
/// functions default to every kind.
struct AllMaterials {
    static constexpr bool kMicrofacet = true;
    static constexpr bool kTextures = true;
};
struct ClassicMaterials {
    static constexpr bool kMicrofacet = false;  ///< Lambertian, Glossy, Mirror, Dielectric only
    static constexpr bool kTextures = false;    ///< and no textures
};

/// Calls f(AllMaterials{}) or f(ClassicMaterials{}): the smaller set whenever the scene has no
/// microfacet material and no texture (SceneView::microfacetMaterials and textured, set at upload).
template <class F>
decltype(auto) withMaterialSet(const SceneView& scene, F&& f) {
    if (scene.microfacetMaterials || scene.textured) return f(AllMaterials{});
    return f(ClassicMaterials{});
}

/// Radiance: eye paths (the path tracer); Importance: light paths (BDPT). Refraction scales
/// radiance by 1/eta^2 but not importance (Veach 1997, 5.2).
enum class TransportMode { Radiance, Importance };

/// Materials that transmit. Their local frame's z is the stored (outward) geometric normal and wo
/// may lie on either side (wo.z < 0: inside); every other material is opaque and shaded in a
/// frame turned towards wo (wo.z > 0), with nothing below the surface.
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE bool isTransmissive(const MaterialData& m) {
    return m.type() == kDielectric || (Materials::kMicrofacet && m.type() == kRoughDielectric);
}

struct BsdfSample {
    vec3 wi;        ///< local frame
    vec3 weight;    ///< f cos / pdf (for specular: the lobe's throughput factor)
    float pdf;      ///< solid angle; 0 for specular lobes
    bool specular;
    bool valid;
};

}  // namespace wavefront
