// The MLT driver: chains on the streaming BDPT schedule (one chain per sample slot), start-up by
// resampling a pool of BDPT samples, mutation, and the replay check. A template over the exec
// type, like the other drivers.
#pragma once
#include <vector>

#include "kernels/mlt.h"

namespace wavefront {

struct MltSettings {
    float largeStepProbability = 0.5f;
    /// Start every chain from a pool of BDPT samples chosen in proportion to I (Veach 1997), with
    /// b from the pool as well; false: each chain starts from one uniform sample of its own.
    bool startupResampling = true;
    std::uint32_t seed = 0;
    /// Start-up pool size (mltPoolSize); at least one sample per chain.
    int poolSize = 0;
};

/// Start-up pool: at least one sample per chain and up to 65536 (but no more than the first
/// render's mutations): a pool of one sample per chain leaves a few chains far from the target
/// distribution (5% dark at 64 chains in a review experiment; none measurable with 65536).
inline int mltPoolSize(int chains, std::uint64_t firstMutations) {
    return int(std::max<std::uint64_t>(std::uint64_t(chains), std::min<std::uint64_t>(65536, firstMutations)));
}

/// Bytes per chain (film excluded; the paper's Table 6 has 4434 for MLT): the BDPT slot, two
/// slots of primary samples, two contribution records, and the chain's decision state.
inline std::size_t mltBytesPerChain(int maxDepth, bool cameraConnections) {
    MltLayout layout = MltLayout::forDepth(maxDepth);
    std::size_t splats = cameraConnections ? std::size_t(maxDepth) : 0;
    return bdptBytesPerSlot(BdptVariant::Streaming, maxDepth) + 2 * sizeof(float) * layout.perSlot() +
           2 * (sizeof(Float4) * (1 + splats) + sizeof(int)) + 3 * sizeof(int) + sizeof(float) + sizeof(double) +
           2 * sizeof(double) /* start-up pool weight and its CDF entry */;
}

/// Chains for an MLT render: the requested count, bounded by memory (half of what is free), by
/// the chain field of the sample index and by the connection count fitting an int.
inline int mltChainLimit(std::size_t freeBytes, int maxDepth, bool cameraConnections) {
    std::size_t byMemory = freeBytes / 2 / mltBytesPerChain(maxDepth, cameraConnections);
    std::size_t limit = std::min<std::size_t>(byMemory, std::size_t(mltindex::kMaxChains));
    return std::min(int(limit), bdptSlotLimit(~std::size_t(0), maxDepth, BdptVariant::Streaming));
}

/// What the replay check found: per chain, the stored I and vertex counts of the current sample,
/// and those of the sample rebuilt from its stored primary samples alone.
struct MltReplay {
    std::vector<float> storedI, replayedI;
    std::vector<int> storedEyeBlocks, replayedEyeBlocks, storedLightBlocks, replayedLightBlocks;
    std::vector<std::uint64_t> mutations;  ///< per chain: the mutations it has made
};

template <class Exec>
class MltDriver {
public:
    MltDriver(Exec& exec, int chains, int maxDepth, bool cameraConnections, float connectThreshold,
              bool coalescedScatter, const MltSettings& settings)
        : exec_(exec), chains_(chains), settings_(settings), layout_(MltLayout::forDepth(maxDepth)),
          maxSplats_(cameraConnections ? maxDepth : 0),
          bdpt_(exec, BdptVariant::Streaming, chains, maxDepth, connectThreshold, coalescedScatter) {
        if (chains < 1 || chains > mltindex::kMaxChains)
            throw InputError("MLT needs 1 to " + std::to_string(mltindex::kMaxChains) + " chains");
        numbers_ = exec_.template allocate<float>(std::size_t(2) * chains_ * layout_.perSlot());
        state_ = exec_.template allocate<int>(chains_);
        exec_.fill(state_.data(), 0, chains_);
        proposalEyeBlocks_ = exec_.template allocate<int>(chains_);
        proposalLightBlocks_ = exec_.template allocate<int>(chains_);
        nextMutation_ = exec_.template allocate<std::uint64_t>(chains_);
        exec_.fill(nextMutation_.data(), std::uint64_t(0), chains_);
        allocateRecords(eye_, splats_, splatCount_);
        currentI_ = exec_.template allocate<float>(chains_);
        startI_ = exec_.template allocate<float>(chains_);
        currentWeight_ = exec_.template allocate<double>(chains_);
        exec_.fill(currentWeight_.data(), 0.0, chains_);
        sums_ = exec_.template allocate<double>(2 * kMltSumPartials);
        exec_.fill(sums_.data(), 0.0, 2 * kMltSumPartials);
        stepSums_ = exec_.template allocate<double>(std::size_t(2) * kMltSumPartials * kMltStepBins);
        exec_.fill(stepSums_.data(), 0.0, std::size_t(2) * kMltSumPartials * kMltStepBins);
        steps_ = exec_.template allocate<std::uint64_t>(2);  // folded, complete
        exec_.fill(steps_.data(), std::uint64_t(0), 2);
        normalization_ = exec_.template allocate<float>(1);
        counters_ = exec_.template allocate<MltCounters>(1);
        exec_.fill(counters_.data(), MltCounters{0, 0, 0}, 1);
    }

