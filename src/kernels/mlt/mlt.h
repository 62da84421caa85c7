// Kelemen primary-sample-space MLT on the streaming BDPT sampler (van Antwerpen 2011, section 6):
// many independent chains, each owning one BDPT sample slot. The BDPT estimator (bdpt.h) runs
// unchanged; MLT substitutes where its numbers come from (MltSampler: the primary samples of each
// chain's current sample, and its proposal computed from them) and where its contributions go
// (ChainSink: a per-chain record of the proposal), and decides after the connect phase
// (DecideStage).
//
// Primary samples of a chain, in this order (floats):
//   camera       4  film position u, v, lens u, v (a pinhole never reads the lens numbers)
//   light start  5  light choice, position u, v, direction u, v (the environment: a point on its
//                   disk from the position numbers, its direction from the direction numbers)
//   eye vertex   7  per vertex 0 .. maxDepth - 2: roulette/lobe, direction u, v, reserved (media),
//                   then the s = 1 light sample's choice, position u, v
//   light vertex 6  per vertex 0 .. maxDepth - 2: roulette/lobe, direction u, v, reserved (vertices
//                   0 .. maxDepth - 3 continue), then the lens point u, v of its t = 1 connection
//                   (read by a thin lens only)
//   strategy     1  multiplexed MLT only: the one (s, t) strategy of its chain's path length the
//                   sample evaluates (multiplexedStrategy)
// Mutation happens as the walk reads: a proposal's number is a function of the current one and the
// mutation's key (a hash), so the walk computes each number it reads from the stored current one
// and stores nothing; only an accepted proposal is written back, by the decision, which runs one
// thread per chain (neighbouring chains, coalesced). A small step perturbs the numbers of the
// vertices that the current sample also used and draws the others fresh (the paper's symmetric
// variant); useVertex records how many vertices the proposal used.
//
// Multiplexed MLT (Hachisuka, Kaplanyan and Dachsbacher 2014; pbrt's MLTIntegrator) runs on the
// same machinery: as in the paper and pbrt, each chain keeps one path length (MltSampler::
// chainLength), its sample's strategy number picks one of that length's strategies, the walks
// build just that strategy (StrategyChoice), and its MIS-weighted contribution, divided by the
// probability of the choice, is the sample's value. The start-up pool is a bootstrap per length
// (entry g has length g % maxDepth + 1); each length has its own normalisation b_l (the mean I of
// its bootstrap entries), the chains are split over the lengths in proportion to b_l, each starts
// from its length's entries resampled in proportion to I, its samples go to the film with pbrt's
// expected-value weights (MltChains::weight), and its contributions carry the factor that makes
// its length's chains an estimate of that length's image (MltChains::lengthWeight). A mutation
// costs one connection at most, and the chains spend their mutations on the strategies that carry
// the image.
#pragma once
#include "kernels/bdpt/bdpt_stages.h"
#include "kernels/lights/distribution.h"

namespace wavefront {

/// Kelemen's small step: an exponentially distributed offset between s1 = 1/1024 and s2
/// (MltOptions::smallStep) in either direction, wrapped to [0, 1).
struct KelemenStep {
    static constexpr float kSmallest = 1.0f / 1024.0f;
    float largest;    ///< s2
    float log2Ratio;  ///< log2(s2 / s1), kept so that a step is one exp2 (one GPU instruction)
    static KelemenStep upTo(float largest) { return {largest, std::log2(largest / kSmallest)}; }
    WF_CPU_GPU WF_INLINE float operator()(float x, float u) const {
        bool up = u < 0.5f;
        float v = up ? 2.0f * u : 2.0f * u - 1.0f;
        float dv = largest * std::exp2(-log2Ratio * v);
        x = up ? x + dv : x - dv;
        if (x >= 1.0f) x -= 1.0f;
        if (x < 0.0f) x += 1.0f;
        return x < 1.0f ? x : 0.0f;  // x + 1 can round up to 1 for a tiny negative x
    }
};
/// Where each primary sample of a chain lives. The lens numbers (the camera's lens u, v and
/// each light vertex's t = 1 lens point) are stored only for a thin-lens camera: a pinhole never
/// reads them, and an accepted proposal writes back every stored number its vertices used.
struct MltLayout {
    static constexpr int kCamera = 0;
    /// The sampler dimension of multiplexed MLT's strategy number: below the light subpath's
    /// dimensions and above every eye vertex's (maxDepth <= 255).
    static constexpr int kStrategyDimension = dims::kLightSubpath - 1;
    static constexpr int kPinholeLightNumbers = 4;  ///< a light vertex's numbers before its lens point
    int cameraCount = 2;  ///< film u, v (and lens u, v)
    int perLightVertex = kPinholeLightNumbers;
    int eyeBlocks = 0;    ///< eye vertices that read numbers: maxDepth - 1
    int lightBlocks = 0;  ///< light vertices that read numbers: maxDepth - 2 (a lens: maxDepth - 1, the last one only its lens numbers)
    int strategyNumbers = 0;  ///< 1: multiplexed MLT's strategy number, stored last

