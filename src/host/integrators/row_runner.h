// The definition of makeRowRunner (runners.h), for the instantiation units alone
// (host/render/<exec>/runner_<name>): each includes its integrator's runner header, then this,
// and instantiates makeRowRunner for its rows and its exec.
#pragma once
#include <memory>

#include "host/integrators/runners.h"

namespace wavefront {

template <class Row, class Exec>
std::unique_ptr<IntegratorRunner<Exec>> makeRowRunner(Exec& exec, const RenderOptions& options, const RunnerStart& start) {
    return std::make_unique<typename Row::template Runner<Exec>>(exec, options, start);
}

}  // namespace wavefront
