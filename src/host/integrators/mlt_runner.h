// The Metropolis integrators' runner (MLT and MMLT): how many chains a film takes, its driver (the
// chains persist through renderMore), its statistics, and the film's normalisation (mutations per
// pixel).
#pragma once
#include <climits>
#include <cmath>
#include <memory>

#include "host/integrators/bdpt_runner.h"
#include "host/integrators/mlt_driver.h"
#include "host/integrators/mlt_integrator.h"

namespace wavefront {

template <class Exec>
class MltRunner : public IntegratorRunner<Exec> {
public:
    /// Chains: the requested count, or the exec's chain count (defaultChainCount: on a GPU what
    /// fills it) but at least 16 mutations each (a time-limited render takes the exec's count);
    /// never more than the first call's mutations (a chain that never mutates is wasted) nor than
    /// half of the free memory holds.
    static int chainCount(const Exec& exec, const RenderOptions& o, std::uint64_t firstCall, bool timed) {
        std::uint64_t device = std::uint64_t(exec.defaultChainCount());
        const int asked = MltIntegrator::askedChains(o);
        std::uint64_t chains = asked > 0 ? std::uint64_t(asked) : (timed ? device : std::min(device, firstCall / 16));
        if (!timed) chains = std::min(chains, firstCall);
        return std::max(1, std::min(int(std::min<std::uint64_t>(chains, INT_MAX)),
                                    MltDriver<Exec>::chainLimit(exec.freeMemoryBytes(), o.maxDepth, metropolisOptions(o).cameraConnections)));
    }

    MltRunner(Exec& exec, const RenderOptions& o, const RunnerStart& start)
        : options_(o),
          driver_(makeDriver(exec, o, chainCount(exec, o, start.firstCall, start.timed), start.timed ? 0 : start.firstCall,
                             start.scene.camera.lensRadius > 0.0f)) {}

    /// The driver for `chains` chains, its start-up pool sized for a first call of `firstCall`
    /// mutations (0: time-limited); `lens`: the scene's camera has a lens.
    static MltDriver<Exec> makeDriver(Exec& exec, const RenderOptions& o, int chains, std::uint64_t firstCall,
                                      bool lens) {
        MltIntegrator::checkPoolCoversChains(o, chains, "the chain policy picked");
        const MltOptions& m = metropolisOptions(o);
        const bool policy = m.poolSize == 0;
        MltSettings settings{m.largeStepProbability, m.smallStep, m.startupResampling, o.seed,
                             policy ? mltPoolSize(chains, firstCall > 0 ? firstCall : ~std::uint64_t(0)) : m.poolSize,
                             lens, policy && firstCall == 0, o.integrator == IntegratorType::Mmlt, m.relativeImportance};
        return MltDriver<Exec>(exec, chains, o.maxDepth, m.cameraConnections, m.connectThresholdOrDefault(),
                               m.coalescedVertexWrites, settings);
    }

    std::uint64_t render(const SceneView& scene, const FilmView& film, std::uint64_t asked,
                         RenderBudget& budget) override {
        BdptParams params = makeBdptParams(scene, options_.maxDepth, metropolisOptions(options_).cameraConnections);
        return driver_.render(scene, params, film, asked, budget);
    }

    // The exchange of b between devices carries one (sum, count): MLT's. Multiplexed MLT posts
    // none (each device keeps the b_l of its own bootstrap) until the exchange carries the
    // driver's vectors: sharedState() { return driver_.ownNormalizationSamples(); } and
    // absorbSharedState(v) { driver_.absorbNormalizationSamples(v); }.
    std::pair<double, double> normalizationSamples() override {
        const std::vector<double> own = driver_.ownNormalizationSamples();
        return own.size() == 2 ? std::pair<double, double>{own[0], own[1]} : std::pair<double, double>{0.0, 0.0};
    }
    void shareNormalizationSamples(double sum, double count) override {
        driver_.absorbNormalizationSamples({sum, count});
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
    MltDriver<Exec> driver_;
};

}  // namespace wavefront
