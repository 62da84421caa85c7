// VCM's, BPM's and PPM's runner (one class) over CpuExec, with every driver and stage under it: one
// translation unit per integrator (host/integrators/runners.h).
#include "host/backends/cpu/cpu_exec.h"
#include "host/integrators/vcm_runner.h"
#include "host/integrators/row_runner.h"

namespace wavefront {

template std::unique_ptr<IntegratorRunner<CpuExec>> makeRowRunner<VcmIntegrator>(CpuExec&, const RenderOptions&, const RunnerStart&);
template std::unique_ptr<IntegratorRunner<CpuExec>> makeRowRunner<BpmIntegrator>(CpuExec&, const RenderOptions&, const RunnerStart&);
template std::unique_ptr<IntegratorRunner<CpuExec>> makeRowRunner<PpmIntegrator>(CpuExec&, const RenderOptions&, const RunnerStart&);

}  // namespace wavefront
