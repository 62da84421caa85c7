// MLT's registry row (registry.h).
#pragma once
#include "wavefront/renderer.h"

namespace wavefront {

struct IntegratorSpec;
template <class Exec>
class MltRunner;

struct MltIntegrator {
    static constexpr IntegratorType kType = IntegratorType::Mlt;
    /// The largest start-up pool (MltOptions::poolSize): 2 GiB of pool weights.
    static constexpr int kMaxPool = 1 << 28;
    static IntegratorSpec spec();  ///< mlt_integrator.cpp
    template <class Exec>
    using Runner = MltRunner<Exec>;
};

}  // namespace wavefront
