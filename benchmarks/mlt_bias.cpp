// Is MLT consistent at every chain count? Per scene, a long BDPT reference (the mean of several
// independent renders), then MLT at each chain count over independent seeds:
//   mlt_bias [--backend cuda|cpu] [--scenes a,b,...] [--res WxH] [--spp N] [--seeds N] [--max-depth N]
//            [--chains a,b,...] [--ref-spp N] [--ref-seeds N]
// --chains takes chain counts, 0 for the default, and mN for one chain per N mutations.
// Reported per configuration: the image mean against the reference (and its standard error, from
// the per-render means), the brightest 3% of the pixels (ranked by a separate render) and the
// rest, each in images divided by their own mean, the fraction of pixel-channels that pass a
// Welch t-test against the reference (Sidak-corrected alpha 0.01 over the image), and the median
// throughput.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_args.h"
#include "test_support.h"
#include "wavefront/wavefront.h"

using namespace wavefront;

/// A --chains item: a chain count (0 for the default) or mN, one chain per N mutations.
static void checkChains(const std::string& c) {
    bool perMutations = !c.empty() && c[0] == 'm';
    std::string number = c.substr(perMutations ? 1 : 0);
    std::size_t end = 0;
    double v = -1.0;
    try {
        v = perMutations ? std::stod(number, &end) : double(std::stoi(number, &end));
    } catch (const std::exception&) {
    }
    if (number.empty() || end != number.size() || !(perMutations ? v > 0.0 : v >= 0.0))
        throw InputError("chains '" + c + "' is neither a chain count (0 for the default) nor mN with N > 0");
}

static int run(int argc, char** argv) {
    std::vector<std::string> scenes = {"cornell-spheres", "door-ajar", "cornell-glossy"};
    std::vector<std::string> chainList = {"65536", "262144", "1048576", "0", "m16"};
    int width = 256, height = 256, spp = 1024, seeds = 8, maxDepth = 10, refSpp = 4096, refSeeds = 16;
    BenchArgs args("mlt_bias", "Is MLT consistent at every chain count? MLT at each chain count over independent "
                               "seeds against a long BDPT reference");
    args.addRenderOptions(scenes, width, height, spp, maxDepth, "MLT mutations per pixel");
    args.addAtLeast("--seeds", seeds, 2, "independent MLT renders per configuration");
    args.addList("--chains", chainList, "chain counts: N, 0 for the default, mN for one chain per N mutations",
                 checkChains);
    args.add("--ref-spp", refSpp, "samples per pixel of each reference render (BDPT)");
    args.addAtLeast("--ref-seeds", refSeeds, 2, "independent reference renders");
    if (auto rc = args.parse(argc, argv)) return *rc;
    Backend backend = args.backend;
    RenderOptions base;
    base.backend = backend;
    base.width = width;
    base.height = height;
    base.maxDepth = maxDepth;
    const double mutations = double(width) * height * spp;
    std::printf("MLT against BDPT: %dx%d, max depth %d, %d mutations per pixel, %d seeds; reference: BDPT, %d "
                "renders of %d spp\n\n",
                width, height, maxDepth, spp, seeds, refSeeds, refSpp);
    std::printf("| scene | chains | mutations/chain | image mean vs ref | brightest 3%% | rest | per-pixel pass | "
                "M mutations/s |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const std::string& name : scenes) {
        Scene scene = Scene::builtin(name);
        RenderOptions ref = base;
        ref.integrator = IntegratorType::Bdpt;
        ref.samplesPerPixel = refSpp;
        ref.seed = 987654;
        std::vector<bool> bright = wftest::brightestPixels(wftest::renderImage(scene, ref), 0.03);
        wftest::SeedStats reference = wftest::renderSeedStats(scene, ref, refSeeds, 8, 100, bright);
        auto [refMean, refVar] = wftest::imageMeanAndVariance(reference.blocks);
        for (const std::string& c : chainList) {
            RenderOptions o = base;
            o.integrator = IntegratorType::Mlt;
            o.samplesPerPixel = spp;
            o.streamCapacity = c[0] == 'm' ? int(mutations / std::stod(c.substr(1))) : std::stoi(c);
            std::vector<RenderStats> stats;
            wftest::SeedStats mlt = wftest::renderSeedStats(scene, o, seeds, 8, 5000, bright, &stats);
            std::vector<double> rates;
            for (const RenderStats& st : stats) rates.push_back(st.samplesPerSecond());
            std::sort(rates.begin(), rates.end());
            const int chains = stats[0].streamCapacity;
            auto [m, v] = wftest::imageMeanAndVariance(mlt.blocks);
            auto [cm, cv] = wftest::meanAndVariance(mlt.contrast);
            auto [rm, rv] = wftest::meanAndVariance(reference.contrast);
            // The share of the brightest pixels and of the rest in the normalised images.
            double brightShare = 0.03, restShare = 1.0 - brightShare;
            auto regions = [&](double logContrast) {
                double ratio = std::exp(logContrast);  // bright mean / rest mean, image mean 1
                double rest = 1.0 / (brightShare * ratio + restShare);
                return std::make_pair(ratio * rest, rest);
            };
            auto [bMlt, rMlt] = regions(cm);
            auto [bRef, rRef] = regions(rm);
            wftest::PixelTest pixels = wftest::pixelTest(mlt.pixels, reference.pixels);
            std::printf("| %s | %d | %.0f | %+.2f%% (se %.2f%%) | %+.2f%% | %+.2f%% | %.2f%% | %.1f |\n", name.c_str(),
                        chains, mutations / chains, 100.0 * (m / refMean - 1.0),
                        100.0 * std::sqrt(v + refVar) / refMean, 100.0 * (bMlt / bRef - 1.0),
                        100.0 * (rMlt / rRef - 1.0), 100.0 * pixels.passFraction(), rates[rates.size() / 2] * 1e-6);
            std::fflush(stdout);
        }
    }
    return 0;
}

int main(int argc, char** argv) { return benchMain("mlt_bias", argc, argv, run); }
