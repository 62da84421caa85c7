// Refit or rebuild after moving vertices (Renderer::setMeshPositions, BvhUpdate): a grid of
// quads twisted by growing angles about its centre, each from the tree built over the flat
// grid. Per angle: the edit's time with a refit and with a rebuild, the refit tree's
// surface-area cost over a fresh tree's, and the time of a render after each. The rule of
// BvhUpdate::Auto (kRefitCostLimit) comes from this table (docs/decisions.md, "Edits").
//   edits [--backend cpu|cuda] [--grid N] [--spp S] [--res R]
#include <chrono>
#include <cmath>
#include <cstdio>

#include <CLI/CLI.hpp>
#include <wavefront/wavefront.h>

#include "bench_args.h"  // benchMain

using namespace wavefront;

namespace {

double seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

static int run(int argc, char** argv) {
    CLI::App app{"BVH refit against rebuild after vertex edits"};
    std::string backend = "cpu";
    int grid = 300, spp = 1, res = 256;
    app.add_option("--backend", backend, "cpu or cuda");
    app.add_option("--grid", grid, "quads per side (2 grid^2 triangles)");
    app.add_option("--spp", spp, "samples per pixel of the timed render");
    app.add_option("--res", res, "image side in pixels");
    CLI11_PARSE(app, argc, argv);
    Scene scene;
    const int m = scene.addMaterial(Material::lambertian(glm::vec3(0.6f)));
    TriangleMesh mesh;
    for (int y = 0; y <= grid; ++y)
        for (int x = 0; x <= grid; ++x) mesh.positions.push_back(glm::vec3(float(x) / grid - 0.5f, 0.0f, float(y) / grid - 0.5f));
    for (int y = 0; y < grid; ++y)
        for (int x = 0; x < grid; ++x) {
            std::uint32_t a = std::uint32_t(y * (grid + 1) + x), b = a + 1, c = a + grid + 1, d = c + 1;
            mesh.indices.insert(mesh.indices.end(), {a, c, b, b, c, d});
        }
    mesh.material = m;
    scene.addMesh(mesh);
    scene.setSkyGradient(SkyGradient{});
    Camera cam;
    cam.position = glm::vec3(0.0f, 1.2f, 1.0f);
    cam.target = glm::vec3(0.0f);
    scene.setCamera(cam);
    RenderOptions o;
    o.backend = parseBackend(backend);
    o.width = o.height = res;
    o.samplesPerPixel = spp;

    std::printf("grid %d (%d triangles), %s, %dx%d at %d spp\n", grid, 2 * grid * grid, backend.c_str(), res, res, spp);
    std::printf("| twist (deg) | refit ms | cost after refit / at build | render after refit ms | rebuild ms | render after rebuild ms |\n");
    std::printf("|---|---|---|---|---|---|\n");
    for (float degrees : {0.0f, 2.0f, 5.0f, 10.0f, 20.0f, 45.0f, 90.0f, 180.0f}) {
        // A twist about the vertical axis growing with the distance from the centre: every
        // vertex moves, neighbours stay neighbours, far parts of the grid cross each other.
        std::vector<glm::vec3> p = mesh.positions;
        for (glm::vec3& v : p) {
            float r = glm::length(glm::vec2(v.x, v.z));
            float a = glm::radians(degrees) * r * 2.0f, c = std::cos(a), s = std::sin(a);
            v = glm::vec3(c * v.x - s * v.z, 0.2f * std::sin(a) * r, s * v.x + c * v.z);
        }
        double ms[4];
        for (int k = 0; k < 2; ++k) {
            Renderer r(scene, o);
            r.render();  // warm: the runner exists
            EditStats st = r.setMeshPositions(0, p, {}, EditMode::ResetFilm, k == 0 ? BvhUpdate::Refit : BvhUpdate::Rebuild);
            auto t = std::chrono::steady_clock::now();
            r.render();
            ms[2 * k] = 1e3 * st.seconds;
            ms[2 * k + 1] = 1e3 * seconds(t);
        }
        // The cost ratio from an Auto edit (a plain refit measures none).
        Renderer judged(scene, o);
        const double ratio = judged.setMeshPositions(0, p, {}, EditMode::ResetFilm, BvhUpdate::Auto).bvhCostRatio;
        std::printf("| %.0f | %.2f | %.3f | %.1f | %.2f | %.1f |\n", degrees, ms[0], ratio, ms[1], ms[2], ms[3]);
    }
    return 0;
}

int main(int argc, char** argv) { return benchMain("edits", argc, argv, run); }
