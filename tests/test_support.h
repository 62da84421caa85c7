// Shared helpers for the tests: GPU skipping and statistical image comparison.
#pragma once
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "wavefront/wavefront.h"

namespace wftest {

/// A fresh directory under the system temp dir, removed with its contents on destruction.
class TempDir {
public:
    TempDir() {
        static std::atomic<int> counter{0};
        path_ = std::filesystem::temp_directory_path() /
                ("wavefront-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    /// Path of `name` inside the directory (nothing is created).
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    /// Writes `text` to `name` and returns its path.
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(path_ / name) << text;
        return file(name);
    }

private:
    std::filesystem::path path_;
};

/// The message of the InputError thrown by `f`, or a marker that fails any Contains check.
template <typename F>
std::string inputErrorOf(F&& f) {
    try {
        f();
    } catch (const wavefront::InputError& e) {
        return e.what();
    }
    return "<no InputError thrown>";
}

/// True when CUDA tests can run; otherwise prints the marker ctest maps to "skipped".
inline bool haveGpu() {
    if (wavefront::cudaDeviceCount() > 0) return true;
    std::cout << "SKIPPED: no CUDA device" << std::endl;
    return false;
}

/// A small square render: `integrator` on `backend`, size x size pixels, spp samples per pixel.
inline wavefront::RenderOptions smallRender(wavefront::IntegratorType integrator, wavefront::Backend backend, int size,
                                            int spp) {
    wavefront::RenderOptions o;
    o.integrator = integrator;
    o.backend = backend;
    o.width = size;
    o.height = size;
    o.samplesPerPixel = spp;
    return o;
}

/// A copy of `src` scaled by `scale` about the origin and then moved by `offset`: vertex positions,
/// sphere centres and radii, the camera position, target, lens radius and focus distance follow;
/// materials, shading normals and the field of view stay. The image of the copy must equal the
/// original's (radiance does not depend on the unit of length), up to float rounding of the
/// moved vertices. Rebuilt through the public API, one mesh per (material, has normals) group.
/// `materials`, when not empty, replaces the scene's materials (same count and order).
inline wavefront::Scene transformedScene(const wavefront::Scene& src, float scale, glm::vec3 offset = glm::vec3(0.0f),
                                         const std::vector<wavefront::Material>& materials = {}) {
    using namespace wavefront;
    Scene out;
    for (const Material& m : materials.empty() ? src.materials() : materials) out.addMaterial(m);
    auto move = [&](glm::vec3 p) { return p * scale + offset; };
    struct Group {
        TriangleMesh mesh;
        std::map<std::uint32_t, std::uint32_t> remap;  ///< global vertex -> mesh vertex
    };
    std::map<std::pair<int, bool>, Group> groups;
    for (std::size_t t = 0; t < src.triangles().size(); ++t) {
        bool normals = !src.triangleHasNormals().empty() && src.triangleHasNormals()[t];
        Group& g = groups[{src.triangleMaterials()[t], normals}];
        g.mesh.material = src.triangleMaterials()[t];
        for (int k = 0; k < 3; ++k) {
            std::uint32_t v = src.triangles()[t][k];
            auto it = g.remap.find(v);
            if (it == g.remap.end()) {
                it = g.remap.emplace(v, std::uint32_t(g.mesh.positions.size())).first;
                g.mesh.positions.push_back(move(src.positions()[v]));
                if (normals) g.mesh.normals.push_back(src.normals()[v]);
            }
            g.mesh.indices.push_back(it->second);
        }
    }
    for (auto& [key, g] : groups) out.addMesh(g.mesh);
    for (Sphere s : src.spheres()) {
        s.center = move(s.center);
        s.radius *= scale;
        out.addSphere(s);
    }
    Camera c = src.camera();
    c.position = move(c.position);
    c.target = move(c.target);
    c.lensRadius *= scale;
    c.focusDistance *= scale;
    out.setCamera(c);
    return out;
}

/// Renders once and returns the image (and the statistics when asked).
inline wavefront::Image renderImage(const wavefront::Scene& scene, const wavefront::RenderOptions& o,
                                    wavefront::RenderStats* stats = nullptr) {
    wavefront::Renderer r(scene, o);
    r.render();
    if (stats) *stats = r.stats();
    return r.image();
}

/// Mean luminance-free statistics of one image region over several independent renders.
struct BlockStats {
    std::vector<double> mean;        ///< per block, mean over renders of the block average (per channel)
    std::vector<double> variance;    ///< per block, variance of that mean
    std::vector<double> imageMeans;  ///< per render, the mean over the blocks' pixels and channels
};

/// Block averages of an image (blocks of `block` x `block` pixels, 3 channels each).
inline std::vector<double> blockAverages(const wavefront::Image& img, int block) {
    int bx = img.width / block, by = img.height / block;
    std::vector<double> out(std::size_t(bx) * by * 3, 0.0);
    for (int y = 0; y < by * block; ++y)
        for (int x = 0; x < bx * block; ++x)
            for (int c = 0; c < 3; ++c)
                out[(std::size_t(y / block) * bx + x / block) * 3 + c] += img.pixel(x, y)[c] / double(block * block);
    return out;
}

/// Renders `seeds` independent images and returns each block's mean and the variance of that mean.
/// Two sides of a comparison must pass different `seedBase`s, or equal estimators compare equal
/// sample by sample and the test could not fail.
inline BlockStats renderBlockStats(const wavefront::Scene& scene, wavefront::RenderOptions options, int seeds, int block,
                                   unsigned seedBase) {
    std::vector<std::vector<double>> runs;
    for (int s = 0; s < seeds; ++s) {
        options.seed = seedBase + 7919u * unsigned(s);
        wavefront::Renderer r(scene, options);
        r.render();
        runs.push_back(blockAverages(r.image(), block));
    }
    BlockStats st;
    std::size_t n = runs[0].size();
    for (auto& r : runs) {
        double m = 0.0;
        for (double v : r) m += v / double(n);
        st.imageMeans.push_back(m);
    }
    st.mean.assign(n, 0.0);
    st.variance.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (auto& r : runs) st.mean[i] += r[i] / seeds;
        double ss = 0.0;
        for (auto& r : runs) ss += (r[i] - st.mean[i]) * (r[i] - st.mean[i]);
        st.variance[i] = ss / (seeds - 1) / seeds;
    }
    return st;
}

/// Largest |difference| / standard error over all blocks and channels. With 8 renders per side
/// (14 degrees of freedom) a bound of 6 is exceeded by chance with probability below 1e-4 per
/// block; a biased estimator exceeds it by far.
inline double maxZScore(const BlockStats& a, const BlockStats& b, double floor = 1e-4) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.mean.size(); ++i) {
        double se = std::sqrt(a.variance[i] + b.variance[i] + floor * floor * (a.mean[i] * a.mean[i] + 1e-12));
        worst = std::max(worst, std::fabs(a.mean[i] - b.mean[i]) / se);
    }
    return worst;
}

