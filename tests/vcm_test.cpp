// Vertex connection and merging tests (VCM, BPM, PPM): consistency with BDPT, an independent
// estimator of the same image, by per-pixel Welch tests over independent seeds at radii where
// the merging bias is below the tests' noise, and with the exact value on the analytic sphere;
// merges counted; pass ranges and devices that add up to one render; the options; CUDA against
// the CPU. The MIS weights of connections and merges are checked against the direct formula in
// mis_weights_test.cpp. How the bias shrinks with the radius is measured on the GPU
// (benchmarks/results), not bounded here: at test sizes its noise is too close to it.
#include <catch2/catch.hpp>

#include "estimator_checks.h"
#include "test_support.h"

using namespace wavefront;

namespace {

RenderOptions mergingOptions(IntegratorType type, Backend b = Backend::Cpu, int size = 12, int spp = 64) {
    RenderOptions o = wftest::smallRender(type, b, size, spp);
    o.maxDepth = 5;
    return o;
}

VcmOptions& block(RenderOptions& o) {
    return o.integrator == IntegratorType::Bpm ? o.bpm : o.integrator == IntegratorType::Ppm ? o.ppm : o.vcm;
}

std::string nameOf(IntegratorType type) {
    for (const IntegratorInfo& info : integrators())
        if (info.type == type) return info.name;
    return "?";
}

RenderOptions bdptLike(RenderOptions o) {
    o.integrator = IntegratorType::Bdpt;
    o.vcm = o.bpm = o.ppm = VcmOptions{};
    return o;
}

/// Per-pixel Welch tests (Sidak-corrected, alpha 0.01) against BDPT over 16 renders a side, and
/// the image means.
void checkAgainstBdpt(const char* sceneName, const RenderOptions& o, unsigned seedBase, RenderStats* stats = nullptr) {
    const Scene scene = Scene::builtin(sceneName);
    RenderOptions bdpt = bdptLike(o);
    bdpt.samplesPerPixel = 256;
    std::vector<RenderStats> all;
    const wftest::SeedStats ref = wftest::renderSeedStats(scene, bdpt, 16, 4, seedBase);
    const wftest::SeedStats m = wftest::renderSeedStats(scene, o, 16, 4, seedBase + 100000, {}, &all);
    const wftest::PixelTest pixels = wftest::pixelTest(m.pixels, ref.pixels);
    INFO(sceneName << ", " << nameOf(o.integrator) << ": per-pixel failures " << pixels.failed << " of "
                   << pixels.tested << ", worst p " << pixels.worstP << "; image mean z "
                   << wftest::imageMeanZScore(m.blocks, ref.blocks));
    CHECK(pixels.tested > 300);
    CHECK(pixels.failed == 0);
    CHECK(wftest::imageMeanZScore(m.blocks, ref.blocks) < 4.5);
    if (stats) *stats = all.front();
}

}  // namespace

TEST_CASE("VCM is consistent with BDPT per pixel, and its merges take part", "[vcm][statistical]") {
    // 12 x 12 pixels and 4096 light paths an iteration: the merges' share of the weight is
    // small at the default radius (pi r^2 x light paths), larger at 0.02.
    for (const char* scene : {"cornell-box", "glass-caustic", "door-ajar"}) {
        RenderOptions o = mergingOptions(IntegratorType::Vcm);
        o.vcm.lightPaths = 4096;
        o.vcm.radius = 0.12f;  // pixels
        RenderStats st;
        checkAgainstBdpt(scene, o, 6100, &st);
        CHECK(st.vcm.iterations == 64);
        CHECK(st.vcm.lightPaths == 64u * 4096u);
        CHECK(st.vcm.merges > 0);
        CHECK(st.vcm.connections > 0);
    }
}

TEST_CASE("BPM and PPM are consistent with BDPT per pixel at a small radius", "[vcm][statistical]") {
    // Merging alone estimates nearly every path here, so the radius must leave enough light
    // vertices in reach (16384 light paths) and a bias (darker by O(r) near the room's edges)
    // below the noise: PPM, unweighted, needs the smaller radius (at 0.03 it failed one edge
    // pixel of cornell-box at p 5e-6). Radii in pixels: 12 pixels span the box's 1 m opening.
    struct Case {
        IntegratorType type;
        const char* scene;
        float radius;
    };
    for (Case k : {Case{IntegratorType::Bpm, "cornell-box", 0.18f}, Case{IntegratorType::Ppm, "cornell-box", 0.09f}}) {
        RenderOptions o = mergingOptions(k.type, Backend::Cpu, 12, 64);
        block(o).lightPaths = 16384;
        block(o).radius = k.radius;
        RenderStats st;
        checkAgainstBdpt(k.scene, o, 7100, &st);
        CHECK(st.vcm.merges > 1000);
        CHECK(st.vcm.connections == 0);  // merging only
    }
}

