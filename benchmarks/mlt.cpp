// MLT on the streaming BDPT sampler (van Antwerpen 2011, section 6, Table 6 and Figure 10):
//   mlt [--backend cuda|cpu] [--scenes a,b,...] [--res WxH] [--spp N] [--max-depth N] [--chains N]
//       [--repeat N] [--variants 0|1] [--figure10 DIR] [--fig-res WxH] [--fig-seconds S] [--ref-seconds S]
// Throughput, per scene: mutations/s (median of --repeat runs after a warm-up; a run includes the
// chains' start-up), acceptance and large-step rates, SIMD occupancy of the random-walk and
// connect phases (needs a WAVEFRONT_STATS build), bytes per chain (Table 6) and the decision
// kernel's share of the time. --variants 1 also runs each scene without camera (t = 1)
// connections and with uniform chain starts.
// --figure10 DIR: the equal-time comparison. Per scene a reference (BDPT for --ref-seconds), then
// PT, BDPT and MLT for --fig-seconds each; the relative RMSE of each against the reference, and
// DIR/figure10.png with a row per scene: PT | BDPT | MLT | reference (and figure10-half.png, the
// same averaged over 2x2 pixels, small enough to keep in the repository).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_args.h"
#include "wavefront/wavefront.h"

using namespace wavefront;

namespace {

std::string percent(double v) {
    char b[16] = "-";
    if (v >= 0) std::snprintf(b, sizeof b, "%.1f%%", 100.0 * v);
    return b;
}

/// Root mean square of (a - ref) over pixels and channels, relative to ref's mean.
double relativeRmse(const Image& a, const Image& ref) {
    double ss = 0.0, mean = 0.0;
    for (std::size_t i = 0; i < a.rgb.size(); ++i) {
        double d = double(a.rgb[i]) - ref.rgb[i];
        ss += d * d;
        mean += ref.rgb[i];
    }
    mean /= double(ref.rgb.size());
    return std::sqrt(ss / double(a.rgb.size())) / mean;
}

/// Images of one size in a grid, `columns` per row.
Image grid(const std::vector<Image>& images, int columns) {
    int w = images[0].width, h = images[0].height, rows = (int(images.size()) + columns - 1) / columns;
    Image out(w * columns, h * rows);
    for (std::size_t k = 0; k < images.size(); ++k)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                std::copy_n(images[k].pixel(x, y), 3, out.pixel(int(k) % columns * w + x, int(k) / columns * h + y));
    return out;
}

Image halfSize(const Image& in) {
    Image out(in.width / 2, in.height / 2);
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x)
            for (int c = 0; c < 3; ++c)
                out.pixel(x, y)[c] = 0.25f * (in.pixel(2 * x, 2 * y)[c] + in.pixel(2 * x + 1, 2 * y)[c] +
                                              in.pixel(2 * x, 2 * y + 1)[c] + in.pixel(2 * x + 1, 2 * y + 1)[c]);
    return out;
}

struct Run {
    RenderStats stats;
    Image image;
};

Run render(const Scene& scene, const RenderOptions& o) {
    Renderer r(scene, o);
    r.render();
    return Run{r.stats(), r.image()};
}

