// One image on 1, 2, ... N CUDA devices (RenderOptions::devices): wall time of render() per
// integrator and resolution, the speed-up over one device, and whether the images agree.
//   scaling [--backend cuda|cpu] [--scene NAME] [--res 1024x1024,2048x2048] [--seconds S] [--repeat N]
//           [--z-seeds K] [--devices N] [--integrators pt,bdpt,mlt] [--time-limited]
// The sample count makes one device take about --seconds (from two calibration renders: the
// second at the first one's estimate, so a fixed start-up such as MLT's does not skew it). PT and BDPT
// render the same samples on any number of devices: the images must agree to float rounding (the
// largest relative difference is printed). MLT's and MMLT's chains differ: a per-pixel test over --z-seeds
// independent renders on each side (Welch's t per pixel and channel) prints the fraction of
// values beyond |t| = 4 (about 0.15% by chance at 8 seeds a side) and the largest |t|.
// --time-limited: every render runs for --seconds (RenderOptions::timeLimitSeconds) instead, and
// the speed-up is the samples rendered per second against one device's (no agreement column:
// the devices render different sample counts).
// On the CPU backend the "devices" are workers that share its threads (no speed-up expected).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_args.h"
#include "test_support.h"
#include "wavefront/wavefront.h"

using namespace wavefront;

namespace {

std::vector<int> firstDevices(int k) {
    std::vector<int> d;
    for (int i = 0; i < k; ++i) d.push_back(i);
    return d;
}

struct PixelMoments {
    std::vector<double> sum, sumSq;
    int runs = 0;
    void add(const Image& img) {
        if (sum.empty()) sum.assign(img.rgb.size(), 0.0), sumSq.assign(img.rgb.size(), 0.0);
        for (std::size_t i = 0; i < img.rgb.size(); ++i) {
            sum[i] += img.rgb[i];
            sumSq[i] += double(img.rgb[i]) * img.rgb[i];
        }
        ++runs;
    }
    double mean(std::size_t i) const { return sum[i] / runs; }
    double varianceOfMean(std::size_t i) const {
        double m = mean(i);
        return std::max(0.0, (sumSq[i] / runs - m * m) * runs / (runs - 1)) / runs;
    }
};

/// PT, BDPT and VCM render sample ranges (the image of one device); MLT and MMLT run chains.
bool rendersSampleRanges(IntegratorType type) {
    for (const IntegratorInfo& info : integrators())
        if (info.type == type) return info.rendersSampleRanges;
    return true;
}

}  // namespace

