// How biased and how noisy is a Metropolis integrator at few mutations per pixel? Per scene, a path
// traced reference (the mean of several independent renders), then each configuration over
// independent seeds:
//   mmlt_variance [--backend cuda|cpu] [--scenes a,b] [--res WxH] [--spp a,b,...] [--seeds N]
//                 [--max-depth N] [--ref-spp N] [--ref-seeds N] [--configs LIST]
// A configuration is an integrator and its options, "mmlt", "mlt" or "mmlt:large-step=0.5:chains=64"
// (the registry's option names; configurations separated by commas).
// Reported: the image mean against the reference with the standard error of the difference (from
// the per-render image means) and its z, the seed-to-seed spread of the image mean, and the mean
// per-pixel relative variance of one render (each pixel-channel's variance over the seeds over the
// reference's value squared, pixels the reference sees black left out), which at equal mutations
// compares the integrators' noise.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_args.h"
#include "test_support.h"
#include "wavefront/wavefront.h"

using namespace wavefront;

namespace {

/// "mmlt:large-step=0.5:chains=64" applied to `o`.
void applyConfig(RenderOptions& o, const std::string& config) {
    std::size_t colon = config.find(':');
    o.integrator = parseIntegrator(config.substr(0, colon));
    while (colon != std::string::npos) {
        std::size_t next = config.find(':', colon + 1);
        const std::string item = config.substr(colon + 1, next == std::string::npos ? std::string::npos : next - colon - 1);
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos) throw InputError("configuration item '" + item + "' is not name=value");
        setIntegratorOption(o, item.substr(0, eq), item.substr(eq + 1));
        colon = next;
    }
}

}  // namespace

static int run(int argc, char** argv) {
    std::vector<std::string> scenes = {"cornell-box"}, configs = {"mlt", "mmlt"}, sppList = {"16", "64", "256"};
    int width = 40, height = 40, spp = 0, seeds = 32, maxDepth = RenderOptions().maxDepth, refSpp = 1024, refSeeds = 8;
    BenchArgs args("mmlt_variance", "Bias and per-pixel variance of Metropolis integrators against a path traced "
                                    "reference at a few mutations per pixel");
    args.addRenderOptions(scenes, width, height, spp, maxDepth, "(unused: see --spp-list)");
    args.addList("--spp-list", sppList, "mutations per pixel", [](const std::string& s) { std::stoi(s); });
    args.addAtLeast("--seeds", seeds, 2, "independent renders per configuration");
    args.add("--ref-spp", refSpp, "samples per pixel of each reference render (PT)");
    args.addAtLeast("--ref-seeds", refSeeds, 2, "independent reference renders");
    args.addList("--configs", configs, "integrator[:option=value...], comma-separated",
                 [](const std::string& c) {
                     RenderOptions o;
                     applyConfig(o, c);
                 });
    if (auto rc = args.parse(argc, argv)) return *rc;
    RenderOptions base;
    base.backend = args.backend;
    base.width = width;
    base.height = height;
    base.maxDepth = maxDepth;
    std::printf("%dx%d, max depth %d, %d seeds; reference: PT, %d renders of %d spp\n\n", width, height, maxDepth,
                seeds, refSeeds, refSpp);
    std::printf("| scene | config | spp | chains | image mean vs PT | z | seed spread | per-pixel rel. variance | "
                "b | acceptance |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const std::string& name : scenes) {
        const Scene scene = Scene::builtin(name);
        RenderOptions ref = base;
        ref.integrator = IntegratorType::PathTracer;
        ref.samplesPerPixel = refSpp;
        const wftest::SeedStats reference = wftest::renderSeedStats(scene, ref, refSeeds, 8, 100);
        const auto [refMean, refVar] = wftest::imageMeanAndVariance(reference.blocks);
        for (const std::string& s : sppList)
            for (const std::string& config : configs) {
                RenderOptions o = base;
                applyConfig(o, config);
                o.samplesPerPixel = std::stoi(s);
                std::vector<RenderStats> stats;
                const wftest::SeedStats m = wftest::renderSeedStats(scene, o, seeds, 8, 5000, {}, &stats);
                const auto [mean, var] = wftest::imageMeanAndVariance(m.blocks);
                double rel = 0.0, b = 0.0, acceptance = 0.0;
                int counted = 0;
                for (std::size_t i = 0; i < m.pixels.mean.size(); ++i) {
                    const double r = reference.pixels.mean[i];
                    if (!(r > 1e-6)) continue;
                    rel += m.pixels.variance[i] * double(m.pixels.renders) / (r * r);  // one render's variance
                    ++counted;
                }
                for (const RenderStats& st : stats) {
                    b += st.mlt.normalization / double(stats.size());
                    acceptance += st.mlt.acceptanceRate / double(stats.size());
                }
                std::printf("| %s | %s | %s | %llu | %+.2f%% (se %.2f%%) | %.2f | %.1f%% | %.4g | %.4g | %.3f |\n",
                            name.c_str(), config.c_str(), s.c_str(), (unsigned long long)stats[0].streamCapacity,
                            100.0 * (mean / refMean - 1.0), 100.0 * std::sqrt(var + refVar) / refMean,
                            std::fabs(mean - refMean) / std::sqrt(var + refVar),
                            100.0 * std::sqrt(var * double(seeds)) / mean, rel / std::max(counted, 1), b, acceptance);
                std::fflush(stdout);
            }
    }
    return 0;
}

int main(int argc, char** argv) { return benchMain("mmlt_variance", argc, argv, run); }
