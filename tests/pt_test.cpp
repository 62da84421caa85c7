// Path-tracer estimator tests: variants agree, analytic scenes, CPU vs CUDA, non-finite guard.
#include <catch2/catch.hpp>

#include "host/integrators/stream_scheduler.h"
#include "kernels/scene/scene_view.h"
#include "test_support.h"

using namespace wavefront;

namespace {

RenderOptions smallOptions(PtVariant v, Backend b = Backend::Cpu, int size = 32, int spp = 16) {
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, b, size, spp);
    o.pt.variant = v;
    o.maxDepth = 16;
    return o;
}

const PtVariant kVariants[] = {PtVariant::Megakernel, PtVariant::PtR, PtVariant::Spt, PtVariant::SptR};

/// The variants the analytic scenes are rendered with: SPT-R on the CPU, every one on CUDA (where
/// they are cheap, at 64 x 64 pixels).
std::vector<PtVariant> analyticVariants(Backend b) {
    if (b == Backend::Cpu) return {PtVariant::SptR};
    return std::vector<PtVariant>(std::begin(kVariants), std::end(kVariants));
}

}  // namespace

TEST_CASE("all four path-tracer variants compute the same estimate per sample", "[pt]") {
    // Same sampler, same primary-sample layout: each sample's contribution is identical whatever
    // the schedule, so the images differ only by the order of float additions, and every schedule
    // traces the same rays. SPT+R runs twice: at the default capacity, and with a stream of 1024
    // slots, which regenerates for a while and then drains in one launch ("drain").
    for (const char* name : {"cornell-box", "cornell-spheres"}) {
        Scene scene = Scene::builtin(name);
        RenderStats referenceStats;
        Image reference = wftest::renderImage(scene, smallOptions(PtVariant::Megakernel), &referenceStats);
        for (int run = 0; run < 5; ++run) {
            PtVariant v = run < 4 ? kVariants[run] : PtVariant::SptR;
            RenderOptions o = smallOptions(v);
            if (run == 4) o.streamCapacity = 1024;
            RenderStats st;
            Image img = wftest::renderImage(scene, o, &st);
            INFO(name << " " << toString(v) << " capacity " << st.streamCapacity);
            CHECK(st.samples == 32u * 32u * 16u);
            CHECK(st.nonFiniteSamples == 0);
            CHECK(st.extensionRays == referenceStats.extensionRays);
            CHECK(st.shadowRays == referenceStats.shadowRays);
            if (v == PtVariant::PtR) {
                // Persistent threads ran all 16384 samples with no stream state (on the CPU the
                // first item of each chunk claims samples until none is left, so it starts new
                // paths; the equal ray counts above show that none was lost or run twice).
                std::uint64_t launches = 0;
                for (const KernelStats& k : st.kernels) launches += k.label == "persistent" ? k.launches : 0;
                CHECK(launches >= 1);
                CHECK(st.bytesPerSampleSlot == 0);
            }
            if (run == 4) {
                std::uint64_t drains = 0, shades = 0;
                for (const KernelStats& k : st.kernels) {
                    if (k.label == "drain") drains += k.launches;
                    if (k.label == "shade") shades += k.launches;
                }
                CHECK(drains == 1);
                CHECK(shades > 16);  // 16384 samples through 1024 slots: it regenerated first
            }
            double worst = 0.0;
            for (std::size_t i = 0; i < img.rgb.size(); ++i)
                worst = std::max(worst, std::fabs(double(img.rgb[i]) - reference.rgb[i]) / (std::fabs(reference.rgb[i]) + 1e-3));
            CHECK(worst < 1e-3);
        }
    }
}

TEST_CASE("variants converge to the same image: block means within a confidence bound", "[pt][statistical]") {
    // Independent seeds per variant: a scheduling bug that drops or duplicates work shows up as a
    // bias the block test catches even where the per-sample check above would be blind.
    Scene scene = Scene::builtin("cornell-box");
    // 32 spp x 8 renders: a 3% bias over the image gives a global z of about 6.
    wftest::BlockStats mega = wftest::renderBlockStats(scene, smallOptions(PtVariant::Megakernel, Backend::Cpu, 32, 32), 8, 8, 1000);
    unsigned seedBase = 2000;
    for (PtVariant v : {PtVariant::PtR, PtVariant::Spt, PtVariant::SptR}) {
        RenderOptions o = smallOptions(v, Backend::Cpu, 32, 32);
        wftest::BlockStats other = wftest::renderBlockStats(scene, o, 8, 8, seedBase++);
        INFO(toString(v));
        CHECK(wftest::maxZScore(mega, other) < 6.0);
        CHECK(wftest::globalZScore(mega, other) < 4.5);
    }
}

