// Issue 15, "Beat a hand-tuned megakernel": the final scene of Ray Tracing in One Weekend as the
// CUDA megakernel of https://karimsayedre.github.io/RTIOW.html renders it, on every path-tracer
// schedule, with next-event estimation on and off.
//   rtiow [--backend cuda|cpu] [--frames N] [--res WxH] [--spp N] [--max-depth N]
//         [--roulette-depth N] [--schedules a,b,...] [--nee on,off]
//
// The scene is the built-in `rtiow-final`, rebuilt from the reference's construction
// (karimsayedre/CUDA-Ray-Tracing-In-One-Weekend, src/Raytracing.h CreateWorld, src/Random.h,
// src/Renderer.h, src/Main.cpp):
//   - generator: 32-bit LCG state = 1664525 state + 1013904223, seeded with PcgHash(134537);
//     a float is (state & 0xFFFFFF) / 2^24
//   - ground: centre (0, -1000, -1), radius 1000, Lambertian 0.5
//   - for a, b in -11..10: draws choose, offX, offZ; centre (a + offX, 0.2, b + offZ), radius 0.2;
//     choose < 0.8: Lambertian (r^2, g^2, b^2) from three draws; < 0.95: metal 0.5 (1 + rgb)
//     from three draws, fuzz 0.5 x one draw; else glass of index 1.5
//   - big spheres, radius 1: glass 1.5 at (0, 1, 0); Lambertian (0.4, 0.2, 0.1) at (-4, 1, 0);
//     metal (0.7, 0.6, 0.5), fuzz 0, at (4, 1, 0)
//   - 488 spheres: 389 diffuse, 74 metal (73 fuzzy), 25 glass
//   - sky: mix((1, 1, 1), (0.5, 0.7, 1), (d.y + 1) / 2), computed from the direction
//   - camera: pinhole from (13, 2, 3) to (0, 0, 0), up y, vertical field of view 20 degrees
//   - 1280 x 720, 30 samples per pixel, max depth 50, no next-event estimation, Russian roulette
//     at every bounce with the throughput's largest component
// Differences (docs/decisions.md): fuzz f becomes our GGX conductor at roughness 0.3 f (Schlick
// Fresnel with F0 = the tint); our Lambertian and roulette are the textbook ones (roulette from
// the second hit by default here, with probability capped at 0.95).
//
// Per schedule and NEE setting: one renderer, one warm-up frame, then --frames frames; the table
// gives the median frame's time and, from RenderStats (counted on the device), its samples and
// rays. Every frame renders the same samples (the same seed), so every frame does the same work.
// The reference row is the number published in the post, not a measurement of this program.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_args.h"
#include "wavefront/wavefront.h"

using namespace wavefront;

namespace {

struct Frame {
    double seconds = 0.0;
    std::uint64_t samples = 0, extensionRays = 0, shadowRays = 0;
};

bool parseNee(const std::string& v) {
    if (v == "on") return true;
    if (v == "off") return false;
    throw InputError("'" + v + "' is not on or off");
}

}  // namespace

static int run(int argc, char** argv) {
    std::vector<std::string> schedules = {"megakernel", "pt-r", "spt", "spt-r"};
    std::vector<std::string> nee = {"off", "on"};
    int width = 1280, height = 720, spp = 30, maxDepth = 50, rouletteDepth = 2, frames = 5, capacity = 0;
    BenchArgs args("rtiow", "Ray Tracing in One Weekend's final scene against the hand-tuned CUDA megakernel of "
                            "issue 15: ms per frame, samples/s and rays/s per path-tracer schedule, NEE on and off");
    args.addResolution("--res", width, height, "image size");
    args.addAtLeast("--spp", spp, 1, "samples per pixel");
    args.addAtLeast("--max-depth", maxDepth, 1, "longest path in segments");
    args.addAtLeast("--roulette-depth", rouletteDepth, 1,
                    "Russian roulette from this many segments (2: from the second hit, as the reference, whose "
                    "roulette at the first hit never ends a path)");
    args.addAtLeast("--frames", frames, 1, "timed frames after one warm-up frame; the median is reported");
    args.addAtLeast("--capacity", capacity, 0, "path-state slots per stream (0: fill the device)");
    args.addList("--schedules", schedules, "path-tracer schedules: megakernel, pt-r, spt, spt-r",
                 [](const std::string& v) { parsePtVariant(v); });
    args.addList("--nee", nee, "next-event estimation: on, off or both (on,off)", [](const std::string& v) { parseNee(v); });
    if (auto rc = args.parse(argc, argv)) return *rc;

    const Scene scene = Scene::builtin("rtiow-final");
    std::string device;
    std::printf("| schedule | NEE | ms per frame (median of %d) | G samples/s | rays per sample | G rays/s | shadow rays "
                "per sample |\n",
                frames);
    std::printf("|---|---|---:|---:|---:|---:|---:|\n");
    for (const std::string& neeName : nee)
        for (const std::string& schedule : schedules) {
            RenderOptions o;
            o.backend = args.backend;
            o.pt.variant = parsePtVariant(schedule);
            o.width = width;
            o.height = height;
            o.samplesPerPixel = spp;
            o.maxDepth = maxDepth;
            o.rouletteDepth = rouletteDepth;
            o.streamCapacity = capacity;
            o.pt.nextEventEstimation = parseNee(neeName);
            Renderer r(scene, o);
            r.render();  // warm-up: module load, first-touch allocations
            std::vector<Frame> timed;
            for (int f = 0; f < frames; ++f) {
                r.render();
                const RenderStats& st = r.stats();
                timed.push_back(Frame{st.seconds, st.samples, st.extensionRays, st.shadowRays});
            }
            device = r.stats().backend;
            std::sort(timed.begin(), timed.end(), [](const Frame& a, const Frame& b) { return a.seconds < b.seconds; });
            const Frame& m = timed[timed.size() / 2];
            const double rays = double(m.extensionRays + m.shadowRays);
            std::printf("| %s | %s | %.3f | %.4g | %.3f | %.4g | %.3f |\n", schedule.c_str(), neeName.c_str(),
                        1e3 * m.seconds, m.samples / m.seconds * 1e-9, rays / double(m.samples),
                        rays / m.seconds * 1e-9, double(m.shadowRays) / double(m.samples));
            std::fflush(stdout);
        }
    std::printf("| reference: hand-tuned CUDA megakernel (karimsayedre.github.io/RTIOW.html), H100, quoted, not "
                "measured here | off | 5.7 | 4.8 | 2.06 | 10 | 0 |\n");
    std::printf("\n%s; %dx%d, %d spp, max depth %d, roulette from %d segments; the reference renders 1280x720, "
                "30 spp, max depth 50.\n",
                device.c_str(), width, height, spp, maxDepth, rouletteDepth);
    return 0;
}

int main(int argc, char** argv) { return benchMain("rtiow", argc, argv, run); }
