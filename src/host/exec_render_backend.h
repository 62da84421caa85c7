// RenderBackend over one exec type: owns the exec, the uploaded scene, the film and the drivers,
// which live as long as the renderer so that a film can be rendered again, added to, or stopped.
#pragma once
#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <tuple>
#include <type_traits>

#include "host/render_backend.h"
#include "wavefront/error.h"
#include "kernels/bdpt_driver.h"
#include "kernels/mlt_driver.h"
#include "kernels/pt_driver.h"
#include "kernels/scene_upload.h"

namespace wavefront {

template <class Exec>
class ExecRenderBackend : public RenderBackend {
public:
    template <class... ExecArgs>
    ExecRenderBackend(const Scene& scene, const RenderOptions& options, ExecArgs&&... execArgs)
        : exec_(std::forward<ExecArgs>(execArgs)...), scene_(uploadScene(exec_, scene, options.lightSampler)),
          film_(exec_, options.width * options.height) {
        if (!options.environmentMap.empty()) {
            Image env = readImage(options.environmentMap);
            if (env.width < 1 || env.height < 1)
                throw InputError("environment map '" + options.environmentMap + "' is empty");
            for (float v : env.rgb)
                if (!std::isfinite(v) || v < 0.0f)
                    throw InputError("environment map '" + options.environmentMap + "' has negative or non-finite texels");
            scene_.environment.build(exec_, env.rgb, env.width, env.height, options.environmentScale, options.lightSampler);
        }
        if (options.integrator != IntegratorType::PathTracer) {
            SceneView view = scene_.view(options.width, options.height);
            const std::string name = options.integrator == IntegratorType::Mlt ? "MLT (on BDPT)" : "BDPT";
            if (view.camera.lensRadius > 0.0f)
                throw InputError(name + " supports pinhole cameras only (this scene's camera has a lens radius)");
            if (view.environment.present())
                throw InputError(name + " supports area lights only; render environment maps with --integrator pt");
        }
    }

    std::string name() const override { return exec_.name(); }

    void render(const RenderOptions& options, const RenderCall& call, Film& film, RenderStats& stats) override {
        const std::uint64_t pass = std::uint64_t(options.width) * std::uint64_t(options.height);
        if (!call.accumulate) clearFilm();
        const bool timed = call.timeLimitSeconds > 0.0;
        const std::uint64_t asked = timed ? 0 : pass * std::uint64_t(call.samplesPerPixel);
        RenderBudget budget(call, asked);
        SceneView view = scene_.view(options.width, options.height);
        std::uint64_t done = 0;
        switch (options.integrator) {
        case IntegratorType::PathTracer: done = renderPt(options, view, asked, budget); break;
        case IntegratorType::Bdpt: done = renderBdpt(options, view, asked, budget); break;
        case IntegratorType::Mlt: done = renderMlt(options, view, asked, budget); break;
        }
        exec_.synchronize();
        seconds_ += budget.elapsed();
        budget.finish(done);
        finish(options, film, stats);
        stats.cancelled = budget.stopped();
    }

private:
    /// PT and BDPT sample indices stay below 2^56 (the path state keeps 56 bits of them).
    static constexpr std::uint64_t kSampleIndexLimit = 1ull << 56;

    /// A fresh film starts with fresh drivers (MLT: fresh chains), so its counters count it alone;
    /// the drivers then stay for every call that adds to it.
    void clearFilm() {
        using Sum = std::remove_pointer_t<decltype(film_.sum.data())>;
        const std::size_t pixels = film_.counts.size();
        exec_.fill(film_.sum.data(), Sum(0), 3 * pixels);
        exec_.fill(film_.counts.data(), 0u, pixels);
        exec_.fill(film_.nonFinite.data(), 0ull, 1);
        exec_.clearStats();
        pt_.reset();
        bdpt_.reset();
        mlt_.reset();
        filmNext_ = 0;
        seconds_ = 0.0;
    }

    /// The sample indices of a call: [filmNext_, filmNext_ + count), open-ended when time-limited.
    std::uint64_t sampleCount(std::uint64_t asked, std::uint64_t pass, bool timed) const {
        std::uint64_t limit = kSampleIndexLimit / pass * pass;
        if (filmNext_ >= limit || (!timed && asked > limit - filmNext_))
            throw InputError("the film is full: at most 2^56 samples go into one film");
        return timed ? limit - filmNext_ : asked;
    }

