// RenderBackend over one exec type: owns the exec, the uploaded scene, the film and the
// integrator's runner, which live as long as the renderer so that a film can be rendered again,
// added to, or stopped. Instantiated in host/render/render_backend_{cpu.cpp,cuda.cu}.
#pragma once
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <type_traits>

#include "host/integrators/runners.h"
#include "host/render/film_buffers.h"
#include "host/render/render_backend.h"
#include "host/device_scene/scene_upload.h"
#include "kernels/scene/film_resolve.h"
#include "wavefront/error.h"

namespace wavefront {

/// A film pixel's sample count (ExecRenderBackend::filmSampleCount sums them; at namespace scope,
/// as CUDA kernels' functors must be).
struct PixelCountOf {
    const unsigned* counts;
    WF_CPU_GPU std::uint64_t operator()(int i) const { return counts[i]; }
};

template <class Exec>
class ExecRenderBackend : public RenderBackend {
public:
    template <class... ExecArgs>
    ExecRenderBackend(const Scene& scene, const RenderOptions& options, ExecArgs&&... execArgs)
        : exec_(std::forward<ExecArgs>(execArgs)...), workSplit_(integratorSpec(options.integrator).workSplit),
          setupStart_(std::chrono::steady_clock::now()),
          scene_(uploadScene(exec_, scene, options.lightSampler, options.bvhBuilder)), film_(exec_, int(runner::filmPixels(options))) {
        // The renderer has put RenderOptions' file and scale into the scene.
        uploadEnvironment(exec_, scene, scene_, options.lightSampler);
        if (options.aovs) aov_.emplace(exec_, int(runner::filmPixels(options)));
        exec_.synchronize();
        setupSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - setupStart_).count();
    }

    std::string name() const override { return exec_.name(); }
    /// How the integrator's work splits (its registry row's, read once: the renderer's options
    /// keep their integrator for its life).
    WorkSplit workSplit() const { return workSplit_; }

    EditStats applyEdit(const Scene& scene, const SceneEdit& edit, const RenderOptions& options) override {
        return applySceneEdit(exec_, scene_, scene, edit, options.lightSampler, options.bvhBuilder);
    }

    void downloadPositions(std::size_t first, std::size_t count, glm::vec3* out) override {
        exec_.synchronize();
        exec_.download(out, scene_.positions.data() + first, count);
    }

    DeviceImage resolveOnDevice(const RenderOptions& options) override {
        const int pixels = int(runner::filmPixels(options));
        if (resolved_.size() != std::size_t(3) * std::size_t(pixels)) resolved_ = exec_.template allocate<float>(std::size_t(3) * pixels);
        const FilmScale scale = runner_ ? runner_->filmScale() : FilmScale{};
        exec_.parallelFor("film resolve", pixels, FilmResolveStage{film_.sum.data(), film_.counts.data(), scale, resolved_.data()});
        if (!options.cudaStream) exec_.synchronize();  // a host stream's own order covers it
        return DeviceImage{resolved_.data(), options.filmWidth(), options.filmHeight(), Exec::kIsGpu, options.cudaStream};
    }

    void render(const RenderOptions& options, const RenderCall& call, RenderStats& stats) override {
        const std::uint64_t pass = runner::passSamples(options, workSplit_);
        const bool timed = call.timeLimitSeconds > 0.0;
        const std::uint64_t asked = timed ? 0 : pass * std::uint64_t(call.samplesPerPixel);
        beginCall(options, call.accumulate, asked, timed);
        RenderBudget budget(call, asked);
        std::uint64_t done = aov_ ? renderPasses(options, asked, budget) : renderPart(options, asked, budget);
        exec_.synchronize();
        const double seconds = budget.elapsed();
        budget.finish(done);
        collect(seconds, stats);
        stats.cancelled = budget.stopped();
    }

