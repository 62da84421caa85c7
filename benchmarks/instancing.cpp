// Instancing's cost and saving (issue 38): the built-in forest (10,000 instances of one tree) as
// instances and flattened (Scene::flattenInstances), per integrator: triangles stored, memory on
// the backend, scene set-up (upload and BVH builds) and samples per second of a time-limited
// render, each side twice, alternating.
//   instancing [--backend auto|cpu|cuda] [--res N] [--seconds S] [--integrators pt,bdpt]
#include <cstdio>
#include <string>

#include "bench_args.h"

using namespace wavefront;

static int run(int argc, char** argv) {
    std::string integrators = "pt,bdpt";
    int res = 1024;
    double seconds = 2.0;
    BenchArgs args("instancing", "The built-in forest as instances and flattened");
    args.addAtLeast("--res", res, 1, "image side in pixels");
    args.add("--seconds", seconds, "time limit of each render")->check(CLI::PositiveNumber);
    args.add("--integrators", integrators, "comma-separated integrator names")
        ->check(BenchArgs::validator([](const std::string& list) {
            for (const std::string& name : splitList(list)) parseIntegrator(name);
        }));
    if (auto rc = args.parse(argc, argv)) return *rc;
    const Scene instanced = Scene::builtin("forest");
    Scene flat = instanced;
    flat.flattenInstances();
    std::printf("forest, %s, %dx%d, %.1f s per render\n", toString(args.backend), res, res, seconds);
    std::printf("| scene | integrator | instances | triangles stored | memory MiB | peak MiB | set-up s | M samples/s |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (const std::string& name : splitList(integrators)) {
        for (int round = 0; round < 2; ++round)
            for (const Scene* scene : {&instanced, static_cast<const Scene*>(&flat)}) {
                RenderOptions o;
                o.backend = args.backend;
                o.integrator = parseIntegrator(name);
                o.width = o.height = res;
                o.samplesPerPixel = 1 << 20;
                o.timeLimitSeconds = seconds;
                Renderer r(*scene, o);
                r.render();
                const RenderStats& st = r.stats();
                std::printf("| %s | %s | %llu | %llu | %.1f | %.1f | %.3f | %.2f |\n", scene == &flat ? "flattened" : "instanced",
                            name.c_str(), static_cast<unsigned long long>(st.instances),
                            static_cast<unsigned long long>(st.triangles), st.memoryBytes / 1048576.0, st.peakMemoryBytes / 1048576.0,
                            st.sceneSetupSeconds, st.samples / st.seconds * 1e-6);
                std::fflush(stdout);
            }
    }
    return 0;
}

int main(int argc, char** argv) { return benchMain("instancing", argc, argv, run); }
