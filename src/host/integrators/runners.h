// The runner of every registry row (registry.h), for the render backends: one include per
// integrator, and the factory that picks the row of RenderOptions::integrator.
#pragma once
#include <memory>

#include "host/integrators/bdpt_runner.h"
#include "host/integrators/mlt_runner.h"
#include "host/integrators/pt_runner.h"
#include "host/integrators/registry.h"
#include "host/integrators/vcm_runner.h"

namespace wavefront {

/// A fresh film's runner for options.integrator.
template <class Exec>
std::unique_ptr<IntegratorRunner<Exec>> makeRunner(Exec& exec, const RenderOptions& options, const RunnerStart& start) {
    std::unique_ptr<IntegratorRunner<Exec>> runner;
    IntegratorRows::forEach([&](auto row) {
        using Row = decltype(row);
        if (Row::kType == options.integrator) runner = std::make_unique<typename Row::template Runner<Exec>>(exec, options, start);
    });
    if (!runner) throw InputError("integrator " + std::to_string(int(options.integrator)) + " is not an IntegratorType value");
    return runner;
}

}  // namespace wavefront
