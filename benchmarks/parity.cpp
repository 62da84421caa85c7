// One scene, three integrators: do PT, BDPT and MLT converge to the same image? Per scene, a
// reference (the mean of several long renders by PT and BDPT together, so that neither is the
// judge of the other), then each integrator over independent seeds at the same samples per pixel:
//   parity [--backend cuda|cpu] [--scenes a,b,...] [--res WxH] [--spp N] [--seeds N] [--max-depth N]
//          [--ref-spp N] [--ref-seeds N]
// Reported per integrator: the image mean against the reference (with its standard error from the
// per-render means), the fraction of pixel-channels that pass a Welch t-test against the reference
// (Sidak-corrected alpha 0.01 over the image) and against each other integrator, and the median
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

namespace {

struct Run {
    IntegratorType integrator;
    wftest::PixelStats pixels;
    std::vector<double> imageMeans;
    double medianRate = 0.0;
};

/// `seeds` independent renders (seeds seedBase + 7919 k, as every statistical test draws them).
Run renderSeeds(const Scene& scene, RenderOptions o, IntegratorType integrator, int seeds, unsigned seedBase) {
    o.integrator = integrator;
    std::vector<RenderStats> stats;
    // Blocks of one pixel: the block statistics' image means are then the images' exact means.
    wftest::SeedStats st = wftest::renderSeedStats(scene, o, seeds, 1, seedBase, {}, &stats);
    std::vector<double> rates;
    for (const RenderStats& s : stats) rates.push_back(s.samplesPerSecond());
    std::sort(rates.begin(), rates.end());
    return Run{integrator, st.pixels, st.blocks.imageMeans, rates[rates.size() / 2]};
}

}  // namespace

static int run(int argc, char** argv) {
    std::vector<std::string> scenes = {"cornell-lens", "cornell-spheres"};
    int width = 128, height = 128, spp = 256, seeds = 8, maxDepth = 10, refSpp = 4096, refSeeds = 4;
    BenchArgs args("parity", "PT, BDPT and MLT on one scene against a reference made by PT and BDPT together");
    args.addRenderOptions(scenes, width, height, spp, maxDepth, "samples (MLT: mutations) per pixel");
    args.addAtLeast("--seeds", seeds, 2, "independent renders per integrator");
    args.add("--ref-spp", refSpp, "samples per pixel of each reference render");
    args.addAtLeast("--ref-seeds", refSeeds, 2, "independent reference renders per reference integrator");
    if (auto rc = args.parse(argc, argv)) return *rc;
    RenderOptions base;
    base.backend = args.backend;
    base.width = width;
    base.height = height;
    base.maxDepth = maxDepth;
    std::printf("PT, BDPT and MLT: %dx%d, max depth %d, %d samples per pixel, %d seeds; reference: %d PT and %d "
                "BDPT renders of %d spp\n\n",
                width, height, maxDepth, spp, seeds, refSeeds, refSeeds, refSpp);
    std::printf("| scene | integrator | image mean vs ref | per-pixel pass vs ref | vs PT | vs BDPT | M samples/s |\n"
                "|---|---|---:|---:|---:|---:|---:|\n");
    const IntegratorType kinds[] = {IntegratorType::PathTracer, IntegratorType::Bdpt, IntegratorType::Mlt};
    for (const std::string& name : scenes) {
        Scene scene = Scene::builtin(name);
        RenderOptions ref = base;
        ref.samplesPerPixel = refSpp;
        Run refPt = renderSeeds(scene, ref, IntegratorType::PathTracer, refSeeds, 100);
        Run refBdpt = renderSeeds(scene, ref, IntegratorType::Bdpt, refSeeds, 200);
        // The reference: PT and BDPT renders pooled, each side's variance of the mean halved.
        wftest::PixelStats reference = refPt.pixels;
        std::vector<double> refMeans = refPt.imageMeans;
        refMeans.insert(refMeans.end(), refBdpt.imageMeans.begin(), refBdpt.imageMeans.end());
        for (std::size_t i = 0; i < reference.mean.size(); ++i) {
            reference.mean[i] = 0.5 * (refPt.pixels.mean[i] + refBdpt.pixels.mean[i]);
            reference.variance[i] = 0.25 * (refPt.pixels.variance[i] + refBdpt.pixels.variance[i]);
        }
        reference.renders = 2 * refSeeds;
        auto [refMean, refVar] = wftest::meanAndVariance(refMeans);
        RenderOptions o = base;
        o.samplesPerPixel = spp;
        std::vector<Run> runs;
        for (IntegratorType kind : kinds) runs.push_back(renderSeeds(scene, o, kind, seeds, 5000 + 1000 * unsigned(kind)));
        auto passAgainst = [&](const Run& run, const Run& other) {
            if (&run == &other) return std::string("-");
            char text[32];
            std::snprintf(text, sizeof text, "%.2f%%", 100.0 * wftest::pixelTest(run.pixels, other.pixels).passFraction());
            return std::string(text);
        };
        for (const Run& run : runs) {
            auto [m, v] = wftest::meanAndVariance(run.imageMeans);
            std::printf("| %s | %s | %+.2f%% (se %.2f%%) | %.2f%% | %s | %s | %.1f |\n", name.c_str(),
                        toString(run.integrator), 100.0 * (m / refMean - 1.0),
                        100.0 * std::sqrt(v + refVar) / refMean,
                        100.0 * wftest::pixelTest(run.pixels, reference).passFraction(),
                        passAgainst(run, runs[0]).c_str(), passAgainst(run, runs[1]).c_str(), run.medianRate * 1e-6);
            std::fflush(stdout);
        }
    }
    return 0;
}

int main(int argc, char** argv) { return benchMain("parity", argc, argv, run); }
