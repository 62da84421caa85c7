// The MLT driver: chains on the streaming BDPT schedule (one chain per sample slot), start-up by
// resampling a pool of BDPT samples, mutation, and the replay check. A template over the exec
// type, like the other drivers.
#pragma once
#include <algorithm>
#include <functional>
#include <numeric>
#include <utility>
#include <vector>

#include "host/integrators/bdpt_driver.h"
#include "host/integrators/mlt_integrator.h"
#include "host/device_scene/distribution_builder.h"
#include "kernels/mlt/mlt.h"
#include "wavefront/error.h"
#include "wavefront/renderer.h"

namespace wavefront {

struct MltSettings {
    float largeStepProbability = MltOptions().largeStepProbability;
    float smallStep = MltOptions().smallStep;  ///< the small step's largest offset (KelemenStep)
    /// Start every chain from a pool of BDPT samples chosen in proportion to I (Veach 1997), with
    /// b from the pool as well; false: each chain starts from one uniform sample of its own.
    bool startupResampling = true;
    std::uint32_t seed = 0;
    /// Start-up pool size (mltPoolSize); at least one sample per chain.
    int poolSize = 0;
    /// The camera has a lens: the chains keep its numbers (MltLayout).
    bool lens = false;
    /// The pool is the policy's, not the user's: a time-limited render ends it early once it has
    /// taken kPoolShare of the time limit (with at least one sample per chain evaluated); the
    /// user's ends at the limit itself.
    bool poolFitsTime = false;
    /// Multiplexed MLT: each sample evaluates one strategy its numbers choose (mlt.h).
    bool multiplexed = false;
    /// MltOptions::relativeImportance: I over a BDPT pilot's brightness (mlt.h, PixelImportanceStage).
    bool relativeImportance = false;
};

/// BDPT samples of the relative importance's pilot: passes over the frame until about a million
/// (64 per 8 x 8 tile at 1024 x 1024), at most kMaxPilotPasses. A share of the start-up far below
/// the pool's (34.6 M samples at 1 s on an H100).
constexpr std::uint64_t kPilotSamples = std::uint64_t(1) << 20;
constexpr std::uint64_t kMaxPilotPasses = 16;
/// A time-limited render's pilot ends at the first pass boundary after this share of the limit.
constexpr double kPilotShare = 0.05;
/// The pilot's seed, the same for every render: the devices of a multi-device render (each with a
/// seed of its own for its chains, and b shared) then render the same pilot and agree on I. A
/// fixed I is as unbiased as any: it is a function of the scene, like the luminance.
constexpr std::uint32_t kPilotSeed = 0x165667b1u;
inline std::uint64_t mltPilotPasses(std::uint64_t framePixels) {
    return std::clamp<std::uint64_t>((kPilotSamples + framePixels - 1) / std::max<std::uint64_t>(framePixels, 1), 1,
                                     kMaxPilotPasses);
}

/// Start-up pool samples per chain the pool policy aims at. Chains resampled from a pool of one
/// sample per chain often start on the same sample, and at a few hundred mutations per chain they
/// stay correlated: on an H100 at 512x512 (2.16 M chains, 4 seeds) 16 samples per chain made MLT
/// 2.6x (door-ajar) and 6.4x (mirror-caustic) as efficient at 1 s, 1.6x and 3.4x at 4 s, 8 per
/// chain somewhat less (docs/decisions.md).
constexpr std::uint64_t kPoolPerChain = 16;
/// The largest pool, the policy's or the user's (MltOptions::poolSize).
constexpr std::uint64_t kMaxPoolSamples = std::uint64_t(MltIntegrator::kMaxPool);
/// The start-up's share of a render the pool policy allows: of a fixed-count render's first
/// call's mutations, or of a time-limited render's limit (its policy pool ends there).
constexpr double kPoolShare = 0.25;

/// The pool policy: kPoolPerChain samples per chain, at least 65536 (a pool of one sample per
/// chain left a few chains far from the target distribution: 5% dark at 64 chains in a review
/// experiment; none measurable with 65536); no more than kPoolShare of the first render's
/// mutations (firstMutations; a time-limited render's is unknown: ~0, and its pool ends at
/// kPoolShare of the limit instead), except that a small render's pool may be as large as
/// its mutations up to 65536; no more than kMaxPoolSamples, and never fewer than one sample per
/// chain. The quarter keeps the start-up of a device's share of a multi-GPU render in
/// proportion to that share.
inline int mltPoolSize(int chains, std::uint64_t firstMutations) {
    const std::uint64_t aim = std::max<std::uint64_t>(kPoolPerChain * std::uint64_t(chains), 65536);
    const std::uint64_t share = std::uint64_t(double(firstMutations) * kPoolShare);
    const std::uint64_t work = std::max<std::uint64_t>(share, std::min<std::uint64_t>(65536, firstMutations));
    return int(std::max<std::uint64_t>(std::uint64_t(chains), std::min({aim, work, kMaxPoolSamples})));
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
        : exec_(exec), chains_(chains), settings_(settings), layout_(MltLayout::forDepth(maxDepth, settings.lens, settings.multiplexed)),
          maxSplats_(cameraConnections ? (settings.multiplexed ? 1 : maxDepth) : 0),
          bdpt_(exec, BdptVariant::Streaming, chains, maxDepth, connectThreshold, coalescedScatter) {
        if (chains < 1 || chains > mltindex::kMaxChains)
            throw InputError("MLT needs 1 to " + std::to_string(mltindex::kMaxChains) + " chains");
        SlotAllocator<Exec> allocator(exec_, std::size_t(chains_));
        c_ = allocateChains(allocator, layout_, maxSplats_);
        bytesPerChain_ = bdpt_.bytesPerSlot() + allocator.bytesPerSlot();
        exec_.fill(c_.state.data(), 0, chains_);
        exec_.fill(c_.nextMutation.data(), std::uint64_t(0), chains_);
        exec_.fill(c_.currentWeight.data(), 0.0, chains_);
        sums_ = exec_.template allocate<double>(2 * kMltSumPartials);
        exec_.fill(sums_.data(), 0.0, 2 * kMltSumPartials);
        stepSums_ = exec_.template allocate<double>(std::size_t(2) * kMltSumPartials * kMltStepBins);
        exec_.fill(stepSums_.data(), 0.0, std::size_t(2) * kMltSumPartials * kMltStepBins);
        steps_ = exec_.template allocate<std::uint64_t>(2);  // folded, complete
        exec_.fill(steps_.data(), std::uint64_t(0), 2);
        normalization_ = exec_.template allocate<float>(1);
        sharedSums_ = exec_.template allocate<double>(2);
        exec_.fill(sharedSums_.data(), 0.0, 2);
        counters_ = exec_.template allocate<MltCounters>(1);
        exec_.fill(counters_.data(), MltCounters{0, 0, 0}, 1);
        if (settings_.multiplexed) {
            lengths_ = maxDepth;
            chainLength_ = exec_.template allocate<int>(chains_);
            exec_.fill(chainLength_.data(), 1, chains_);
            lengthNormalization_ = exec_.template allocate<float>(lengths_);
            lengthWeight_ = exec_.template allocate<float>(lengths_);
            exec_.fill(lengthNormalization_.data(), 0.0f, lengths_);
            exec_.fill(lengthWeight_.data(), 0.0f, lengths_);
            lengthSums_.assign(2 * std::size_t(lengths_), 0.0);
            sharedLengthSums_.assign(2 * std::size_t(lengths_), 0.0);
            lengthChains_.assign(std::size_t(lengths_), 0);
        }
    }

    /// Bytes per chain a driver allocates (film excluded; the paper's Table 6 has 4434 for MLT):
    /// the BDPT slot, the current sample's primary samples, two contribution records and the chain's
    /// decision state; before it exists (planned with the lens and strategy numbers, the largest layout).
    static std::size_t plannedBytesPerChain(int maxDepth, bool cameraConnections) {
        SlotAllocator<Exec> plan;
        allocateChains(plan, MltLayout::forDepth(maxDepth, true, true), cameraConnections ? maxDepth : 0);
        return BdptDriver<Exec>::plannedBytesPerSlot(BdptVariant::Streaming, maxDepth) + plan.bytesPerSlot();
    }
    /// Chains for an MLT render: at most what half of the free memory holds, the chain field of
    /// the sample index allows and BDPT's connection count fits in an int.
    static int chainLimit(std::size_t freeBytes, int maxDepth, bool cameraConnections) {
        std::size_t byMemory = freeBytes / 2 / plannedBytesPerChain(maxDepth, cameraConnections);
        std::size_t limit = std::min<std::size_t>(byMemory, std::size_t(mltindex::kMaxChains));
        return std::min(int(limit), BdptDriver<Exec>::slotLimit(~std::size_t(0), maxDepth, BdptVariant::Streaming));
    }
    std::size_t bytesPerChain() const { return bytesPerChain_; }

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
        if (!started_) {
            const double startupBegin = budget.elapsed();
            const bool started = start(scene, params, film, budget);
            startupSeconds_ += budget.elapsed() - startupBegin;
            if (!started) return 0;  // cancelled during the start-up: the next call starts again
        }
        const std::uint64_t first = end_, pass = std::uint64_t(std::max(params.numPixels, 1));
        const std::uint64_t chains = std::uint64_t(chains_), step = (chains + pass - 1) / pass * pass;
        const bool timed = budget.timeLimited();
        std::uint64_t end = first + (timed ? step : count);
        if (end / chains >= mltindex::kMaxMutations) throw InputError("too many MLT mutations for one renderer");
        const double mutateStart = budget.elapsed();
        // A device of a multi-device render trades its samples of b for the others' every
        // kShareSeconds, before a decision (the connect phase has just synchronised).
        double nextShare = 0.0;
        const std::function<void()> shareB = [&] {
            if (!budget.sharesState() || budget.elapsed() < nextShare) return;
            nextShare = budget.elapsed() + kShareSeconds;
            absorbNormalizationSamples(budget.exchangeState(ownNormalizationSamples()));
        };
        RunVerdict applied = RunVerdict::Continue;
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
        BdptControl k = runPhase(scene, params, film, MltPhase::Mutate, first, end - first, steer, DistributionView{}, shareB);
        // A cancelled call leaves the chains at different counts; the next call brings them level
        // with the chain furthest ahead rather than to the cancelled call's end.
        end_ = applied == RunVerdict::Stop ? startedEnd() : end;
        exec_.parallelFor("mlt flush", chains_, FlushStage{sink(film), this->chains(), c_.state.data(), film});
        return k.started;
    }

