// VCM's driver (kernels/vcm): iterations of one pass each (a light subpath per pixel, or
// VcmOptions::lightPaths of them), launched as four stages: the light pass, the grid's keys,
// their sort and bucket ranges, and the eye pass. A template over the exec type; instantiated
// for CpuExec and CudaExec.
//
// One thread walks a whole subpath (the naive BDPT's schedule, not the streaming one's): a
// first version that is correct on both backends; the streaming schedule with compacted walks
// is the next step for speed (docs/decisions.md, "VCM: one thread per subpath first").
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include "host/backends/buffer.h"
#include "host/integrators/stream_scheduler.h"
#include "kernels/vcm/vcm_stages.h"
#include "wavefront/error.h"

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
    VcmDriver(Exec& exec, int lightPaths, int maxDepth) : exec_(exec), lightPaths_(lightPaths), scheduler_(exec) {
        stride_ = std::max(1, mergingParams(maxDepth).storedVertices());
        const std::size_t entries = std::size_t(lightPaths_) * std::size_t(stride_);
        if (entries > std::size_t(INT32_MAX))
            throw InputError("VCM's light vertex cache of " + std::to_string(entries) +
                             " entries is too large: lower --light-paths or --max-depth");
        entries_ = int(entries);
        for (tableSize_ = 1024; tableSize_ < std::uint32_t(lightPaths_); tableSize_ *= 2) {
        }
        vertices_ = exec_.template allocate<PathVertex>(entries);
        dVM_ = exec_.template allocate<float>(entries);
        keys_ = exec_.template allocate<std::uint64_t>(entries);
        values_ = exec_.template allocate<std::uint32_t>(entries);
        count_ = exec_.template allocate<int>(std::size_t(lightPaths_));
        begin_ = exec_.template allocate<std::uint32_t>(tableSize_);
        end_ = exec_.template allocate<std::uint32_t>(tableSize_);
        scheduler_.reset(VcmCounters{});
    }

    /// Device bytes a driver of `lightPaths` light subpaths and this depth allocates.
    static std::size_t plannedBytes(std::uint64_t lightPaths, int maxDepth) {
        const std::uint64_t entries = lightPaths * std::uint64_t(std::max(1, mergingParams(maxDepth).storedVertices()));
        return std::size_t(entries * (sizeof(PathVertex) + sizeof(float) + sizeof(std::uint64_t) + sizeof(std::uint32_t)) +
                           lightPaths * (sizeof(int) + 2 * sizeof(std::uint32_t)));
    }

    /// Renders eye samples [first, first + count) into the film, iteration by iteration
    /// (iteration k: samples [kN, (k + 1)N), N = setup.params.numPixels; one launch each, never
    /// across two), asking the budget after each; a part of an iteration traces all its light
    /// subpaths but splats only the t = 1 connections its own samples own, so ranges that tile an
    /// iteration add up to it.
    template <class Budget>
    std::uint64_t render(const SceneView& scene, const VcmSetup& setup, const HashSampler& sampler, const FilmView& film,
                         std::uint64_t first, std::uint64_t count, Budget& budget) {
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
    float lastRadius() const { return lastRadius_; }
    int lightPaths() const { return lightPaths_; }
    std::vector<double> simdEfficiency() { return scheduler_.simdEfficiency(); }

private:
    static BdptParams mergingParams(int maxDepth) {
        BdptParams p;
        p.maxDepth = maxDepth;
        p.merging = true;
        return p;
    }

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
        const vcm::LightCache cache{vertices_.data(), dVM_.data(), count_.data(), stride_};
        const std::uint64_t firstEye = iteration * std::uint64_t(p.numPixels);
        exec_.parallelFor("vcm light pass", lightPaths_,
                          vcm::LightStage<C>{c, cache, scheduler_.control(), iteration * std::uint64_t(lightPaths_), firstEye,
                                             at, at + n});
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
        const std::uint64_t unused = tableSize_;
        exec_.fill(begin_.data(), std::uint32_t(0), tableSize_);
        exec_.fill(end_.data(), std::uint32_t(0), tableSize_);
        exec_.parallelFor("vcm grid keys", entries_, vcm::GridKeyStage{cache, grid, unused, keys_.data(), values_.data()});
        int keyBits = 1;
        while ((std::uint64_t(1) << keyBits) <= unused) ++keyBits;
        exec_.sortPairs(keys_.data(), values_.data(), entries_, keyBits);
        exec_.parallelFor("vcm grid buckets", entries_,
                          vcm::BucketRangeStage{keys_.data(), entries_, unused, begin_.data(), end_.data()});
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
            exec_.parallelFor("vcm eye pass", int(m),
                              vcm::EyeStage<C>{c, cache, grid, scheduler_.control(), firstEye, at + ran, lightPaths_});
            ran += m;
            exec_.synchronize();  // runChunked waits for the iteration anyway
            eyeLaunches_.observe(m, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            if (ran == n) break;
            if (budget.cancelRequested() || (budget.timeLimited() && budget.elapsed() >= 2.0 * budget.timeLimit())) break;
        }
        ++iterations_;
        lightPathsTraced_ += std::uint64_t(lightPaths_);
        lastRadius_ = radius;
        return ran;
    }

    Exec& exec_;
    int lightPaths_ = 0, stride_ = 1, entries_ = 0;
    std::uint32_t tableSize_ = 1024;
    Buffer<PathVertex> vertices_;
    Buffer<float> dVM_;
    Buffer<std::uint64_t> keys_;
    Buffer<std::uint32_t> values_, begin_, end_;
    Buffer<int> count_;
    StreamScheduler<Exec, VcmCounters> scheduler_;  ///< the counters (its control block) and SIMD counters
    std::uint64_t iterations_ = 0, lightPathsTraced_ = 0;
    float lastRadius_ = 0.0f;
    /// Eye-pass launches: one sample first, then about 50 ms of them at the measured rate (a
    /// launch a pass at the usual radii; at radius 1000 one eye sample of 128 x 96 merged for 9 ms
    /// on a CPU thread, so that a launch of 1024 samples ran 9 s).
    LaunchSizer eyeLaunches_{1, 0.05};
    std::uint64_t largestEyeLaunch_ = 1;
};

}  // namespace wavefront
