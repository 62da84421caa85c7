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

/// Radiance: eye paths (the path tracer); Importance: light paths (BDPT). Refraction scales
/// radiance by 1/eta^2 but not importance (Veach 1997, 5.2).
enum class TransportMode { Radiance, Importance };

/// Materials that transmit. Their local frame's z is the stored (outward) geometric normal and wo
/// may lie on either side (wo.z < 0: inside); every other material is opaque and shaded in a
/// frame turned towards wo (wo.z > 0), with nothing below the surface.
WF_CPU_GPU WF_INLINE bool isTransmissive(const MaterialData& m) {
    return m.type() == kDielectric || m.type() == kRoughDielectric;
}

struct BsdfSample {
    vec3 wi;        ///< local frame
    vec3 weight;    ///< f cos / pdf (for specular: the lobe's throughput factor)
    float pdf;      ///< solid angle; 0 for specular lobes
    bool specular;
    bool valid;
};

}  // namespace wavefront