    WF_CPU_GPU static MltLayout forDepth(int maxDepth, bool lens, bool multiplexed = false) {
        MltLayout l;
        l.strategyNumbers = multiplexed ? 1 : 0;
        l.cameraCount = lens ? dims::kCameraCount : 2;
        l.perLightVertex = lens ? dims::kPerLightVertex : kPinholeLightNumbers;
        l.eyeBlocks = maxDepth > 1 ? maxDepth - 1 : 0;
        int lightVertices = lens ? maxDepth - 1 : maxDepth - 2;
        l.lightBlocks = lightVertices > 0 ? lightVertices : 0;
        return l;
    }
    WF_CPU_GPU int lightStart() const { return cameraCount; }
    WF_CPU_GPU int eyeBase() const { return lightStart() + dims::kLightStartCount; }
    WF_CPU_GPU int lightBase() const { return eyeBase() + eyeBlocks * dims::kPerVertex; }
    WF_CPU_GPU int perSlot() const { return lightBase() + lightBlocks * perLightVertex + strategyNumbers; }
    /// Offset of sampler dimension `dim` within a slot; -1 where the layout has none (never read).
    WF_CPU_GPU int offset(int dim) const {
        if (dim >= dims::kLightSubpath) {
            int d = dim - dims::kLightSubpath;
            if (d < dims::kLightStartCount) return lightStart() + d;
            d -= dims::kLightStartCount;
            int block = d / dims::kPerLightVertex, k = d - block * dims::kPerLightVertex;
            return block < lightBlocks && k < perLightVertex ? lightBase() + block * perLightVertex + k : -1;
        }
        if (dim == kStrategyDimension) return strategyNumbers > 0 ? perSlot() - 1 : -1;
        if (dim < dims::kCameraCount) return dim < cameraCount ? kCamera + dim : -1;
        int d = dim - dims::kCameraCount;
        return d / dims::kPerVertex < eyeBlocks ? eyeBase() + d : -1;
    }
};

/// The sample index an MLT walk carries: chain (24 bits), whether it reads the chain's proposal
/// (1) or its stored current sample (0, the replay check), and the chain's mutation number k (the
/// rest; start-up: the pool entry).
namespace mltindex {
constexpr int kChainBits = 24;
constexpr int kMaxChains = 1 << kChainBits;
/// Mutation numbers a chain can reach.
constexpr std::uint64_t kMaxMutations = 1ull << (64 - kChainBits - 1);
WF_CPU_GPU WF_INLINE std::uint64_t pack(std::uint64_t mutation, bool proposal, int chain) {
    return mutation << (kChainBits + 1) | std::uint64_t(proposal ? 1 : 0) << kChainBits | std::uint64_t(chain);
}
WF_CPU_GPU WF_INLINE int chain(std::uint64_t s) { return int(s & (kMaxChains - 1)); }
WF_CPU_GPU WF_INLINE bool readsProposal(std::uint64_t s) { return (s >> kChainBits) & 1; }
WF_CPU_GPU WF_INLINE std::uint64_t mutation(std::uint64_t s) { return s >> (kChainBits + 1); }
/// The key of a chain's mutation for the hashes: (mutation, chain), without the proposal bit.
WF_CPU_GPU WF_INLINE std::uint64_t key(std::uint64_t s) { return mutation(s) << kChainBits | std::uint64_t(chain(s)); }
}  // namespace mltindex

/// Per-chain state word: which of its two contribution records holds the current sample, whether
/// the running proposal is a large step, and how many eye / light vertices the current sample used.
namespace mltstate {
constexpr int kCurrent = 1, kLargeStep = 2;
WF_CPU_GPU WF_INLINE int eyeBlocks(int st) { return (st >> 8) & 0xff; }
WF_CPU_GPU WF_INLINE int lightBlocks(int st) { return (st >> 16) & 0xff; }
WF_CPU_GPU WF_INLINE int make(int current, int eyeBlocks, int lightBlocks) {
    return current | eyeBlocks << 8 | lightBlocks << 16;
}
}  // namespace mltstate

/// Running sums for b (mean I of the uniform samples: large steps, the pool, the starts), spread
/// over a few addresses so that a million chains do not queue on one atomic.
constexpr int kMltSumPartials = 64;

/// b averages the large steps of a fixed set of mutation numbers: those below a step that every
/// chain has passed. The large steps that finish first are those with short (and darker) paths,
/// so an average over whatever has finished so far would run low while a render is under way,
/// most with few mutations per chain. Large steps wait in a ring of per-step sums until their
/// step is complete; a chain never runs more than this many steps ahead of the last folded one.
constexpr int kMltStepBins = 1024;

/// What a render of the chains is doing: evaluating the start-up pool, starting the chains,
/// mutating them, or rebuilding each chain's current sample from its stored numbers (a check).
enum class MltPhase : int { Pool, Start, Mutate, Replay };

/// Dimensions of the decision numbers (a hash keyed by the mutation's key; the start choice by
/// the chain's start index).
namespace mltdims {
constexpr int kLargeStep = 0, kAccept = 1, kStartChoice = 2;
}

/// Multiplexed MLT's choice from its strategy number u, for a chain of path length k (segments):
/// one of the k + 1 strategies uniformly (s = 0 .. k, t = k + 1 - s; BDPT's (1, 1) and, without
/// camera connections, t = 1 contribute nothing, as their MIS weights say); the contribution is
/// scaled by the inverse of the choice's probability.
WF_CPU_GPU inline StrategyChoice multiplexedStrategy(float u, int length) {
    int s = glm::min(int(u * float(length + 1)), length);
    return StrategyChoice{s, length + 1 - s, float(length + 1)};
}
/// The path length of multiplexed MLT's start-up pool entry g: the lengths take turns, so that a
/// pool cut short by a time limit still has every length's share.
WF_CPU_GPU inline int poolEntryLength(std::uint64_t entry, int lengths) { return int(entry % std::uint64_t(lengths)) + 1; }

/// The BDPT sampler interface over the chains' primary samples.
///
/// Work is counted, never timed: mutation m = k * chains + c is chain c's k-th, and a render does
/// the mutations below its end, so every chain makes the same number of mutations (give or take
/// one, by chain index) however fast its paths are. Handing mutations to whichever chain finishes
/// first would over-sample the states whose paths are cheap (the camera seeing a light directly)
/// however long the render runs.
struct MltSampler {
    HashSampler fresh, perturb, decide;
    HashSampler pool;            ///< the start-up pool's numbers, keyed by pool entry (Pool and Start)
    /// The current sample's numbers, laid out by number with chains adjacent (offset * chains +
    /// chain): the decision's neighbouring threads are neighbouring chains.
    float* numbers;
    int* state;                  ///< mltstate word per chain
    int* proposalEyeBlocks;      ///< vertices the running proposal used so far (Replay: the rebuilt sample)
    int* proposalLightBlocks;
    std::uint64_t* nextMutation; ///< per chain: its next mutation number k (Mutate)
    const std::uint64_t* foldedSteps;  ///< MltChains::foldedSteps: no chain runs kMltStepBins beyond it
    int chains;
    MltLayout layout;
    MltPhase phase;
    float largeStepProbability;
    /// Start: the pool entries in proportion to their I (count 0: chain k takes pool entry k).
    DistributionView startChoice;
    KelemenStep smallStep;
    /// Multiplexed MLT (null for MLT): each chain's path length in segments, 1 .. lengths.
    const int* chainLength = nullptr;
    int lengths = 0;  ///< maxDepth: the path lengths of multiplexed MLT (0 for MLT)
    /// Multiplexed MLT's Start: per length l - 1, poolPerLength entries of the cumulative share of
    /// I of its pool entries l - 1 + lengths j (j = 0, 1, ...), 1 at the last one with any I, above 1
    /// past the entries evaluated; null: chain c takes pool entry c (a bootstrap without light).
    const double* poolCdf = nullptr;
    int poolPerLength = 0;

