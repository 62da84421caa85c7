// The per-frame animation path (issue 38, item 6) on the CPU: the grid of examples/animate.cpp and
// benchmarks/animation moves every frame through setMeshPositions (refit, rebuild, auto), then a
// 1-spp render and resolve; each frame's image equals a fresh Renderer's on that frame's scene.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#if defined(WAVEFRONT_HAS_CUDA)
#include <cuda_runtime_api.h>
#endif

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

TEST_CASE("positions from device memory are refused on the CPU backend, changing nothing", "[animation][edits]") {
    const animation::Grid grid = animation::Grid::withTriangles(200);
    Renderer r(grid.scene(), wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 16, 1));
    std::vector<glm::vec3> positions;
    grid.positions(1, positions);
    CHECK_THAT(wftest::inputErrorOf([&] { r.setMeshPositionsOnDevice(0, &positions[0].x, positions.size()); }),
               Catch::Contains("needs the CUDA backend"));
    CHECK(r.scene().positions()[1] == grid.scene().positions()[1]);
    // The checks made before a device edit: the mesh and the count (null positions), on the host.
    CHECK_NOTHROW(r.scene().checkMeshPositions(0, nullptr, positions.size()));
    CHECK_THAT(wftest::inputErrorOf([&] { r.scene().checkMeshPositions(0, nullptr, positions.size() + 1); }),
               Catch::Contains("positions were given"));
    CHECK_THAT(wftest::inputErrorOf([&] { r.scene().checkMeshPositions(1, nullptr, positions.size()); }),
               Catch::Contains("mesh 1 is out of range"));
    r.render();
    CHECK(wftest::imageMean(r.image()) > 0.0);
}

TEST_CASE("positions from CUDA device memory give the image host positions give", "[animation][edits][gpu]") {
#if defined(WAVEFRONT_HAS_CUDA)
    if (!wftest::haveGpu()) return;
    const animation::Grid grid = animation::Grid::withTriangles(2000);
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cuda, 32, 2);
    o.height = 18;
    Renderer viaHost(grid.scene(), o), viaDevice(grid.scene(), o);
    std::vector<glm::vec3> positions;
    float* device = nullptr;
    const std::size_t bytes = grid.vertices() * sizeof(glm::vec3);
    REQUIRE(cudaMalloc(reinterpret_cast<void**>(&device), bytes) == cudaSuccess);
    int frame = 2;
    for (BvhUpdate update : {BvhUpdate::Refit, BvhUpdate::Rebuild, BvhUpdate::Auto}) {
        INFO(toString(update));
        grid.positions(++frame, positions);
        REQUIRE(cudaMemcpy(device, positions.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
        const EditStats a = viaHost.setMeshPositions(0, positions, {}, EditMode::ResetFilm, update);
        const EditStats b = viaDevice.setMeshPositionsOnDevice(0, device, grid.vertices(), EditMode::ResetFilm, update);
        CHECK(b.what == "mesh 0");
        CHECK(b.bvh == a.bvh);
        CHECK(b.bytesUploaded == 0);  // device to device
        CHECK(a.bytesUploaded == bytes);
        viaHost.render();
        viaDevice.render();
        // The same positions and tree: the same image, up to the film's float additions.
        CHECK(wftest::maxRelativeDifference(viaHost.image(), viaDevice.image()) < 1e-5);
        // The host scene reads them back once asked.
        CHECK(viaDevice.scene().positions() == viaHost.scene().positions());
    }
    const Image before = viaDevice.image();
    // A bad vertex is refused with the host check's message; nothing changes and the renderer
    // stays usable.
    std::vector<glm::vec3> bad = positions;
    bad[7].y = std::numeric_limits<float>::quiet_NaN();
    bad[9].x = 2e8f;
    REQUIRE(cudaMemcpy(device, bad.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK_THAT(wftest::inputErrorOf([&] { viaDevice.setMeshPositionsOnDevice(0, device, grid.vertices()); }),
               Catch::Contains("mesh 0 vertex 7") && Catch::Contains("not finite"));
    CHECK_THAT(wftest::inputErrorOf([&] { viaDevice.setMeshPositionsOnDevice(0, &positions[0].x, grid.vertices()); }),
               Catch::Contains("host memory"));
    CHECK_THAT(wftest::inputErrorOf([&] { viaDevice.setMeshPositionsOnDevice(1, device, grid.vertices()); }),
               Catch::Contains("mesh 1 is out of range"));
    CHECK_THAT(wftest::inputErrorOf([&] { viaDevice.setMeshPositionsOnDevice(0, nullptr, grid.vertices()); }),
               Catch::Contains("null"));
    viaDevice.render();
    CHECK(wftest::maxRelativeDifference(before, viaDevice.image()) < 1e-5);
    CHECK(viaDevice.scene().positions() == viaHost.scene().positions());
    // Another edit reads device positions back first: the host scene is whole when it changes.
    grid.positions(++frame, positions);
    REQUIRE(cudaMemcpy(device, positions.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK_THAT(wftest::inputErrorOf([&] { viaDevice.setMeshPositionsOnDevice(0, device, grid.vertices() - 1); }),
               Catch::Contains("positions were given"));
    viaDevice.setMeshPositionsOnDevice(0, device, grid.vertices());
    viaDevice.setCamera(viaHost.scene().camera());  // reads the device's positions back first
    std::vector<glm::vec3> held(positions.size());
    CHECK(cudaMemcpy(held.data(), device, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(held == positions);
    viaHost.setMeshPositions(0, positions);
    CHECK(viaDevice.scene().positions() == viaHost.scene().positions());
    cudaFree(device);
#else
    wftest::haveGpu();  // no CUDA in this build: reported as skipped
#endif
}
