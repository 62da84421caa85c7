// The deforming grid of issue 38's per-frame animation (item 6), shared by examples/animate.cpp,
// benchmarks/animation.cpp and the test that runs a few of its frames: a grid of quads (two
// triangles each) under a sky, whose vertices ride travelling waves that change every frame.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <wavefront/wavefront.h>

// The vertex formula runs on the host and, in benchmarks/animation's --positions device, in a
// CUDA kernel (benchmarks/animated_grid_device.cu).
#ifdef __CUDACC__
#define ANIMATION_HOST_DEVICE __host__ __device__
#else
#define ANIMATION_HOST_DEVICE
#endif

namespace animation {

/// Vertex (x, y) of a columns x rows grid at `frame`: (u, height, v), heights of two waves
/// travelling across the grid.
ANIMATION_HOST_DEVICE inline void gridVertex(int x, int y, int columns, int rows, int frame, float out[3]) {
    const float t = 0.05f * float(frame);
    const float u = 2.0f * float(x) / float(columns) - 1.0f, v = float(y) / float(rows) - 0.5f;
    out[0] = u;
    out[1] = 0.06f * sinf(9.0f * u + 2.0f * t) * cosf(7.0f * v - 1.3f * t) + 0.03f * sinf(23.0f * (u + v) - 3.0f * t);
    out[2] = v;
}

/// A grid of columns x rows quads, twice as wide as deep, over [-1, 1] x [-0.5, 0.5] in x and z.
struct Grid {
    int columns = 0, rows = 0;
    /// The grid with about `triangles` triangles (2 per quad), at least 1 x 1 quads.
    static Grid withTriangles(std::int64_t triangles) {
        Grid g;
        g.rows = std::max(1, int(std::lround(std::sqrt(double(triangles) / 4.0))));
        g.columns = std::max(1, int(std::lround(double(triangles) / (2.0 * g.rows))));
        return g;
    }
    std::int64_t triangles() const { return 2 * std::int64_t(columns) * rows; }
    std::size_t vertices() const { return std::size_t(columns + 1) * std::size_t(rows + 1); }

    /// The vertex positions of `frame` into `out` (resized, row by row: gridVertex); the same
    /// frame gives the same positions.
    void positions(int frame, std::vector<glm::vec3>& out) const {
        out.resize(vertices());
        for (int y = 0; y <= rows; ++y)
            for (int x = 0; x <= columns; ++x)
                gridVertex(x, y, columns, rows, frame, &out[std::size_t(y) * (columns + 1) + x].x);
    }

    /// The scene: the grid (mesh 0) at frame 0, a grey diffuse material, the gradient sky, and a
    /// camera looking down at it.
    wavefront::Scene scene() const {
        wavefront::Scene s;
        wavefront::TriangleMesh mesh;
        positions(0, mesh.positions);
        mesh.indices.reserve(std::size_t(triangles()) * 3);
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < columns; ++x) {
                const std::uint32_t a = std::uint32_t(y * (columns + 1) + x), b = a + 1,
                                    c = a + std::uint32_t(columns + 1), d = c + 1;
                mesh.indices.insert(mesh.indices.end(), {a, c, b, b, c, d});
            }
        mesh.material = s.addMaterial(wavefront::Material::lambertian(glm::vec3(0.6f, 0.55f, 0.5f)));
        s.addMesh(mesh);
        s.setSkyGradient(wavefront::SkyGradient{});
        wavefront::Camera cam;
        cam.position = glm::vec3(0.0f, 1.1f, 1.3f);
        cam.target = glm::vec3(0.0f);
        s.setCamera(cam);
        return s;
    }
};

}  // namespace animation
