// One image, whichever integrator, at equal time: every integrator renders a scene for the same
// time, split over independent seeds, and each is compared with the path tracer block by block (an
// N x N grid: the relative difference of the block means and its standard error from the seeds)
// and pixel by pixel (Welch's test, Sidak-corrected over the image at alpha 0.01).
//   agreement [--backend cuda|cpu] [--scenes a,b,...] [--envmap FILE] [--res WxH] [--seconds T]
//             [--seeds K] [--grid N] [--max-depth N]
// A scene is a built-in name or a scene file. Prints one markdown table per scene.
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

int main(int argc, char** argv) {
    std::vector<std::string> scenes = {"point-light"};
    int width = 256, height = 256, maxDepth = 8, seeds = 4, grid = 8;
    double seconds = 20.0;
    std::string envmap;
    BenchArgs args("agreement", "PT, BDPT and MLT for equal time: block and per-pixel agreement with the path tracer");
    // Built-in scenes or scene files (a file that cannot be read fails when its turn comes).
    args.addList("--scenes", scenes, "built-in scenes or scene files", [](const std::string&) {});
    args.addResolution("--res", width, height, "image size");
    args.add("--max-depth", maxDepth, "longest path in segments");
    args.add("--seconds", seconds, "render time per integrator, split over the seeds");
    args.addAtLeast("--seeds", seeds, 2, "independent renders per integrator");
    args.addAtLeast("--grid", grid, 1, "blocks per side of the image");
    args.add("--envmap", envmap, "an HDR environment map (.exr, .pfm, .hdr) lighting the scenes");
    if (auto rc = args.parse(argc, argv)) return *rc;
    try {
        for (const std::string& name : scenes) {
            Scene scene = Scene::fromNameOrPath(name);
            RenderOptions o;
            o.backend = args.backend;
            o.width = width;
            o.height = height;
            o.maxDepth = maxDepth;
            o.environmentMap = envmap;
            std::vector<Side> sides;
            for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt, IntegratorType::Mlt})
                sides.push_back(renderFor(scene, o, integrator, seeds, seconds));
            std::printf("\n### %s, %dx%d, %g s per integrator in %d seeds, %dx%d blocks, max depth %d\n\n", name.c_str(),
                        width, height, seconds, seeds, grid, grid, maxDepth);
            std::printf("| integrator | samples per pixel | seconds | worst block-channel vs PT | its z | block-channels beyond 0.3%% | "
                        "pixel-channels failing Welch (Sidak 0.01) |\n|---|---:|---:|---:|---:|---:|---:|\n");
            const int block = std::max(1, std::min(width, height) / grid);
            auto blocks = [&](const Side& s) {
                std::vector<std::vector<double>> runs;
                for (const Image& im : s.images) runs.push_back(wftest::blockAverages(im, block));
                return wftest::statsOf(runs);
            };
            const wftest::BlockStats reference = blocks(sides[0]);
            const wftest::PixelStats referencePixels = wftest::pixelStatsOf(sides[0].images);
            for (const Side& s : sides) {
                const wftest::BlockStats b = blocks(s);
                double worst = 0.0, worstZ = 0.0;
                int beyond = 0;
                for (std::size_t i = 0; i < b.mean.size(); ++i) {
                    if (!(reference.mean[i] > 0.0)) continue;
                    const double rel = (b.mean[i] - reference.mean[i]) / reference.mean[i];
                    const double z = std::fabs(b.mean[i] - reference.mean[i]) /
                                     std::sqrt(b.variance[i] + reference.variance[i] + 1e-30);
                    beyond += std::fabs(rel) > 0.003;
                    if (std::fabs(rel) > std::fabs(worst)) worst = rel, worstZ = z;
                }
                wftest::PixelTest t = wftest::pixelTest(wftest::pixelStatsOf(s.images), referencePixels, 0.01);
                std::printf("| %s | %.0f | %.2f | %+.3f%% | %.2f | %d of %zu | %zu of %zu |\n", toString(s.integrator),
                            s.samplesPerPixel, s.seconds, 100.0 * worst, worstZ, beyond, b.mean.size(), t.failed,
                            t.tested);
            }
        }
    } catch (const Error& e) {
        std::fprintf(stderr, "agreement: %s\n", e.what());
        return 2;
    }
    return 0;
}
