// Throughput of time-limited renders against renders of a fixed sample count that take about as
// long, per integrator and resolution:
//   time_limit [--backend cuda|cpu] [--scene NAME] [--res 256x256,512x512] [--seconds S] [--repeat N]
// The fixed-count render's sample count comes from a short calibration render; both are the
// median of --repeat runs. Samples: paths (PT), BDPT samples, MLT mutations. Then, per
// integrator, how long a time limit really takes (the overshoot past the limit) and how long
// Renderer::cancel() takes to stop a render far too long to finish (--repeat times, median and
// worst), the latency a user's cancel sees.
#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_args.h"
#include "wavefront/wavefront.h"

using namespace wavefront;

namespace {

RenderStats medianRun(const Scene& scene, RenderOptions o, int repeat) {
    std::vector<RenderStats> runs;
    for (int r = 0; r < repeat; ++r) {
        o.seed = unsigned(r + 1);
        Renderer renderer(scene, o);
        renderer.render();
        runs.push_back(renderer.stats());
    }
    std::sort(runs.begin(), runs.end(),
              [](const RenderStats& a, const RenderStats& b) { return a.samplesPerSecond() < b.samplesPerSecond(); });
    return runs[runs.size() / 2];
}

RenderOptions optionsFor(Backend backend, IntegratorType integrator, int width, int height) {
    RenderOptions o;
    o.backend = backend;
    o.integrator = integrator;
    o.width = width;
    o.height = height;
    return o;
}

/// Seconds from Renderer::cancel() to render() returning, `repeat` times: a render of 2^20
/// samples per pixel (far too many to finish) cancelled after `after` seconds.
std::vector<double> cancelLatencies(const Scene& scene, RenderOptions o, int repeat, double after) {
    std::vector<double> waits;
    o.samplesPerPixel = 1 << 20;
    for (int r = 0; r < repeat; ++r) {
        Renderer renderer(scene, o);
        std::thread worker([&] { renderer.render(); });
        std::this_thread::sleep_for(std::chrono::duration<double>(after));
        const auto asked = std::chrono::steady_clock::now();
        renderer.cancel();
        worker.join();
        waits.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count());
    }
    std::sort(waits.begin(), waits.end());
    return waits;
}

}  // namespace

static int run(int argc, char** argv) {
    std::string sceneName = "cornell-box";
    std::vector<std::string> resolutions = {"256x256", "512x512"};
    double seconds = 2.0;
    int repeat = 3;
    BenchArgs args("time_limit", "Throughput of time-limited renders against renders of a fixed sample count that "
                                 "take about as long, per integrator and resolution");
    args.add("--scene", sceneName, "built-in scene")->check(BenchArgs::validator(checkBuiltinScene));
    args.addList("--res", resolutions, "resolutions WIDTHxHEIGHT",
                 [](const std::string& r) { parseResolution(r); });
    args.add("--seconds", seconds, "time limit, and the fixed-count render's target time");
    args.addAtLeast("--repeat", repeat, 1, "runs of each render; the row is the median");
    if (auto rc = args.parse(argc, argv)) return *rc;
    Backend backend = args.backend;
    Scene scene = Scene::builtin(sceneName);
    bool header = false;
    for (const std::string& res : resolutions) {
        auto [width, height] = parseResolution(res);
        for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt, IntegratorType::Mlt}) {
            RenderOptions o = optionsFor(backend, integrator, width, height);
            o.samplesPerPixel = 16;
            Renderer calibrate(scene, o);
            calibrate.render();
            double rate = calibrate.stats().samplesPerSecond();
            o.samplesPerPixel = std::max(1, int(std::lround(rate * seconds / (double(width) * height))));
            RenderStats fixed = medianRun(scene, o, repeat);
            RenderOptions t = o;
            t.timeLimitSeconds = seconds;
            RenderStats timed = medianRun(scene, t, repeat);
            if (!header) {
                std::printf("backend: %s; scene %s; median of %d\n\n", timed.backend.c_str(), sceneName.c_str(), repeat);
                std::printf("| integrator | resolution | fixed: spp, s, M samples/s | time limit %.1f s: spp, s, M "
                            "samples/s | ratio |\n|---|---|---:|---:|---:|\n",
                            seconds);
                header = true;
            }
            const char* name = integrator == IntegratorType::PathTracer ? "pt spt-r"
                               : integrator == IntegratorType::Bdpt     ? "bdpt"
                                                                        : "mlt";
            double pixels = double(width) * height;
            std::printf("| %s | %s | %.0f, %.2f, %.1f | %.0f, %.2f, %.1f | %.2f |\n", name, res.c_str(),
                        fixed.samples / pixels, fixed.seconds, fixed.samplesPerSecond() * 1e-6, timed.samples / pixels,
                        timed.seconds, timed.samplesPerSecond() * 1e-6,
                        timed.samplesPerSecond() / fixed.samplesPerSecond());
            std::fflush(stdout);
        }
    }
    std::printf("\n| integrator | resolution | time limit 0.5 s takes (median, worst) | cancel after 0.3 s returns in "
                "(median, worst) |\n|---|---|---:|---:|\n");
    for (const std::string& res : resolutions) {
        auto [width, height] = parseResolution(res);
        for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt, IntegratorType::Mlt}) {
            const RenderOptions o = optionsFor(backend, integrator, width, height);
            std::vector<double> limited;
            RenderOptions t = o;
            t.timeLimitSeconds = 0.5;
            for (int r = 0; r < repeat; ++r) {
                Renderer renderer(scene, t);
                renderer.render();
                limited.push_back(renderer.stats().seconds);
            }
            std::sort(limited.begin(), limited.end());
            const std::vector<double> waits = cancelLatencies(scene, o, repeat, 0.3);
            std::printf("| %s | %s | %.3f s, %.3f s | %.3f s, %.3f s |\n", toString(integrator), res.c_str(),
                        limited[limited.size() / 2], limited.back(), waits[waits.size() / 2], waits.back());
            std::fflush(stdout);
        }
    }
    return 0;
}

int main(int argc, char** argv) { return benchMain("time_limit", argc, argv, run); }