    /// Path-state slots for a film: the requested stream capacity or the device's default, no
    /// more than the first call's samples.
    int streamSlots(const RenderOptions& o, std::uint64_t count) const {
        int capacity = o.streamCapacity > 0 ? o.streamCapacity : exec_.defaultStreamCapacity();
        return int(std::min<std::uint64_t>(std::uint64_t(capacity), std::max<std::uint64_t>(count, 1)));
    }

    template <class Budget>
    std::uint64_t renderPt(const RenderOptions& o, const SceneView& view, std::uint64_t asked, Budget& budget) {
        const std::uint64_t pass = std::uint64_t(view.width) * view.height;
        const std::uint64_t count = sampleCount(asked, pass, budget.timeLimited());
        if (!pt_) pt_ = std::make_unique<PathTracerDriver<Exec>>(exec_, o.variant, streamSlots(o, count));
        PtParams params;
        params.sampler = HashSampler(o.seed);
        params.maxDepth = o.maxDepth;
        params.rouletteDepth = o.rouletteDepth;
        params.numPixels = int(pass);
        std::uint64_t done = pt_->render(view, params, film_.view(), filmNext_, count, budget);
        filmNext_ += done;
        return done;
    }

    template <class Budget>
    std::uint64_t renderBdpt(const RenderOptions& o, const SceneView& view, std::uint64_t asked, Budget& budget) {
        const std::uint64_t pass = std::uint64_t(view.width) * view.height;
        const std::uint64_t count = sampleCount(asked, pass, budget.timeLimited());
        if (!bdpt_) {
            int slots = std::max(1, std::min(streamSlots(o, count),
                                             bdptSlotLimit(exec_.freeMemoryBytes(), o.maxDepth, o.bdptVariant)));
            bdpt_ = std::make_unique<BdptDriver<Exec>>(exec_, o.bdptVariant, slots, o.maxDepth,
                                                       o.connectThresholdOrDefault(), o.coalescedVertexWrites);
        }
        BdptParams params = makeBdptParams(view, o.maxDepth, o.cameraConnections);
        params.onlyS = o.strategyS;
        params.onlyT = o.strategyT;
        std::uint64_t done = bdpt_->render(view, params, HashSampler(o.seed), film_.view(), filmNext_, count, budget);
        filmNext_ += done;
        return done;
    }

    template <class Budget>
    std::uint64_t renderMlt(const RenderOptions& o, const SceneView& view, std::uint64_t asked, Budget& budget) {
        if (!mlt_) {
            // Chains: the requested count, or enough to fill the device but at least 16 mutations
            // each (a time-limited render fills the device); never more than the first call's
            // mutations, which would leave chains that never mutate.
            const bool timed = budget.timeLimited();
            std::uint64_t device = std::uint64_t(exec_.defaultStreamCapacity());
            std::uint64_t chains = o.streamCapacity > 0 ? std::uint64_t(o.streamCapacity)
                                                        : (timed ? device : std::min(device, asked / 16));
            if (!timed) chains = std::min(chains, asked);
            int n = std::max(1, std::min(int(std::min<std::uint64_t>(chains, INT_MAX)),
                                         mltChainLimit(exec_.freeMemoryBytes(), o.maxDepth, o.cameraConnections)));
            MltSettings settings{o.largeStepProbability, o.startupResampling, o.seed,
                                 mltPoolSize(n, timed ? std::uint64_t(n) : asked)};
            mlt_ = std::make_unique<MltDriver<Exec>>(exec_, n, o.maxDepth, o.cameraConnections,
                                                     o.connectThresholdOrDefault(), o.coalescedVertexWrites, settings);
        }
        BdptParams params = makeBdptParams(view, o.maxDepth, o.cameraConnections);
        return mlt_->render(view, params, film_.view(), asked, budget);
    }