    WF_CPU_GPU float& stored(int chain, int offset) const {
        return numbers[std::size_t(offset) * std::size_t(chains) + std::size_t(chain)];
    }
    /// A fresh number of sample s: the pool's for the start-up, the mutation's otherwise.
    WF_CPU_GPU float draw(std::uint64_t s, int dim) const {
        bool startUp = phase == MltPhase::Pool || phase == MltPhase::Start;
        return startUp ? pool.get(mltindex::mutation(s), dim) : fresh.get(mltindex::key(s), dim);
    }
    /// Whether number `dim` of the running proposal of a chain in state `st` is drawn fresh (the
    /// start-up, a large step, a vertex the current sample did not use) rather than perturbed.
    WF_CPU_GPU bool drawsFresh(int st, int dim) const {
        if (phase != MltPhase::Mutate || (st & mltstate::kLargeStep)) return true;
        if (dim == MltLayout::kStrategyDimension) return false;  // every sample reads it
        if (dim >= dims::kLightSubpath) {
            int d = dim - dims::lightVertex(0, 0);
            return d >= 0 && d / dims::kPerLightVertex >= mltstate::lightBlocks(st);
        }
        int d = dim - dims::vertex(0, 0);
        return d >= 0 && d / dims::kPerVertex >= mltstate::eyeBlocks(st);
    }
    /// Number `dim` (stored at `offset`) of the running proposal of sample s, whose chain is in
    /// state `st`.
    WF_CPU_GPU float proposed(std::uint64_t s, int st, int dim, int offset) const {
        if (drawsFresh(st, dim)) return draw(s, dim);
        return smallStep(stored(mltindex::chain(s), offset), perturb.get(mltindex::key(s), dim));
    }
    WF_CPU_GPU float get(std::uint64_t s, int dim) const {
        int off = layout.offset(dim);
        if (off < 0) return draw(s, dim);
        int chain = mltindex::chain(s);
        return mltindex::readsProposal(s) ? proposed(s, state[chain], dim, off) : stored(chain, off);
    }
    /// Writes the numbers of sample s's proposal that it used over the chain's stored ones (an
    /// accepted proposal becomes the current sample); `st`: the chain's state while it ran.
    WF_CPU_GPU void storeProposal(std::uint64_t s, int st, int eyeBlocks, int lightBlocks) const {
        int chain = mltindex::chain(s);
        auto store = [&](int firstDim, int count) {
            for (int k = 0; k < count; ++k) {
                int dim = firstDim + k, off = layout.offset(dim);
                stored(chain, off) = proposed(s, st, dim, off);  // reads the number it overwrites
            }
        };
        store(dims::kPixel, layout.cameraCount);
        store(dims::lightStart(0), dims::kLightStartCount);
        for (int v = 0; v < eyeBlocks; ++v) store(dims::vertex(v, 0), dims::kPerVertex);
        for (int v = 0; v < lightBlocks; ++v) store(dims::lightVertex(v, 0), layout.perLightVertex);
        if (layout.strategyNumbers > 0) store(MltLayout::kStrategyDimension, 1);
    }
    WF_CPU_GPU vec2 get2(std::uint64_t s, int dim) const { return vec2(get(s, dim), get(s, dim + 1)); }
    /// The camera numbers place the sample anywhere on the film.
    WF_CPU_GPU FilmSample filmSample(std::uint64_t s, int width, int height) const {
        vec2 raster = get2(s, dims::kPixel) * vec2(float(width), float(height));
        int px = glm::min(int(raster.x), width - 1), py = glm::min(int(raster.y), height - 1);
        return FilmSample{py * width + px, raster};
    }
    WF_CPU_GPU int pixelIndex(std::uint64_t s, int width, int height) const { return filmSample(s, width, height).pixel; }
    /// Multiplexed MLT: the one strategy sample s evaluates; MLT: every one.
    WF_CPU_GPU StrategyChoice strategy(std::uint64_t s, int /*maxDepth*/) const {
        if (layout.strategyNumbers == 0) return {};
        return multiplexedStrategy(get(s, MltLayout::kStrategyDimension), lengthOf(s));
    }
    /// Multiplexed MLT: the path length of sample s (the pool entry's in the pool, the chain's after).
    WF_CPU_GPU int lengthOf(std::uint64_t s) const {
        return phase == MltPhase::Pool ? poolEntryLength(mltindex::mutation(s), lengths) : chainLength[mltindex::chain(s)];
    }
    /// Multiplexed MLT's Start: the pool entry of the chain's length whose cumulative share of I
    /// first exceeds u (binary search; an entry without I is never taken).
    WF_CPU_GPU std::uint64_t startEntryOfLength(int length, float u) const {
        const double* cdf = poolCdf + std::size_t(length - 1) * std::size_t(poolPerLength);
        int lo = 0, hi = poolPerLength - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (cdf[mid] > double(u)) hi = mid;
            else lo = mid + 1;
        }
        return std::uint64_t(length - 1) + std::uint64_t(lengths) * std::uint64_t(lo);
    }