TEST_CASE("white furnace: closed diffuse enclosure gives Le / (1 - a)", "[pt][analytic][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    bool cpu = backend == Backend::Cpu;
    Scene scene = Scene::builtin("furnace");
    for (PtVariant v : analyticVariants(backend)) {
        RenderOptions o = smallOptions(v, backend, cpu ? 32 : 64, cpu ? 32 : 64);
        o.maxDepth = 255;
        RenderStats st;
        Image img = wftest::renderImage(scene, o, &st);
        INFO(toString(v));
        CHECK(wftest::allFinite(img));
        CHECK(st.nonFiniteSamples == 0);
        CHECK(wftest::imageMean(img) == Approx(2.0).epsilon(0.01));
    }
}

TEST_CASE("inside an emitting diffuse sphere the radiance is Le / (1 - a) everywhere", "[pt][analytic][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    Scene scene = Scene::builtin("sphere-inside");
    for (PtVariant v : analyticVariants(backend)) {
        RenderOptions o = smallOptions(v, backend, backend == Backend::Cpu ? 32 : 64, 64);
        o.maxDepth = 255;
        Image img = wftest::renderImage(scene, o);
        INFO(toString(v));
        CHECK(wftest::imageMean(img) == Approx(0.5 / 0.3).epsilon(0.01));
    }
}

TEST_CASE("non-finite contributions are counted and dropped, never stored", "[pt]") {
    std::vector<double> sum(3, 0.0);
    std::vector<unsigned> count(1, 0);
    unsigned long long bad = 0;
    FilmView film{sum.data(), count.data(), &bad};
    film.deposit(0, vec3(1.0f, 2.0f, 3.0f));
    film.deposit(0, vec3(std::nanf(""), 0.0f, 0.0f));
    film.deposit(0, vec3(0.0f, INFINITY, 0.0f));
    CHECK(bad == 2);
    CHECK(sum[0] == 1.0);
    CHECK(sum[1] == 2.0);
    CHECK(sum[2] == 3.0);
}

TEST_CASE("renders with every material and a thin lens stay finite", "[pt]") {
    Scene scene = Scene::builtin("cornell-glossy");
    Camera cam = scene.camera();
    cam.lensRadius = 0.02f;
    cam.focusDistance = glm::length(cam.target - cam.position);
    scene.setCamera(cam);
    RenderStats st;
    Image img = wftest::renderImage(scene, smallOptions(PtVariant::SptR, Backend::Cpu, 32, 8), &st);
    CHECK(wftest::allFinite(img));
    CHECK(st.nonFiniteSamples == 0);
    CHECK(wftest::imageMean(img) > 0.01);
}

TEST_CASE("the time limit renders whole passes", "[pt]") {
    RenderOptions o = smallOptions(PtVariant::SptR, Backend::Cpu, 16, 1);
    o.timeLimitSeconds = 0.05;
    Renderer r(Scene::builtin("cornell-box"), o);
    r.render();
    CHECK(r.stats().samples >= 256u);
    CHECK(r.stats().samples % 256u == 0);
    for (unsigned c : r.film().samples) CHECK(c == r.film().samples[0]);
}

TEST_CASE("CUDA variants agree with the CPU backend", "[pt][gpu]") {
    if (!wftest::haveGpu()) return;
    for (const char* name : {"cornell-box", "cornell-spheres"}) {
        Scene scene = Scene::builtin(name);
        wftest::BlockStats cpu = wftest::renderBlockStats(scene, smallOptions(PtVariant::SptR, Backend::Cpu, 32, 8), 8, 8, 1000);
        unsigned seedBase = 3000;
        for (PtVariant v : kVariants) {
            wftest::BlockStats gpu = wftest::renderBlockStats(scene, smallOptions(v, Backend::Cuda, 32, 8), 8, 8, seedBase++);
            INFO(name << " " << toString(v));
            CHECK(wftest::maxZScore(cpu, gpu) < 6.0);
            CHECK(wftest::globalZScore(cpu, gpu) < 4.5);
        }
    }
}

