// The runner of every registry row (registry.h), for the render backends: the factory that picks
// the row of RenderOptions::integrator. Each row's runner is made by makeRowRunner, which is only
// declared here: its definition (row_runner.h) is instantiated once per integrator and exec, in
// host/integrators/units/<exec>/runner_<name>, so that each integrator's runner, with every driver and stage
// under it, is compiled in a translation unit of its own (a change to one integrator's kernels
// recompiles that unit alone, and the units build in parallel).
#pragma once
#include <memory>
#include <string>

#include "host/integrators/integrator_runner.h"
#include "host/integrators/registry.h"

namespace wavefront {

/// A fresh film's runner for registry row `Row` (row_runner.h).
template <class Row, class Exec>
std::unique_ptr<IntegratorRunner<Exec>> makeRowRunner(Exec& exec, const RenderOptions& options, const RunnerStart& start);

/// A fresh film's runner for options.integrator.
template <class Exec>
std::unique_ptr<IntegratorRunner<Exec>> makeRunner(Exec& exec, const RenderOptions& options, const RunnerStart& start) {
    std::unique_ptr<IntegratorRunner<Exec>> runner;
    IntegratorRows::forEach([&](auto row) {
        using Row = decltype(row);
        if (Row::kType == options.integrator) runner = makeRowRunner<Row>(exec, options, start);
    });
    if (!runner) throw InputError("integrator " + std::to_string(int(options.integrator)) + " is not an IntegratorType value");
    return runner;
}

}  // namespace wavefront