    /// Mutate: each chain runs its own mutations; the start-up phases hand out pool entries.
    WF_CPU_GPU bool perSlotWork() const { return phase == MltPhase::Mutate; }
    /// Whether chain `slot`'s next mutation lies below the render's end (and within the ring of
    /// step sums that b is folded from).
    WF_CPU_GPU bool slotHasWork(int slot, std::uint64_t end) const {
        std::uint64_t k = nextMutation[slot];
        return k * std::uint64_t(chains) + std::uint64_t(slot) < end && k < *foldedSteps + kMltStepBins;
    }
    /// Takes chain `slot`'s next mutation number.
    WF_CPU_GPU std::uint64_t claim(int slot) const { return nextMutation[slot]++; }

    /// Work item g starts in chain `slot` (Pool: pool entry g; Start: the chain's start, g; Mutate:
    /// the chain's mutation number g): picks the step kind and returns the index the walks carry.
    WF_CPU_GPU std::uint64_t startSample(int slot, std::uint64_t g) const {
        proposalEyeBlocks[slot] = 0;
        proposalLightBlocks[slot] = 0;
        if (phase == MltPhase::Replay) return mltindex::pack(0, false, slot);
        std::uint64_t m = g;
        if (phase == MltPhase::Start && poolCdf)
            m = startEntryOfLength(chainLength[slot], decide.get(g, mltdims::kStartChoice));
        else if (phase == MltPhase::Start && startChoice.count > 0)
            m = std::uint64_t(startChoice.sample(0, decide.get(g, mltdims::kStartChoice)).index);
        std::uint64_t s = mltindex::pack(m, true, slot);
        bool large = phase != MltPhase::Mutate || decide.get(mltindex::key(s), mltdims::kLargeStep) < largeStepProbability;
        state[slot] = (state[slot] & ~mltstate::kLargeStep) | (large ? mltstate::kLargeStep : 0);
        return s;
    }

