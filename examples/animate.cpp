// Per-frame animation through a Renderer (issue 38, item 6): a deforming grid of about TRIANGLES
// triangles whose vertices move every frame (setMeshPositions: upload, then refit or rebuild the
// BVH), rendered at 1 sample per pixel and resolved, frame after frame, on one Renderer. Writes
// the last frame. benchmarks/animation times the same loop.
//   wavefront-animate [FRAMES] [TRIANGLES] [WIDTHxHEIGHT] [refit|rebuild|auto] [OUT.png] [--cpu]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "animated_grid.h"

int main(int argc, char** argv) {
    using namespace wavefront;
    std::vector<std::string> a;
    bool cpu = false;
    for (int i = 1; i < argc; ++i) (std::strcmp(argv[i], "--cpu") == 0 ? (void)(cpu = true) : a.push_back(argv[i]));
    try {
        const int frames = a.size() > 0 ? std::atoi(a[0].c_str()) : 30;
        const long long triangles = a.size() > 1 ? std::atoll(a[1].c_str()) : 1000000;
        int width = 1920, height = 1080;
        if (a.size() > 2 && (std::sscanf(a[2].c_str(), "%dx%d", &width, &height) != 2 || width < 1 || height < 1))
            throw InputError("resolution '" + a[2] + "' is not of the form WIDTHxHEIGHT");
        const BvhUpdate update = parseBvhUpdate(a.size() > 3 ? a[3] : "auto");
        const std::string out = a.size() > 4 ? a[4] : "animate.png";
        if (frames < 1 || triangles < 2) throw InputError("FRAMES must be at least 1 and TRIANGLES at least 2");

        const animation::Grid grid = animation::Grid::withTriangles(triangles);
        RenderOptions options;
        options.width = width;
        options.height = height;
        options.samplesPerPixel = 1;
        if (cpu) options.backend = Backend::Cpu;
        Renderer renderer(grid.scene(), options);  // uploads the grid and builds its BVH once
        std::printf("%lld triangles on %s, %dx%d\n", (long long)grid.triangles(), toString(renderer.backend()), width, height);
        std::vector<glm::vec3> positions;
        Image image;
        for (int f = 1; f <= frames; ++f) {
            const auto start = std::chrono::steady_clock::now();
            grid.positions(f, positions);  // the host's animation
            const EditStats e = renderer.setMeshPositions(0, positions, {}, EditMode::ResetFilm, update);
            renderer.render();
            image = renderer.image();
            const double ms = 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::printf("frame %3d: bvh %-14s %7.3f ms, edit %7.3f ms, render %7.3f ms, frame %7.3f ms\n", f, e.bvh.c_str(),
                        1e3 * e.bvhSeconds, 1e3 * e.seconds, 1e3 * renderer.stats().seconds, ms);
        }
        writeImage(out, image);
        std::printf("wrote %s\n", out.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "wavefront-animate: %s\n", e.what());
        return 2;
    }
    return 0;
}
