// VCM's, BPM's and PPM's runner (one class) over CudaExec, with every driver and stage under it: one
// translation unit per integrator (host/integrators/runners.h); compiled with render_backend_cuda.cu's flags.
#include "host/device_scene/builders_cuda.cuh"  // first: the builders stay the library's exact ones
#include "host/integrators/vcm_runner.h"
#include "host/integrators/row_runner.h"

namespace wavefront {

template std::unique_ptr<IntegratorRunner<CudaExec>> makeRowRunner<VcmIntegrator>(CudaExec&, const RenderOptions&, const RunnerStart&);
template std::unique_ptr<IntegratorRunner<CudaExec>> makeRowRunner<BpmIntegrator>(CudaExec&, const RenderOptions&, const RunnerStart&);
template std::unique_ptr<IntegratorRunner<CudaExec>> makeRowRunner<PpmIntegrator>(CudaExec&, const RenderOptions&, const RunnerStart&);

}  // namespace wavefront
