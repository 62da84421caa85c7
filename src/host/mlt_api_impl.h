// Template body of mlt_api.h, instantiated for each exec (cpu_backend.cpp, pt_cuda.cu).
#pragma once
#include "host/mlt_api.h"
#include "kernels/scene_upload.h"

namespace wavefront {

template <class Exec>
MltReplay renderMltAndReplayOn(Exec& exec, const Scene& scene, const RenderOptions& o) {
    o.validate();
    if (o.streamCapacity < 1) throw InputError("the replay check needs an explicit chain count (stream capacity)");
    SceneBuffers<Exec> buffers = uploadScene(exec, scene, o.lightSampler);
    SceneView view = buffers.view(o.width, o.height);
    const int numPixels = o.width * o.height;
    Buffer<float> sum = exec.template allocate<float>(std::size_t(3) * numPixels);
    Buffer<unsigned> counts = exec.template allocate<unsigned>(numPixels);
    Buffer<unsigned long long> nonFinite = exec.template allocate<unsigned long long>(1);
    exec.fill(sum.data(), 0.0f, std::size_t(3) * numPixels);
    exec.fill(counts.data(), 0u, numPixels);
    exec.fill(nonFinite.data(), 0ull, 1);
    BdptParams params = makeBdptParams(view, o.maxDepth, o.cameraConnections);
    const std::uint64_t mutations = std::uint64_t(numPixels) * std::uint64_t(o.samplesPerPixel);
    MltDriver<Exec> driver(exec, o.streamCapacity, o.maxDepth, o.cameraConnections, o.connectThreshold,
                           o.coalescedVertexWrites,
                           MltSettings{o.largeStepProbability, o.startupResampling, o.seed,
                                       mltPoolSize(o.streamCapacity, mutations)});
    driver.render(view, params, FilmView{sum.data(), counts.data(), nonFinite.data()}, 0, mutations,
                  [](std::uint64_t) {});
    return driver.replay(view, params);
}

}  // namespace wavefront
