// The path tracer's runner: one driver for the film, the film's next sample index (renderMore
// continues the indices, so 2 + 3 samples per pixel are the 5 of one render), its statistics.
#pragma once
#include <memory>

#include "host/integrators/integrator_runner.h"
#include "host/integrators/pt_driver.h"

namespace wavefront {

template <class Exec>
class PtRunner : public IntegratorRunner<Exec> {
public:
    /// The rate of whole-path launches (PathTracerDriver's launch sizer) is kept per schedule in
    /// the backend's `kept` values, so that a later film's first launch is sized by time too.
    /// `pt`: the row's options block (RenderOptions::pt).
    PtRunner(Exec& exec, const RenderOptions& o, const PtOptions& pt, const RunnerStart& start)
        : options_(o), block_(pt),
          driver_(exec, pt.variant, runner::streamSlots(exec, o, start.firstCall),
                  &start.kept[std::string("pt launch rate ") + toString(pt.variant)]) {}

    std::uint64_t render(const SceneView& scene, const FilmView& film, std::uint64_t asked,
                         RenderBudget& budget) override {
        const std::uint64_t pass = runner::filmPixels(options_);
        PtParams params;
        params.sampler = HashSampler(options_.seed, runner::filmWindow(options_));
        params.maxDepth = options_.maxDepth;
        params.rouletteDepth = options_.rouletteDepth;
        params.nextEventEstimation = block_.nextEventEstimation;
        params.numPixels = int(pass);
        std::uint64_t count = runner::sampleCount(next_, asked, runner::sampleLimit(options_), budget.timeLimited());
        std::uint64_t done = driver_.render(scene, params, film, next_, count, budget);
        next_ += done;
        return done;
    }

    void seek(std::uint64_t sample) override { next_ = sample; }

    void finish(std::uint64_t filmSamples, RenderStats& stats) override {
        stats.samples = filmSamples;
        stats.extensionRays = driver_.extensionRays();
        stats.shadowRays = driver_.shadowRays();
        stats.streamCapacity = driver_.bytesPerSlot() == 0 ? 0 : driver_.capacity();  // megakernel, PT+R: no stream
        stats.bytesPerSampleSlot = driver_.bytesPerSlot();
        runner::attachSimd(stats, driver_.simdEfficiency(), simdKernelLabel, kSimdKernelCount);
    }

private:
    RenderOptions options_;
    PtOptions block_;
    PathTracerDriver<Exec> driver_;
    std::uint64_t next_ = runner::firstSample(options_);  ///< the film's next work index
};

}  // namespace wavefront
