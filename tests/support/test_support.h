// Shared helpers for the tests: the backends to test, GPU skipping and statistical image comparison.
#pragma once
#include <cstdlib>
#include <unistd.h>

#include <algorithm>
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
        // A fresh directory: one left by a crashed run whose pid this process got again is skipped.
        static std::atomic<int> counter{0};
        do {
            path_ = std::filesystem::temp_directory_path() /
                    ("wavefront-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        } while (!std::filesystem::create_directory(path_));
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

/// True when CUDA tests can run; otherwise prints the marker ctest maps to "skipped". Only for
/// cases that need CUDA as a whole (comparisons of the CPU with CUDA, device memory); a test that
/// runs on either backend takes its backend from testBackends().
inline bool haveGpu() {
    if (wavefront::cudaDeviceCount() > 0) return true;
    std::cout << "SKIPPED: no CUDA device" << std::endl;
    return false;
}

/// How much longer than the bound a timing check writes it may take: the environment variable
/// WAVEFRONT_TEST_TIME_SCALE (scripts/sanitize.sh sets it higher, since ASan and UBSan slow
/// everything), default 10. The checks bound work that must not be quadratic or hang (the cases
/// they guard against took tens of seconds or never ended), not a speed: on a loaded 2-core
/// machine the suite's own parallel jobs made a cancel wait 4.7 s against a written 3 s, so the
/// written bounds are what an idle machine takes, and the default leaves a factor of ten for
/// load. Speeds are benchmarks' business (benchmarks/time_limit.cpp measures cancel latency).
inline double timeScale() {
    const char* v = std::getenv("WAVEFRONT_TEST_TIME_SCALE");
    const double scale = v ? std::atof(v) : 10.0;
    return scale >= 1.0 ? scale : 1.0;
}

/// The backends a test runs on: the CPU always, CUDA when there is a device. One test case over
/// both, tagged [gpu] (the GPU machine selects CUDA work by tag):
///     Backend backend = GENERATE(from_range(wftest::testBackends()));
///     INFO(toString(backend));
/// Without a device the CPU part runs alone and the case passes or fails on it; a line says the
/// CUDA part did not run. It is not the "skipped" marker of haveGpu(), which would make ctest
/// report the whole case as skipped and hide a CPU failure. (Catch2 evaluates a generator's
/// expression once per test case, so the line is printed once.)
inline std::vector<wavefront::Backend> testBackends() {
    std::vector<wavefront::Backend> backends{wavefront::Backend::Cpu};
    if (wavefront::cudaDeviceCount() > 0)
        backends.push_back(wavefront::Backend::Cuda);
    else
        std::cout << "CUDA part not run (no CUDA device): CPU only" << std::endl;
    return backends;
}

/// The walls of a unit room open towards +z, each facing in (floor, ceiling and back of `white`
/// unless `floor` is given, left `left`, right `right`), and a camera at the opening looking in:
/// the Cornell box's set-up at unit scale, for tests that fill it with materials of their own.
inline void addUnitRoom(wavefront::Scene& scene, int white, int left, int right, int floor = -1) {
    using glm::vec3;
    auto quad = [&](int material, vec3 corner, vec3 u, vec3 v) {  // front side: u x v
        wavefront::TriangleMesh mesh;
        mesh.material = material;
        mesh.positions = {corner, corner + u, corner + u + v, corner + v};
        mesh.indices = {0, 1, 2, 0, 2, 3};
        scene.addMesh(mesh);
    };
    const vec3 x(1, 0, 0), y(0, 1, 0), z(0, 0, 1);
    quad(floor >= 0 ? floor : white, vec3(0), z, x);  // facing +y
    quad(white, vec3(0, 1, 0), x, z);                 // ceiling, facing -y
    quad(white, vec3(0), x, y);                       // back, facing +z
    quad(left, vec3(0), y, z);                        // left, facing +x
    quad(right, vec3(1, 0, 0), z, y);                 // right, facing -x
    wavefront::Camera camera;
    camera.position = vec3(0.5f, 0.5f, 1.0f + 800.0f / 555.0f);
    camera.target = vec3(0.5f, 0.5f, 0.0f);
    camera.verticalFovDegrees = 39.3f;
    scene.setCamera(camera);
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

/// A Metropolis render (MLT or MMLT) of `chains` chains (0: the chain policy's).
inline wavefront::RenderOptions chainRender(wavefront::IntegratorType integrator, wavefront::Backend backend, int size,
                                            int spp, int chains) {
    wavefront::RenderOptions o = smallRender(integrator, backend, size, spp);
    o.streamCapacity = chains;
    return o;
}

/// BDPT with the size, samples and seed of the Metropolis render `o`, and BDPT's own slots.
inline wavefront::RenderOptions bdptLike(wavefront::RenderOptions o) {
    o.integrator = wavefront::IntegratorType::Bdpt;
    o.streamCapacity = 0;
    o.mlt = wavefront::RenderOptions().mlt;
    o.mmlt = wavefront::RenderOptions().mmlt;
    return o;
}

/// A copy of `src` scaled by `scale` about the origin and then moved by `offset`: vertex positions,
/// sphere centres and radii, point and spot lights (their intensity by scale^2, so that the
/// irradiance they give stays), the camera position, target, lens radius and focus distance
/// follow; materials, shading normals, directional lights and the field of view stay. The image of the copy must equal the
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
    for (Light l : src.lights()) {
        if (l.type != LightType::Directional) {
            l.position = move(l.position);
            l.intensity *= scale * scale;
        }
        out.addLight(l);
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

/// Per-block mean over independent runs (each a blockAverages vector) and the variance of that mean.
inline BlockStats statsOf(const std::vector<std::vector<double>>& runs) {
    const std::size_t n = runs[0].size();
    const double count = double(runs.size());
    BlockStats st;
    for (auto& r : runs) {
        double m = 0.0;
        for (double v : r) m += v / double(n);
        st.imageMeans.push_back(m);
    }
    st.mean.assign(n, 0.0);
    st.variance.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (auto& r : runs) st.mean[i] += r[i] / count;
        double ss = 0.0;
        for (auto& r : runs) ss += (r[i] - st.mean[i]) * (r[i] - st.mean[i]);
        st.variance[i] = ss / (count - 1) / count;
    }
    return st;
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
    return statsOf(runs);
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
/// spread over the whole image, which the per-block bound would miss. It sums per-block variances,
/// so it assumes independent blocks: not for MLT, whose normalisation b scales a whole render (use
/// imageMeanZScore there: over 32 cornell-box MLT renders the image mean's variance was 1.8-2.0x
/// the sum, and a GPU run read 4.53 here by chance).
inline double globalZScore(const BlockStats& a, const BlockStats& b) {
    double diff = 0.0, var = 0.0;
    for (std::size_t i = 0; i < a.mean.size(); ++i) {
        diff += a.mean[i] - b.mean[i];
        var += a.variance[i] + b.variance[i];
    }
    return var > 0.0 ? std::fabs(diff) / std::sqrt(var) : (diff == 0.0 ? 0.0 : 1e30);
}

/// Mean of a sample of independent values, and the variance of that mean.
inline std::pair<double, double> meanAndVariance(const std::vector<double>& values) {
    double m = 0.0, ss = 0.0;
    std::size_t n = values.size();
    for (double v : values) m += v / double(n);
    for (double v : values) ss += (v - m) * (v - m);
    return {m, n > 1 ? ss / double(n - 1) / double(n) : 0.0};
}

/// |difference of the means of two samples of independent values| / its standard error.
inline double meanDifferenceZ(const std::vector<double>& a, const std::vector<double>& b) {
    auto [ma, va] = meanAndVariance(a);
    auto [mb, vb] = meanAndVariance(b);
    double diff = std::fabs(ma - mb);
    return va + vb > 0.0 ? diff / std::sqrt(va + vb) : (diff == 0.0 ? 0.0 : 1e30);
}

/// Mean over renders of the image mean, and the variance of that mean estimated from the renders'
/// image means (so it includes the correlation between channels and blocks, which
/// globalZScore's sum of per-entry variances leaves out).
inline std::pair<double, double> imageMeanAndVariance(const BlockStats& s) { return meanAndVariance(s.imageMeans); }

/// |difference of the image means| / its standard error, from the per-render image means (the
/// pixels of one MLT render are correlated, so summing per-pixel variances would understate it).
inline double imageMeanZScore(const BlockStats& a, const BlockStats& b) { return meanDifferenceZ(a.imageMeans, b.imageMeans); }

// ---- Per-pixel comparison over independent seeds (Mitsuba 3 style) ------------------------------

/// Per pixel-channel mean over independent renders and the variance of that mean.
struct PixelStats {
    int renders = 0;
    std::vector<double> mean, variance;
};

inline PixelStats pixelStatsOf(const std::vector<wavefront::Image>& images) {
    PixelStats st;
    st.renders = int(images.size());
    const std::size_t n = images[0].rgb.size();
    st.mean.assign(n, 0.0);
    st.variance.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (const auto& im : images) st.mean[i] += im.rgb[i] / double(st.renders);
        double ss = 0.0;
        for (const auto& im : images) ss += (im.rgb[i] - st.mean[i]) * (im.rgb[i] - st.mean[i]);
        st.variance[i] = ss / (st.renders - 1) / st.renders;
    }
    return st;
}

/// Renders `seeds` independent images (seeds seedBase + 7919 k).
inline PixelStats renderPixelStats(const wavefront::Scene& scene, wavefront::RenderOptions options, int seeds,
                                   unsigned seedBase) {
    std::vector<wavefront::Image> images;
    for (int s = 0; s < seeds; ++s) {
        options.seed = seedBase + 7919u * unsigned(s);
        images.push_back(renderImage(scene, options));
    }
    return pixelStatsOf(images);
}

/// Regularised incomplete beta function I_x(a, b) (continued fraction, modified Lentz).
inline double incompleteBeta(double a, double b, double x) {
    if (x <= 0.0) return 0.0;
    if (x >= 1.0) return 1.0;
    if (x > (a + 1.0) / (a + b + 2.0)) return 1.0 - incompleteBeta(b, a, 1.0 - x);
    const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                                  b * std::log(1.0 - x)) / a;
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    d = 1.0 / (std::fabs(d) < tiny ? tiny : d);
    double f = d;
    for (int m = 1; m <= 300; ++m) {
        for (int half = 0; half < 2; ++half) {
            double num = half == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                                   : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
            d = 1.0 + num * d;
            d = 1.0 / (std::fabs(d) < tiny ? tiny : d);
            c = 1.0 + num / c;
            if (std::fabs(c) < tiny) c = tiny;
            f *= c * d;
        }
        if (std::fabs(c * d - 1.0) < 1e-12) break;
    }
    return front * f;
}

/// Two-sided p-value of Student's t with `dof` degrees of freedom.
inline double studentTwoSidedP(double t, double dof) { return incompleteBeta(0.5 * dof, 0.5, dof / (dof + t * t)); }

/// Welch's t-test per pixel-channel between two sets of independent renders, at significance
/// `alpha` for the whole image (Sidak-corrected over the pixel-channels tested). A pixel-channel
/// that is black in every render on both sides is not tested.
struct PixelTest {
    std::size_t tested = 0, failed = 0;
    double worstP = 1.0;
    double passFraction() const { return tested ? 1.0 - double(failed) / double(tested) : 1.0; }
};
inline PixelTest pixelTest(const PixelStats& a, const PixelStats& b, double alpha = 0.01) {
    PixelTest r;
    std::vector<double> p;
    for (std::size_t i = 0; i < a.mean.size(); ++i) {
        double v = a.variance[i] + b.variance[i];
        if (v <= 0.0) {
            if (a.mean[i] == b.mean[i]) continue;
            p.push_back(0.0);
            continue;
        }
        double t = (a.mean[i] - b.mean[i]) / std::sqrt(v);
        double dof = v * v / (a.variance[i] * a.variance[i] / (a.renders - 1) + b.variance[i] * b.variance[i] / (b.renders - 1));
        p.push_back(studentTwoSidedP(t, std::max(dof, 1.0)));
    }
    r.tested = p.size();
    double sidak = 1.0 - std::pow(1.0 - alpha, 1.0 / double(std::max<std::size_t>(r.tested, 1)));
    for (double q : p) {
        r.worstP = std::min(r.worstP, q);
        r.failed += q < sidak;
    }
    return r;
}

/// Largest |a - b| / max(|b|, 1e-3) over every pixel and channel (images of the same samples
/// summed in another order agree to float rounding).
inline double maxRelativeDifference(const wavefront::Image& a, const wavefront::Image& b) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.rgb.size(); ++i)
        worst = std::max(worst, std::fabs(double(a.rgb[i]) - b.rgb[i]) / std::max(std::fabs(double(b.rgb[i])), 1e-3));
    return worst;
}