    /// The walk of the sample `s` is about to shade its vertex `vertex` (eye or light subpath):
    /// the proposal has used the vertex's numbers.
    WF_CPU_GPU void useVertex(bool eye, std::uint64_t s, int vertex) const {
        if (vertex >= (eye ? layout.eyeBlocks : layout.lightBlocks)) return;  // the walk reads no numbers there
        (eye ? proposalEyeBlocks : proposalLightBlocks)[mltindex::chain(s)] = vertex + 1;
    }
};

/// A proposal's contribution to the image, kept per chain and slot until the chain decides: the
/// value at the chain's own pixel, and the t = 1 splats that land elsewhere.
struct ChainSink {
    Float4* eye;           ///< per record: rgb at the sample's pixel; w = that pixel (int bits)
    Float4* splats;        ///< per record: maxSplats entries of rgb, w = pixel
    int* splatCount;       ///< per record
    float* scale;          ///< per record: the factor its contributions carry (StrategyChoice::scale)
    int maxSplats;         ///< t = 1 connections a sample makes: maxDepth (one per light vertex), multiplexed 1, none 0
    const int* state;      ///< records 2 chain + proposal slot; null: record 2 chain (replay scratch)
    unsigned long long* nonFinite;
    /// Per frame pixel: the factor a contribution there carries in I (MltOptions::relativeImportance,
    /// PixelImportanceStage); null: 1 everywhere (I is the luminance).
    const float* importance;

    WF_CPU_GPU int record(int chain) const { return 2 * chain + (state ? (state[chain] & mltstate::kCurrent) ^ 1 : 0); }
    WF_CPU_GPU void beginSample(int chain, int pixel, float sampleScale) const {
        int r = record(chain);
        eye[r] = Float4(0.0f, 0.0f, 0.0f, intAsFloat(pixel));
        splatCount[r] = 0;
        scale[r] = sampleScale;
    }
    WF_CPU_GPU void deposit(int chain, int pixel, vec3 L) const {
        if (!isFinite(L)) {
            atomicFetchAdd(nonFinite, 1ull);
            return;
        }
        if (isBlack(L)) return;
        int r = record(chain);
        Float4& e = eye[r];
        if (pixel == floatAsInt(e.w)) {  // every s >= 0, t >= 2 contribution, and t = 1 splats landing here
            atomicAddFloat(&e.x, L.x);
            atomicAddFloat(&e.y, L.y);
            atomicAddFloat(&e.z, L.z);
            return;
        }
        int k = atomicFetchAdd(&splatCount[r], 1);
        if (k < maxSplats) splats[std::size_t(r) * maxSplats + k] = Float4(L, intAsFloat(pixel));
    }
    WF_CPU_GPU int splatsIn(int r) const { return glm::min(splatCount[r], maxSplats); }
    /// Empties a record (it keeps its pixel): the sample becomes black.
    WF_CPU_GPU void clear(int r) const {
        eye[r] = Float4(0.0f, 0.0f, 0.0f, eye[r].w);
        splatCount[r] = 0;
    }
    WF_CPU_GPU float importanceAt(int framePixel) const { return importance ? importance[framePixel] : 1.0f; }
    /// The target function I: luminance of the record's whole contribution, each pixel's share
    /// weighted by its importance.
    WF_CPU_GPU float luminanceOf(int r) const {
        const Float4 e = eye[r];
        float I = luminance(e.xyz()) * importanceAt(floatAsInt(e.w));
        for (int k = 0, n = splatsIn(r); k < n; ++k) {
            const Float4 sp = splats[std::size_t(r) * maxSplats + k];
            I += luminance(sp.xyz()) * importanceAt(floatAsInt(sp.w));
        }
        return I * scale[r];
    }
    /// Adds w times the record to the film.
    WF_CPU_GPU void depositTo(const FilmView& film, int r, float w) const {
        w *= scale[r];
        if (!(w > 0.0f)) return;
        Float4 e = eye[r];
        film.deposit(floatAsInt(e.w), w * e.xyz());
        for (int k = 0, n = splatsIn(r); k < n; ++k) {
            Float4 sp = splats[std::size_t(r) * maxSplats + k];
            film.deposit(floatAsInt(sp.w), w * sp.xyz());
        }
    }
};

struct MltCounters {
    unsigned long long proposals, largeSteps, accepted;
};

