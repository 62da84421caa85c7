// Crop windows (RenderOptions::crop, issue 38 item 4): the film is the window's size and holds the
// window of the full frame's film. PT (and BDPT without camera connections) samples the window's
// pixels under the full frame's sample numbering, so its crop has the full render's samples; BDPT
// with t = 1 and MLT agree in expectation (per-pixel tests over seeds).
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "test_support.h"
#include "wavefront/renderer.h"

using namespace wavefront;

namespace {

constexpr int kWidth = 24, kHeight = 16;
const CropWindow kCrop{5, 3, 17, 11};  // 12 x 8, off-centre

RenderOptions cpuOptions(IntegratorType integrator, int spp) {
    RenderOptions o = wftest::smallRender(integrator, Backend::Cpu, kWidth, 4);
    o.height = kHeight;
    o.samplesPerPixel = spp;
    return o;
}

/// The window `c` of a full-frame image.
Image window(const Image& full, const CropWindow& c) {
    Image out;
    out.width = c.x1 - c.x0;
    out.height = c.y1 - c.y0;
    for (int y = c.y0; y < c.y1; ++y)
        for (int x = c.x0; x < c.x1; ++x)
            for (int k = 0; k < 3; ++k) out.rgb.push_back(full.rgb[3 * (std::size_t(y) * full.width + x) + k]);
    return out;
}

/// The crop's film equals the window of the full film: the same sample count in every pixel and
/// the same sums up to the order of the additions.
void requireSameFilm(const Film& crop, const Film& full, const CropWindow& c) {
    REQUIRE(crop.width == c.x1 - c.x0);
    REQUIRE(crop.height == c.y1 - c.y0);
    double worst = 0.0;
    for (int y = 0; y < crop.height; ++y)
        for (int x = 0; x < crop.width; ++x) {
            const std::size_t i = std::size_t(y) * crop.width + x, j = std::size_t(y + c.y0) * full.width + x + c.x0;
            REQUIRE(crop.samples[i] == full.samples[j]);
            for (int k = 0; k < 3; ++k)
                worst = std::max(worst, std::fabs(crop.sum[3 * i + k] - full.sum[3 * j + k]) /
                                            std::max(std::fabs(full.sum[3 * j + k]), 1e-6));
        }
    CHECK(worst < 1e-9);
}

/// Renders `o` on the full frame and on kCrop, and requires the crop's film to be the window of
/// the full one's. Returns both renderers (full, crop) for more calls.
std::pair<Renderer, Renderer> renderFullAndCrop(const Scene& scene, RenderOptions o) {
    Renderer full(scene, o);
    full.render();
    o.crop = kCrop;
    Renderer crop(scene, o);
    crop.render();
    requireSameFilm(crop.film(), full.film(), kCrop);
    return {std::move(full), std::move(crop)};
}

}  // namespace

TEST_CASE("crop: bad windows are refused with one line", "[crop]") {
    RenderOptions o = cpuOptions(IntegratorType::PathTracer, 1);
    auto refused = [&](CropWindow c) {
        o.crop = c;
        return wftest::inputErrorOf([&] { o.validate(); });
    };
    using Catch::Contains;
    CHECK_THAT(refused({4, 0, 4, 4}), Contains("crop window 4,0,4,4 must be a non-empty pixel rectangle"));  // empty
    CHECK_THAT(refused({0, 5, 4, 2}), Contains("crop window 0,5,4,2"));                                       // inverted
    CHECK_THAT(refused({0, 0, kWidth + 1, 4}), Contains("0 <= x0 < x1 <= 24"));                              // outside
    CHECK_THAT(refused({0, 0, 4, kHeight + 1}), Contains("0 <= y0 < y1 <= 16"));
    CHECK_THAT(refused({-1, 0, 4, 4}), Contains("crop window -1,0,4,4"));
    o.crop = CropWindow{0, 0, kWidth, kHeight};  // the whole frame is a window too
    CHECK_NOTHROW(o.validate());
    CHECK(o.filmWidth() == kWidth);
    CHECK_THROWS_AS(Renderer(Scene::builtin("cornell-box"), [] {
                        RenderOptions bad = cpuOptions(IntegratorType::PathTracer, 1);
                        bad.crop = CropWindow{3, 3, 3, 3};
                        return bad;
                    }()),
                    InputError);
}

