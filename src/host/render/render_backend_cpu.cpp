// The CPU instantiation of the render backend over CpuExec; the integrators' runners, with their
// drivers and stages, are compiled in units of their own (cpu/runner_<name>.cpp).
#include <algorithm>

#include "host/backends/cpu/cpu_exec.h"
#include "host/render/exec_render_backend.h"
#include "host/render/multi_device_backend.h"

namespace wavefront {

std::unique_ptr<RenderBackend> makeCpuRenderBackend(const Scene& scene, const RenderOptions& options) {
    if (options.devices.size() <= 1) return std::make_unique<ExecRenderBackend<CpuExec>>(scene, options, options.cpuThreads);
    // Workers that share the CPU's threads: the multi-device schedule without a GPU.
    const int workers = int(options.devices.size());
    const int all = options.cpuThreads > 0 ? options.cpuThreads : cpuThreadCount();
    const int threads = std::max(1, all / workers);
    return std::make_unique<MultiDeviceBackend<CpuExec>>(
        options.devices, [](int) {},
        [&scene, &options, threads](int) { return std::make_unique<ExecRenderBackend<CpuExec>>(scene, options, threads); },
        0.0);
}

}  // namespace wavefront