inline double imageMean(const wavefront::Image& img) {
    double s = 0.0;
    for (float v : img.rgb) s += v;
    return s / img.rgb.size();
}

/// Mean and standard error of the image mean over `seeds` independent renders.
struct MeanEstimate {
    double mean = 0.0, standardError = 0.0;
};
inline MeanEstimate imageMeanOverSeeds(const wavefront::Scene& scene, wavefront::RenderOptions options, int seeds,
                                       unsigned seedBase) {
    double sum = 0.0, sumSquares = 0.0;
    for (int s = 0; s < seeds; ++s) {
        options.seed = seedBase + 7919u * unsigned(s);
        wavefront::Renderer r(scene, options);
        r.render();
        double m = imageMean(r.image());
        sum += m;
        sumSquares += m * m;
    }
    MeanEstimate e;
    e.mean = sum / seeds;
    e.standardError = std::sqrt(std::max(0.0, sumSquares / seeds - e.mean * e.mean) / (seeds - 1));
    return e;
}

/// The brightest pixels of an image (its top `fraction`), ranked by the sum of the channels. Take
/// the ranking from a render independent of the ones compared, or the selection itself biases them.
inline std::vector<bool> brightestPixels(const wavefront::Image& img, double fraction) {
    std::size_t n = std::size_t(img.width) * img.height;
    std::vector<std::pair<float, std::size_t>> order;
    for (std::size_t p = 0; p < n; ++p) order.push_back({img.rgb[3 * p] + img.rgb[3 * p + 1] + img.rgb[3 * p + 2], p});
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<bool> bright(n, false);
    for (std::size_t k = 0; k < std::max<std::size_t>(1, std::size_t(fraction * double(n))); ++k) bright[order[k].second] = true;
    return bright;
}

