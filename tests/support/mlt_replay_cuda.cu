// CUDA instantiation of MLT's replay check (tests).
#include "host/device_scene/builders_cuda.cuh"
#include "mlt_replay_impl.h"

namespace wavefront {

MltReplay renderMltAndReplayCuda(const Scene& scene, const RenderOptions& options) {
    CudaExec exec;
    return renderMltAndReplayOn(exec, scene, options);
}

}  // namespace wavefront
