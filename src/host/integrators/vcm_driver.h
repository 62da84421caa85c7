// VCM's driver (kernels/vcm): iterations of one pass each (a light subpath per pixel, or
// VcmOptions::lightPaths of them). An iteration: the light pass (its vertices staged per subpath),
// the light vertex cache compacted over a prefix sum of the subpaths' vertex counts, the hash
// grid over the cached vertices (bucket keys, their sort, each bucket's range), then the eye pass.
// Two schedules of the same estimator (VcmOptions::variant, BDPT's two): streaming (default), the
// passes as compacted walk streams, one extend, shade and trace launch per bounce, and each eye
// bounce's stored vertices as a stream of their own whose connections (one thread per vertex
// pair) and merges (one thread per eye vertex, sorted by grid cell) are launches of their own;
// naive, one thread walks a whole subpath (the baseline). A template over the exec type;
// instantiated for CpuExec and CudaExec.
#pragma once
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <string>

#include "host/backends/buffer.h"
#include "host/integrators/stream_scheduler.h"
#include "kernels/vcm/vcm_stages.h"
#include "wavefront/error.h"
#include "wavefront/renderer.h"

namespace wavefront {

/// What one render call of the driver runs under: the mode, the radius schedule and the
/// BDPT parameters of the pass (numPixels: the eye samples of a pass).
struct VcmSetup {
    VcmMode mode = VcmMode::Vcm;
    BdptParams params;
    float baseRadius = 0.0f;  ///< in scene units
    float alpha = 0.75f;
};

template <class Exec>
class VcmDriver {
public:
    /// `passSize`: the eye samples of an iteration (the film's pixels).
    VcmDriver(Exec& exec, BdptVariant variant, int lightPaths, int passSize, int maxDepth)
        : exec_(exec), variant_(variant), lightPaths_(lightPaths), passSize_(passSize), scheduler_(exec) {
        stride_ = std::max(1, mergingParams(maxDepth).storedVertices());
        checkSizes(lightPaths_, passSize_, maxDepth);
        stagedEntries_ = lightPaths_ * stride_;
        for (tableSize_ = 1024; tableSize_ < std::uint32_t(lightPaths_); tableSize_ *= 2) {
        }
        for (keyBits_ = 1; (std::uint32_t(1) << keyBits_) < tableSize_; ++keyBits_) {
        }
        staged_ = exec_.template allocate<PathVertex>(std::size_t(stagedEntries_));
        stagedDVM_ = exec_.template allocate<float>(std::size_t(stagedEntries_));
        count_ = exec_.template allocate<int>(std::size_t(lightPaths_));
        prefix_ = exec_.template allocate<int>(std::size_t(lightPaths_));
        begin_ = exec_.template allocate<std::uint32_t>(tableSize_);
        end_ = exec_.template allocate<std::uint32_t>(tableSize_);
        if (variant_ == BdptVariant::Streaming) {
            capacity_ = std::max(lightPaths_, passSize_);
            const std::size_t n = std::size_t(capacity_);
            for (Buffer<Float4>& b : walkWords_) b = exec_.template allocate<Float4>(n * SoaView<WalkState>::kWords);
            hits_ = exec_.template allocate<Hit>(n);
            shadowWords_ = exec_.template allocate<Float4>(n * SoaView<ShadowRay>::kWords);
            eyeVertexWords_ = exec_.template allocate<Float4>(n * SoaView<PathVertex>::kWords);
            eyeDVM_ = exec_.template allocate<float>(n);
            for (Buffer<int>* b : {&eyeSlot_, &eyeCounts_, &eyePrefix_}) *b = exec_.template allocate<int>(n);
            mergeKeys_ = exec_.template allocate<std::uint64_t>(n);
            mergeOrder_ = exec_.template allocate<std::uint32_t>(n);
            pixelOf_ = exec_.template allocate<int>(std::size_t(passSize_));
        }
        scheduler_.reset(VcmCounters{});
    }