TEST_CASE("VCM, BPM and PPM on the analytic sphere at a large radius", "[vcm][analytic]") {
    // Inside a sphere emitting 0.5 with albedo 0.7 the radiance is 0.5 (1 - 0.7^D) / 0.3 for paths
    // of up to D segments. A ball of radius r around a point of a sphere cuts out a cap of area
    // exactly pi r^2, so the density estimate has no bias from the area at any radius; what is
    // left is light arriving at a neighbour within the curvature's angle (r / R) of grazing,
    // below the eye vertex's tangent plane: O((r / R)^2) (-0.45% for PPM at a fifth of the
    // sphere's radius, -0.13% at the pixel used here). Checked per pixel and for the image mean.
    const double exact = 0.5 / 0.3 * (1.0 - std::pow(0.7, 8));
    const Scene sphere = Scene::builtin("sphere-inside");
    for (IntegratorType type : {IntegratorType::Vcm, IntegratorType::Bpm, IntegratorType::Ppm}) {
        RenderOptions o = mergingOptions(type, Backend::Cpu, 16, 64);
        o.maxDepth = 8;
        block(o).radius = 1.0f;
        block(o).lightPaths = 4096;
        std::vector<Image> images;
        std::vector<double> imageMeans;
        for (int k = 0; k < 6; ++k) {
            o.seed = 900u + 7919u * unsigned(k);
            images.push_back(wftest::renderImage(sphere, o));
            imageMeans.push_back(wftest::imageMean(images.back()));
        }
        // Each pixel's mean over the renders against the exact value (a side without variance).
        const wftest::PixelStats pixels = wftest::pixelStatsOf(images);
        const wftest::PixelStats exactly{2, std::vector<double>(pixels.mean.size(), exact),
                                         std::vector<double>(pixels.mean.size(), 0.0)};
        const wftest::PixelTest perPixel = wftest::pixelTest(pixels, exactly);
        const auto [mean, variance] = wftest::meanAndVariance(imageMeans);
        const double standardError = std::sqrt(variance);
        INFO(nameOf(type) << ": mean " << mean << " +- " << standardError << ", exact " << exact << "; per-pixel failures "
                          << perPixel.failed << " of " << perPixel.tested << ", worst p " << perPixel.worstP);
        CHECK(perPixel.tested == pixels.mean.size());
        CHECK(perPixel.failed == 0);
        CHECK(standardError < 0.005 * exact);  // precise enough to see a bias of 2%
        CHECK(std::fabs(mean - exact) < 4.0 * standardError + 1e-3 * exact);
    }
    RenderStats st;
    RenderOptions o = mergingOptions(IntegratorType::Ppm, Backend::Cpu, 16, 4);
    o.ppm.radius = 1.0f;
    wftest::renderImage(Scene::builtin("sphere-inside"), o, &st);
    CHECK(st.nonFiniteSamples == 0);
    CHECK(st.vcm.merges > 0);
}

TEST_CASE("VCM pass ranges and devices add up to one render", "[vcm][multidevice]") {
    const Scene scene = Scene::builtin("cornell-box");
    RenderOptions o = mergingOptions(IntegratorType::Vcm, Backend::Cpu, 16, 6);
    o.vcm.radius = 0.4f;  // pixels: merges that matter
    const Image whole = wftest::renderImage(scene, o);
    // Passes 0-1 and 2-5 as two films, added in proportion to their passes.
    RenderOptions first = o, second = o;
    first.samplesPerPixel = 2;
    second.firstPass = 2;
    second.samplesPerPixel = 4;
    const Image a = wftest::renderImage(scene, first), b = wftest::renderImage(scene, second);
    Image sum = whole;
    for (std::size_t i = 0; i < sum.rgb.size(); ++i) sum.rgb[i] = (2.0f * a.rgb[i] + 4.0f * b.rgb[i]) / 6.0f;
    CHECK(wftest::maxRelativeDifference(sum, whole) < 1e-4);
    // Two CPU workers split the samples, parts of iterations included (each traces the light
    // subpaths of an iteration it has part of, and splats only its own samples' t = 1).
    RenderOptions two = o;
    two.devices = {0, 1};
    CHECK(wftest::maxRelativeDifference(wftest::renderImage(scene, two), whole) < 1e-4);
}

