// Instancing's cost and saving (issue 38): the built-in forest (10,000 instances of one tree) as
// instances and flattened (Scene::flattenInstances), per integrator: triangles stored, memory on
// the backend, scene set-up (upload and BVH builds) and samples per second of a time-limited
// render, each side twice, alternating.
//   instancing [--backend cpu|cuda] [--res N] [--seconds S] [--integrators pt,bdpt]
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <wavefront/wavefront.h>

using namespace wavefront;

int main(int argc, char** argv) {
    CLI::App app{"The built-in forest as instances and flattened"};
    std::string backend = "cuda", integrators = "pt,bdpt";
    int res = 1024;
    double seconds = 2.0;
    app.add_option("--backend", backend, "cpu or cuda");
    app.add_option("--res", res, "image side in pixels");
    app.add_option("--seconds", seconds, "time limit of each render");
    app.add_option("--integrators", integrators, "comma-separated integrator names");
    CLI11_PARSE(app, argc, argv);
    try {
        const Scene instanced = Scene::builtin("forest");
        Scene flat = instanced;
        flat.flattenInstances();
        std::printf("forest, %s, %dx%d, %.1f s per render\n", backend.c_str(), res, res, seconds);
        std::printf("| scene | integrator | instances | triangles stored | memory MiB | peak MiB | set-up s | M samples/s |\n");
        std::printf("|---|---|---|---|---|---|---|---|\n");
        std::stringstream list(integrators);
        std::string name;
        while (std::getline(list, name, ',')) {
            for (int round = 0; round < 2; ++round)
                for (const Scene* scene : {&instanced, static_cast<const Scene*>(&flat)}) {
                    RenderOptions o;
                    o.backend = parseBackend(backend);
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
    } catch (const std::exception& e) {
        std::fprintf(stderr, "instancing: %s\n", e.what());
        return 2;
    }
    return 0;
}