/// What `seeds` independent renders say about an image: per-pixel statistics; blocks of the raw
/// images (and their image means); blocks of the images divided by their own mean (their shape,
/// free of the global scale noise MLT's normalisation adds to every pixel alike); and, given a
/// set of bright pixels, the log ratio of their mean to the rest's (how light is shared out
/// between where the light is seen and everywhere else).
struct SeedStats {
    PixelStats pixels;
    BlockStats blocks, shape;
    std::vector<double> contrast;
};

inline SeedStats renderSeedStats(const wavefront::Scene& scene, wavefront::RenderOptions options, int seeds, int block,
                                 unsigned seedBase, const std::vector<bool>& bright = {},
                                 std::vector<wavefront::RenderStats>* stats = nullptr) {
    std::vector<wavefront::Image> images;
    std::vector<std::vector<double>> raw, shapes;
    SeedStats st;
    for (int s = 0; s < seeds; ++s) {
        options.seed = seedBase + 7919u * unsigned(s);
        wavefront::RenderStats one;
        images.push_back(renderImage(scene, options, &one));
        if (stats) stats->push_back(one);
        wavefront::Image shape = images.back();
        raw.push_back(blockAverages(shape, block));
        double mean = imageMean(shape);
        for (float& v : shape.rgb) v = mean > 0.0 ? float(v / mean) : 0.0f;
        shapes.push_back(blockAverages(shape, block));
        if (!bright.empty()) {
            double sum[2] = {0.0, 0.0}, count[2] = {0.0, 0.0};
            for (std::size_t p = 0; p < bright.size(); ++p) {
                sum[bright[p]] += double(shape.rgb[3 * p]) + shape.rgb[3 * p + 1] + shape.rgb[3 * p + 2];
                count[bright[p]] += 1.0;
            }
            st.contrast.push_back(std::log((sum[1] / count[1]) / (sum[0] / count[0])));
        }
    }
    st.pixels = pixelStatsOf(images);
    st.blocks = statsOf(raw);
    st.shape = statsOf(shapes);
    return st;
}

/// |difference of the mean contrasts| / its standard error (renderSeedStats with bright pixels).
inline double contrastZScore(const SeedStats& a, const SeedStats& b) { return meanDifferenceZ(a.contrast, b.contrast); }

inline bool allFinite(const wavefront::Image& img) {
    for (float v : img.rgb)
        if (!std::isfinite(v)) return false;
    return true;
}

}  // namespace wftest