/// Per-chain decision state.
struct MltChains {
    float* currentI;          ///< I of the current sample
    double* currentWeight;    ///< weight the current sample has gathered and not yet deposited (double: a
                              ///< long run of rejections adds many small terms)
    double* sums;             ///< kMltSumPartials pairs (sum of I, count)
    /// (sum of I, count) of the samples of b on the other devices of a multi-device render, as
    /// of their last exchange (zeros on one device); b averages them with this device's.
    const double* sharedSums;
    double* stepSums;         ///< kMltStepBins x kMltSumPartials pairs: large steps of step k in bin k % kMltStepBins
    std::uint64_t* foldedSteps;      ///< steps whose large steps are in `sums` (bins below it are empty)
    const std::uint64_t* completeSteps;  ///< every chain has decided every step below this
    float* normalization;     ///< b as of the last connect phase
    double* poolWeights;      ///< Pool: I of each pool entry
    MltCounters* counters;
    float* startI;            ///< per chain: I of its first sample (weighted starts)
    float largeStepProbability;
    bool startCountsTowardsB; ///< Start without a pool: the starts are the uniform samples b averages
    /// Chains that start from a uniform sample of their own instead of one resampled in proportion
    /// to I: each chain's contributions carry the importance weight of its start, I(x0) / b
    /// (Veach 1997, chapter 11), so the image does not depend on how far the chains got from where
    /// they started (chains that start on a black sample contribute nothing).
    bool weightedStart;
    /// Multiplexed MLT (null for MLT): each chain's path length (MltSampler::chainLength), and per
    /// length l - 1 its normalisation b_l (the mean I of its bootstrap entries) and the factor
    /// its chains' contributions carry, chains / (the chains expected at length l), so that the
    /// length's chains, whatever their count, estimate the length's image.
    const int* chainLength = nullptr;
    const float* lengthNormalization = nullptr;
    const float* lengthWeight = nullptr;

    /// The normalisation chain `chain`'s decisions use: b, or its length's b_l.
    WF_CPU_GPU float normalizationFor(int chain) const {
        return chainLength ? lengthNormalization[chainLength[chain] - 1] : *normalization;
    }
    /// A uniform sample of the start-up (complete before any mutation): straight into b.
    WF_CPU_GPU void addToB(int chain, float I) const { addTo(sums, chain, I); }
    /// The large step of mutation `step` of `chain`: into b once its step is complete.
    WF_CPU_GPU void addLargeStep(int chain, std::uint64_t step, float I) const {
        addTo(stepSums + 2 * kMltSumPartials * std::size_t(step % kMltStepBins), chain, I);
    }
    WF_CPU_GPU static void addTo(double* partials, int chain, float I) {
        double* p = partials + 2 * (chain % kMltSumPartials);
        atomicAddDouble(p, double(I));
        atomicAddDouble(p + 1, 1.0);
    }
    /// The factor every contribution of `chain` carries (1 unless the starts are weighted;
    /// multiplexed MLT: its length's lengthWeight).
    WF_CPU_GPU float chainWeight(int chain, float b) const {
        if (chainLength) return lengthWeight[chainLength[chain] - 1] * (!weightedStart ? 1.0f : b > 0.0f ? startI[chain] / b : 0.0f);
        if (!weightedStart) return 1.0f;
        return b > 0.0f ? startI[chain] / b : 0.0f;
    }
    /// Kelemen's MIS weight of a sample with target value I deposited with expected count n.
    /// Multiplexed MLT: the expected value n b / I alone, as in pbrt (no large-step MIS): b enters
    /// linearly, and a chain's b_l times its contributions over I is an unbiased estimate of its
    /// length's image at any chain length, its start resampled from the bootstrap that b_l
    /// averages (Kelemen's weights, nonlinear in b, ran low with the heavy-tailed b_l of a
    /// bootstrap of one strategy per sample: docs/decisions.md).
    WF_CPU_GPU float weight(float n, float I, float b) const {
        if (chainLength) return n > 0.0f && I > 0.0f ? n * b / I : 0.0f;
        float ratio = I > 0.0f ? I / b : 0.0f;
        float d = ratio + largeStepProbability;
        return n > 0.0f && d > 0.0f ? n / d : 0.0f;
    }
};

/// Adds up the kMltSumPartials pairs of `sums`: (sum of I, count).
WF_CPU_GPU inline void addPartials(const double* sums, double& sum, double& count) {
    for (int k = 0; k < kMltSumPartials; ++k) {
        sum += sums[2 * k];
        count += sums[2 * k + 1];
    }
}

/// b from the partial sums and the other devices' (MltChains::sharedSums): the mean I of the
/// uniform samples so far (0 before the first).
WF_CPU_GPU inline double normalizationOf(const double* sums, const double* shared) {
    double sum = shared[0], count = shared[1];
    addPartials(sums, sum, count);
    return count > 0.0 ? sum / count : 0.0;
}