TEST_CASE("VCM's streaming schedule computes the naive schedule's estimate sample for sample", "[vcm]") {
    // Both schedules read the same numbers for every light and eye subpath, build the same
    // compacted cache and grid, and weight every connection and merge alike: only the order of
    // the film's additions differs. VCM, BPM and PPM, with merges and connections that matter.
    struct Case {
        IntegratorType type;
        const char* scene;
    };
    for (Case k : {Case{IntegratorType::Vcm, "cornell-box"}, Case{IntegratorType::Vcm, "glass-caustic"},
                   Case{IntegratorType::Bpm, "cornell-box"}, Case{IntegratorType::Ppm, "glass-caustic"}}) {
        const Scene scene = Scene::builtin(k.scene);
        RenderOptions naive = mergingOptions(k.type, Backend::Cpu, 12, 4);
        block(naive).lightPaths = 2048;
        block(naive).radius = 0.5f;
        block(naive).variant = BdptVariant::Naive;
        RenderOptions streaming = naive;
        block(streaming).variant = BdptVariant::Streaming;
        RenderStats a, b;
        const Image naiveImage = wftest::renderImage(scene, naive, &a);
        const Image streamingImage = wftest::renderImage(scene, streaming, &b);
        INFO(nameOf(k.type) << " on " << k.scene);
        CHECK(wftest::maxRelativeDifference(streamingImage, naiveImage) < 1e-4);
        CHECK(a.vcm.merges > 0);
        CHECK(b.vcm.merges == a.vcm.merges);
        CHECK(b.vcm.connections == a.vcm.connections);
        CHECK(b.vcm.cachedVertices == a.vcm.cachedVertices);
        CHECK(b.extensionRays == a.extensionRays);
        CHECK(b.shadowRays == a.shadowRays);
    }
}

TEST_CASE("VCM's two schedules estimate the same image over independent seeds", "[vcm][statistical]") {
    // The per-pixel form of the test above, over seeds that differ between the schedules.
    const Scene scene = Scene::builtin("cornell-box");
    for (IntegratorType type : {IntegratorType::Vcm, IntegratorType::Bpm, IntegratorType::Ppm}) {
        RenderOptions naive = mergingOptions(type, Backend::Cpu, 12, 16);
        block(naive).lightPaths = 4096;
        block(naive).radius = 0.5f;
        block(naive).variant = BdptVariant::Naive;
        RenderOptions streaming = naive;
        block(streaming).variant = BdptVariant::Streaming;
        wftest::checkSameImage(nameOf(type) + " streaming vs naive", wftest::renderSeedStats(scene, streaming, 12, 4, 9100),
                               wftest::renderSeedStats(scene, naive, 12, 4, 9300));
    }
}

TEST_CASE("VCM's light vertex cache holds exactly the vertices that exist", "[vcm]") {
    // Inside a closed sphere every light subpath hits the sphere, and at max depth 2 a subpath
    // stores its first vertex only: one cached vertex per light subpath, on either schedule.
    for (BdptVariant variant : {BdptVariant::Streaming, BdptVariant::Naive}) {
        RenderOptions o = mergingOptions(IntegratorType::Vcm, Backend::Cpu, 8, 3);
        o.maxDepth = 2;
        o.vcm.lightPaths = 1000;
        o.vcm.variant = variant;
        RenderStats st;
        wftest::renderImage(Scene::builtin("sphere-inside"), o, &st);
        CHECK(st.vcm.lightPaths == 3000u);
        CHECK(st.vcm.cachedVertices == 3000u);
    }
    // Deeper subpaths end at different depths (roulette, escapes through the open front): the
    // cache is smaller than max depth - 1 entries per subpath, and the schedules agree on it.
    RenderOptions o = mergingOptions(IntegratorType::Vcm, Backend::Cpu, 8, 2);
    o.vcm.lightPaths = 1000;
    RenderStats streaming, naive;
    wftest::renderImage(Scene::builtin("cornell-box"), o, &streaming);
    o.vcm.variant = BdptVariant::Naive;
    wftest::renderImage(Scene::builtin("cornell-box"), o, &naive);
    CHECK(streaming.vcm.cachedVertices == naive.vcm.cachedVertices);
    CHECK(streaming.vcm.cachedVertices > 2000u);
    CHECK(streaming.vcm.cachedVertices < 2000u * 4u);
}

