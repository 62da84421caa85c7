// Internal: what Renderer needs from a backend. One implementation (ExecRenderBackend) is
// instantiated per exec type; the CUDA one lives in a .cu file so host code needs no CUDA header.
#pragma once
#include <memory>

#include "wavefront/renderer.h"

namespace wavefront {

class RenderBackend {
public:
    virtual ~RenderBackend() = default;
    virtual void render(const RenderOptions& options, Film& film, RenderStats& stats) = 0;
    virtual std::string name() const = 0;
};

std::unique_ptr<RenderBackend> makeCpuRenderBackend(const Scene& scene, const RenderOptions& options);
/// Throws InputError when the build has no CUDA backend or no device is present.
std::unique_ptr<RenderBackend> makeCudaRenderBackend(const Scene& scene, const RenderOptions& options);

}  // namespace wavefront