    /// Runs `count` more mutations of the chains into the film (starting the chains on the first
    /// call), asking `budget.check(done)` now and then (done: mutations started by this call).
    /// Mutation m = k * chains + c is chain c's k-th; a call runs every mutation below its end, the
    /// end of the previous call plus `count`. A time-limited budget instead moves the end forward
    /// one mutation per chain (rounded up to a pass) at a time, up to kTimedStepsAhead ahead of
    /// what has started, as long as the time left covers the work below it at the rate measured so
    /// far; a cancellation ends it at once (chains behind catch up in the next call). Returns the
    /// mutations run.
    template <class Budget>
    std::uint64_t render(const SceneView& scene, const BdptParams& params, const FilmView& film, std::uint64_t count,
                         Budget& budget) {
        if (!started_) start(scene, params, film);
        const std::uint64_t first = end_, pass = std::uint64_t(std::max(params.numPixels, 1));
        const std::uint64_t chains = std::uint64_t(chains_), step = (chains + pass - 1) / pass * pass;
        const bool timed = budget.timeLimited();
        std::uint64_t end = first + (timed ? step : count);
        if (end / chains >= mltindex::kMaxMutations) throw InputError("too many MLT mutations for one renderer");
        const double mutateStart = budget.elapsed();
        RunVerdict applied = RunVerdict::Continue;
        auto setEnd = [&](std::uint64_t e) { exec_.parallelFor("mlt end", 1, SetEndStage{bdpt_.workRange(), e}); };
        auto steer = [&](const BdptControl& seen, bool idle) {
            RunVerdict v = budget.check(seen.started);
            if (v == RunVerdict::Stop) {
                if (applied != RunVerdict::Stop) setEnd(0);
                applied = RunVerdict::Stop;
                return false;
            }
            if (!timed || applied != RunVerdict::Continue) return false;
            if (v == RunVerdict::FinishPass) {
                applied = v;
                return false;
            }
            // Raise the end once a step's worth has started (a rate to go by), while it is less
            // than kTimedStepsAhead steps ahead, if the time left covers the work below it.
            const std::uint64_t target = end - first, started = std::min<std::uint64_t>(seen.started, target);
            if (!idle && (seen.started < chains || target >= started + kTimedStepsAhead * step)) return false;
            double rate = double(seen.started) / std::max(budget.elapsed() - mutateStart, 1e-9);
            if (budget.elapsed() + double(target + step - started) / std::max(rate, 1.0) > budget.timeLimit()) {
                applied = RunVerdict::FinishPass;
                return false;
            }
            end += step;
            setEnd(end);
            return true;
        };
        BdptControl k = runPhase(scene, params, film, MltPhase::Mutate, first, end - first, steer);
        // A cancelled call leaves the chains at different counts; the next call brings them level
        // with the chain furthest ahead rather than to the cancelled call's end.
        end_ = applied == RunVerdict::Stop ? startedEnd() : end;
        exec_.parallelFor("mlt flush", chains_, FlushStage{sink(film), this->chains(), state_.data(), film});
        return k.started;
    }

