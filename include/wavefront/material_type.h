// The material kinds: the one list that the public MaterialType and its count are made from. No
// includes and nothing else, so that the kernels read the same enum without the public API
// (docs/decisions.md, "One material kind list"). A kind's other halves: its BSDF struct and its
// case of the dispatch (kernels/materials/material.h), its row of the host's table
// (host/scene/material_kinds.cpp: names, checks, packing, textures).
#pragma once

/// One X(name) per kind, in the order of their values (the value is the kind MaterialData keeps).
#define WAVEFRONT_MATERIAL_TYPES(X)                                                                        \
    X(Lambertian)        /* diffuse, reflectance `diffuse` */                                              \
    X(Glossy)            /* diffuse + normalised Blinn-Phong lobe (`specular`, `exponent`) */               \
    X(Mirror)            /* ideal specular reflection, tinted by `specular` */                             \
    X(Dielectric)        /* smooth glass: Fresnel reflection and refraction with index `ior` */            \
    X(Conductor)         /* rough metal: GGX microfacets with GGX alpha `roughness` (0: a perfect        \
                            mirror); Fresnel by Schlick with F0 = `specular`, or from the complex index \
                            `eta` + i `k` when `complexIor` */                                             \
    X(RoughDielectric)   /* rough glass (Walter et al. 2007): GGX alpha `roughness` (0: the smooth        \
                            Dielectric), index `ior` */                                                    \
    X(MetallicRoughness) /* glTF 2.0 metallic-roughness: base colour `diffuse`, `metallic` in [0, 1],  \
                            perceptual `roughness` (GGX alpha = roughness^2); the dielectric part is a  \
                            coat of index 1.5 over a Lambertian base */                                    \
    X(CoatedDiffuse)     /* pbrt-v4's coateddiffuse: a dielectric coat (index `ior`, GGX alpha           \
                            `roughness`, 0: smooth) over a Lambertian base of reflectance `diffuse`,   \
                            `thickness` apart, a medium between (`mediumAlbedo`, `mediumG`) */          \
    X(CoatedConductor)   /* pbrt-v4's coatedconductor: the same coat over a conductor of complex index  \
                            `eta` + i `k` (relative to vacuum) and GGX alpha `baseRoughness` */       \
    X(Interface)         /* no surface at all: only bounds a medium (pbrt-v4's "interface"); rays     \
                            pass through it unchanged, into the medium of the side they go to */

namespace wavefront {

enum class MaterialType : int {
#define WAVEFRONT_MATERIAL_TYPE_VALUE(name) name,
    WAVEFRONT_MATERIAL_TYPES(WAVEFRONT_MATERIAL_TYPE_VALUE)
#undef WAVEFRONT_MATERIAL_TYPE_VALUE
};

/// The number of material kinds (values 0 to kMaterialTypeCount - 1).
constexpr int kMaterialTypeCount = 0
#define WAVEFRONT_MATERIAL_TYPE_ONE(name) +1
    WAVEFRONT_MATERIAL_TYPES(WAVEFRONT_MATERIAL_TYPE_ONE)
#undef WAVEFRONT_MATERIAL_TYPE_ONE
    ;

}  // namespace wavefront
