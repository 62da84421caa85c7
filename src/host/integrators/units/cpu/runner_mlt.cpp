// MLT's and MMLT's runner (one class) over CpuExec, with every driver and stage under it: one
// translation unit per integrator (host/integrators/runners.h).
#include "host/backends/cpu/cpu_exec.h"
#include "host/integrators/mlt_runner.h"
#include "host/integrators/row_runner.h"

namespace wavefront {

template std::unique_ptr<IntegratorRunner<CpuExec>> makeRowRunner<MltIntegrator>(CpuExec&, const RenderOptions&, const RunnerStart&);
template std::unique_ptr<IntegratorRunner<CpuExec>> makeRowRunner<MmltIntegrator>(CpuExec&, const RenderOptions&, const RunnerStart&);

}  // namespace wavefront
