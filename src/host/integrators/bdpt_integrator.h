// The BDPT's registry row (registry.h).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "wavefront/renderer.h"

namespace wavefront {

struct IntegratorSpec;
template <class Exec>
class BdptRunner;

/// BDPT's figures and its part of a multi-device merge; MLT, which runs on BDPT, reports them too.
std::vector<std::pair<std::string, double>> bdptFigures(const RenderStats& stats);
void mergeBdptStats(const std::vector<RenderStats>& perDevice, RenderStats& merged);

struct BdptIntegrator {
    static constexpr IntegratorType kType = IntegratorType::Bdpt;
    static constexpr BdptOptions RenderOptions::*kBlock = &RenderOptions::bdpt;
    static IntegratorSpec spec();  ///< bdpt_integrator.cpp
    template <class Exec>
    using Runner = BdptRunner<Exec>;
};

}  // namespace wavefront
