// BDPT's runner: the slots a film takes (the stream capacity, bounded by memory), one driver, the
// film's next sample index, the statistics.
#pragma once
#include <memory>

#include "host/integrators/bdpt_driver.h"
#include "host/integrators/integrator_runner.h"

namespace wavefront {

/// Ray, connection and SIMD figures of a BDPT driver (BDPT's own, or the one under MLT).
template <class Exec>
void bdptDriverStats(BdptDriver<Exec>& driver, RenderStats& stats) {
    stats.extensionRays = driver.extensionRays();
    stats.shadowRays = driver.shadowRays();
    stats.bdpt.connections = driver.connections();
    stats.bdpt.connectPhases = driver.connectPhases();
    std::tie(stats.bdpt.walkSimdEfficiency, stats.bdpt.connectSimdEfficiency) = driver.phaseSimdEfficiency();
    runner::attachSimd(stats, driver.simdEfficiency(), bdptSimdLabel, kBdptSimdKernelCount);
}

template <class Exec>
class BdptRunner : public IntegratorRunner<Exec> {
public:
    /// `b`: the row's options block (RenderOptions::bdpt).
    BdptRunner(Exec& exec, const RenderOptions& o, const BdptOptions& b, const RunnerStart& start)
        : options_(o), block_(b),
          driver_(exec, b.variant,
                  std::max(1, std::min(runner::streamSlots(exec, o, start.firstCall),
                                       BdptDriver<Exec>::slotLimit(exec.freeMemoryBytes(), o.maxDepth, b.variant))),
                  o.maxDepth, b.connectThresholdOrDefault(), b.coalescedVertexWrites) {}

    std::uint64_t render(const SceneView& scene, const FilmView& film, std::uint64_t asked,
                         RenderBudget& budget) override {
        BdptParams params =
            makeBdptParams(scene, options_.maxDepth, block_.cameraConnections, int(runner::filmPixels(options_)));
        params.onlyS = block_.strategyS;
        params.onlyT = block_.strategyT;
        std::uint64_t count = runner::sampleCount(next_, asked, runner::sampleLimit(options_), budget.timeLimited());
        std::uint64_t done = driver_.render(scene, params, HashSampler(options_.seed, runner::filmWindow(options_)), film,
                                            next_, count, budget);
        next_ += done;
        return done;
    }

    void seek(std::uint64_t sample) override { next_ = sample; }

    void finish(std::uint64_t filmSamples, RenderStats& stats) override {
        stats.samples = filmSamples;
        bdptDriverStats(driver_, stats);
        stats.streamCapacity = driver_.slots();
        stats.bytesPerSampleSlot = driver_.bytesPerSlot();
    }

private:
    RenderOptions options_;
    BdptOptions block_;
    BdptDriver<Exec> driver_;
    std::uint64_t next_ = runner::firstSample(options_);  ///< the film's next work index
};

}  // namespace wavefront