TEST_CASE("VCM's options: validated, a block per integrator, in the registry", "[vcm]") {
    RenderOptions o = mergingOptions(IntegratorType::Vcm);
    o.vcm.radius = 0.0f;
    CHECK_THROWS_WITH(o.validate(), Catch::Contains("merge radius must be in (0, 1000] pixels"));
    o = mergingOptions(IntegratorType::Bpm);
    o.bpm.alpha = 1.0f;
    CHECK_THROWS_WITH(o.validate(), Catch::Contains("radius alpha must be in (0, 1)"));
    o = mergingOptions(IntegratorType::Ppm);
    o.ppm.lightPaths = -1;
    CHECK_THROWS_WITH(o.validate(), Catch::Contains("light paths per iteration"));
    o = mergingOptions(IntegratorType::Ppm);
    o.streamCapacity = 4096;
    CHECK_THROWS_WITH(o.validate(), Catch::Contains("stream capacity does not apply to ppm"));
    o = mergingOptions(IntegratorType::Bpm);
    o.vcm.radius = 0.5f;  // VCM's block, not BPM's
    CHECK_THROWS_WITH(o.validate(), Catch::Contains("does not apply to integrator bpm"));
    o = mergingOptions(IntegratorType::Vcm);
    setIntegratorOption(o, "radius", "0.02");
    setIntegratorOption(o, "light-paths", "512");
    CHECK(o.vcm.radius == 0.02f);
    CHECK(o.vcm.lightPaths == 512);
    CHECK(integratorOption(o, "alpha") == "0.75");
    CHECK_THROWS_WITH(setIntegratorOption(o, "radius", "wide"), Catch::Contains("is not a finite number"));
    CHECK(integratorOption(o, "variant") == "streaming");
    setIntegratorOption(o, "variant", "naive");
    CHECK(o.vcm.variant == BdptVariant::Naive);
    CHECK_THROWS_WITH(setIntegratorOption(o, "variant", "megakernel"), Catch::Contains("unknown VCM variant 'megakernel'"));
    int found = 0;
    for (const IntegratorInfo& info : integrators()) found += info.name == "vcm" || info.name == "bpm" || info.name == "ppm";
    CHECK(found == 3);
    // A cache that cannot fit is refused in one line, before anything is allocated.
    o.vcm.lightPaths = 1 << 26;
    o.maxDepth = 255;
    CHECK_THROWS_WITH(wftest::renderImage(Scene::builtin("cornell-box"), o), Catch::Contains("light vertex cache"));
}

TEST_CASE("CUDA VCM, BPM and PPM agree with the CPU backend and with BDPT", "[vcm][gpu]") {
    if (!wftest::haveGpu()) return;
    for (IntegratorType type : {IntegratorType::Vcm, IntegratorType::Bpm, IntegratorType::Ppm})
        for (const char* name : {"cornell-box", "glass-caustic"}) {
            const Scene scene = Scene::builtin(name);
            RenderOptions cpuOptions = mergingOptions(type, Backend::Cpu, 12, 64);
            block(cpuOptions).lightPaths = 4096;
            block(cpuOptions).radius = type == IntegratorType::Vcm ? 0.12f : 0.09f;
            RenderOptions gpuOptions = cpuOptions;
            gpuOptions.backend = Backend::Cuda;
            const wftest::SeedStats cpu = wftest::renderSeedStats(scene, cpuOptions, 16, 4, 8100);
            const wftest::SeedStats gpu = wftest::renderSeedStats(scene, gpuOptions, 16, 4, 8300);
            const wftest::SeedStats ref = wftest::renderSeedStats(scene, bdptLike(gpuOptions), 16, 4, 8500);
            const wftest::PixelTest cpuGpu = wftest::pixelTest(cpu.pixels, gpu.pixels);
            const wftest::PixelTest gpuBdpt = wftest::pixelTest(gpu.pixels, ref.pixels);
            INFO(nameOf(type) << " " << name << ": CPU vs CUDA failures " << cpuGpu.failed << " of "
                                           << cpuGpu.tested << " (worst p " << cpuGpu.worstP << "), CUDA vs BDPT "
                                           << gpuBdpt.failed << " (worst p " << gpuBdpt.worstP << ")");
            CHECK(cpuGpu.failed == 0);
            CHECK(gpuBdpt.failed == 0);
        }
    // One pixel per thread on the device at a real size: finite, merges counted.
    RenderStats st;
    RenderOptions o = mergingOptions(IntegratorType::Vcm, Backend::Cuda, 128, 4);
    const Image img = wftest::renderImage(Scene::builtin("cornell-spheres"), o, &st);
    CHECK(st.nonFiniteSamples == 0);
    CHECK(wftest::allFinite(img));
    CHECK(st.vcm.iterations == 4);
}
