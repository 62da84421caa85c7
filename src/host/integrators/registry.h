// The integrators, one registry row each: the name the command line, Python and the comparison
// tool use, the options with their text forms, the integrator's own validation, its figures and its
// runner. Adding an integrator: its row in IntegratorRows below (a `<name>_integrator.h` of its own
// room), its options and stats blocks in the public RenderOptions / RenderStats, and its runner's
// header in runners.h (docs/architecture.md, "Adding an integrator").
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "host/integrators/bdpt_integrator.h"
#include "host/integrators/mlt_integrator.h"
#include "host/integrators/pt_integrator.h"
#include "host/integrators/vcm_integrator.h"
#include "wavefront/renderer.h"

namespace wavefront {

/// One option of an integrator, read and written in its text form.
struct OptionSpec {
    const char* name;  ///< "large-step": method strings (mlt:large-step=0.3), setIntegratorOption
    const char* flag;  ///< "--large-step" on the command line; empty: the API's alone
    const char* help;
    void (*set)(RenderOptions& options, const std::string& value);  ///< throws InputError
    std::string (*get)(const RenderOptions& options);
};

/// How an integrator's work splits over passes and devices (read once, when a render backend is
/// made: ExecRenderBackend::workSplit).
enum class WorkSplit {
    /// Passes of independent samples, numbered: any device renders any range, and the image is
    /// the one a single device gives; a pass samples the film's pixels.
    SampleRanges,
    /// Markov chains over the whole frame: each device runs chains of its own (a seed of its
    /// own) for a share of the mutations, and what they must agree on goes through the runner's
    /// shared state (IntegratorRunner::sharedState); their passes are correlated.
    Chains,
};

struct IntegratorSpec {
    IntegratorType type;
    const char* typeName;     ///< "PathTracer": the IntegratorType value's name (Python's enum)
    const char* name;         ///< "pt"
    const char* description;  ///< one line
    WorkSplit workSplit = WorkSplit::SampleRanges;
    std::vector<OptionSpec> options;
    /// The integrator's own rules on RenderOptions (the shared ones, and options of other
    /// integrators, are checked by RenderOptions::validate). Throws InputError.
    void (*validate)(const RenderOptions& options) = nullptr;
    /// Its figures from RenderStats, named (integratorFigures, wavefront-render --stats).
    std::vector<std::pair<std::string, double>> (*figures)(const RenderStats& stats) = nullptr;
    /// Its part of RenderStats over several devices (the shared part is merged already).
    void (*mergeDeviceStats)(const std::vector<RenderStats>& perDevice, RenderStats& merged) = nullptr;

    const OptionSpec* option(const std::string& optionName) const;
};

/// The rows, in the order the registry lists them. Each row: kType, spec(), kBlock (its options
/// block in RenderOptions) and, for the render backends, `template <class Exec> using Runner`
/// (runners.h), which is made with the row's block and, where rows share a runner, the row's
/// kMode.
template <class... Rows>
struct IntegratorList {
    template <class F>
    static void forEach(F&& f) {
        (f(Rows{}), ...);
    }
};
using IntegratorRows =
    IntegratorList<PtIntegrator, BdptIntegrator, MltIntegrator, MmltIntegrator, VcmIntegrator, BpmIntegrator, PpmIntegrator>;

/// Every row's spec, in registry order.
const std::vector<IntegratorSpec>& integratorSpecs();
/// The row of `type`; throws InputError for a value that is no IntegratorType.
const IntegratorSpec& integratorSpec(IntegratorType type);

/// Refuses options of integrators other than options.integrator that differ from their defaults
/// (RenderOptions::validate).
void checkOtherIntegratorsAtDefaults(const RenderOptions& options);

/// Helpers for the rows' option tables: a value's text form and its parse, one line of error each.
namespace options {
std::string onOff(bool value);
bool parseOnOff(const std::string& what, const std::string& value);
std::string number(float value);
float parseFloat(const std::string& what, const std::string& value);
int parseInt(const std::string& what, const std::string& value);  ///< a whole number within int
}  // namespace options

}  // namespace wavefront
