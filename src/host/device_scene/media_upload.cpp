// The scene's media packed as kernels read them (kernels/media/medium.h): records, grid densities
// with their majorant grids, and the media on both sides of every primitive.
#include <algorithm>

#include <glm/gtc/matrix_inverse.hpp>

#include "host/device_scene/scene_upload.h"

namespace wavefront {

namespace {

/// The largest density of `m`'s grid that trilinear lookups can return within each cell of the
/// majorant grid over [0, 1]^3: the sample points around the cell (pbrt-v4's MaxValue), whose
/// values bound every interpolation between them (and 0 beyond the outermost).
std::vector<float> majorantGrid(const Medium& m) {
    constexpr int R = MediumData::kMajorantRes;
    std::vector<float> out(std::size_t(R) * R * R, 0.0f);
    const int n[3] = {m.nx, m.ny, m.nz};
    int lo[3][R], hi[3][R];
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < R; ++c) {
            lo[a][c] = std::max(0, int(std::floor(float(c) / R * n[a] - 0.5f)));
            hi[a][c] = std::min(n[a] - 1, int(std::floor(float(c + 1) / R * n[a] - 0.5f)) + 1);
        }
    for (int z = 0; z < R; ++z)
        for (int y = 0; y < R; ++y)
            for (int x = 0; x < R; ++x) {
                float largest = 0.0f;
                for (int k = lo[2][z]; k <= hi[2][z]; ++k)
                    for (int j = lo[1][y]; j <= hi[1][y]; ++j)
                        for (int i = lo[0][x]; i <= hi[0][x]; ++i)
                            largest = std::max(largest, m.density[(std::size_t(k) * m.ny + j) * m.nx + i]);
                out[(std::size_t(z) * R + y) * R + x] = largest;
            }
    return out;
}

}  // namespace

PackedMedia packMedia(const Scene& scene, int numTriangles) {
    PackedMedia p;
    for (const Medium& m : scene.media()) {
        MediumData d{};
        d.sigmaA = Float4(m.sigmaA * m.scale, m.g);
        d.sigmaS = Float4(m.sigmaS * m.scale, intAsFloat(m.type == MediumType::Grid ? MediumData::kGrid
                                                                                   : MediumData::kHomogeneous));
        if (m.type == MediumType::Grid) {
            // World -> medium space -> the box as [0, 1]^3.
            const glm::dmat4 toMedium = glm::inverse(glm::dmat4(m.mediumToWorld));
            const glm::dvec3 lo(m.boundsMin), extent = glm::dvec3(m.boundsMax) - lo;
            for (int r = 0; r < 3; ++r)
                d.toGrid[r] = Float4(float(toMedium[0][r] / extent[r]), float(toMedium[1][r] / extent[r]),
                                     float(toMedium[2][r] / extent[r]), float((toMedium[3][r] - lo[r]) / extent[r]));
            d.nx = m.nx;
            d.ny = m.ny;
            d.nz = m.nz;
            d.densityOffset = int(p.values.size());
            p.values.insert(p.values.end(), m.density.begin(), m.density.end());
            const std::vector<float> majorants = majorantGrid(m);
            d.majorantOffset = int(p.values.size());
            p.values.insert(p.values.end(), majorants.begin(), majorants.end());
        }
        p.media.push_back(d);
    }
    // The objects' triangles (after the scene's own) bound no medium: Scene::addObject.
    auto codes = [](int inside, int outside) {
        return std::uint16_t(mediumcode::of(inside) | mediumcode::of(outside) << 8);
    };
    p.primInterface.assign(std::size_t(numTriangles) + scene.spheres().size(), codes(kVacuum, kVacuum));
    for (const MeshRange& r : scene.meshes())
        std::fill(p.primInterface.begin() + std::ptrdiff_t(r.firstTriangle),
                  p.primInterface.begin() + std::ptrdiff_t(r.firstTriangle + r.triangleCount),
                  codes(r.mediumInside, r.mediumOutside));
    for (std::size_t k = 0; k < scene.spheres().size(); ++k)
        p.primInterface[std::size_t(numTriangles) + k] = codes(scene.spheres()[k].mediumInside, scene.spheres()[k].mediumOutside);
    return p;
}

}  // namespace wavefront
