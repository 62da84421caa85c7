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
    static constexpr bool kMedia = false;      ///< no participating media, no interfaces
};
struct ClassicMaterials {
    static constexpr bool kMicrofacet = false;  ///< Lambertian, Glossy, Mirror, Dielectric only
    static constexpr bool kTextures = false;    ///< and no textures
    static constexpr bool kInstances = false;
    static constexpr bool kMedia = false;
};
/// Every kind, instances (kernels/bvh/instances.h) and participating media (kernels/media): the
/// full set. Scenes with instances or media run kernels built with their traversal and trackers,
/// the others kernels without. Any code that traces, inlined or called, sets a kernel's
/// registers for its whole body: instance support in every kernel took the tracing kernels from
/// 54 to 72-86 registers and BDPT to 0.37x its speed (H100, measured). Media share the set rather
/// than make a fourth: every integrator's kernels would otherwise be compiled once more (the
/// library's size and build time; docs/decisions.md, "Media in the full kernel set").
struct InstancedMaterials : AllMaterials {
    static constexpr bool kInstances = true;
    static constexpr bool kMedia = true;
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