    /// Device bytes a driver of this schedule, `lightPaths` light subpaths, `passSize` eye samples
    /// an iteration and this depth allocates at most (the compacted cache and its grid keys
    /// counted as if every staged entry were used).
    static std::size_t plannedBytes(BdptVariant variant, std::uint64_t lightPaths, std::uint64_t passSize, int maxDepth) {
        const std::uint64_t entries = lightPaths * std::uint64_t(std::max(1, mergingParams(maxDepth).storedVertices()));
        const std::uint64_t perEntry = 2 * (sizeof(PathVertex) + sizeof(float)) + sizeof(std::uint64_t) + sizeof(std::uint32_t);
        std::uint64_t bytes = entries * perEntry + lightPaths * (2 * sizeof(int) + 2 * sizeof(std::uint32_t));
        if (variant == BdptVariant::Streaming) {
            const std::uint64_t perSlot = 2 * sizeof(WalkState) + sizeof(Hit) + sizeof(ShadowRay) + sizeof(PathVertex) +
                                          sizeof(float) + 3 * sizeof(int) + sizeof(std::uint64_t) + sizeof(std::uint32_t);
            bytes += std::max(lightPaths, passSize) * perSlot + passSize * sizeof(int);
        }
        return std::size_t(bytes);
    }

    /// Renders eye samples [first, first + count) into the film, iteration by iteration
    /// (iteration k: samples [kN, (k + 1)N), N = setup.params.numPixels; one launch each, never
    /// across two), asking the budget after each; a part of an iteration traces all its light
    /// subpaths but splats only the t = 1 connections its own samples own, so ranges that tile an
    /// iteration add up to it.
    template <class Budget>
    std::uint64_t render(const SceneView& scene, const VcmSetup& setup, const HashSampler& sampler, const FilmView& film,
                         std::uint64_t first, std::uint64_t count, Budget& budget) {
        if (setup.params.numPixels > passSize_)
            throw Error("VCM's driver was made for passes of " + std::to_string(passSize_) + " samples, not " +
                        std::to_string(setup.params.numPixels));
        return withMaterialSet(scene, [&](auto materials) -> std::uint64_t {
            using Materials = decltype(materials);
            const std::uint64_t pass = std::uint64_t(setup.params.numPixels);
            LaunchSizer wholeIterations{pass};
            return runChunked(
                exec_, first, count, wholeIterations, pass, budget,
                [&](std::uint64_t offset, std::uint64_t n) {
                    const std::uint64_t at = first + offset;
                    return runIteration<Materials>(scene, setup, sampler, film, at / pass, at, n, budget);
                },
                true);
        });
    }

    VcmCounters counters() { return scheduler_.read(); }
    std::uint64_t iterations() const { return iterations_; }
    std::uint64_t lightPathsTraced() const { return lightPathsTraced_; }
    /// Light vertices cached over all iterations (the compacted cache's sizes added up).
    std::uint64_t cachedVertices() const { return cachedVertices_; }
    float lastRadius() const { return lastRadius_; }
    int lightPaths() const { return lightPaths_; }
    BdptVariant variant() const { return variant_; }
    std::vector<double> simdEfficiency() { return scheduler_.simdEfficiency(); }

private:
    static BdptParams mergingParams(int maxDepth) {
        BdptParams p;
        p.maxDepth = maxDepth;
        p.merging = true;
        return p;
    }
    static void checkSizes(int lightPaths, int passSize, int maxDepth) {
        const std::size_t stride = std::size_t(std::max(1, mergingParams(maxDepth).storedVertices()));
        const std::size_t entries = std::size_t(std::max(lightPaths, passSize)) * stride;
        if (entries > std::size_t(INT32_MAX))
            throw InputError("VCM's light vertex cache (or an eye bounce's connections) of " + std::to_string(entries) +
                             " entries is too large: lower --light-paths, the resolution or --max-depth");
    }
    /// Grows `b` to at least `n` items (by half again, so that iterations settle on one size).
    template <class T>
    void ensure(Buffer<T>& b, std::size_t n) {
        const std::size_t had = b.size();
        if (had >= n) return;
        b = Buffer<T>();  // freed before the larger one is allocated
        b = exec_.template allocate<T>(std::max(n, had + had / 2));
    }

