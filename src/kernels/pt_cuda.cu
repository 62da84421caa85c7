// CUDA instantiation of the render backend: scene upload, LBVH, the path-tracer variants, BDPT
// and MLT (and MLT's replay check for the tests).
#include "host/exec_render_backend.h"
#include "host/mlt_api_impl.h"
#include "kernels/cuda_exec.cuh"

namespace wavefront {

std::unique_ptr<RenderBackend> makeCudaRenderBackend(const Scene& scene, const RenderOptions& options) {
    return std::make_unique<ExecRenderBackend<CudaExec>>(scene, options);
}

MltReplay renderMltAndReplayCuda(const Scene& scene, const RenderOptions& options) {
    CudaExec exec;
    return renderMltAndReplayOn(exec, scene, options);
}

}  // namespace wavefront
