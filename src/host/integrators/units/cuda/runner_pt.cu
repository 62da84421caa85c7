// The path tracer's runner over CudaExec, with every driver and stage under it: one
// translation unit per integrator (host/integrators/runners.h); compiled with render_backend_cuda.cu's flags.
#include "host/device_scene/builders_cuda.cuh"  // first: the builders stay the library's exact ones
#include "host/integrators/pt_runner.h"
#include "host/integrators/row_runner.h"

namespace wavefront {

template std::unique_ptr<IntegratorRunner<CudaExec>> makeRowRunner<PtIntegrator>(CudaExec&, const RenderOptions&, const RunnerStart&);

}  // namespace wavefront
