// MLT on the streaming BDPT sampler (van Antwerpen 2011, section 6, Table 6):
//   mlt [--backend cuda|cpu] [--scenes a,b,...] [--res WxH] [--spp N] [--max-depth N] [--chains N]
//       [--repeat N] [--variants 0|1]
// Throughput, per scene: mutations/s (median of --repeat runs after a warm-up; a run includes the
// chains' start-up), acceptance and large-step rates, SIMD occupancy of the random-walk and
// connect phases (needs a WAVEFRONT_STATS build), bytes per chain (Table 6) and the decision
// kernel's share of the time. --variants 1 also runs each scene without camera (t = 1)
// connections and with uniform chain starts. The equal-time comparison of the paper's Figure 10
// is wavefront-compare's (python/wavefront/compare.py: error from independent seeds against a
// reference whose own noise is measured); this benchmark's --figure10, one seed against a
// reference of unknown noise, is retired.
#include <algorithm>
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

RenderStats render(const Scene& scene, const RenderOptions& o) {
    Renderer r(scene, o);
    r.render();
    return r.stats();
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

static int run(int argc, char** argv) {
    std::vector<std::string> scenes = {"cornell-box", "cornell-spheres", "glass-caustic", "door-ajar"};
    int width = 1024, height = 1024, spp = 64, maxDepth = 16, chains = 0, repeat = 3;
    bool variants = true;
    BenchArgs args("mlt", "MLT on the streaming BDPT sampler (van Antwerpen 2011, section 6, Table 6): "
                          "mutations/s, acceptance, SIMD occupancy, bytes per chain (the equal-time comparison of "
                          "Figure 10: wavefront-compare)");
    args.addRenderOptions(scenes, width, height, spp, maxDepth, "mutations per pixel");
    args.add("--chains", chains, "Markov chains (0: the default)");
    args.addAtLeast("--repeat", repeat, 1, "runs per configuration after a warm-up; the row is the median");
    args.addSwitch("--variants", variants, "also run without camera (t = 1) connections and with uniform chain starts");
    if (auto rc = args.parse(argc, argv)) return *rc;
    Backend backend = args.backend;

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
            std::vector<RenderStats> runs;
            for (int r = 0; r < repeat; ++r) {
                o.seed = unsigned(r + 1);
                runs.push_back(render(scene, o));
            }
            std::sort(runs.begin(), runs.end(), [](const RenderStats& a, const RenderStats& b) {
                return a.samplesPerSecond() < b.samplesPerSecond();
            });
            const RenderStats& st = runs[runs.size() / 2];
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
                        runs.front().samplesPerSecond() * 1e-6, runs.back().samplesPerSecond() * 1e-6,
                        percent(st.mlt.acceptanceRate).c_str(), percent(st.mlt.largeStepFraction).c_str(),
                        percent(st.bdpt.walkSimdEfficiency).c_str(), percent(st.bdpt.connectSimdEfficiency).c_str(),
                        percent(kernelShare(st, "mlt decide")).c_str(), (unsigned long long)st.bytesPerSampleSlot);
            std::fflush(stdout);
        }
    }
    return 0;
}

int main(int argc, char** argv) { return benchMain("mlt", argc, argv, run); }
