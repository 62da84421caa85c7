// The CPU instantiation of the render backend: every driver and stage over CpuExec.
#include "host/exec/cpu_exec.h"
#include "host/render/exec_render_backend.h"

namespace wavefront {

std::unique_ptr<RenderBackend> makeCpuRenderBackend(const Scene& scene, const RenderOptions& options) {
    return std::make_unique<ExecRenderBackend<CpuExec>>(scene, options);
}

}  // namespace wavefront
