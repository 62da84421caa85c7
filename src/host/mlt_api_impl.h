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
    FilmBuffers<Exec> film(exec, numPixels);
    BdptParams params = makeBdptParams(view, o.maxDepth, o.cameraConnections);
    const std::uint64_t mutations = std::uint64_t(numPixels) * std::uint64_t(o.samplesPerPixel);
    MltDriver<Exec> driver(exec, o.streamCapacity, o.maxDepth, o.cameraConnections,
                           o.connectThresholdOrDefault(), o.coalescedVertexWrites,
                           MltSettings{o.largeStepProbability, o.startupResampling, o.seed,
                                       mltPoolSize(o.streamCapacity, mutations)});
    NoBudget budget;
    driver.render(view, params, film.view(), mutations, budget);
    return driver.replay(view, params);
}

}  // namespace wavefront