static int run(int argc, char** argv) {
    std::string sceneName = "cornell-box";
    std::vector<std::string> resolutions = {"1024x1024", "2048x2048"};
    double seconds = 0.5;
    int repeat = 3, zSeeds = 8, maxDevices = 0;
    std::vector<std::string> integrators = {"pt", "bdpt", "mlt"};
    bool timeLimited = false;
    BenchArgs args("scaling", "One image on 1..N devices: time, speed-up, and agreement with one device");
    args.add("--scene", sceneName, "built-in scene")->check(BenchArgs::validator(checkBuiltinScene));
    args.addList("--res", resolutions, "resolutions WIDTHxHEIGHT", [](const std::string& r) { parseResolution(r); });
    args.add("--seconds", seconds, "time of one device's render (sets the sample count)");
    args.addAtLeast("--repeat", repeat, 1, "timed renders per row; the row is the median");
    args.addAtLeast("--z-seeds", zSeeds, 2, "MLT: independent renders on each side of the per-pixel test");
    args.addAtLeast("--devices", maxDevices, 0, "most devices to use (0: every CUDA device; the CPU: 2 workers)");
    args.addList("--integrators", integrators, "integrators: pt, bdpt, mlt, mmlt, vcm, bpm, ppm", [](const std::string& i) { parseIntegrator(i); });
    args.addFlag("--time-limited", timeLimited, "render for --seconds each; speed-up by samples per second");
    if (auto rc = args.parse(argc, argv)) return *rc;
    Backend backend = args.backend;
    try {
        const int available = backend == Backend::Cpu ? 2 : cudaDeviceCount();
        const int most = maxDevices > 0 ? std::min(maxDevices, std::max(available, 1)) : std::max(available, 1);
        Scene scene = Scene::builtin(sceneName);
        std::printf("| integrator | resolution | spp | devices | seconds (median) | M samples/s | speed-up | agreement with 1 device |\n");
        std::printf("|---|---|---|---|---|---|---|---|\n");
        for (const std::string& res : resolutions) {
            auto [width, height] = parseResolution(res);
            for (const std::string& integratorName : integrators) {
                const IntegratorType integrator = parseIntegrator(integratorName);
                RenderOptions o;
                o.backend = backend;
                o.integrator = integrator;
                o.width = width;
                o.height = height;
                o.devices = {0};
                o.samplesPerPixel = 8;  // long enough that set-up (MLT's start-up) does not dominate the rate
                for (int pass = 0; pass < 2 && !timeLimited; ++pass) {
                    Renderer calibrate(scene, o);
                    calibrate.render();  // warm-up
                    calibrate.render();
                    double rate = calibrate.stats().samplesPerSecond();
                    o.samplesPerPixel = std::max(1, int(std::lround(seconds * rate / (double(width) * height))));
                }
                if (timeLimited) o.timeLimitSeconds = seconds;
                double oneDevice = 0.0;
                Image reference;
                for (int k = 1; k <= most; ++k) {
                    o.devices = firstDevices(k);
                    o.seed = 1;
                    Renderer r(scene, o);
                    r.render();  // warm-up: module loading, memory pools
                    std::vector<double> times;
                    std::vector<RenderStats> stats;
                    for (int i = 0; i < repeat; ++i) {
                        r.render();
                        times.push_back(r.stats().seconds);
                        stats.push_back(r.stats());
                    }
                    std::sort(times.begin(), times.end());
                    const double median = times[times.size() / 2];
                    std::vector<double> rates;
                    for (const RenderStats& st : stats) rates.push_back(st.samplesPerSecond());
                    std::sort(rates.begin(), rates.end());
                    const double rate = rates[rates.size() / 2];
                    if (k == 1) oneDevice = timeLimited ? rate : median;
                    std::string agreement = "-";
                    char buf[160];
                    if (timeLimited) {
                        // different sample counts on each side: nothing to compare pixel by pixel
                    } else if (k == 1) {
                        reference = r.image();
                    } else if (rendersSampleRanges(integrator)) {
                        std::snprintf(buf, sizeof buf, "max relative difference %.2g", wftest::maxRelativeDifference(r.image(), reference));
                        agreement = buf;
                    } else {
                        // Independent chains on each side: a per-pixel t-test over zSeeds renders.
                        PixelMoments one, many;
                        RenderOptions z = o;
                        for (int s = 0; s < zSeeds; ++s) {
                            z.devices = {0};
                            z.seed = 1000u + unsigned(s);
                            Renderer a(scene, z);
                            a.render();
                            one.add(a.image());
                            z.devices = firstDevices(k);
                            z.seed = 2000u + unsigned(s);
                            Renderer b(scene, z);
                            b.render();
                            many.add(b.image());
                        }
                        std::size_t beyond = 0;
                        double worst = 0.0;
                        for (std::size_t i = 0; i < one.sum.size(); ++i) {
                            double se = std::sqrt(one.varianceOfMean(i) + many.varianceOfMean(i));
                            double t = se > 0.0 ? std::fabs(one.mean(i) - many.mean(i)) / se : 0.0;
                            worst = std::max(worst, t);
                            beyond += t > 4.0;
                        }
                        std::snprintf(buf, sizeof buf, "per-pixel t over %d+%d seeds: %.3f%% beyond 4, max %.1f", zSeeds,
                                      zSeeds, 100.0 * double(beyond) / double(one.sum.size()), worst);
                        agreement = buf;
                    }
                    const RenderStats& st = stats[0];
                    std::printf("| %s | %dx%d | %s | %d | %.4f | %.1f | %.2fx | %s |\n", toString(integrator), width, height,
                                timeLimited ? "timed" : std::to_string(o.samplesPerPixel).c_str(), k, median, rate * 1e-6,
                                timeLimited ? rate / oneDevice : oneDevice / median, agreement.c_str());
                    if (k > 1) {
                        std::printf("|  |  |  |  | per device:");
                        for (const DeviceStats& d : st.devices)
                            std::printf(" %.1f%% of the samples in %llu pieces, %.3f s;",
                                        100.0 * double(d.samples) / double(st.samples), (unsigned long long)d.pieces, d.seconds);
                        std::printf(" |  |  |  |\n");
                    }
                    std::fflush(stdout);
                }
            }
        }
    } catch (const InputError& e) {
        std::fprintf(stderr, "scaling: %s\n", e.what());
        return 2;
    }
    return 0;
}

int main(int argc, char** argv) { return benchMain("scaling", argc, argv, run); }
