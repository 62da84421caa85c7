// The per-frame animation path (issue 38, item 6) on the CPU: the grid of examples/animate.cpp and
// benchmarks/animation moves every frame through setMeshPositions (refit, rebuild, auto), then a
// 1-spp render and resolve; each frame's image equals a fresh Renderer's on that frame's scene.
#include <catch2/catch.hpp>

#include "../examples/animated_grid.h"
#include "test_support.h"

using namespace wavefront;

TEST_CASE("animation: a deforming grid renders frame after frame on one Renderer", "[animation][edits]") {
    const animation::Grid grid = animation::Grid::withTriangles(2000);
    CHECK(std::abs(grid.triangles() - 2000) <= 2 * grid.rows);
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 32, 1);
    o.height = 18;
    for (BvhUpdate update : {BvhUpdate::Refit, BvhUpdate::Rebuild, BvhUpdate::Auto}) {
        INFO(toString(update));
        Renderer r(grid.scene(), o);
        std::vector<glm::vec3> positions;
        for (int f = 1; f <= 3; ++f) {
            grid.positions(f, positions);
            const EditStats e = r.setMeshPositions(0, positions, {}, EditMode::ResetFilm, update);
            CHECK(e.bvh == (update == BvhUpdate::Rebuild ? "rebuild" : update == BvhUpdate::Refit ? "refit" : e.bvh));
            CHECK(e.bvh != "none");
            CHECK(e.bvhSeconds > 0.0);
            CHECK(e.bvhSeconds <= e.seconds);
            r.render();
            // The renderer's builder (Auto) rebuilds with the LBVH: the per-frame build.
            if (e.bvh.find("rebuild") != std::string::npos) CHECK(r.stats().bvhBuilder == std::string("lbvh"));
            const Image img = r.image();
            REQUIRE(img.width == 32);
            CHECK(wftest::allFinite(img));
            CHECK(wftest::imageMean(img) > 0.0);
            // The frame a fresh renderer gives on this frame's scene (another tree, the same hits).
            const Image fresh = wftest::renderImage(r.scene(), o);
            CHECK(wftest::maxRelativeDifference(img, fresh) < 1e-3);
        }
    }
}
