// BDPT's runner over CpuExec, with every driver and stage under it: one
// translation unit per integrator (host/integrators/runners.h).
#include "host/backends/cpu/cpu_exec.h"
#include "host/integrators/bdpt_runner.h"
#include "host/integrators/row_runner.h"

namespace wavefront {

template std::unique_ptr<IntegratorRunner<CpuExec>> makeRowRunner<BdptIntegrator>(CpuExec&, const RenderOptions&, const RunnerStart&);

}  // namespace wavefront