TEST_CASE("a CPU and a CUDA renderer live side by side in one process", "[gpu]") {
    if (!wftest::haveGpu()) return;
    Scene scene = Scene::builtin("cornell-box");
    Renderer cpu(scene, smallOptions(PtVariant::SptR, Backend::Cpu, 16, 4));
    Renderer gpu(scene, smallOptions(PtVariant::SptR, Backend::Cuda, 16, 4));
    cpu.render();
    gpu.render();
    CHECK(cpu.backend() == Backend::Cpu);
    CHECK(gpu.backend() == Backend::Cuda);
    CHECK(gpu.stats().backend.find("cuda") == 0);
}

TEST_CASE("the CUDA backend without a GPU is a clear error", "[pt]") {
    if (cudaDeviceCount() > 0) return;
    RenderOptions o = smallOptions(PtVariant::SptR, Backend::Cuda, 16, 1);
    CHECK_THROWS_AS(Renderer(Scene::builtin("cornell-box"), o), InputError);
}

TEST_CASE("a request larger than device memory names the sizes", "[gpu]") {
    if (!wftest::haveGpu()) return;
    RenderOptions o = smallOptions(PtVariant::SptR, Backend::Cuda, 16, 1);
    o.streamCapacity = 2000000000;  // 2e9 slots x 152 bytes: ~300 GB of path state
    o.samplesPerPixel = 1 << 24;    // enough samples that the capacity is not clamped
    Renderer r(Scene::builtin("cornell-box"), o);
    try {
        r.render();
        FAIL("expected an InputError");
    } catch (const InputError& e) {
        std::string msg = e.what();
        CHECK(msg.find("MiB") != std::string::npos);
        CHECK(msg.find("free") != std::string::npos);
    }
}

TEST_CASE("the many-light scene renders the same with every light sampler", "[pt][lights]") {
    Scene scene = Scene::builtin("many-lights");
    auto options = [](LightSampler s, int seedShift) {
        RenderOptions o = smallOptions(PtVariant::SptR, Backend::Cpu, 32, 8);
        o.lightSampler = s;
        o.seed = 11 + seedShift;
        return o;
    };
    // The three monotonic samplers pick the same light for the same number: identical images.
    Image reference = wftest::renderImage(scene, options(LightSampler::BinarySearch, 0));
    for (LightSampler s : {LightSampler::GuideTable, LightSampler::RadixForest}) {
        Image img = wftest::renderImage(scene, options(s, 0));
        double worst = 0.0;
        for (std::size_t i = 0; i < img.rgb.size(); ++i)
            worst = std::max(worst, std::fabs(double(img.rgb[i]) - reference.rgb[i]) / (std::fabs(reference.rgb[i]) + 1e-3));
        INFO(toString(s));
        CHECK(worst < 1e-3);
    }
    // The alias table samples the same distribution through a different mapping: same image in
    // expectation.
    RenderOptions binary = options(LightSampler::BinarySearch, 0), alias = options(LightSampler::Alias, 0);
    binary.samplesPerPixel = alias.samplesPerPixel = 32;
    wftest::BlockStats a = wftest::renderBlockStats(scene, binary, 8, 8, 1000);
    wftest::BlockStats b = wftest::renderBlockStats(scene, alias, 8, 8, 5000);
    CHECK(wftest::maxZScore(a, b) < 6.0);
    CHECK(wftest::globalZScore(a, b) < 4.5);
}

TEST_CASE("launches of whole paths grow to the target time and never below their minimum", "[pt]") {
    LaunchSizer fixed{1000};
    fixed.observe(1000, 1e-6);
    CHECK(fixed.next() == 1000);  // no target: every launch the same
    LaunchSizer timed{1000, 0.05};
    CHECK(timed.next() == 1000);  // nothing measured yet
    timed.observe(1000, 0.001);   // 1 M items/s: 50 ms is 50000 items
    CHECK(timed.next() == 50000);
    timed.observe(10, 0.001);     // a short remainder launch measures a low rate
    CHECK(timed.next() == 1000);
    timed.observe(1000000000, 1e-3);
    CHECK(timed.next() == std::uint64_t(INT_MAX));
}
