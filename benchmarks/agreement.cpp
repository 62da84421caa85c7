// One image, whichever integrator, at equal time: every integrator renders a scene for the same
// time, split over independent seeds, and each is compared with the path tracer block by block (an
// N x N grid: the relative difference of the block means and its standard error from the seeds)
// and pixel by pixel (Welch's test, Sidak-corrected over the image at alpha 0.01).
//   agreement [--backend cuda|cpu] [--scenes a,b,...] [--envmap FILE] [--res WxH] [--seconds T]
//             [--seeds K] [--grid N] [--max-depth N] [--integrators pt,bdpt,mlt:80:16]
// A scene is a built-in name or a scene file. An integrator NAME:SECONDS:SEEDS renders for its own
// time and seeds (the others: --seconds in --seeds), e.g. MLT longer, to tell its noise from a bias;
// the path tracer is always the reference. Prints one markdown table per scene.
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

struct Side {
    IntegratorType integrator;
    std::vector<Image> images;
    double samplesPerPixel = 0.0, seconds = 0.0;
};

/// An integrator and its budget: NAME[:SECONDS[:SEEDS]].
struct Entry {
    IntegratorType integrator;
    double seconds;
    int seeds;
};

Entry parseEntry(const std::string& text, double seconds, int seeds) {
    const std::size_t a = text.find(':'), b = a == std::string::npos ? a : text.find(':', a + 1);
    Entry e{parseIntegrator(text.substr(0, a)), seconds, seeds};
    try {
        if (a != std::string::npos) e.seconds = std::stod(text.substr(a + 1, b - a - 1));
        if (b != std::string::npos) e.seeds = std::stoi(text.substr(b + 1));
    } catch (const std::exception&) {
        throw InputError("integrator '" + text + "' is not NAME[:SECONDS[:SEEDS]]");
    }
    if (!(e.seconds > 0.0) || e.seeds < 2) throw InputError("integrator '" + text + "' needs seconds > 0 and at least 2 seeds");
    return e;
}

Side renderFor(const Scene& scene, RenderOptions o, IntegratorType integrator, int seeds, double seconds) {
    Side side{integrator, {}, 0.0, 0.0};
    o.integrator = integrator;
    o.timeLimitSeconds = seconds / seeds;
    for (int s = 0; s < seeds; ++s) {
        o.seed = 1000u * unsigned(int(integrator) + 1) + 7919u * unsigned(s);
        Renderer r(scene, o);
        r.render();
        side.images.push_back(r.image());
        side.samplesPerPixel += double(r.stats().samples) / (double(o.width) * o.height);
        side.seconds += r.stats().seconds;
    }
    return side;
}

}  // namespace

static int run(int argc, char** argv) {
    std::vector<std::string> scenes = {"point-light"};
    int width = 256, height = 256, maxDepth = 8, seeds = 4, grid = 8;
    double seconds = 20.0;
    std::string envmap;
    std::vector<std::string> integrators = {"pt", "bdpt", "mlt"};
    BenchArgs args("agreement", "PT, BDPT and MLT for equal time: block and per-pixel agreement with the path tracer");
    // Built-in scenes or scene files (a file that cannot be read fails when its turn comes).
    args.addList("--scenes", scenes, "built-in scenes or scene files", [](const std::string&) {});
    args.addResolution("--res", width, height, "image size");
    args.add("--max-depth", maxDepth, "longest path in segments");
    args.add("--seconds", seconds, "render time per integrator, split over the seeds");
    args.addAtLeast("--seeds", seeds, 2, "independent renders per integrator");
    args.addAtLeast("--grid", grid, 1, "blocks per side of the image");
    args.add("--envmap", envmap, "an HDR environment map (.exr, .pfm, .hdr) lighting the scenes");
    args.addList("--integrators", integrators, "NAME[:SECONDS[:SEEDS]] each (the path tracer is the reference)",
                 [](const std::string& t) { parseEntry(t, 1.0, 2); });
    if (auto rc = args.parse(argc, argv)) return *rc;
    for (const std::string& name : scenes) {
        Scene scene = Scene::fromNameOrPath(name);
        RenderOptions o;
        o.backend = args.backend;
        o.width = width;
        o.height = height;
        o.maxDepth = maxDepth;
        o.environmentMap = envmap;
        std::vector<Entry> entries = {Entry{IntegratorType::PathTracer, seconds, seeds}};
        for (const std::string& text : integrators) {
            Entry e = parseEntry(text, seconds, seeds);
            if (e.integrator == IntegratorType::PathTracer) entries[0] = e;
            else entries.push_back(e);
        }
        std::vector<Side> sides;
        for (const Entry& e : entries) sides.push_back(renderFor(scene, o, e.integrator, e.seeds, e.seconds));
        std::printf("\n### %s, %dx%d, %dx%d blocks, max depth %d\n\n", name.c_str(), width, height, grid, grid, maxDepth);
        std::printf("| integrator | seconds in seeds | samples per pixel | worst block-channel vs PT | its z | largest block z | "
                    "block-channels beyond 0.3%% | pixel-channels failing Welch (Sidak 0.01) | smallest p |\n"
                    "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        const int block = std::max(1, std::min(width, height) / grid);
        auto blocks = [&](const Side& s) {
            std::vector<std::vector<double>> runs;
            for (const Image& im : s.images) runs.push_back(wftest::blockAverages(im, block));
            return wftest::statsOf(runs);
        };
        const wftest::BlockStats reference = blocks(sides[0]);
        const wftest::PixelStats referencePixels = wftest::pixelStatsOf(sides[0].images);
        for (std::size_t k = 0; k < sides.size(); ++k) {
            const Side& s = sides[k];
            const wftest::BlockStats b = blocks(s);
            double worst = 0.0, worstZ = 0.0, largestZ = 0.0;
            int beyond = 0;
            for (std::size_t i = 0; i < b.mean.size(); ++i) {
                if (!(reference.mean[i] > 0.0)) continue;
                const double rel = (b.mean[i] - reference.mean[i]) / reference.mean[i];
                const double z = std::fabs(b.mean[i] - reference.mean[i]) /
                                 std::sqrt(b.variance[i] + reference.variance[i] + 1e-30);
                beyond += std::fabs(rel) > 0.003;
                largestZ = std::max(largestZ, z);
                if (std::fabs(rel) > std::fabs(worst)) worst = rel, worstZ = z;
            }
            wftest::PixelTest t = wftest::pixelTest(wftest::pixelStatsOf(s.images), referencePixels, 0.01);
            std::printf("| %s | %.2f in %zu | %.0f | %+.3f%% | %.2f | %.2f | %d of %zu | %zu of %zu | %.2g |\n",
                        toString(s.integrator), s.seconds, s.images.size(), s.samplesPerPixel, 100.0 * worst, worstZ,
                        largestZ, beyond, b.mean.size(), t.failed, t.tested, t.worstP);
        }
    }
    return 0;
}

int main(int argc, char** argv) { return benchMain("agreement", argc, argv, run); }