/// |difference of the all-block means| / its standard error: sensitive to a small bias that is
/// spread over the whole image, which the per-block bound would miss.
inline double globalZScore(const BlockStats& a, const BlockStats& b) {
    double diff = 0.0, var = 0.0;
    for (std::size_t i = 0; i < a.mean.size(); ++i) {
        diff += a.mean[i] - b.mean[i];
        var += a.variance[i] + b.variance[i];
    }
    return var > 0.0 ? std::fabs(diff) / std::sqrt(var) : (diff == 0.0 ? 0.0 : 1e30);
}

/// Mean over renders of the image mean, and the variance of that mean estimated from the renders'
/// image means (so it includes the correlation between channels and blocks, which
/// globalZScore's sum of per-entry variances leaves out).
inline std::pair<double, double> imageMeanAndVariance(const BlockStats& s) {
    double m = 0.0, ss = 0.0;
    std::size_t n = s.imageMeans.size();
    for (double v : s.imageMeans) m += v / double(n);
    for (double v : s.imageMeans) ss += (v - m) * (v - m);
    return {m, n > 1 ? ss / double(n - 1) / double(n) : 0.0};
}

/// |difference of the image means| / its standard error, from the per-render image means.
inline double imageMeanZScore(const BlockStats& a, const BlockStats& b) {
    auto [ma, va] = imageMeanAndVariance(a);
    auto [mb, vb] = imageMeanAndVariance(b);
    double diff = std::fabs(ma - mb);
    return va + vb > 0.0 ? diff / std::sqrt(va + vb) : (diff == 0.0 ? 0.0 : 1e30);
}

inline double imageMean(const wavefront::Image& img) {
    double s = 0.0;
    for (float v : img.rgb) s += v;
    return s / img.rgb.size();
}

inline bool allFinite(const wavefront::Image& img) {
    for (float v : img.rgb)
        if (!std::isfinite(v)) return false;
    return true;
}

}  // namespace wftest
