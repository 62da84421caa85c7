// What every BSDF shares: the material sets kernels are compiled for, the transport mode and a
// sampled direction.
#pragma once
#include "kernels/core/sampler.h"
#include "kernels/materials/material_data.h"

namespace wavefront {

/// The material kinds a shading kernel is compiled for, as Cycles compiles its kernels per feature
/// set: inlining every BSDF into one switch costs every shading kernel registers (the megakernel
/// went from 79 to 107), so scenes of the four classic kinds run kernels built without the
/// microfacet cases. The drivers pick the set from the uploaded scene (withMaterialSet,
/// scene_view.h); the functions default to every kind.
struct AllMaterials {
    static constexpr bool kMicrofacet = true;
    static constexpr bool kTextures = true;
    static constexpr bool kInstances = false;  ///< traces the scene's own primitives only
};
struct ClassicMaterials {
    static constexpr bool kMicrofacet = false;  ///< Lambertian, Glossy, Mirror, Dielectric only
    static constexpr bool kTextures = false;    ///< and no textures
    static constexpr bool kInstances = false;
};
/// Every kind, and instances (kernels/bvh/instances.h): scenes with instances run kernels built
/// with their traversal, the others kernels without it. Any code that traces, inlined or called,
/// sets a kernel's registers for its whole body: instance support in every kernel took the
/// tracing kernels from 54 to 72-86 registers and BDPT to 0.37x its speed (H100, measured).
struct InstancedMaterials : AllMaterials {
    static constexpr bool kInstances = true;
};

/// Radiance: eye paths (the path tracer); Importance: light paths (BDPT). Refraction scales
/// radiance by 1/eta^2 but not importance (Veach 1997, 5.2).
enum class TransportMode { Radiance, Importance };

struct BsdfSample {
    vec3 wi;        ///< local frame
    vec3 weight;    ///< f cos / pdf (for specular: the lobe's throughput factor)
    float pdf;      ///< solid angle; 0 for specular lobes
    bool specular;
    bool valid;
};

}  // namespace wavefront
