// CUDA instantiation of the render backend: scene upload, LBVH and the path-tracer variants.
#include "host/exec_render_backend.h"
#include "kernels/cuda_exec.cuh"

namespace wavefront {

std::unique_ptr<RenderBackend> makeCudaRenderBackend(const Scene& scene, const RenderOptions& options) {
    return std::make_unique<ExecRenderBackend<CudaExec>>(scene, options);
}

}  // namespace wavefront