/// One thread before the decisions of a connect phase: moves the large steps of every newly
/// complete step into b, then b as of now.
struct NormalizationStage {
    MltChains chains;
    WF_CPU_GPU void operator()(int) const {
        for (std::uint64_t k = *chains.foldedSteps; k < *chains.completeSteps; ++k) {
            double* bin = chains.stepSums + 2 * kMltSumPartials * std::size_t(k % kMltStepBins);
            for (int p = 0; p < 2 * kMltSumPartials; ++p) {
                chains.sums[p] += bin[p];
                bin[p] = 0.0;
            }
        }
        if (*chains.completeSteps > *chains.foldedSteps) *chains.foldedSteps = *chains.completeSteps;
        *chains.normalization = float(normalizationOf(chains.sums, chains.sharedSums));
    }
};

/// Steps chain c has certainly decided: all but its last claimed one (the reduction's minimum over
/// the chains is NormalizationStage's completeSteps).
struct DecidedStepsOf {
    const std::uint64_t* nextMutation;
    WF_CPU_GPU std::uint64_t operator()(int c) const { return nextMutation[c] > 0 ? nextMutation[c] - 1 : 0; }
};
struct MinOf {
    WF_CPU_GPU std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return a < b ? a : b; }
};

/// The end of a proposal: every chain whose proposal is complete decides (the connect phase has
/// run, so the record holds the whole contribution).
template <class C>
struct DecideStage {
    C c;  ///< a bdpt::Context over MltSampler and ChainSink
    MltChains chains;
    FilmView film;
    /// The proposal of sample s becomes chain `chain`'s current sample: its numbers, record and I.
    WF_CPU_GPU void accept(int chain, std::uint64_t s, int st, float I) const {
        int eyeBlocks = c.sampler.proposalEyeBlocks[chain], lightBlocks = c.sampler.proposalLightBlocks[chain];
        c.sampler.storeProposal(s, st, eyeBlocks, lightBlocks);
        c.sampler.state[chain] = mltstate::make((st & mltstate::kCurrent) ^ 1, eyeBlocks, lightBlocks);
        chains.currentI[chain] = I;
    }
    WF_CPU_GPU void operator()(int i) const {
        if (c.status[i] != 0) return;
        std::uint64_t s = c.slotSample[i];
        int st = c.sampler.state[i], current = st & mltstate::kCurrent;
        int proposalRecord = 2 * i + (current ^ 1), currentRecord = 2 * i + current;
        float Iy = c.sink.luminanceOf(proposalRecord);
        if (!std::isfinite(Iy)) {
            // The float record overflowed (finite contributions summing beyond FLT_MAX). An
            // infinite I would make b infinite and leave the chain stuck on a sample of weight 0;
            // instead the sample is counted once as non-finite and dropped: a black sample.
            atomicFetchAdd(film.nonFinite, 1ull);
            c.sink.clear(proposalRecord);
            Iy = 0.0f;
        }
        switch (c.sampler.phase) {
        case MltPhase::Pool:
            chains.poolWeights[mltindex::mutation(s)] = double(Iy);
            chains.addToB(i, Iy);
            return;
        case MltPhase::Start:
            accept(i, s, st, Iy);
            chains.currentWeight[i] = 0.0;
            if (chains.weightedStart) chains.startI[i] = Iy;
            if (chains.startCountsTowardsB) chains.addToB(i, Iy);
            return;
        case MltPhase::Replay:
            return;
        case MltPhase::Mutate:
            break;
        }
        float b = chains.normalizationFor(i);
        bool large = st & mltstate::kLargeStep;
        float Ix = chains.currentI[i];
        float a = Ix > 0.0f ? glm::min(1.0f, Iy / Ix) : 1.0f;
        // Kelemen's estimator: the proposal with (a + [large]) / (Iy / b + pL), the current
        // sample with (1 - a) / (Ix / b + pL). A sample's weight waits in currentWeight while
        // the sample is current, and goes to the film once, when the sample leaves: a rejected
        // proposal at once, the replaced current sample on acceptance (the accepted proposal
        // keeps its weight, as its record stays). Multiplexed MLT: the expected values a b_l / Iy
        // and (1 - a) b_l / Ix alone (weight()).
        float wy = chains.weight(a + (large && !chains.chainLength ? 1.0f : 0.0f), Iy, b);
        double wx = chains.currentWeight[i] + chains.weight(1.0f - a, Ix, b);
        // Multiplexed MLT's b_l is its bootstrap's alone (as in pbrt): per length, the large steps
        // would need a ring of step sums per length.
        if (large && !chains.chainLength) chains.addLargeStep(i, mltindex::mutation(s), Iy);
        bool accepted = c.sampler.decide.get(mltindex::key(s), mltdims::kAccept) < a;
        addToCounter(&chains.counters->proposals, 1u);
        addToCounter(&chains.counters->largeSteps, large ? 1u : 0u);
        addToCounter(&chains.counters->accepted, accepted ? 1u : 0u);
        float scale = chains.chainWeight(i, b);
        if (accepted) {
            c.sink.depositTo(film, currentRecord, float(wx) * scale);
            accept(i, s, st, Iy);
            chains.currentWeight[i] = wy;
        } else {
            c.sink.depositTo(film, proposalRecord, wy * scale);
            chains.currentWeight[i] = wx;
        }
    }
};