double kernelShare(const RenderStats& st, const std::string& label) {
    double total = 0.0, part = 0.0;
    for (const KernelStats& k : st.kernels) {
        total += k.milliseconds;
        if (k.label == label) part += k.milliseconds;
    }
    return total > 0.0 ? part / total : -1.0;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> scenes = {"cornell-box", "cornell-spheres", "glass-caustic", "door-ajar"};
    int width = 1024, height = 1024, spp = 64, maxDepth = 16, chains = 0, repeat = 3;
    int figWidth = 512, figHeight = 512;
    double figSeconds = 3.0, refSeconds = 30.0;
    bool variants = true;
    std::string figureDir;
    BenchArgs args("mlt", "MLT on the streaming BDPT sampler (van Antwerpen 2011, section 6, Table 6 and Figure 10): "
                          "mutations/s, acceptance, SIMD occupancy, bytes per chain; equal-time comparison");
    args.addRenderOptions(scenes, width, height, spp, maxDepth, "mutations per pixel");
    args.add("--chains", chains, "Markov chains (0: the default)");
    args.addAtLeast("--repeat", repeat, 1, "runs per configuration after a warm-up; the row is the median");
    args.addSwitch("--variants", variants, "also run without camera (t = 1) connections and with uniform chain starts");
    args.add("--figure10", figureDir,
             "directory: also run the equal-time comparison (Figure 10) and write figure10.png and figure10-half.png there")
        ->type_name("DIR");
    args.addResolution("--fig-res", figWidth, figHeight, "Figure 10 image size");
    args.add("--fig-seconds", figSeconds, "Figure 10: seconds for each of PT, BDPT and MLT");
    args.add("--ref-seconds", refSeconds, "Figure 10: seconds for the BDPT reference");
    if (auto rc = args.parse(argc, argv)) return *rc;
    Backend backend = args.backend;

    try {
        RenderOptions base;
        base.integrator = IntegratorType::Mlt;
        base.backend = backend;
        base.width = width;
        base.height = height;
        base.samplesPerPixel = spp;
        base.maxDepth = maxDepth;
        base.streamCapacity = chains;
        struct Config {
            std::string name;
            bool cameraConnections, resampling;
        };
        std::vector<Config> configs = {{"mlt", true, true}};
        if (variants) {
            configs.push_back({"mlt, no t=1", false, true});
            configs.push_back({"mlt, uniform start", true, false});
        }
        bool header = false;
        for (const std::string& name : scenes) {
            Scene scene = Scene::builtin(name);
            for (const Config& c : configs) {
                RenderOptions o = base;
                o.mlt.cameraConnections = c.cameraConnections;
                o.mlt.startupResampling = c.resampling;
                render(scene, o);  // warm-up
                std::vector<Run> runs;
                for (int r = 0; r < repeat; ++r) {
                    o.seed = unsigned(r + 1);
                    runs.push_back(render(scene, o));
                }
                std::sort(runs.begin(), runs.end(),
                          [](const Run& a, const Run& b) { return a.stats.samplesPerSecond() < b.stats.samplesPerSecond(); });
                const RenderStats& st = runs[runs.size() / 2].stats;
                if (!header) {
                    std::printf("backend: %s; %dx%d, %d mutations per pixel, max depth %d, median of %d\n\n",
                                st.backend.c_str(), width, height, spp, maxDepth, repeat);
                    std::printf("| scene | config | chains | M mutations/s (min-max) | acceptance | large steps | "
                                "walk SIMD | connect SIMD | decide time | bytes/chain |\n");
                    std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
                    header = true;
                }
                std::printf("| %s | %s | %d | %.1f (%.1f-%.1f) | %s | %s | %s | %s | %s | %llu |\n", name.c_str(),
                            c.name.c_str(), st.streamCapacity, st.samplesPerSecond() * 1e-6,
                            runs.front().stats.samplesPerSecond() * 1e-6, runs.back().stats.samplesPerSecond() * 1e-6,
                            percent(st.mlt.acceptanceRate).c_str(), percent(st.mlt.largeStepFraction).c_str(),
                            percent(st.bdpt.walkSimdEfficiency).c_str(), percent(st.bdpt.connectSimdEfficiency).c_str(),
                            percent(kernelShare(st, "mlt decide")).c_str(), (unsigned long long)st.bytesPerSampleSlot);
                std::fflush(stdout);
            }
        }

        if (figureDir.empty()) return 0;
        std::printf("\nEqual time (Figure 10): %dx%d, %.1f s each, reference BDPT for %.1f s; relative RMSE against "
                    "the reference (lower is better)\n\n",
                    figWidth, figHeight, figSeconds, refSeconds);
        std::printf("| scene | PT rmse (spp, M/s) | BDPT rmse (spp, M/s) | MLT rmse (mutations/pixel, M/s) | reference spp |\n");
        std::printf("|---|---:|---:|---:|---:|\n");
        std::vector<Image> panels;
        for (const std::string& name : scenes) {
            Scene scene = Scene::builtin(name);
            RenderOptions o;
            o.backend = backend;
            o.width = figWidth;
            o.height = figHeight;
            o.maxDepth = maxDepth;
            o.integrator = IntegratorType::Bdpt;
            o.timeLimitSeconds = refSeconds;
            o.seed = 1000;
            Run ref = render(scene, o);
            o.timeLimitSeconds = figSeconds;
            std::vector<Image>& images = panels;
            std::size_t row = images.size();
            std::vector<Run> runs;
            for (IntegratorType kind : {IntegratorType::PathTracer, IntegratorType::Bdpt, IntegratorType::Mlt}) {
                o.integrator = kind;
                o.seed = 1;
                runs.push_back(render(scene, o));
                images.push_back(runs.back().image);
            }
            images.push_back(ref.image);
            double pixels = double(figWidth) * figHeight;
            std::printf("| %s | %.4f (%.0f, %.0f) | %.4f (%.0f, %.0f) | %.4f (%.0f, %.0f) | %.0f |\n", name.c_str(),
                        relativeRmse(images[row], ref.image), runs[0].stats.samples / pixels,
                        runs[0].stats.samplesPerSecond() * 1e-6, relativeRmse(images[row + 1], ref.image),
                        runs[1].stats.samples / pixels, runs[1].stats.samplesPerSecond() * 1e-6,
                        relativeRmse(images[row + 2], ref.image), runs[2].stats.samples / pixels,
                        runs[2].stats.samplesPerSecond() * 1e-6, ref.stats.samples / pixels);
            std::fflush(stdout);
        }
        Image figure = grid(panels, 4);
        writeImage(figureDir + "/figure10.png", figure);
        writeImage(figureDir + "/figure10-half.png", halfSize(figure));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mlt: %s\n", e.what());
        return 1;
    }
    return 0;
}
