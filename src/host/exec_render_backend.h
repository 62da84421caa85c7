// RenderBackend over one exec type: owns the exec, the uploaded scene and the driver.
#pragma once
#include <chrono>
#include <cmath>
#include <tuple>

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
        : exec_(std::forward<ExecArgs>(execArgs)...), scene_(uploadScene(exec_, scene, options.lightSampler)) {
        if (!options.environmentMap.empty()) {
            Image env = readImage(options.environmentMap);
            if (env.width < 1 || env.height < 1)
                throw InputError("environment map '" + options.environmentMap + "' is empty");
            for (float v : env.rgb)
                if (!std::isfinite(v) || v < 0.0f)
                    throw InputError("environment map '" + options.environmentMap + "' has negative or non-finite texels");
            scene_.environment.build(exec_, env.rgb, env.width, env.height, options.environmentScale, options.lightSampler);
        }
    }

    std::string name() const override { return exec_.name(); }

    void render(const RenderOptions& options, Film& film, RenderStats& stats) override {
        auto start = std::chrono::steady_clock::now();
        exec_.clearStats();
        const int numPixels = options.width * options.height;
        FilmBuffers<Exec> filmBuffers(exec_, numPixels);
        FilmView filmView = filmBuffers.view();
        SceneView view = scene_.view(options.width, options.height);
        film.width = options.width;
        film.height = options.height;

        const std::uint64_t perPass = std::uint64_t(numPixels);
        const bool timed = options.timeLimitSeconds > 0.0;
        const std::uint64_t total = timed ? 0 : perPass * std::uint64_t(options.samplesPerPixel);
        int capacity = options.streamCapacity > 0 ? options.streamCapacity : exec_.defaultStreamCapacity();
        if (!timed) capacity = int(std::min<std::uint64_t>(std::uint64_t(capacity), std::max<std::uint64_t>(total, 1)));

        auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
        auto report = [&](std::uint64_t generated) {
            if (options.progress) options.progress(generated, timed ? 0 : total, elapsed());
        };
        // Whole passes (one sample per pixel each) until the time is up, so every pixel has the
        // same count; or all samples in one go.
        std::uint64_t done = 0;
        auto renderAll = [&](auto&& renderRange) {
            if (timed) {
                do {
                    renderRange(done, perPass, report);
                    done += perPass;
                } while (elapsed() < options.timeLimitSeconds);
            } else {
                renderRange(0, total, report);
                done = total;
            }
            exec_.synchronize();
            stats.seconds = elapsed();
            report(done);
        };

        std::vector<double> simd;
        const char* (*simdLabel)(int) = nullptr;
        int simdKernels = 0;
        if (options.integrator == IntegratorType::PathTracer) {
            PtParams params;
            params.sampler = HashSampler(options.seed);
            params.maxDepth = options.maxDepth;
            params.rouletteDepth = options.rouletteDepth;
            params.numPixels = numPixels;
            PathTracerDriver<Exec> driver(exec_, options.variant, capacity);
            renderAll([&](std::uint64_t first, std::uint64_t count, const auto& progress) {
                driver.render(view, params, filmView, first, count, progress);
            });
            stats.extensionRays = driver.extensionRays();
            stats.shadowRays = driver.shadowRays();
            stats.streamCapacity = options.variant == PtVariant::Megakernel ? 0 : capacity;
            stats.bytesPerSampleSlot = ptBytesPerSlot(options.variant);
            simd = driver.simdEfficiency();
            simdLabel = simdKernelLabel;
            simdKernels = kSimdKernelCount;
        } else {
            const std::string name = options.integrator == IntegratorType::Mlt ? "MLT (on BDPT)" : "BDPT";
            if (view.camera.lensRadius > 0.0f)
                throw InputError(name + " supports pinhole cameras only (this scene's camera has a lens radius)");
            if (view.environment.present())
                throw InputError(name + " supports area lights only; render environment maps with --integrator pt");
            BdptParams params = makeBdptParams(view, options.maxDepth, options.cameraConnections);
            simdLabel = bdptSimdLabel;
            simdKernels = kBdptSimdKernelCount;
            if (options.integrator == IntegratorType::Mlt) {
                // Chains: enough to fill the device, but at least 16 mutations each by default.
                std::uint64_t perChain = timed ? 1 : 16;
                int chains = options.streamCapacity > 0
                                 ? options.streamCapacity
                                 : int(std::min<std::uint64_t>(std::uint64_t(exec_.defaultStreamCapacity()),
                                                               std::max<std::uint64_t>(1, (timed ? perPass : total) / perChain)));
                // More chains than one call's mutations would never mutate.
                std::uint64_t firstCall = timed ? perPass : total;
                chains = int(std::min<std::uint64_t>(std::uint64_t(chains), firstCall));
                chains = std::max(1, std::min(chains, mltChainLimit(exec_.freeMemoryBytes(), options.maxDepth,
                                                                     options.cameraConnections)));
                MltSettings settings{options.largeStepProbability, options.startupResampling, options.seed,
                                     mltPoolSize(chains, firstCall)};
                MltDriver<Exec> driver(exec_, chains, options.maxDepth, options.cameraConnections,
                                       options.connectThreshold, options.coalescedVertexWrites, settings);
                renderAll([&](std::uint64_t first, std::uint64_t count, const auto& progress) {
                    driver.render(view, params, filmView, first, count, progress);
                });
                // Every mutation places its sample anywhere on the film: a pixel's estimate is its
                // sum over (mutations / pixels), the same count for every pixel.
                exec_.fill(filmBuffers.counts.data(), unsigned(done / perPass), numPixels);
                simd = bdptStats(driver.bdpt(), stats);
                stats.streamCapacity = chains;
                stats.bytesPerSampleSlot = mltBytesPerChain(options.maxDepth, options.cameraConnections);
                MltCounters k = driver.counters();
                stats.acceptanceRate = k.proposals ? double(k.accepted) / double(k.proposals) : -1.0;
                stats.largeStepFraction = k.proposals ? double(k.largeSteps) / double(k.proposals) : -1.0;
                stats.normalization = driver.normalization();
                return finish(film, stats, filmBuffers, numPixels, done, simd, simdLabel, simdKernels);
            }
            params.onlyS = options.strategyS;
            params.onlyT = options.strategyT;
            capacity = std::max(1, std::min(capacity, bdptSlotLimit(exec_.freeMemoryBytes(), options.maxDepth,
                                                                    options.bdptVariant)));
            BdptDriver<Exec> driver(exec_, options.bdptVariant, capacity, options.maxDepth, options.connectThreshold,
                                    options.coalescedVertexWrites);
            HashSampler sampler(options.seed);
            renderAll([&](std::uint64_t first, std::uint64_t count, const auto& progress) {
                driver.render(view, params, sampler, filmView, first, count, progress);
            });
            simd = bdptStats(driver, stats);
            stats.streamCapacity = capacity;
            stats.bytesPerSampleSlot = bdptBytesPerSlot(options.bdptVariant, options.maxDepth);
        }
        finish(film, stats, filmBuffers, numPixels, done, simd, simdLabel, simdKernels);
    }

private:
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

    /// Copies the film and the counters back.
    void finish(Film& film, RenderStats& stats, const FilmBuffers<Exec>& buffers, int numPixels, std::uint64_t done,
                const std::vector<double>& simd, const char* (*simdLabel)(int), int simdKernels) {
        film.sum.resize(std::size_t(3) * numPixels);
        film.samples.resize(numPixels);
        exec_.download(film.sum.data(), buffers.sum.data(), film.sum.size());
        exec_.download(film.samples.data(), buffers.counts.data(), film.samples.size());
        unsigned long long bad = 0;
        exec_.download(&bad, buffers.nonFinite.data(), 1);

        stats.backend = exec_.name();
        stats.samples = done;
        stats.nonFiniteSamples = bad;
        stats.kernels = exec_.kernelStats();
        for (KernelStats& k : stats.kernels)
            for (int kernel = 0; kernel < simdKernels; ++kernel)
                if (k.label == simdLabel(kernel)) {
                    k.simdOccupancy = simd[2 * kernel];
                    k.simdEfficiency = simd[2 * kernel + 1];
                }
    }

    Exec exec_;
    SceneBuffers<Exec> scene_;
};

}  // namespace wavefront
