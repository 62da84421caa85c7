// Shared helpers for the tests: GPU skipping and statistical image comparison.
#pragma once
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
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
    std::vector<double> mean;      ///< per block, mean over renders of the block average (per channel)
    std::vector<double> variance;  ///< per block, variance of that mean
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
/// spread over the whole image, which the per-block bound would miss.
inline double globalZScore(const BlockStats& a, const BlockStats& b) {
    double diff = 0.0, var = 0.0;
    for (std::size_t i = 0; i < a.mean.size(); ++i) {
        diff += a.mean[i] - b.mean[i];
        var += a.variance[i] + b.variance[i];
    }
    return var > 0.0 ? std::fabs(diff) / std::sqrt(var) : (diff == 0.0 ? 0.0 : 1e30);
}

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

/// What `seeds` independent renders say about an image: per-pixel statistics, block statistics
/// of the images divided by their own mean (their shape: free of the global scale noise that MLT's
/// normalisation adds to every pixel alike, so a local bias stands out), and the image means.
struct SeedStats {
    PixelStats pixels;
    BlockStats shape;
    std::vector<double> means;
};

inline SeedStats renderSeedStats(const wavefront::Scene& scene, wavefront::RenderOptions options, int seeds, int block,
                                 unsigned seedBase) {
    std::vector<wavefront::Image> images;
    std::vector<std::vector<double>> shapes;
    SeedStats st;
    for (int s = 0; s < seeds; ++s) {
        options.seed = seedBase + 7919u * unsigned(s);
        images.push_back(renderImage(scene, options));
        wavefront::Image shape = images.back();
        double mean = imageMean(shape);
        st.means.push_back(mean);
        for (float& v : shape.rgb) v = mean > 0.0 ? float(v / mean) : 0.0f;
        shapes.push_back(blockAverages(shape, block));
    }
    st.pixels = pixelStatsOf(images);
    st.shape = statsOf(shapes);
    return st;
}

/// |difference of the mean image means| / its standard error, from the per-render means (the
/// pixels of one MLT render are correlated, so summing per-pixel variances would understate it).
inline double meanZScore(const std::vector<double>& a, const std::vector<double>& b) {
    auto moments = [](const std::vector<double>& v, double& mean, double& varianceOfMean) {
        double s = 0.0, s2 = 0.0;
        for (double x : v) {
            s += x;
            s2 += x * x;
        }
        mean = s / v.size();
        varianceOfMean = std::max(0.0, s2 / v.size() - mean * mean) / (v.size() - 1);
    };
    double ma, va, mb, vb;
    moments(a, ma, va);
    moments(b, mb, vb);
    return va + vb > 0.0 ? std::fabs(ma - mb) / std::sqrt(va + vb) : (ma == mb ? 0.0 : 1e30);
}

inline bool allFinite(const wavefront::Image& img) {
    for (float v : img.rgb)
        if (!std::isfinite(v)) return false;
    return true;
}

}  // namespace wftest
