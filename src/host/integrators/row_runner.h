// The definition of makeRowRunner (runners.h), for the instantiation units alone
// (host/integrators/units/<exec>/runner_<name>): each includes its integrator's runner header, then this,
// and instantiates makeRowRunner for its rows and its exec.
#pragma once
#include <memory>
#include <type_traits>

#include "host/integrators/runners.h"

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

}  // namespace wavefront
