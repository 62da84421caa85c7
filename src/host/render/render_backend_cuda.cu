// The CUDA instantiation of the render backend over CudaExec, on one device or on several
// (multi_device_backend.h); the integrators' runners, with their drivers and stages, are compiled
// in units of their own (cuda/runner_<name>.cu).
#include <string>

#include "host/device_scene/builders_cuda.cuh"
#include "host/render/exec_render_backend.h"
#include "host/render/multi_device_backend.h"

namespace wavefront {

void copyFromCudaDevice(void* dst, const void* src, std::size_t bytes) {
    cudaPointerAttributes attributes;
    WF_CUDA_CHECK(cudaPointerGetAttributes(&attributes, src));
    if (attributes.type != cudaMemoryTypeDevice) throw InputError("copyToHost: the image's pointer is not device memory");
    int current = 0;
    WF_CUDA_CHECK(cudaGetDevice(&current));
    WF_CUDA_CHECK(cudaSetDevice(attributes.device));
    // The image may still be in flight on a host's stream (RenderOptions::cudaStream).
    cudaError_t synced = cudaDeviceSynchronize();
    cudaError_t copied = synced == cudaSuccess ? cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) : synced;
    WF_CUDA_CHECK(cudaSetDevice(current));
    WF_CUDA_CHECK(copied);
}

std::unique_ptr<RenderBackend> makeCudaRenderBackend(const Scene& scene, const RenderOptions& options) {
    const int available = cudaDeviceCount();
    if (available == 0) throw InputError("the CUDA backend was requested but no CUDA device is available");
    std::vector<int> ids = options.devices;
    if (ids.empty())
        for (int d = 0; d < available; ++d) ids.push_back(d);
    for (int id : ids)
        if (id >= available)
            throw InputError("CUDA device " + std::to_string(id) + " does not exist (this machine has " +
                             std::to_string(available) + ": 0.." + std::to_string(available - 1) + ")");
    int current = 0;
    WF_CUDA_CHECK(cudaGetDevice(&current));
    if (ids.size() == 1 && ids[0] == current)
        return std::make_unique<ExecRenderBackend<CudaExec>>(scene, options, static_cast<cudaStream_t>(options.cudaStream));
    if (options.cudaStream)
        throw InputError("a CUDA stream needs the renderer on one device, the calling thread's current one: set devices to {" +
                         std::to_string(current) + "}");
    // Several devices, or one that is not the caller's: each works on a thread of its own with
    // its device current, so the caller's current device never changes. A device takes part
    // of another's piece only when that saves more than a stream's fill and drain (about a
    // millisecond on an H100).
    constexpr double kMinStealSeconds = 2e-3;
    return std::make_unique<MultiDeviceBackend<CudaExec>>(
        ids, [](int id) { WF_CUDA_CHECK(cudaSetDevice(id)); },
        [&scene, &options](int) { return std::make_unique<ExecRenderBackend<CudaExec>>(scene, options); },
        kMinStealSeconds);
}

}  // namespace wavefront
