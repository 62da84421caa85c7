// The runner of every registry row (registry.h), for the render backends: one include per
// integrator, and the factory that picks the row of RenderOptions::integrator and hands its runner
// the row's options block.
#pragma once
#include <memory>
#include <type_traits>

#include "host/integrators/bdpt_runner.h"
#include "host/integrators/mlt_runner.h"
#include "host/integrators/pt_runner.h"
#include "host/integrators/registry.h"
#include "host/integrators/vcm_runner.h"

namespace wavefront {

namespace runner {

/// Whether a row shares its runner with other rows and tells it which it is (Row::kMode).
template <class Row, class = void>
struct HasMode : std::false_type {};
template <class Row>
struct HasMode<Row, std::void_t<decltype(Row::kMode)>> : std::true_type {};

}  // namespace runner

/// Row's runner, made with the row's own options block (Row::kBlock) and, where rows share a
/// runner, the row's mode: the runner never works out again which row it runs.
template <class Row, class Exec>
std::unique_ptr<IntegratorRunner<Exec>> makeRowRunner(Exec& exec, const RenderOptions& options, const RunnerStart& start) {
    using Runner = typename Row::template Runner<Exec>;
    if constexpr (runner::HasMode<Row>::value)
        return std::make_unique<Runner>(exec, options, options.*Row::kBlock, Row::kMode, start);
    else
        return std::make_unique<Runner>(exec, options, options.*Row::kBlock, start);
}

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