    /// Rebuilds every chain's current sample from its stored primary samples (one thread per
    /// chain, the naive schedule) and reports its I and vertex counts next to the stored ones.
    MltReplay replay(const SceneView& scene, const BdptParams& params) {
        Buffer<Float4> eye, splats;
        Buffer<int> splatCount;
        allocateRecords(eye, splats, splatCount);
        Buffer<unsigned long long> nonFinite = exec_.template allocate<unsigned long long>(1);
        exec_.fill(nonFinite.data(), 0ull, 1);
        ChainSink scratch{eye.data(), splats.data(), splatCount.data(), maxSplats_, nullptr, nonFinite.data()};
        auto c = bdpt_.context(scene, params, sampler(MltPhase::Replay, DistributionView{}), scratch);
        NoBudget quiet;
        bdpt_.renderNaive(c, 0, std::uint64_t(chains_), quiet);
        Buffer<float> replayed = exec_.template allocate<float>(chains_);
        exec_.parallelFor("mlt replay luminance", chains_, ReplayLuminanceStage{scratch, replayed.data()});
        MltReplay r;
        r.storedI = download(currentI_);
        r.replayedI = download(replayed);
        r.replayedEyeBlocks = download(proposalEyeBlocks_);
        r.replayedLightBlocks = download(proposalLightBlocks_);
        r.mutations = download(nextMutation_);
        for (int st : download(state_)) {
            r.storedEyeBlocks.push_back(mltstate::eyeBlocks(st));
            r.storedLightBlocks.push_back(mltstate::lightBlocks(st));
        }
        return r;
    }

    MltCounters counters() {
        MltCounters k;
        exec_.download(&k, counters_.data(), 1);
        return k;
    }
    /// The normalisation b as of now.
    double normalization() { return normalizationOf(download(sums_).data()); }
    BdptDriver<Exec>& bdpt() { return bdpt_; }
    int chainCount() const { return chains_; }

private:
    std::uint64_t startedEnd() {
        Buffer<std::uint64_t> result = exec_.template allocate<std::uint64_t>(1);
        exec_.transformReduceDevice(chains_, std::uint64_t(0), StartedEndOf{nextMutation_.data(), std::uint64_t(chains_)},
                                    MaxOf{}, result.data());
        return download(result)[0];
    }
    template <class T>
    std::vector<T> download(const Buffer<T>& b) {
        std::vector<T> v(b.size());
        exec_.download(v.data(), b.data(), v.size());
        return v;
    }
    void allocateRecords(Buffer<Float4>& eye, Buffer<Float4>& splats, Buffer<int>& splatCount) {
        eye = exec_.template allocate<Float4>(std::size_t(2) * chains_);
        splats = exec_.template allocate<Float4>(std::max<std::size_t>(std::size_t(2) * chains_ * maxSplats_, 1));
        splatCount = exec_.template allocate<int>(std::size_t(2) * chains_);
    }
    MltSampler sampler(MltPhase phase, const DistributionView& choice) const {
        HashSampler fresh(settings_.seed);
        HashSampler perturb(settings_.seed ^ 0x5bd1e995u), decide(settings_.seed ^ 0xc2b2ae35u);
        HashSampler pool(settings_.seed ^ 0x27d4eb2fu);
        return MltSampler{fresh, perturb, decide, pool, numbers_.data(), state_.data(), proposalEyeBlocks_.data(),
                          proposalLightBlocks_.data(), nextMutation_.data(), steps_.data(), chains_, layout_, phase,
                          settings_.largeStepProbability, choice};
    }
    /// Records the proposals of the chains; non-finite contributions are counted on `film`.
    ChainSink sink(const FilmView& film) const {
        return ChainSink{eye_.data(), splats_.data(), splatCount_.data(), maxSplats_, state_.data(), film.nonFinite};
    }
    MltChains chains() const {
        return MltChains{currentI_.data(), currentWeight_.data(), sums_.data(), stepSums_.data(), steps_.data(),
                         steps_.data() + 1, normalization_.data(), poolWeights_.data(), counters_.data(),
                         startI_.data(), settings_.largeStepProbability, !settings_.startupResampling,
                         weightedStart_};
    }