    void downloadFilm(const RenderOptions& options, Film& film) override {
        exec_.synchronize();
        film.width = options.filmWidth();
        film.height = options.filmHeight();
        film.sum.resize(film_.sum.size());
        film.samples.resize(film_.counts.size());
        exec_.download(film.sum.data(), film_.sum.data(), film.sum.size());
        exec_.download(film.samples.data(), film_.counts.data(), film.samples.size());
        film.aovSums.clear();
        film.passMoments.clear();
        film.aovPasses = film.variancePasses = 0;
        if (aov_) {
            film.aovSums.resize(aov_->sums.size());
            exec_.download(film.aovSums.data(), aov_->sums.data(), film.aovSums.size());
            film.aovPasses = aov_->passes;
            if (aov_->momentPasses > 0) {
                film.passMoments.resize(aov_->moments.size());
                exec_.download(film.passMoments.data(), aov_->moments.data(), film.passMoments.size());
                film.variancePasses = aov_->momentPasses;
            }
        }
        // The runner's scale (MLT: one count for every pixel, the sums scaled to match).
        const FilmScale scale = runner_ ? runner_->filmScale() : FilmScale{};
        if (scale.samplesPerPixel > 0) std::fill(film.samples.begin(), film.samples.end(), scale.samplesPerPixel);
        if (scale.sumScale != 1.0)
            for (auto& v : film.sum) v *= scale.sumScale;
    }

    // The pieces of render(), which a multi-device render (multi_device_backend.h) runs on each
    // device's thread.

    /// Starts a call: a fresh film and runner unless the call adds to the film. `asked`: the
    /// samples the call asks for, which size the runner (0 when time-limited).
    void beginCall(const RenderOptions& options, bool accumulate, std::uint64_t asked, bool timed) {
        if (!accumulate || !runner_) startFilm(options, asked, timed);
        ++calls_;
    }
    /// Renders `asked` more samples (0: until the budget's time limit); PT and BDPT from sample
    /// index `first` when given. Returns the samples rendered.
    std::uint64_t renderPart(const RenderOptions& options, std::uint64_t asked, RenderBudget& budget,
                             std::optional<std::uint64_t> first = std::nullopt) {
        if (first) runner_->seek(*first);
        return runner_->render(scene_.view(options.width, options.height), film_.view(runner::filmWindow(options)), asked,
                               budget);
    }
    /// RenderOptions::aovs: `asked` samples (0: until the time limit) one pass at a time, each
    /// followed by the first-hit pass and (PT, BDPT) the film's pass moments.
    std::uint64_t renderPasses(const RenderOptions& options, std::uint64_t asked, RenderBudget& budget) {
        const std::uint64_t pass = runner::passSamples(options, workSplit_), pixels = runner::filmPixels(options);
        // The passes of chains are correlated: no per-pixel variance from them.
        const bool moments = workSplit_ == WorkSplit::SampleRanges;
        std::uint64_t done = 0;
        while (asked == 0 || done < asked) {
            const std::uint64_t got = renderPart(options, pass, budget);
            done += got;
            if (got < pass) break;  // cancelled inside the pass: it has no first-hit pass
            const SceneView view = scene_.view(options.width, options.height);
            // The camera ray the path tracer starts this pass's sample of each pixel with.
            const std::uint64_t first = (options.firstPass + aov_->passes) * pixels;
            exec_.parallelFor("aov first hit", int(pixels),
                              AovStage<HashSampler>{view, HashSampler(options.seed, runner::filmWindow(options)), first,
                                                    aov_->sums.data()});
            ++aov_->passes;
            if (moments) {
                exec_.parallelFor("aov pass moments", int(pixels),
                                  PassMomentsStage{film_.sum.data(), film_.counts.data(), aov_->previous.data(),
                                                   aov_->previousCounts.data(), aov_->moments.data()});
                ++aov_->momentPasses;
            }
            if (budget.stopped() || (budget.timeLimited() && budget.elapsed() >= budget.timeLimit())) break;
        }
        return done;
    }
    /// The film's integrator runner (null before the first call).
    IntegratorRunner<Exec>* runner() { return runner_.get(); }
    /// Waits for the exec, adds `seconds` to the film's time and fills in the statistics of
    /// everything on the film. The film itself stays on the device (downloadFilm).
    void collect(double seconds, RenderStats& stats) {
        exec_.synchronize();
        seconds_ += seconds;
        stats = RenderStats{};
        stats.backend = exec_.name();
        stats.seconds = seconds_;
        unsigned long long nonFinite = 0;
        exec_.download(&nonFinite, film_.nonFinite.data(), 1);
        stats.nonFiniteSamples = nonFinite;
        stats.kernels = exec_.kernelStats();
        stats.triangles = std::uint64_t(scene_.numTriangles);
        stats.spheres = std::uint64_t(scene_.numSpheres);
        stats.instances = std::uint64_t(scene_.numInstances);
        stats.textures = scene_.textures.size();
        stats.textureBytes = scene_.textureBytes;
        stats.sceneSetupSeconds = setupSeconds_;
        stats.bvhBuilder = toString(scene_.bvh.builtWith);
        stats.memoryBytes = exec_.memory().live;
        stats.peakMemoryBytes = exec_.memory().peak;
        runner_->finish(filmSampleCount(), stats);
        stats.devices = {DeviceStats{stats.backend, stats.samples, seconds_, calls_}};
    }

private:
    /// The samples the film's pixels counted, summed where the film is (8 bytes come back).
    std::uint64_t filmSampleCount() {
        if (!filmSamplesSum_.size()) filmSamplesSum_ = exec_.template allocate<std::uint64_t>(1);
        exec_.transformReduceDevice(int(film_.counts.size()), std::uint64_t(0), PixelCountOf{film_.counts.data()}, SumOf<std::uint64_t>{},
                                    filmSamplesSum_.data());
        std::uint64_t n = 0;
        exec_.download(&n, filmSamplesSum_.data(), 1);
        return n;
    }

