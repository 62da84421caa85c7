// The path tracer's registry row (registry.h).
#pragma once
#include "wavefront/renderer.h"

namespace wavefront {

struct IntegratorSpec;
template <class Exec>
class PtRunner;

struct PtIntegrator {
    static constexpr IntegratorType kType = IntegratorType::PathTracer;
    static constexpr PtOptions RenderOptions::*kBlock = &RenderOptions::pt;
    static IntegratorSpec spec();  ///< pt_integrator.cpp
    template <class Exec>
    using Runner = PtRunner<Exec>;
};

}  // namespace wavefront