    /// One phase of the chains on the streaming BDPT schedule over work [first, first + count),
    /// with the decision after every connect phase; `steer` as for BdptDriver::renderStreaming.
    template <class Steer>
    BdptControl runPhase(const SceneView& scene, const BdptParams& params, const FilmView& film, MltPhase phase,
                         std::uint64_t first, std::uint64_t count, const Steer& steer,
                         const DistributionView& choice = DistributionView{}) {
        auto c = bdpt_.context(scene, params, sampler(phase, choice), sink(film));
        MltChains ch = chains();
        return bdpt_.renderStreaming(c, first, count, [&](const auto& ctx) {
            if (phase == MltPhase::Mutate) {
                exec_.transformReduceDevice(chains_, ~std::uint64_t(0), DecidedStepsOf{nextMutation_.data()}, MinOf{},
                                            steps_.data() + 1);
                exec_.parallelFor("mlt normalisation", 1, NormalizationStage{ch});
            }
            exec_.parallelFor("mlt decide", chains_, DecideStage<std::decay_t<decltype(ctx)>>{ctx, ch, film});
        }, steer);
    }

    /// Chain start-up: a pool of BDPT samples (one per chain), then every chain takes a pool
    /// sample chosen in proportion to I; or, without resampling, one uniform sample of its own,
    /// whose I weights everything the chain contributes (MltChains::weightedStart).
    void start(const SceneView& scene, const BdptParams& params, const FilmView& film) {
        auto quiet = [](const BdptControl&, bool) { return false; };
        DistributionView choice{};
        Distribution<Exec> pool;
        if (settings_.startupResampling) {
            int size = std::max(settings_.poolSize, chains_);
            poolWeights_ = exec_.template allocate<double>(size);
            runPhase(scene, params, film, MltPhase::Pool, 0, std::uint64_t(size), quiet);
            // A pool that found no light at all (a black image so far) leaves each chain on a
            // uniform sample of its own.
            if (normalization() > 0.0) {
                pool.build(exec_, poolWeights_.data(), size, 1, LightSampler::BinarySearch);
                choice = pool.view();
            }
        }
        weightedStart_ = choice.count == 0;
        runPhase(scene, params, film, MltPhase::Start, 0, std::uint64_t(chains_), quiet, choice);
        exec_.synchronize();
        poolWeights_ = Buffer<double>();
        started_ = true;
    }

    Exec& exec_;
    int chains_;
    MltSettings settings_;
    MltLayout layout_;
    int maxSplats_;
    BdptDriver<Exec> bdpt_;
    Buffer<float> numbers_;
    Buffer<int> state_, proposalEyeBlocks_, proposalLightBlocks_;
    Buffer<std::uint64_t> nextMutation_;
    Buffer<Float4> eye_, splats_;
    Buffer<int> splatCount_;
    Buffer<float> currentI_, startI_;
    Buffer<double> currentWeight_;
    Buffer<double> sums_, stepSums_, poolWeights_;
    Buffer<std::uint64_t> steps_;  ///< MltChains::foldedSteps, MltChains::completeSteps
    Buffer<float> normalization_;
    Buffer<MltCounters> counters_;
    bool started_ = false;
    bool weightedStart_ = false;  ///< chains start from uniform samples of their own (MltChains)
    std::uint64_t end_ = 0;  ///< mutation numbers below this are run (the end of the last call)
    /// A time-limited render keeps its end up to this many mutations per chain ahead of what has
    /// started (enough that chains whose paths are short rarely wait for the end to move).
    static constexpr std::uint64_t kTimedStepsAhead = 4;
};

}  // namespace wavefront
