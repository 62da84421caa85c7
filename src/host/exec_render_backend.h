// RenderBackend over one exec type: owns the exec, the uploaded scene and the driver.
#pragma once
#include <chrono>
#include <cmath>

#include "host/render_backend.h"
#include "wavefront/error.h"
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
        if (options.integrator != IntegratorType::PathTracer)
            throw InputError(std::string("integrator '") + (options.integrator == IntegratorType::Bdpt ? "bdpt" : "mlt") +
                             "' is not available yet; use --integrator pt");
        auto start = std::chrono::steady_clock::now();
        exec_.clearStats();
        const int numPixels = options.width * options.height;
        Buffer<float> sum = exec_.template allocate<float>(std::size_t(3) * numPixels);
        Buffer<unsigned> counts = exec_.template allocate<unsigned>(numPixels);
        Buffer<unsigned long long> nonFinite = exec_.template allocate<unsigned long long>(1);
        exec_.fill(sum.data(), 0.0f, std::size_t(3) * numPixels);
        exec_.fill(counts.data(), 0u, numPixels);
        exec_.fill(nonFinite.data(), 0ull, 1);
        FilmView filmView{sum.data(), counts.data(), nonFinite.data()};

        PtParams params;
        params.sampler = HashSampler(options.seed);
        params.maxDepth = options.maxDepth;
        params.rouletteDepth = options.rouletteDepth;
        params.numPixels = numPixels;
        SceneView view = scene_.view(options.width, options.height);

        const std::uint64_t perPass = std::uint64_t(numPixels);
        const bool timed = options.timeLimitSeconds > 0.0;
        const std::uint64_t total = timed ? 0 : perPass * std::uint64_t(options.samplesPerPixel);
        int capacity = options.streamCapacity > 0 ? options.streamCapacity : exec_.defaultStreamCapacity();
        if (!timed) capacity = int(std::min<std::uint64_t>(std::uint64_t(capacity), std::max<std::uint64_t>(total, 1)));
        PathTracerDriver<Exec> driver(exec_, options.variant, capacity);

        auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
        std::uint64_t done = 0;
        auto report = [&](std::uint64_t generated) {
            if (options.progress) options.progress(generated, timed ? 0 : total, elapsed());
        };
        if (timed) {
            // Whole passes (one sample per pixel each) until the time is up, so every pixel has
            // the same count.
            do {
                driver.render(view, params, filmView, done, perPass, [&](std::uint64_t g) { report(g); });
                done += perPass;
            } while (elapsed() < options.timeLimitSeconds);
        } else {
            driver.render(view, params, filmView, 0, total, [&](std::uint64_t g) { report(g); });
            done = total;
        }
        exec_.synchronize();
        stats.seconds = elapsed();
        report(done);

        film.width = options.width;
        film.height = options.height;
        film.sum.resize(std::size_t(3) * numPixels);
        film.samples.resize(numPixels);
        exec_.download(film.sum.data(), sum.data(), film.sum.size());
        exec_.download(film.samples.data(), counts.data(), film.samples.size());
        unsigned long long bad = 0;
        exec_.download(&bad, nonFinite.data(), 1);

        stats.backend = exec_.name();
        stats.samples = done;
        stats.extensionRays = driver.extensionRays();
        stats.shadowRays = driver.shadowRays();
        stats.nonFiniteSamples = bad;
        stats.streamCapacity = options.variant == PtVariant::Megakernel ? 0 : capacity;
        stats.bytesPerSampleSlot = ptBytesPerSlot(options.variant);
        stats.kernels = exec_.kernelStats();
        std::vector<double> simd = driver.simdEfficiency();
        for (KernelStats& k : stats.kernels)
            for (int kernel = 0; kernel < kSimdKernelCount; ++kernel)
                if (k.label == simdKernelLabel(kernel)) {
                    k.simdOccupancy = simd[2 * kernel];
                    k.simdEfficiency = simd[2 * kernel + 1];
                }
    }

private:
    Exec exec_;
    SceneBuffers<Exec> scene_;
};

}  // namespace wavefront
