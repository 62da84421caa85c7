// Template body of mlt_replay.h, instantiated for each exec (oracles.cpp, mlt_replay_cuda.cu).
#pragma once
#include "host/integrators/mlt_runner.h"
#include "host/render/film_buffers.h"
#include "host/device_scene/scene_upload.h"
#include "mlt_replay.h"

namespace wavefront {

template <class Exec>
MltReplay renderMltAndReplayOn(Exec& exec, const Scene& scene, const RenderOptions& o) {
    o.validate();
    if (o.streamCapacity < 1) throw InputError("the replay check needs an explicit chain count (stream capacity)");
    SceneBuffers<Exec> buffers = uploadScene(exec, scene, o.lightSampler, o.bvhBuilder);
    SceneView view = buffers.view(o.width, o.height);
    const int numPixels = o.width * o.height;
    FilmBuffers<Exec> film(exec, numPixels);
    const bool multiplexed = o.integrator == IntegratorType::Mmlt;
    const MltOptions& m = multiplexed ? o.*MmltIntegrator::kBlock : o.*MltIntegrator::kBlock;
    const MetropolisMode mode = multiplexed ? MmltIntegrator::kMode : MltIntegrator::kMode;
    BdptParams params = makeBdptParams(view, o.maxDepth, m.cameraConnections);
    const std::uint64_t mutations = std::uint64_t(numPixels) * std::uint64_t(o.samplesPerPixel);
    // The renderer's own chain policy and driver (the requested chains, bounded by memory).
    MltDriver<Exec> driver = MltRunner<Exec>::makeDriver(
        exec, o, m, mode, MltRunner<Exec>::chainCount(exec, o, m, mutations, false), mutations, view.camera.lensRadius > 0.0f);
    NoBudget budget;
    driver.render(view, params, film.view(), mutations, budget);
    return driver.replay(view, params);
}

}  // namespace wavefront