    SoaView<WalkState> walks(int b) const { return SoaView<WalkState>{walkWords_[b].data(), capacity_}; }
    SoaView<ShadowRay> shadow() const { return SoaView<ShadowRay>{shadowWords_.data(), capacity_}; }
    vcm::EyeVertexStream eyeStream() const {
        return vcm::EyeVertexStream{SoaView<PathVertex>{eyeVertexWords_.data(), capacity_}, eyeDVM_.data(), eyeSlot_.data()};
    }
    vcm::StagedVertices staged() const { return vcm::StagedVertices{staged_.data(), stagedDVM_.data(), count_.data(), stride_}; }
    vcm::LightCache cache() const { return vcm::LightCache{cache_.data(), cacheDVM_.data(), count_.data(), prefix_.data()}; }

    /// Runs eye samples [at, at + n) of `iteration`; returns how many ran: fewer when the render
    /// was cancelled, or ran past twice its time limit, within the pass. The light pass has then
    /// splatted the t = 1 connections of the whole range: a pixel whose eye sample did not run
    /// keeps that light without the sample, at most one pass's worth (a pixel without any sample
    /// resolves black all the same).
    template <class Materials, class Budget>
    std::uint64_t runIteration(const SceneView& scene, const VcmSetup& setup, const HashSampler& sampler,
                               const FilmView& film, std::uint64_t iteration, std::uint64_t at, std::uint64_t n,
                               Budget& budget) {
        BdptParams p = setup.params;
        p.lightPathCount = float(lightPaths_);
        const float radius = vcmRadius(setup.baseRadius, setup.alpha, iteration);
        setVcmWeights(p, setup.mode, radius);
        using C = bdpt::Context<HashSampler, FilmSink, Materials>;
        // The stages read the cache (LightCache), not BDPT's per-slot records.
        C c{scene, p, sampler, FilmSink{film}, nullptr, scheduler_.simd(), nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
        const std::uint64_t firstEye = iteration * std::uint64_t(p.numPixels);
        const std::uint64_t firstLight = iteration * std::uint64_t(lightPaths_);
        const vcm::SplatOwners owners{firstEye, at, at + n, p.numPixels};
        if (variant_ == BdptVariant::Naive)
            exec_.parallelFor("vcm light pass", lightPaths_,
                              vcm::LightStage<C>{c, staged(), scheduler_.control(), firstLight, owners});
        else
            streamLightPass(c, firstLight, owners);
        const int cached = compactCache();
        MergeGrid grid{};
        grid.lower = scene.sceneCenter - vec3(scene.sceneRadius);
        grid.invCellSize = 1.0f / (2.0f * radius);
        grid.radius2 = radius * radius;
        grid.tableMask = tableSize_ - 1;
        grid.begin = begin_.data();
        grid.end = end_.data();
        grid.entries = values_.data();
        grid.normalization = 1.0f / (kPi * radius * radius * p.lightPathCount);
        grid.firstHitOnly = setup.mode == VcmMode::Ppm;
        buildGrid(grid, cached);
        // In launches, the budget asked between them: with a large radius every eye vertex merges
        // with every light vertex, and one pass took hours (--radius 1000 at 512 x 512) whatever
        // the time limit. A pass is cut only by a cancellation or at twice the limit.
        std::uint64_t ran = 0;
        while (ran < n) {
            // At most four times the largest launch yet: one cheap sample (a miss) must not make
            // the next launch the rest of an expensive pass.
            const std::uint64_t m = std::min({eyeLaunches_.next(), 4 * largestEyeLaunch_, n - ran});
            largestEyeLaunch_ = std::max(largestEyeLaunch_, m);
            const auto start = std::chrono::steady_clock::now();
            if (variant_ == BdptVariant::Naive)
                exec_.parallelFor("vcm eye pass", int(m),
                                  vcm::EyeStage<C>{c, cache(), grid, scheduler_.control(), firstEye, at + ran, lightPaths_});
            else
                streamEyePass(c, grid, firstEye, at + ran, int(m));
            ran += m;
            exec_.synchronize();  // runChunked waits for the iteration anyway
            eyeLaunches_.observe(m, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            if (ran == n) break;
            if (budget.cancelRequested() || (budget.timeLimited() && budget.elapsed() >= 2.0 * budget.timeLimit())) break;
        }
        ++iterations_;
        lightPathsTraced_ += std::uint64_t(lightPaths_);
        cachedVertices_ += std::uint64_t(cached);
        lastRadius_ = radius;
        return ran;
    }

    /// The staged vertices that exist, compacted into the cache over the inclusive prefix sum of
    /// the subpaths' counts; returns how many.
    int compactCache() {
        exec_.inclusiveScan(count_.data(), prefix_.data(), lightPaths_);
        int total = 0;
        exec_.download(&total, prefix_.data() + (lightPaths_ - 1), 1);
        ensure(cache_, std::size_t(total));
        ensure(cacheDVM_, std::size_t(total));
        ensure(keys_, std::size_t(total));
        ensure(values_, std::size_t(total));
        if (total > 0)
            exec_.parallelFor("vcm cache compaction", stagedEntries_,
                              vcm::CompactCacheStage{staged(), prefix_.data(), cache_.data(), cacheDVM_.data()});
        return total;
    }

    /// The hash grid over the `cached` vertices of the cache.
    void buildGrid(const MergeGrid& grid, int cached) {
        exec_.fill(begin_.data(), std::uint32_t(0), tableSize_);
        exec_.fill(end_.data(), std::uint32_t(0), tableSize_);
        if (cached == 0) return;
        exec_.parallelFor("vcm grid keys", cached, vcm::GridKeyStage{cache(), grid, keys_.data(), values_.data()});
        exec_.sortPairs(keys_.data(), values_.data(), cached, keyBits_);
        exec_.parallelFor("vcm grid buckets", cached, vcm::BucketRangeStage{keys_.data(), cached, begin_.data(), end_.data()});
    }

    /// The bounces of `live` walks in walk buffer 0 until none continues: per bounce, extend,
    /// `shade(in, out)` (compacting into the control block's streams), the shadow rays, and
    /// `afterBounce(control)` with the bounce's counts.
    template <class C, class Shade, class AfterBounce>
    void streamWalks(const C& c, int live, const Shade& shade, const AfterBounce& afterBounce) {
        VcmCounters* k = scheduler_.control();
        for (int cur = 0; live > 0; cur ^= 1) {
            exec_.parallelFor("vcm bookkeeping", 1, vcm::BounceBookkeepingStage{k});
            exec_.parallelFor("vcm extend", live, vcm::ExtendStage<C>{c, k, walks(cur), hits_.data()});
            shade(cur, live);
            exec_.parallelFor("vcm trace", ItemCount{live, &k->shadowCount}, vcm::TraceStage<C>{c, k, shadow()});
            VcmCounters now;
            exec_.download(&now, k, 1);
            afterBounce(now);
            live = now.nextWalks;
        }
    }

    template <class C>
    void streamLightPass(const C& c, std::uint64_t firstLight, const vcm::SplatOwners& owners) {
        VcmCounters* k = scheduler_.control();
        exec_.parallelFor("vcm light start", lightPaths_, vcm::StartLightStage<C>{c, walks(0), count_.data(), firstLight});
        streamWalks(
            c, lightPaths_,
            [&](int cur, int live) {
                exec_.compactingFor("vcm light shade", ItemCount{live, nullptr},
                                    vcm::LightShadeStage<C>{c, walks(cur), hits_.data(), walks(cur ^ 1), shadow(), staged(),
                                                            owners, {&k->nextWalks, &k->shadowCount}});
            },
            [](const VcmCounters&) {});
    }

    template <class C>
    void streamEyePass(const C& c, const MergeGrid& grid, std::uint64_t firstEye, std::uint64_t first, int n) {
        VcmCounters* k = scheduler_.control();
        exec_.parallelFor("vcm eye start", n, vcm::StartEyeStage<C>{c, walks(0), pixelOf_.data(), firstEye, first});
        streamWalks(
            c, n,
            [&](int cur, int live) {
                exec_.compactingFor("vcm eye shade", ItemCount{live, nullptr},
                                    vcm::EyeShadeStage<C>{c, walks(cur), hits_.data(), walks(cur ^ 1), shadow(), eyeStream(),
                                                          grid.firstHitOnly,
                                                          {&k->nextWalks, &k->shadowCount, &k->eyeVertexCount}});
            },
            [&](const VcmCounters& now) {
                const int vertices = now.eyeVertexCount;
                if (vertices == 0) return;
                if (c.params.connecting) {
                    exec_.parallelFor("vcm connect count", vertices,
                                      vcm::ConnectCountStage{cache(), eyeSlot_.data(), lightPaths_, eyeCounts_.data()});
                    exec_.inclusiveScan(eyeCounts_.data(), eyePrefix_.data(), vertices);
                    int connections = 0;
                    exec_.download(&connections, eyePrefix_.data() + (vertices - 1), 1);
                    if (connections > 0)
                        exec_.parallelFor("vcm connect", connections,
                                          vcm::ConnectStage<C>{c, k, cache(), eyeStream(), pixelOf_.data(), eyePrefix_.data(),
                                                               vertices, lightPaths_});
                }
                exec_.parallelFor("vcm merge keys", vertices,
                                  vcm::MergeKeyStage{grid, eyeStream().vertices, mergeKeys_.data(), mergeOrder_.data()});
                exec_.sortPairs(mergeKeys_.data(), mergeOrder_.data(), vertices, keyBits_);
                exec_.parallelFor("vcm merge", vertices,
                                  vcm::MergeStage<C>{c, k, cache(), grid, eyeStream(), pixelOf_.data(), mergeOrder_.data()});
            });
    }

    Exec& exec_;
    BdptVariant variant_;
    int lightPaths_ = 0, passSize_ = 0, stride_ = 1, stagedEntries_ = 0, capacity_ = 0, keyBits_ = 1;
    std::uint32_t tableSize_ = 1024;
    // The light vertex cache: staged per subpath, then compacted (grown to the largest iteration's).
    Buffer<PathVertex> staged_, cache_;
    Buffer<float> stagedDVM_, cacheDVM_;
    Buffer<int> count_, prefix_;
    Buffer<std::uint64_t> keys_;
    Buffer<std::uint32_t> values_, begin_, end_;
    // The streaming schedule's streams (capacity_ items: the light pass's walks or the eye pass's).
    Buffer<Float4> walkWords_[2], shadowWords_, eyeVertexWords_;
    Buffer<Hit> hits_;
    Buffer<float> eyeDVM_;
    Buffer<int> eyeSlot_, eyeCounts_, eyePrefix_, pixelOf_;
    Buffer<std::uint64_t> mergeKeys_;
    Buffer<std::uint32_t> mergeOrder_;
    StreamScheduler<Exec, VcmCounters> scheduler_;  ///< the control block (counters, stream counts) and SIMD counters
    std::uint64_t iterations_ = 0, lightPathsTraced_ = 0, cachedVertices_ = 0;
    float lastRadius_ = 0.0f;
    /// Eye-pass launches: one sample first, then about 50 ms of them at the measured rate (a
    /// launch a pass at the usual radii; at radius 1000 one eye sample of 128 x 96 merged for 9 ms
    /// on a CPU thread, so that a launch of 1024 samples ran 9 s).
    LaunchSizer eyeLaunches_{1, 0.05};
    std::uint64_t largestEyeLaunch_ = 1;
};

}  // namespace wavefront
