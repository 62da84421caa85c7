// VCM's runner (VCM, BPM, PPM): one driver with its light vertex cache (bounded by memory), the
// film's next sample index, the statistics.
#pragma once
#include <algorithm>

#include "host/integrators/integrator_runner.h"
#include "host/integrators/vcm_driver.h"
#include "host/integrators/vcm_integrator.h"

namespace wavefront {

template <class Exec>
class VcmRunner : public IntegratorRunner<Exec> {
public:
    /// `v`: the row's options block (RenderOptions::vcm, ::bpm or ::ppm), `mode` the row's.
    VcmRunner(Exec& exec, const RenderOptions& o, const VcmOptions& v, VcmMode mode, const RunnerStart& start)
        : options_(o), block_(v), mode_(mode),
          driver_(exec, v.variant, lightPathsFor(exec, o, v), int(runner::filmPixels(o)), o.maxDepth) {
        (void)start;
    }

    std::uint64_t render(const SceneView& scene, const FilmView& film, std::uint64_t asked, RenderBudget& budget) override {
        VcmSetup setup;
        setup.mode = mode_;
        setup.params = makeBdptParams(scene, options_.maxDepth, true, int(runner::filmPixels(options_)));
        // Pixels at the camera's target distance, in scene units (the full frame's pixels).
        const float pixel = 2.0f * scene.camera.targetDistance * scene.camera.tanHalfFovY / float(scene.height);
        setup.baseRadius = block_.radius * pixel;
        setup.alpha = block_.alpha;
        std::uint64_t count = runner::sampleCount(next_, asked, runner::sampleLimit(options_), budget.timeLimited());
        std::uint64_t done = driver_.render(scene, setup, HashSampler(options_.seed, runner::filmWindow(options_)), film,
                                            next_, count, budget);
        next_ += done;
        return done;
    }

    void seek(std::uint64_t sample) override { next_ = sample; }

    void finish(std::uint64_t filmSamples, RenderStats& stats) override {
        const VcmCounters k = driver_.counters();
        stats.samples = filmSamples;
        stats.extensionRays = k.extensionRays;
        stats.shadowRays = k.shadowRays;
        stats.vcm.iterations = driver_.iterations();
        stats.vcm.lightPaths = driver_.lightPathsTraced();
        stats.vcm.merges = k.merges;
        stats.vcm.connections = k.connections;
        stats.vcm.cachedVertices = driver_.cachedVertices();
        stats.vcm.lastRadius = driver_.lastRadius();
        stats.streamCapacity = driver_.lightPaths();
        runner::attachSimd(stats, driver_.simdEfficiency(), vcmSimdLabel, kVcmSimdKernelCount);
    }

private:
    /// VcmOptions::lightPaths, or one per pixel of the pass; refused (one line) when the light
    /// vertex cache would take more than half of the device's free memory.
    static int lightPathsFor(const Exec& exec, const RenderOptions& o, const VcmOptions& v) {
        const std::uint64_t paths = v.lightPaths > 0 ? std::uint64_t(v.lightPaths) : runner::filmPixels(o);
        const std::size_t bytes = VcmDriver<Exec>::plannedBytes(v.variant, paths, runner::filmPixels(o), o.maxDepth);
        if (bytes > exec.freeMemoryBytes() / 2)
            throw InputError("the light vertex cache for " +
                             std::to_string(paths) + " light paths at max depth " + std::to_string(o.maxDepth) + " needs " +
                             std::to_string(bytes >> 20) + " MiB, more than half the free device memory: lower " +
                             "--light-paths, the resolution or --max-depth");
        return int(paths);
    }

    RenderOptions options_;
    VcmOptions block_;
    VcmMode mode_;
    VcmDriver<Exec> driver_;
    std::uint64_t next_ = runner::firstSample(options_);
};

}  // namespace wavefront