    /// Copies the film and the statistics of everything on it out.
    void finish(const RenderOptions& o, Film& film, RenderStats& stats) {
        const std::size_t pixels = film_.counts.size();
        film.width = o.width;
        film.height = o.height;
        film.sum.resize(3 * pixels);
        film.samples.resize(pixels);
        exec_.download(film.sum.data(), film_.sum.data(), film.sum.size());
        exec_.download(film.samples.data(), film_.counts.data(), film.samples.size());
        unsigned long long bad = 0;
        exec_.download(&bad, film_.nonFinite.data(), 1);

        stats = RenderStats{};
        stats.backend = exec_.name();
        stats.seconds = seconds_;
        stats.nonFiniteSamples = bad;
        stats.kernels = exec_.kernelStats();
        std::vector<double> simd;
        const char* (*simdLabel)(int) = bdptSimdLabel;
        int simdKernels = kBdptSimdKernelCount;
        if (o.integrator == IntegratorType::PathTracer) {
            for (std::uint32_t n : film.samples) stats.samples += n;
            stats.extensionRays = pt_->extensionRays();
            stats.shadowRays = pt_->shadowRays();
            stats.streamCapacity = o.variant == PtVariant::Megakernel ? 0 : pt_->capacity();
            stats.bytesPerSampleSlot = ptBytesPerSlot(o.variant);
            simd = pt_->simdEfficiency();
            simdLabel = simdKernelLabel;
            simdKernels = kSimdKernelCount;
        } else if (o.integrator == IntegratorType::Bdpt) {
            for (std::uint32_t n : film.samples) stats.samples += n;
            simd = bdptStats(*bdpt_, stats);
            stats.streamCapacity = bdpt_->slots();
            stats.bytesPerSampleSlot = bdptBytesPerSlot(o.bdptVariant, o.maxDepth);
        } else {
            MltCounters k = mlt_->counters();
            stats.samples = k.proposals;
            normaliseMltFilm(film, k.proposals);
            simd = bdptStats(mlt_->bdpt(), stats);
            stats.streamCapacity = mlt_->chainCount();
            stats.bytesPerSampleSlot = mltBytesPerChain(o.maxDepth, o.cameraConnections);
            stats.acceptanceRate = k.proposals ? double(k.accepted) / double(k.proposals) : -1.0;
            stats.largeStepFraction = k.proposals ? double(k.largeSteps) / double(k.proposals) : -1.0;
            stats.normalization = mlt_->normalization();
        }
        for (KernelStats& k : stats.kernels)
            for (int kernel = 0; kernel < simdKernels; ++kernel)
                if (k.label == simdLabel(kernel)) {
                    k.simdOccupancy = simd[2 * kernel];
                    k.simdEfficiency = simd[2 * kernel + 1];
                }
    }

    /// Every mutation places its sample anywhere on the film, so a pixel's estimate is its sum over
    /// (mutations / pixels). The film says so with a whole sample count per pixel; when a cancelled
    /// call leaves a count that is not a whole number of passes, the sums are scaled to match.
    static void normaliseMltFilm(Film& film, std::uint64_t mutations) {
        const double pixels = double(film.samples.size());
        std::uint64_t perPixel = std::uint64_t(std::llround(double(mutations) / pixels));
        if (mutations > 0) perPixel = std::max<std::uint64_t>(perPixel, 1);
        std::fill(film.samples.begin(), film.samples.end(), std::uint32_t(perPixel));
        if (mutations == 0 || double(perPixel) * pixels == double(mutations)) return;
        const double scale = double(perPixel) * pixels / double(mutations);
        for (auto& v : film.sum) v = static_cast<std::decay_t<decltype(v)>>(v * scale);
    }

    /// Ray, connection and SIMD counters of a BDPT driver (BDPT, or the one under MLT); returns
    /// the per-kernel SIMD efficiencies.
    static std::vector<double> bdptStats(BdptDriver<Exec>& driver, RenderStats& stats) {
        stats.extensionRays = driver.extensionRays();
        stats.shadowRays = driver.shadowRays();
        stats.connections = driver.connections();
        stats.connectPhases = driver.connectPhases();
        std::tie(stats.walkSimdEfficiency, stats.connectSimdEfficiency) = driver.phaseSimdEfficiency();
        return driver.simdEfficiency();
    }

    Exec exec_;
    SceneBuffers<Exec> scene_;
    FilmBuffers<Exec> film_;
    std::unique_ptr<PathTracerDriver<Exec>> pt_;
    std::unique_ptr<BdptDriver<Exec>> bdpt_;
    std::unique_ptr<MltDriver<Exec>> mlt_;
    std::uint64_t filmNext_ = 0;  ///< PT and BDPT: the next sample index of the film
    double seconds_ = 0.0;
};

}  // namespace wavefront