    /// A fresh film starts with a fresh runner (MLT: fresh chains), so its counters count it
    /// alone; the runner then stays for every call that adds to the film.
    void startFilm(const RenderOptions& o, std::uint64_t firstCall, bool timed) {
        using Sum = std::remove_pointer_t<decltype(film_.sum.data())>;
        const std::size_t pixels = film_.counts.size();
        runner_.reset();  // its memory counts as free for the next one
        exec_.fill(film_.sum.data(), Sum(0), 3 * pixels);
        exec_.fill(film_.counts.data(), 0u, pixels);
        exec_.fill(film_.nonFinite.data(), 0ull, 1);
        if (aov_) aov_->clear(exec_, int(pixels));
        exec_.clearStats();
        seconds_ = 0.0;
        calls_ = 0;
        const SceneView view = scene_.view(o.width, o.height);
        // A time limit fills the device.
        runner_ = makeRunner(exec_, o, RunnerStart{timed ? ~std::uint64_t(0) : firstCall, timed, view, keptByRunners_});
    }

    Exec exec_;
    WorkSplit workSplit_;
    std::chrono::steady_clock::time_point setupStart_;  ///< before the upload (declared before scene_)
    double setupSeconds_ = 0.0;
    SceneBuffers<Exec> scene_;
    FilmBuffers<Exec> film_;
    std::unique_ptr<IntegratorRunner<Exec>> runner_;
    std::optional<AovBuffers<Exec>> aov_;  ///< RenderOptions::aovs
    Buffer<float> resolved_;                ///< deviceImage(): 3 floats per film pixel
    Buffer<std::uint64_t> filmSamplesSum_;  ///< filmSampleCount()
    /// What runners keep for the next film (RunnerStart::kept: the path tracer's launch rates).
    std::map<std::string, double> keptByRunners_;
    double seconds_ = 0.0;
    std::uint64_t calls_ = 0;  ///< calls on the film (DeviceStats::pieces of one device)
};

}  // namespace wavefront