TEST_CASE("crop: PT renders the full frame's samples of the window, every schedule", "[crop][pt]") {
    const Scene scene = Scene::builtin("cornell-spheres");
    for (PtVariant v : {PtVariant::Megakernel, PtVariant::PtR, PtVariant::Spt, PtVariant::SptR}) {
        INFO(toString(v));
        RenderOptions o = cpuOptions(IntegratorType::PathTracer, 4);
        o.pt.variant = v;
        o.streamCapacity = 256;  // regenerates over several launches
        auto [full, crop] = renderFullAndCrop(scene, o);
        // Work only on the window: its samples, and fewer rays than the full frame.
        CHECK(crop.stats().samples == 12u * 8u * 4u);
        CHECK(crop.stats().extensionRays < full.stats().extensionRays);
        // renderMore continues the full frame's numbering.
        full.renderMore(2);
        crop.renderMore(2);
        requireSameFilm(crop.film(), full.film(), kCrop);
    }
}

TEST_CASE("crop: PT with firstPass and AOVs gives the window of the full frame's", "[crop][pt][aov]") {
    const Scene scene = Scene::builtin("cornell-box");
    RenderOptions o = cpuOptions(IntegratorType::PathTracer, 2);
    o.firstPass = 3;
    o.aovs = true;
    auto [full, crop] = renderFullAndCrop(scene, o);
    const AovImages a = crop.aovs(), b = full.aovs();
    REQUIRE(a.albedo.width == 12);
    CHECK(wftest::maxRelativeDifference(a.albedo, window(b.albedo, kCrop)) < 1e-5);
    CHECK(wftest::maxRelativeDifference(a.depth, window(b.depth, kCrop)) < 1e-5);
    CHECK(wftest::maxRelativeDifference(a.variance, window(b.variance, kCrop)) < 1e-4);
}

TEST_CASE("crop: BDPT without camera connections renders the full frame's samples of the window", "[crop][bdpt]") {
    const Scene scene = Scene::builtin("cornell-box");
    for (BdptVariant v : {BdptVariant::Streaming, BdptVariant::Naive}) {
        INFO(toString(v));
        RenderOptions o = cpuOptions(IntegratorType::Bdpt, 2);
        o.bdpt.variant = v;
        o.bdpt.cameraConnections = false;
        auto [full, crop] = renderFullAndCrop(scene, o);
    }
}

TEST_CASE("crop: BDPT with t = 1 splats and MLT agree with the window of the full frame", "[crop][bdpt][mlt]") {
    // BDPT: a window pass traces a light subpath per window pixel, divides its t = 1 splats by their
    // count and drops those outside; MLT runs the full frame's chains and drops what lands outside.
    // Neither gives the full render's pixels, both its expectation: Welch's t per pixel-channel
    // over independent seeds, and the window's mean.
    const Scene scene = Scene::builtin("cornell-box");
    struct Case {
        IntegratorType integrator;
        int spp, seeds;
    };
    for (Case k : {Case{IntegratorType::Bdpt, 4, 12}, Case{IntegratorType::Mlt, 8, 10}}) {
        INFO(toString(k.integrator));
        RenderOptions o = cpuOptions(k.integrator, k.spp);
        std::vector<Image> fulls, crops;
        std::vector<double> fullMeans, cropMeans;
        for (int s = 0; s < k.seeds; ++s) {
            o.seed = 17u + 7919u * unsigned(s);
            o.crop.reset();
            fulls.push_back(window(wftest::renderImage(scene, o), kCrop));
            o.seed += 1000003u;  // independent of the full renders
            o.crop = kCrop;
            RenderStats st;
            crops.push_back(wftest::renderImage(scene, o, &st));
            REQUIRE(crops.back().width == 12);
            REQUIRE(crops.back().height == 8);
            CHECK(wftest::allFinite(crops.back()));
            // PT and BDPT sample the window only; MLT's chains sample the full frame.
            CHECK(st.samples == (k.integrator == IntegratorType::Mlt ? std::uint64_t(kWidth) * kHeight * k.spp
                                                                     : 12u * 8u * std::uint64_t(k.spp)));
            fullMeans.push_back(wftest::imageMean(fulls.back()));
            cropMeans.push_back(wftest::imageMean(crops.back()));
        }
        const wftest::PixelTest t = wftest::pixelTest(wftest::pixelStatsOf(crops), wftest::pixelStatsOf(fulls));
        INFO("tested " << t.tested << " failed " << t.failed << " worst p " << t.worstP);
        CHECK(t.tested > 200);
        CHECK(t.passFraction() >= 0.99);
        const double z = wftest::meanDifferenceZ(cropMeans, fullMeans);
        INFO("window mean z " << z);
        CHECK(z < 4.0);
    }
}
