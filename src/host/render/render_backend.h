// Internal: what Renderer needs from a backend. One implementation (ExecRenderBackend) is
// instantiated per exec type; the CUDA one lives in a .cu file so host code needs no CUDA header.
#pragma once
#include <memory>

#include "host/integrators/render_budget.h"
#include "host/device_scene/scene_edit.h"
#include "wavefront/renderer.h"

namespace wavefront {

class RenderBackend {
public:
    virtual ~RenderBackend() = default;
    /// Runs one call into the backend's film (fresh or accumulated) and fills in the statistics
    /// of everything on it; the film stays where the backend keeps it.
    virtual void render(const RenderOptions& options, const RenderCall& call, RenderStats& stats) = 0;
    /// Copies the film (sums, counts, AOVs) out, as the integrator normalises it.
    virtual void downloadFilm(const RenderOptions& options, Film& film) = 0;
    virtual std::string name() const = 0;
    /// Brings the device's scene in line with `scene`, which `edit` has changed (every device's,
    /// on a multi-device backend).
    virtual EditStats applyEdit(const Scene& scene, const SceneEdit& edit, const RenderOptions& options) = 0;
    /// Copies `count` vertex positions from vertex `first` of the backend's scene out (after
    /// Renderer::setMeshPositionsOnDevice the device's are newer than the host scene's).
    virtual void downloadPositions(std::size_t first, std::size_t count, glm::vec3* out) = 0;
    /// Renderer::deviceImage(): the film's estimate in memory the backend owns.
    virtual DeviceImage resolveOnDevice(const RenderOptions& options) = 0;
};

std::unique_ptr<RenderBackend> makeCpuRenderBackend(const Scene& scene, const RenderOptions& options);
/// copyToHost() of device memory: waits for the device that holds `src`, then copies (Error
/// without the CUDA backend).
void copyFromCudaDevice(void* dst, const void* src, std::size_t bytes);
/// Throws InputError when the build has no CUDA backend or no device is present.
std::unique_ptr<RenderBackend> makeCudaRenderBackend(const Scene& scene, const RenderOptions& options);

}  // namespace wavefront
