// Path-tracer variants (van Antwerpen 2011, Tables 1, 2 and 6):
//   pt_variants [--backend cuda|cpu] [--scenes a,b,...] [--variants a,b,...] [--res WxH] [--spp N]
//               [--max-depth N] [--capacity N] [--light-samplers binary,guide,forest,alias] [--again N]
// Per scene and variant: samples/s (completed paths), rays/s (extension + shadow), time share
// and SIMD efficiency per kernel (SIMD needs a WAVEFRONT_STATS build), state bytes per slot.
// rtiow-final always renders at 1280x720, 30 spp, max depth 50 (the megakernel blog's setup).
// --again N: render N more times on the same renderer and list each call's time, samples on the
// film, rays and image mean (a renderer reused for frame after frame must give the same frame).
#include <cstdio>
#include <string>
#include <vector>

#include "bench_args.h"
#include "wavefront/wavefront.h"

using namespace wavefront;

static int run(int argc, char** argv) {
    std::vector<std::string> scenes = {"cornell-box", "cornell-spheres", "cornell-glossy", "mesh-1m", "rtiow-final"};
    std::vector<std::string> variants = {"megakernel", "pt-r", "spt", "spt-r"};
    int width = 1024, height = 1024, spp = 16, maxDepth = 16, capacity = 0, again = 0;
    std::vector<std::string> samplers = {"binary"};
    BenchArgs args("pt_variants", "Path-tracer variants (van Antwerpen 2011, Tables 1, 2 and 6): samples/s, rays/s, "
                                  "kernel time shares, SIMD efficiency, bytes per slot");
    args.app().footer("rtiow-final always renders at 1280x720, 30 spp, max depth 50 (the megakernel blog's setup).");
    args.addRenderOptions(scenes, width, height, spp, maxDepth);
    args.addList("--variants", variants, "path-tracer schedules: megakernel, pt-r, spt, spt-r",
                 [](const std::string& v) { parsePtVariant(v); });
    args.add("--capacity", capacity, "path-state slots per stream (0: fill the device)");
    args.addList("--light-samplers", samplers, "light choice: binary, guide, forest, alias",
                 [](const std::string& s) { parseLightSampler(s); });
    args.add("--again", again, "render N more times on the same renderer and list each call");
    if (auto rc = args.parse(argc, argv)) return *rc;
    Backend backend = args.backend;
    std::string calls;
    std::printf("| scene | variant | light sampler | res | spp | depth | M samples/s | M rays/s | s | capacity | bytes/slot | kernel time share (SIMD efficiency) |\n");
    std::printf("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (const std::string& name : scenes) {
        Scene scene = Scene::builtin(name);
        for (const std::string& sampler : samplers)
        for (const std::string& vname : variants) {
            RenderOptions o;
            o.backend = backend;
            o.pt.variant = parsePtVariant(vname);
            bool rtiow = name == "rtiow-final";
            o.width = rtiow ? 1280 : width;
            o.height = rtiow ? 720 : height;
            o.samplesPerPixel = rtiow ? 30 : spp;
            o.maxDepth = rtiow ? 50 : maxDepth;
            o.streamCapacity = capacity;
            o.lightSampler = parseLightSampler(sampler);
            Renderer r(scene, o);
            { // warm-up pass: module load, first-touch allocations
                RenderOptions w = o;
                w.samplesPerPixel = 1;
                Renderer warm(scene, w);
                warm.render();
            }
            r.render();
            const RenderStats& st = r.stats();
            double total = 0.0;
            for (auto& k : st.kernels) total += k.milliseconds;
            std::string shares;
            for (auto& k : st.kernels) {
                if (k.milliseconds < 0.01 * total) continue;
                char buf[128];
                if (k.simdOccupancy >= 0 && k.simdEfficiency >= 0)
                    std::snprintf(buf, sizeof buf, "%s %.0f%% (occ %.1f%%, steps %.1f%%); ", k.label.c_str(),
                                  100 * k.milliseconds / total, 100 * k.simdOccupancy, 100 * k.simdEfficiency);
                else if (k.simdOccupancy >= 0)
                    std::snprintf(buf, sizeof buf, "%s %.0f%% (occ %.1f%%); ", k.label.c_str(), 100 * k.milliseconds / total,
                                  100 * k.simdOccupancy);
                else
                    std::snprintf(buf, sizeof buf, "%s %.0f%%; ", k.label.c_str(), 100 * k.milliseconds / total);
                shares += buf;
            }
            std::printf("| %s | %s | %s | %dx%d | %d | %d | %.2f | %.1f | %.3f | %d | %llu | %s|\n", name.c_str(), vname.c_str(), sampler.c_str(),
                        o.width, o.height, o.samplesPerPixel, o.maxDepth, st.samplesPerSecond() * 1e-6,
                        st.raysPerSecond() * 1e-6, st.seconds, st.streamCapacity,
                        (unsigned long long)st.bytesPerSampleSlot, shares.c_str());
            std::fflush(stdout);
            for (int call = 0; call <= again && again > 0; ++call) {
                if (call > 0) r.render();
                double mean = 0.0;
                Image img = r.image();
                for (float v : img.rgb) mean += v / double(img.rgb.size());
                char buf[256];
                std::snprintf(buf, sizeof buf, "| %s | %s | %d | %.2f | %llu | %llu | %.6f |\n", name.c_str(), vname.c_str(),
                              call + 1, 1e3 * r.stats().seconds, (unsigned long long)r.stats().samples,
                              (unsigned long long)(r.stats().extensionRays + r.stats().shadowRays), mean);
                calls += buf;
            }
        }
    }
    if (!calls.empty())
        std::printf("\nThe same renderer, render() again:\n\n| scene | variant | call | ms | samples on the film | rays | "
                    "image mean |\n|---|---|---:|---:|---:|---:|---:|\n%s",
                    calls.c_str());
    return 0;
}

int main(int argc, char** argv) { return benchMain("pt_variants", argc, argv, run); }