/// End of a render call: every chain deposits the weight its current sample has gathered.
struct FlushStage {
    ChainSink sink;
    MltChains chains;
    const int* state;
    FilmView film;
    WF_CPU_GPU void operator()(int i) const {
        float scale = chains.chainWeight(i, chains.normalizationFor(i));
        sink.depositTo(film, 2 * i + (state[i] & mltstate::kCurrent), float(chains.currentWeight[i]) * scale);
        chains.currentWeight[i] = 0.0;
    }
};

/// One past the last mutation number chain c has started (m = k * chains + c), 0 for none; the
/// maximum over the chains is where a cancelled render leaves the chains' common end.
struct StartedEndOf {
    const std::uint64_t* nextMutation;
    std::uint64_t chains;
    WF_CPU_GPU std::uint64_t operator()(int c) const {
        std::uint64_t k = nextMutation[c];
        return k == 0 ? 0 : (k - 1) * chains + std::uint64_t(c) + 1;
    }
};
struct MaxOf {
    WF_CPU_GPU std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return a > b ? a : b; }
};

// ---- Relative importance (MltOptions::relativeImportance) -------------------------------------------
// I = the luminance of each pixel's share over that pixel's brightness B (Hoberock and Hart 2010,
// "Arbitrary importance functions for Metropolis light transport"): the chains then spend their
// mutations about evenly over the image's pixels instead of in proportion to brightness, so dark
// pixels get a relative error like bright ones'. Any I > 0 wherever a path contributes keeps
// Kelemen's estimator unbiased (b is the mean of the same I over uniform samples); B comes from a
// short BDPT pilot, averaged over tiles of kPilotTile x kPilotTile pixels and floored at
// kPilotFloor of the image's mean, so no pixel's factor exceeds 1 / kPilotFloor of the mean's.

constexpr int kPilotTile = 8;
constexpr float kPilotFloor = 0.1f;

/// Tile t's mean pilot luminance, of the pixels' sums (every pixel has the pilot's passes), in
/// double (a film's sums may pass the float range) and in a fixed order (the same sums give the
/// same mean).
struct PilotTileStage {
    const double* sum;  ///< the pilot film, 3 per frame pixel
    int width, height, tilesX;
    double* tileMean;
    WF_CPU_GPU void operator()(int t) const {
        const int x0 = (t % tilesX) * kPilotTile, y0 = (t / tilesX) * kPilotTile;
        const int x1 = glm::min(x0 + kPilotTile, width), y1 = glm::min(y0 + kPilotTile, height);
        double total = 0.0;
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) {
                const double* p = sum + 3 * (std::size_t(y) * width + x);
                total += luminance(p[0], p[1], p[2]);
            }
        tileMean[t] = total / double((x1 - x0) * (y1 - y0));
    }
};
struct TileMeanOf {
    const double* tileMean;
    WF_CPU_GPU double operator()(int t) const { return tileMean[t]; }
};
/// Pixel i's factor: the image's mean over max(its tile's mean, kPilotFloor x the image's), so
/// between 1 / tiles and 1 / kPilotFloor and I stays of the luminance's magnitude (no overflow or
/// underflow whatever the scene's scale), its mantissa cut to 8 bits (devices of one render, each
/// with its own pilot, then agree on I but where double sums of one pixel's samples in another
/// order round across a step); 1 for a black pilot.
struct PixelImportanceStage {
    const double* tileMean;
    const double* tileMeanSum;  ///< over every tile (TileMeanOf)
    int tiles, width, tilesX;
    float* importance;
    WF_CPU_GPU void operator()(int i) const {
        const double mean = *tileMeanSum / double(tiles);
        const int t = (i % width) / kPilotTile + (i / width) / kPilotTile * tilesX;
        const double B = glm::max(tileMean[t], double(kPilotFloor) * mean);
        const float factor = B > 0.0 ? float(mean / B) : 0.0f;
        importance[i] = factor > 0.0f && std::isfinite(factor) ? intAsFloat(floatAsInt(factor) & ~0x7fff) : 1.0f;
    }
};

/// Replay check: I of each chain's rebuilt sample (scratch record 2 chain).
struct ReplayLuminanceStage {
    ChainSink sink;
    float* out;
    WF_CPU_GPU void operator()(int i) const { out[i] = sink.luminanceOf(2 * i); }
};

}  // namespace wavefront
