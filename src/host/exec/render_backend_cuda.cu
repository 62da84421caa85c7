// The CUDA instantiation of the render backend: every driver and stage over CudaExec.
#include "host/exec/cuda_exec.cuh"
#include "host/render/exec_render_backend.h"

namespace wavefront {

std::unique_ptr<RenderBackend> makeCudaRenderBackend(const Scene& scene, const RenderOptions& options) {
    return std::make_unique<ExecRenderBackend<CudaExec>>(scene, options);
}

}  // namespace wavefront
