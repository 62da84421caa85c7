// The Metropolis integrators' runner (MLT and MMLT): how many chains a film takes, its driver (the
// chains persist through renderMore), its statistics, and the film's normalisation (mutations per
// pixel).
#pragma once
#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <vector>

#include "host/integrators/bdpt_runner.h"
#include "host/integrators/mlt_driver.h"
#include "host/integrators/mlt_integrator.h"

namespace wavefront {

template <class Exec>
class MltRunner : public IntegratorRunner<Exec> {
public:
    /// The chains that fill the exec when the user names no count: on a GPU the stream's slots
    /// (262144 chains ran 63 M mutations/s on door-ajar on an H100, 2.16 M ran 100 M/s); on the
    /// CPU a chunk of parallelFor for every thread (the items of a per-chain stage that run at
    /// once), at least 4096 and at most the stream's 65536: every step moves each chain one
    /// mutation, so fewer chains end a time limit on time (on 2 cores a 0.5 s MLT render took
    /// 0.86 s with 65536 chains and 0.49 s with 4096, running 25% more mutations; 1.54 s and
    /// 0.65 s with both cores loaded).
    static int execChains(const Exec& exec) {
        if constexpr (Exec::kIsGpu)
            return exec.defaultStreamCapacity();
        else
            return std::min(exec.defaultStreamCapacity(), std::max(1 << 12, exec.template residentThreads<FlushStage>()));
    }

    /// Chains: the requested count, or the exec's (execChains) but at least 16 mutations each (a
    /// time-limited render takes the exec's count); never more than the first call's mutations (a
    /// chain that never mutates is wasted) nor than half of the free memory holds.
    static int chainCount(const Exec& exec, const RenderOptions& o, const MltOptions& m, std::uint64_t firstCall, bool timed) {
        std::uint64_t device = std::uint64_t(execChains(exec));
        const int asked = MltIntegrator::askedChains(m, o);
        std::uint64_t chains = asked > 0 ? std::uint64_t(asked) : (timed ? device : std::min(device, firstCall / 16));
        if (!timed) chains = std::min(chains, firstCall);
        return std::max(1, std::min(int(std::min<std::uint64_t>(chains, INT_MAX)),
                                    MltDriver<Exec>::chainLimit(exec.freeMemoryBytes(), o.maxDepth, m.cameraConnections)));
    }

    /// `m`: the row's options block (RenderOptions::mlt or ::mmlt), `mode` the row's.
    MltRunner(Exec& exec, const RenderOptions& o, const MltOptions& m, MetropolisMode mode, const RunnerStart& start)
        : options_(o), block_(m),
          driver_(makeDriver(exec, o, m, mode, chainCount(exec, o, m, start.firstCall, start.timed),
                             start.timed ? 0 : start.firstCall, start.scene.camera.lensRadius > 0.0f)) {}

    /// The driver for `chains` chains, its start-up pool sized for a first call of `firstCall`
    /// mutations (0: time-limited); `lens`: the scene's camera has a lens.
    static MltDriver<Exec> makeDriver(Exec& exec, const RenderOptions& o, const MltOptions& m, MetropolisMode mode,
                                      int chains, std::uint64_t firstCall, bool lens) {
        MltIntegrator::checkPoolCoversChains(m, mode, chains, "the chain policy picked");
        const bool policy = m.poolSize == 0;
        MltSettings settings{m.largeStepProbability, m.smallStep, m.startupResampling, o.seed,
                             policy ? mltPoolSize(chains, firstCall > 0 ? firstCall : ~std::uint64_t(0)) : m.poolSize,
                             lens, policy && firstCall == 0, mode == MetropolisMode::Mmlt, m.relativeImportance};
        return MltDriver<Exec>(exec, chains, o.maxDepth, m.cameraConnections, m.connectThresholdOrDefault(),
                               m.coalescedVertexWrites, settings);
    }

    std::uint64_t render(const SceneView& scene, const FilmView& film, std::uint64_t asked,
                         RenderBudget& budget) override {
        BdptParams params = makeBdptParams(scene, options_.maxDepth, block_.cameraConnections);
        return driver_.render(scene, params, film, asked, budget);
    }

    /// What the devices share: MLT's samples of its normalisation b ({sum of I, count}), which
    /// every device's b then includes; MMLT's per-length pairs, kept for its statistics (each
    /// device weighs with the b_l of its own bootstrap: mlt_driver.h).
    std::vector<double> sharedState() override { return driver_.ownNormalizationSamples(); }
    void absorbSharedState(const std::vector<double>& othersSummed) override {
        driver_.absorbNormalizationSamples(othersSummed);
    }

    /// The film's pixel counts are not MLT's sample count: its mutations are.
    void finish(std::uint64_t /*filmSamples*/, RenderStats& stats) override {
        MltCounters k = driver_.counters();
        stats.samples = k.proposals;
        bdptDriverStats(driver_.bdpt(), stats);
        stats.streamCapacity = driver_.chainCount();
        stats.bytesPerSampleSlot = driver_.bytesPerChain();
        stats.mlt.acceptanceRate = k.proposals ? double(k.accepted) / double(k.proposals) : -1.0;
        stats.mlt.largeStepFraction = k.proposals ? double(k.largeSteps) / double(k.proposals) : -1.0;
        stats.mlt.normalization = driver_.normalization();
        stats.mlt.startupSamples = driver_.startupSamples();
        stats.mlt.pilotSamples = driver_.pilotSamples();
        stats.mlt.poolSamples = driver_.poolSamples();
        stats.mlt.startupSeconds = driver_.startupSeconds();
        stats.mlt.mutationsPerChain = double(k.proposals) / double(driver_.chainCount());
        stats.mlt.lengthChains = driver_.lengthChains();
        stats.mlt.lengthNormalization = driver_.lengthNormalizations();
    }

    FilmScale filmScale() override { return scaleFor(driver_.counters().proposals); }

private:
    /// Every mutation places its sample anywhere on the frame, so a pixel's estimate is its sum
    /// over (mutations / the frame's pixels; a crop's film holds fewer). The film says so with a
    /// whole sample count per pixel; when a cancelled call leaves a count that is not a whole
    /// number of passes, the sums are scaled to match.
    FilmScale scaleFor(std::uint64_t mutations) const {
        const double pixels = double(options_.width) * double(options_.height);
        std::uint64_t perPixel = std::uint64_t(std::llround(double(mutations) / pixels));
        if (mutations > 0) perPixel = std::max<std::uint64_t>(perPixel, 1);
        FilmScale s{std::uint32_t(perPixel), 1.0};
        if (mutations > 0 && double(perPixel) * pixels != double(mutations)) s.sumScale = double(perPixel) * pixels / double(mutations);
        return s;
    }

    RenderOptions options_;
    MltOptions block_;
    MltDriver<Exec> driver_;
};

}  // namespace wavefront
