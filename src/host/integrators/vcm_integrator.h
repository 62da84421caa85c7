// The registry rows of vertex connection and merging (registry.h): VCM and its merging-only
// special cases BPM and PPM, one runner (VcmRunner) and one option table over their own blocks.
#pragma once
#include "kernels/vcm/vcm.h"
#include "wavefront/renderer.h"

namespace wavefront {

struct IntegratorSpec;
template <class Exec>
class VcmRunner;

struct VcmIntegrator {
    static constexpr IntegratorType kType = IntegratorType::Vcm;
    static constexpr VcmOptions RenderOptions::*kBlock = &RenderOptions::vcm;
    static constexpr VcmMode kMode = VcmMode::Vcm;
    /// The most light subpaths an iteration may trace (VcmOptions::lightPaths).
    static constexpr int kMaxLightPaths = 1 << 26;
    static IntegratorSpec spec();  ///< vcm_integrator.cpp
    template <class Exec>
    using Runner = VcmRunner<Exec>;
};

/// Bidirectional photon mapping: VCM's merges at every eye vertex, no connections.
struct BpmIntegrator {
    static constexpr IntegratorType kType = IntegratorType::Bpm;
    static constexpr VcmOptions RenderOptions::*kBlock = &RenderOptions::bpm;
    static constexpr VcmMode kMode = VcmMode::Bpm;
    static IntegratorSpec spec();
    template <class Exec>
    using Runner = VcmRunner<Exec>;
};

/// Progressive photon mapping: one unweighted merge at the first non-specular eye vertex.
struct PpmIntegrator {
    static constexpr IntegratorType kType = IntegratorType::Ppm;
    static constexpr VcmOptions RenderOptions::*kBlock = &RenderOptions::ppm;
    static constexpr VcmMode kMode = VcmMode::Ppm;
    static IntegratorSpec spec();
    template <class Exec>
    using Runner = VcmRunner<Exec>;
};

}  // namespace wavefront