    /// Rebuilds every chain's current sample from its stored primary samples (one thread per
    /// chain, the naive schedule) and reports its I and vertex counts next to the stored ones.
    MltReplay replay(const SceneView& scene, const BdptParams& params) {
        SlotAllocator<Exec> allocator(exec_, std::size_t(chains_));
        Records scratchRecords = allocateRecords(allocator, maxSplats_);
        Buffer<unsigned long long> nonFinite = exec_.template allocate<unsigned long long>(1);
        exec_.fill(nonFinite.data(), 0ull, 1);
        ChainSink scratch{scratchRecords.eye.data(), scratchRecords.splats.data(), scratchRecords.splatCount.data(),
                          scratchRecords.scale.data(), maxSplats_, nullptr, nonFinite.data(), importanceOrNull()};
        withMaterialSet(scene, [&](auto materials) {
            auto c = bdpt_.template context<decltype(materials)>(scene, params,
                                                                 sampler(MltPhase::Replay, DistributionView{}), scratch);
            NoBudget quiet;
            bdpt_.renderNaive(c, 0, std::uint64_t(chains_), quiet);
        });
        Buffer<float> replayed = exec_.template allocate<float>(chains_);
        exec_.parallelFor("mlt replay luminance", chains_, ReplayLuminanceStage{scratch, replayed.data()});
        MltReplay r;
        r.storedI = download(c_.currentI);
        r.replayedI = download(replayed);
        r.replayedEyeBlocks = download(c_.proposalEyeBlocks);
        r.replayedLightBlocks = download(c_.proposalLightBlocks);
        r.mutations = download(c_.nextMutation);
        for (int st : download(c_.state)) {
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
    /// The normalisation b as of now (multiplexed MLT: the sum of the lengths' b_l, pbrt's b).
    double normalization() {
        if (settings_.multiplexed) {
            const std::vector<double> b = lengthNormalizations();
            return std::accumulate(b.begin(), b.end(), 0.0);
        }
        return normalizationOf(download(sums_).data(), download(sharedSums_).data());
    }
    /// This device's samples of b, to be summed element-wise with the other devices': MLT's
    /// (sum of I, count) of the start-up and the folded large steps; multiplexed MLT's per path
    /// length l = 1 .. maxDepth, (sum of I, count) of its bootstrap entries at 2 (l - 1).
    std::vector<double> ownNormalizationSamples() {
        if (settings_.multiplexed) return lengthSums_;
        double sum = 0.0, count = 0.0;
        addPartials(download(sums_).data(), sum, count);
        return {sum, count};
    }
    /// The other devices' samples of b, summed element-wise (ownNormalizationSamples' layout;
    /// missing numbers count 0): MLT includes them in b from the next connect phase on.
    /// Multiplexed MLT keeps them for its statistics only: its chains' contributions are unbiased
    /// with the b_l of the bootstrap they were resampled from (MltChains::weight), and any other
    /// b_l would make them biased.
    void absorbNormalizationSamples(const std::vector<double>& othersSummed) {
        if (settings_.multiplexed) {
            if (othersSummed.size() == lengthSums_.size()) sharedLengthSums_ = othersSummed;
            return;
        }
        const double shared[2] = {othersSummed.size() > 0 ? othersSummed[0] : 0.0,
                                  othersSummed.size() > 1 ? othersSummed[1] : 0.0};
        exec_.upload(sharedSums_.data(), shared, 2);
    }
    /// Multiplexed MLT: b_l of each path length l = 1 .. maxDepth (at l - 1), from this device's
    /// bootstrap and, with `shared`, the other devices' samples; empty for MLT.
    std::vector<double> lengthNormalizations(bool shared = true) const {
        std::vector<double> b(std::size_t(lengths_), 0.0);
        for (std::size_t l = 0; l < b.size(); ++l) {
            const double sum = lengthSums_[2 * l] + (shared ? sharedLengthSums_[2 * l] : 0.0);
            const double count = lengthSums_[2 * l + 1] + (shared ? sharedLengthSums_[2 * l + 1] : 0.0);
            b[l] = count > 0.0 ? sum / count : 0.0;
        }
        return b;
    }
    /// Multiplexed MLT: the chains of each path length l = 1 .. maxDepth (at l - 1); empty for MLT.
    const std::vector<std::uint64_t>& lengthChains() const { return lengthChains_; }
    BdptDriver<Exec>& bdpt() { return bdpt_; }
    int chainCount() const { return chains_; }
    /// BDPT samples the start-up ran (the pool and the chains' starts), and its wall time.
    std::uint64_t startupSamples() const { return startupSamples_; }
    /// Entries of the start-up pool that were evaluated (0 before the start-up or without one).
    std::uint64_t poolSamples() const { return poolSamples_; }
    /// Samples of the relative importance's pilot (part of startupSamples).
    std::uint64_t pilotSamples() const { return pilotSamples_; }
    double startupSeconds() const { return startupSeconds_; }

private:
    /// Moves the end of the running phase's work (no new sample starts at or beyond it).
    void setEnd(std::uint64_t end) { exec_.parallelFor("mlt end", 1, SetEndStage{bdpt_.workRange(), end}); }
    std::uint64_t startedEnd() {
        Buffer<std::uint64_t> result = exec_.template allocate<std::uint64_t>(1);
        exec_.transformReduceDevice(chains_, std::uint64_t(0), StartedEndOf{c_.nextMutation.data(), std::uint64_t(chains_)},
                                    MaxOf{}, result.data());
        return download(result)[0];
    }
    template <class T>
    std::vector<T> download(const Buffer<T>& b) {
        std::vector<T> v(b.size());
        exec_.download(v.data(), b.data(), v.size());
        return v;
    }
    /// A proposal's contribution, twice per chain (current and proposal): ChainSink.
    struct Records {
        Buffer<Float4> eye, splats;
        Buffer<int> splatCount;
        Buffer<float> scale;
    };
    static Records allocateRecords(SlotAllocator<Exec>& a, int maxSplats) {
        Records r;
        r.eye = a.template perSlot<Float4>(2);
        r.splats = a.template perSlot<Float4>(2 * std::size_t(maxSplats));
        r.splatCount = a.template perSlot<int>(2);
        r.scale = a.template perSlot<float>(2);
        return r;
    }
    /// Every buffer a chain holds besides its BDPT slot.
    struct Chains {
        Buffer<float> numbers;  ///< the current sample's primary samples (MltSampler::numbers)
        Buffer<int> state, proposalEyeBlocks, proposalLightBlocks;
        Buffer<std::uint64_t> nextMutation;
        Records records;
        Buffer<float> currentI, startI;
        Buffer<double> currentWeight;
    };
    static Chains allocateChains(SlotAllocator<Exec>& a, const MltLayout& layout, int maxSplats) {
        Chains c;
        c.numbers = a.template perSlot<float>(std::size_t(layout.perSlot()));
        c.state = a.template perSlot<int>();
        c.proposalEyeBlocks = a.template perSlot<int>();
        c.proposalLightBlocks = a.template perSlot<int>();
        c.nextMutation = a.template perSlot<std::uint64_t>();
        c.records = allocateRecords(a, maxSplats);
        c.currentI = a.template perSlot<float>();
        c.startI = a.template perSlot<float>();
        c.currentWeight = a.template perSlot<double>();
        return c;
    }
    MltSampler sampler(MltPhase phase, const DistributionView& choice) const {
        HashSampler fresh(settings_.seed);
        HashSampler perturb(settings_.seed ^ 0x5bd1e995u), decide(settings_.seed ^ 0xc2b2ae35u);
        HashSampler pool(settings_.seed ^ 0x27d4eb2fu);
        return MltSampler{fresh, perturb, decide, pool, c_.numbers.data(), c_.state.data(), c_.proposalEyeBlocks.data(),
                          c_.proposalLightBlocks.data(), c_.nextMutation.data(), steps_.data(), chains_, layout_, phase,
                          settings_.largeStepProbability, choice, KelemenStep::upTo(settings_.smallStep),
                          settings_.multiplexed ? chainLength_.data() : nullptr, lengths_,
                          phase == MltPhase::Start ? poolCdf_.data() : nullptr, poolPerLength_};
    }
    /// Records the proposals of the chains; non-finite contributions are counted on `film`.
    ChainSink sink(const FilmView& film) const {
        return ChainSink{c_.records.eye.data(), c_.records.splats.data(), c_.records.splatCount.data(),
                         c_.records.scale.data(), maxSplats_, c_.state.data(), film.nonFinite, importanceOrNull()};
    }
    const float* importanceOrNull() const { return importance_.size() ? importance_.data() : nullptr; }

    /// The pilot's budget: the render's cancel, and in a time-limited render on one device a
    /// pass boundary once the pilot has taken kPilotShare of the limit (on several devices, which
    /// share b, every pilot runs all its passes of kPilotSeed so that they agree on I). The
    /// pilot's samples are not the call's.
    template <class Budget>
    struct PilotBudget : NoBudget {
        Budget* budget;
        RunVerdict check(std::uint64_t) {
            if (budget->cancelRequested()) return RunVerdict::Stop;
            const bool late = budget->timeLimited() && !budget->sharesState() &&
                              budget->elapsed() > kPilotShare * budget->timeLimit();
            return late ? RunVerdict::FinishPass : RunVerdict::Continue;
        }
        bool cancelRequested() const { return budget->cancelRequested(); }
    };
    /// MltSettings::relativeImportance: renders the pilot (BDPT without its t = 1 splats, whose
    /// order on the film varies between runs) into a film of its own and makes every pixel's
    /// factor of I from it. Returns false when cancelled.
    template <class Budget>
    bool buildImportance(const SceneView& scene, const BdptParams& params, Budget& budget) {
        const int width = scene.width, height = scene.height, pixels = width * height;
        Buffer<double> pilotSum = exec_.template allocate<double>(std::size_t(3) * pixels);
        Buffer<unsigned> pilotCounts = exec_.template allocate<unsigned>(pixels);
        Buffer<unsigned long long> pilotNonFinite = exec_.template allocate<unsigned long long>(1);
        exec_.fill(pilotSum.data(), 0.0, std::size_t(3) * pixels);
        exec_.fill(pilotCounts.data(), 0u, pixels);
        exec_.fill(pilotNonFinite.data(), 0ull, 1);
        const FilmView pilot{pilotSum.data(), pilotCounts.data(), pilotNonFinite.data(), FilmWindow{}};
        BdptParams p = params;
        p.cameraConnections = false;
        PilotBudget<Budget> pilotBudget{{}, &budget};
        const std::uint64_t samples = mltPilotPasses(std::uint64_t(pixels)) * std::uint64_t(pixels);
        const std::uint64_t done = bdpt_.render(scene, p, HashSampler(kPilotSeed), pilot, 0, samples, pilotBudget);
        startupSamples_ += done;
        pilotSamples_ += done;
        if (budget.cancelRequested()) return false;
        const int tilesX = (width + kPilotTile - 1) / kPilotTile, tiles = tilesX * ((height + kPilotTile - 1) / kPilotTile);
        Buffer<double> tileMean = exec_.template allocate<double>(tiles);
        exec_.parallelFor("mlt pilot tiles", tiles, PilotTileStage{pilotSum.data(), width, height, tilesX, tileMean.data()});
        Buffer<double> tileMeanSum = exec_.template allocate<double>(1);
        exec_.transformReduceDevice(tiles, 0.0, TileMeanOf{tileMean.data()}, SumOf<double>{}, tileMeanSum.data());
        importance_ = exec_.template allocate<float>(pixels);
        exec_.parallelFor("mlt pilot importance", pixels,
                          PixelImportanceStage{tileMean.data(), tileMeanSum.data(), tiles, width, tilesX, importance_.data()});
        // No sync: the pilot's buffers are released stream-ordered (CUDA) or the work is done (CPU).
        return true;
    }
    MltChains chains() const {
        return MltChains{c_.currentI.data(), c_.currentWeight.data(), sums_.data(), sharedSums_.data(), stepSums_.data(), steps_.data(),
                         steps_.data() + 1, normalization_.data(), poolWeights_.data(), counters_.data(),
                         c_.startI.data(), settings_.largeStepProbability, !settings_.startupResampling,
                         weightedStart_, settings_.multiplexed ? chainLength_.data() : nullptr,
                         lengthNormalization_.data(), lengthWeight_.data()};
    }

    /// One phase of the chains on the streaming BDPT schedule over work [first, first + count),
    /// with the decision after every connect phase; `steer` as for BdptDriver::renderStreaming;
    /// `beforeDecide` (host) runs before each decision is launched.
    template <class Steer>
    BdptControl runPhase(const SceneView& scene, const BdptParams& params, const FilmView& film, MltPhase phase,
                         std::uint64_t first, std::uint64_t count, const Steer& steer,
                         const DistributionView& choice = DistributionView{},
                         const std::function<void()>& beforeDecide = nullptr) {
        MltChains ch = chains();
        return withMaterialSet(scene, [&](auto materials) {
            auto c = bdpt_.template context<decltype(materials)>(scene, params, sampler(phase, choice), sink(film));
            return bdpt_.renderStreaming(c, first, count, [&](const auto& ctx) {
                if (beforeDecide) beforeDecide();
                if (phase == MltPhase::Mutate) {
                    exec_.transformReduceDevice(chains_, ~std::uint64_t(0), DecidedStepsOf{c_.nextMutation.data()},
                                                MinOf{}, steps_.data() + 1);
                    exec_.parallelFor("mlt normalisation", 1, NormalizationStage{ch});
                }
                exec_.parallelFor("mlt decide", chains_, DecideStage<std::decay_t<decltype(ctx)>>{ctx, ch, film});
            }, steer, phase == MltPhase::Pool ? poolConnectThreshold() : -1.0f);
        });
    }

    /// Chain start-up: a pool of BDPT samples (MltSettings::poolSize, at least one per chain;
    /// a time-limited render may end the policy's pool early), then every chain takes a pool
    /// sample chosen in proportion to I; or, without resampling, one uniform sample of its own,
    /// whose I weights everything the chain contributes (MltChains::weightedStart). A cancel
    /// (Renderer::cancel()) stops it at once, leaving no chain started and no sample in b; returns
    /// whether the chains started.
    template <class Budget>
    bool start(const SceneView& scene, const BdptParams& params, const FilmView& film, Budget& budget) {
        bool cancelled = false, poolEnded = false;
        auto quiet = [&](const BdptControl&, bool) {
            if (!cancelled && budget.cancelRequested()) {
                setEnd(0);
                cancelled = true;
            }
            return false;
        };
        // The pool's evaluation as `quiet`, but a pool of a time-limited render ends early (no
        // entry past what has started begins; the pool is then the started entries): the
        // policy's at kPoolShare of the limit, the user's at the limit (--pool 268435456 ran on
        // whatever the limit).
        const double poolShare = settings_.poolFitsTime ? kPoolShare : 1.0;
        auto pool = [&](const BdptControl& seen, bool idle) {
            if (!poolEnded && budget.timeLimited() && seen.started >= std::uint64_t(chains_) &&
                budget.elapsed() > poolShare * budget.timeLimit()) {
                setEnd(seen.started);
                poolEnded = true;
            }
            return quiet(seen, idle);
        };
        auto abandon = [&] {
            exec_.synchronize();
            exec_.fill(sums_.data(), 0.0, 2 * kMltSumPartials);
            std::fill(lengthSums_.begin(), lengthSums_.end(), 0.0);
            poolWeights_ = Buffer<double>();
            return false;
        };
        if (settings_.relativeImportance && !buildImportance(scene, params, budget)) return abandon();
        DistributionView choice{};
        Distribution<Exec> poolChoice;
        if (settings_.startupResampling) {
            int size = std::max(settings_.poolSize, chains_);
            poolWeights_ = exec_.template allocate<double>(size);
            // Entries start in order: the pool is entries [0, started), whose I are all in b.
            const std::uint64_t started = runPhase(scene, params, film, MltPhase::Pool, 0, std::uint64_t(size), pool).started;
            startupSamples_ += started;
            poolSamples_ = started;
            if (cancelled) return abandon();
            // A pool that found no light at all (a black image so far) leaves each chain on a
            // uniform sample of its own.
            if (settings_.multiplexed) {
                weightedStart_ = !splitChainsOverLengths(started);
            } else if (normalization() > 0.0) {
                poolChoice.build(exec_, poolWeights_.data(), int(started), 1, LightSampler::BinarySearch);
                choice = poolChoice.view();
            }
        }
        if (!settings_.multiplexed) weightedStart_ = choice.count == 0;
        startupSamples_ += runPhase(scene, params, film, MltPhase::Start, 0, std::uint64_t(chains_), quiet, choice).started;
        if (cancelled) return abandon();
        exec_.synchronize();
        poolWeights_ = Buffer<double>();
        poolCdf_ = Buffer<double>();
        started_ = true;
        return true;
    }

    /// Multiplexed MLT after its bootstrap (pool entries [0, started), entry g of path length
    /// g % maxDepth + 1): each length's (sum of I, count) and b_l; the chains split over the
    /// lengths in proportion to b_l by systematic resampling (length l gets the floor or the
    /// ceiling of its expected chains e_l = chains b_l / B, B the sum of the b_l), its contributions
    /// weighted by chains / e_l = B / b_l, so that each length's image is estimated without bias
    /// whatever its count; the chains of a length are spread over the chain indices (the chains
    /// with one mutation more than the rest, when a call's mutations are not a multiple of the
    /// chains, are then spread over the lengths in proportion); and per length the cumulative
    /// shares of I of its entries, from which each chain resamples its start. Returns false when
    /// no entry found light (every chain then starts on pool entry c, of length c % maxDepth + 1,
    /// and contributes nothing: MltChains::chainWeight with b_l = 0).
    bool splitChainsOverLengths(std::uint64_t started) {
        const std::size_t lengths = std::size_t(lengths_);
        std::vector<double> I(started);
        exec_.download(I.data(), poolWeights_.data(), I.size());
        std::fill(lengthSums_.begin(), lengthSums_.end(), 0.0);
        for (std::uint64_t g = 0; g < started; ++g) {
            lengthSums_[2 * (g % lengths)] += I[g];
            lengthSums_[2 * (g % lengths) + 1] += 1.0;
        }
        // The split, the starts and b_l are this device's own (absorbNormalizationSamples).
        const std::vector<double> b = lengthNormalizations(false);
        const double B = std::accumulate(b.begin(), b.end(), 0.0);
        std::vector<int> length(static_cast<std::size_t>(chains_));
        std::vector<float> weight(lengths, 0.0f);
        std::fill(lengthChains_.begin(), lengthChains_.end(), 0);
        const bool lit = B > 0.0 && std::isfinite(B);
        if (lit) {
            // Position j of the systematic resampling is (u0 + j) / chains of B; chain c takes
            // position c * stride mod chains (stride coprime to the chains: a permutation).
            const double u0 = double(HashSampler(settings_.seed ^ 0x7f4a7c15u).get(0, 0));
            std::vector<int> atPosition(static_cast<std::size_t>(chains_));
            std::size_t l = 0, lastLit = 0;
            for (std::size_t k = 0; k < lengths; ++k)
                if (b[k] > 0.0) lastLit = k;
            double edge = b[0];
            for (int j = 0; j < chains_; ++j) {
                const double x = (u0 + double(j)) / double(chains_) * B;
                while (x >= edge && l < lastLit) edge += b[++l];  // never past the last lit length (rounding)
                atPosition[std::size_t(j)] = int(l);
            }
            std::uint64_t stride = std::max<std::uint64_t>(1, std::uint64_t(0.6180339887 * double(chains_)));
            while (std::gcd(stride, std::uint64_t(chains_)) != 1) ++stride;
            for (int c = 0; c < chains_; ++c) {
                const int at = atPosition[std::size_t((std::uint64_t(c) * stride) % std::uint64_t(chains_))];
                length[std::size_t(c)] = at + 1;
                ++lengthChains_[std::size_t(at)];
            }
            for (std::size_t k = 0; k < lengths; ++k) weight[k] = b[k] > 0.0 ? float(B / b[k]) : 0.0f;
            // Per length, the cumulative share of I of its entries (1 from the last with any I on,
            // 2 past the entries evaluated: never taken).
            poolPerLength_ = int((started + lengths - 1) / lengths);
            std::vector<double> cdf(lengths * std::size_t(poolPerLength_), 2.0);
            for (std::size_t k = 0; k < lengths; ++k) {
                if (!(lengthSums_[2 * k] > 0.0)) continue;
                double running = 0.0;
                std::size_t last = 0;
                for (std::uint64_t g = k, j = 0; g < started; g += lengths, ++j) {
                    running += I[g];
                    cdf[k * poolPerLength_ + j] = running / lengthSums_[2 * k];
                    if (I[g] > 0.0) last = j;
                }
                for (std::uint64_t g = k + last * lengths, j = last; g < started; g += lengths, ++j) cdf[k * poolPerLength_ + j] = 1.0;
            }
            poolCdf_ = exec_.template allocate<double>(cdf.size());
            exec_.upload(poolCdf_.data(), cdf.data(), cdf.size());
        } else {
            for (int c = 0; c < chains_; ++c) {
                length[std::size_t(c)] = c % lengths_ + 1;
                ++lengthChains_[std::size_t(c % lengths_)];
            }
        }
        exec_.upload(chainLength_.data(), length.data(), length.size());
        exec_.upload(lengthWeight_.data(), weight.data(), weight.size());
        const std::vector<float> bf(b.begin(), b.end());
        exec_.upload(lengthNormalization_.data(), bf.data(), bf.size());
        return lit;
    }

    Exec& exec_;
    int chains_;
    MltSettings settings_;
    MltLayout layout_;
    int maxSplats_;
    BdptDriver<Exec> bdpt_;
    Chains c_;
    std::size_t bytesPerChain_ = 0;
    Buffer<double> sums_, sharedSums_, stepSums_, poolWeights_;
    Buffer<std::uint64_t> steps_;  ///< MltChains::foldedSteps, MltChains::completeSteps
    Buffer<float> normalization_;
    Buffer<float> importance_;  ///< per frame pixel, MltSettings::relativeImportance (empty: I is the luminance)
    Buffer<MltCounters> counters_;
    /// Multiplexed MLT (MltSampler, MltChains): per chain its path length; per length its b_l and
    /// its chains' factor; the Start's cumulative shares of I per length (poolPerLength_ each).
    int lengths_ = 0;
    Buffer<int> chainLength_;
    Buffer<float> lengthNormalization_, lengthWeight_;
    Buffer<double> poolCdf_;
    int poolPerLength_ = 0;
    /// Multiplexed MLT: per length (sum of I, count) of this device's bootstrap and of the other
    /// devices' (ownNormalizationSamples' layout), and the chains per length.
    std::vector<double> lengthSums_, sharedLengthSums_;
    std::vector<std::uint64_t> lengthChains_;
    bool started_ = false;
    std::uint64_t startupSamples_ = 0, poolSamples_ = 0, pilotSamples_ = 0;
    double startupSeconds_ = 0.0;
    bool weightedStart_ = false;  ///< chains start from uniform samples of their own (MltChains)
    std::uint64_t end_ = 0;  ///< mutation numbers below this are run (the end of the last call)
    /// A time-limited render keeps its end up to this many mutations per chain ahead of what has
    /// started (enough that chains whose paths are short rarely wait for the end to move).
    static constexpr std::uint64_t kTimedStepsAhead = 4;
    /// How often a device of a multi-device render shares its samples of b (each exchange waits
    /// for the device once, at a decision, where the connect phase has already synchronised).
    static constexpr double kShareSeconds = 0.005;
    /// The start-up pool's entries are independent BDPT samples, which no chain waits for: its
    /// phase connects at BDPT's default threshold instead of MLT's, so it does not wait for the
    /// longest path of every round of entries.
    static float poolConnectThreshold() { return BdptOptions().connectThresholdOrDefault(); }
};

}  // namespace wavefront
