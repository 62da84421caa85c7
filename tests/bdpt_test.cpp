// BDPT tests: against the path tracer (an independent estimator), per-sample equality of the
// schedules, per-strategy images, analytic scenes, CPU vs CUDA, bad input. Environment maps,
// thin lenses and shading normals against PT and MLT: integrators_test.cpp.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "test_support.h"

using namespace wavefront;

namespace {

RenderOptions bdptOptions(Backend b = Backend::Cpu, int size = 32, int spp = 16) {
    return wftest::smallRender(IntegratorType::Bdpt, b, size, spp);
}

RenderOptions ptOptions(const RenderOptions& bdpt) {
    RenderOptions o = bdpt;
    o.integrator = IntegratorType::PathTracer;
    return o;
}

double worstRelativeDifference(const Image& a, const Image& b) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.rgb.size(); ++i)
        worst = std::max(worst, std::fabs(double(a.rgb[i]) - b.rgb[i]) / (std::fabs(double(b.rgb[i])) + 1e-3));
    return worst;
}

}  // namespace

TEST_CASE("BDPT and PT converge to the same image", "[bdpt][statistical]") {
    // Independent estimators (different sampling, different MIS): equal block means mean the
    // bidirectional weights sum to one over every path the path tracer finds. The path tracer
    // takes 8x the samples: its caustics through glass are rare, heavy-tailed events, and with
    // few of them its sample variance underestimates the true one.
    for (const char* name : {"cornell-box", "cornell-spheres", "glass-caustic"}) {
        Scene scene = Scene::builtin(name);
        RenderOptions o = bdptOptions(Backend::Cpu, 32, 16);
        wftest::BlockStats bdpt = wftest::renderBlockStats(scene, o, 8, 8, 100);
        RenderOptions pt = ptOptions(o);
        pt.samplesPerPixel = 128;
        wftest::BlockStats ref = wftest::renderBlockStats(scene, pt, 8, 8, 200);
        INFO(name);
        CHECK(wftest::maxZScore(bdpt, ref) < 6.0);
        CHECK(wftest::globalZScore(bdpt, ref) < 4.5);
    }
}

TEST_CASE("streaming and naive BDPT compute the same estimate per sample", "[bdpt][gpu]") {
    // Same estimator functions and random numbers: only the order of float additions differs,
    // whatever the connect threshold, the stream capacity or the layout of the vertex writes.
    // On the CPU every threshold with and without a small capacity (777: several connect phases);
    // on CUDA a larger image, its default threshold and a capacity of 5000 (several connect phases
    // and regenerations), with and without coalesced vertex writes.
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    struct Run {
        std::optional<float> threshold;  ///< unset: the integrator's default
        int capacity;
        bool coalesced;
    };
    const bool cpu = backend == Backend::Cpu;
    std::vector<Run> runs;
    if (cpu) {
        for (float threshold : {0.6f, 1.0f, 0.2f})
            for (int capacity : {0, 777}) runs.push_back({threshold, capacity, true});
    } else {
        for (bool coalesced : {true, false}) runs.push_back({std::nullopt, 5000, coalesced});
    }
    const unsigned size = cpu ? 24 : 64;
    Scene scene = Scene::builtin("cornell-spheres");
    RenderOptions o = bdptOptions(backend, int(size), 8);
    o.bdpt.variant = BdptVariant::Naive;
    RenderStats naiveStats;
    Image naive = wftest::renderImage(scene, o, &naiveStats);
    CHECK(naiveStats.nonFiniteSamples == 0);
    CHECK(wftest::allFinite(naive));
    o.bdpt.variant = BdptVariant::Streaming;
    for (const Run& run : runs) {
        o.bdpt.connectThreshold = run.threshold;
        o.streamCapacity = run.capacity;
        o.bdpt.coalescedVertexWrites = run.coalesced;
        RenderStats st;
        Image img = wftest::renderImage(scene, o, &st);
        std::string threshold = run.threshold ? std::to_string(*run.threshold) : std::string("default");
        INFO("threshold " << threshold << " capacity " << run.capacity << " coalesced " << run.coalesced);
        CHECK(st.samples == size * size * 8u);
        CHECK(st.extensionRays == naiveStats.extensionRays);
        CHECK(st.bdpt.connections == naiveStats.bdpt.connections);
        CHECK(st.nonFiniteSamples == 0);
        CHECK(worstRelativeDifference(img, naive) < 1e-3);
        if (run.capacity == 777) CHECK(st.bdpt.connectPhases > 1);
    }
}

TEST_CASE("per-strategy images sum to the full BDPT image", "[bdpt]") {
    Scene scene = Scene::builtin("cornell-box");
    RenderOptions o = bdptOptions(Backend::Cpu, 32, 16);  // enough samples that every strategy contributes
    o.maxDepth = 5;
    Renderer full(scene, o);
    full.render();
    std::vector<double> sum(full.film().sum.size(), 0.0);
    int contributing = 0;
    for (int s = 0; s <= o.maxDepth; ++s)
        for (int t = 1; s + t - 1 <= o.maxDepth; ++t) {
            if (s + t < 2) continue;
            o.bdpt.strategyS = s;
            o.bdpt.strategyT = t;
            Renderer r(scene, o);
            r.render();
            double total = 0.0;
            for (std::size_t i = 0; i < sum.size(); ++i) {
                CHECK(r.film().sum[i] >= 0.0);
                sum[i] += r.film().sum[i];
                total += r.film().sum[i];
            }
            contributing += total > 0.0;
        }
    CHECK(contributing == 19);  // every (s, t) with 2 <= s + t <= 6 and t >= 1 but (1, 1), which BDPT leaves out
    double worst = 0.0;
    for (std::size_t i = 0; i < sum.size(); ++i)
        worst = std::max(worst, std::fabs(sum[i] - full.film().sum[i]) / (std::fabs(full.film().sum[i]) + 1e-3));
    CHECK(worst < 1e-4);
}

TEST_CASE("BDPT analytic scenes: furnace and the inside of an emitting sphere", "[bdpt][analytic][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    // CUDA affords 32 x 32 pixels at 64 spp.
    RenderOptions o = backend == Backend::Cpu ? bdptOptions(backend, 16, 16) : bdptOptions(backend, 32, 64);
    o.maxDepth = 64;
    RenderStats st;
    Image furnace = wftest::renderImage(Scene::builtin("furnace"), o, &st);
    CHECK(st.nonFiniteSamples == 0);
    CHECK(wftest::imageMean(furnace) == Approx(2.0 * (1.0 - std::pow(0.5, 64))).epsilon(0.01));
    Image sphere = wftest::renderImage(Scene::builtin("sphere-inside"), o, &st);
    CHECK(st.nonFiniteSamples == 0);
    CHECK(wftest::imageMean(sphere) == Approx(0.5 / 0.3 * (1.0 - std::pow(0.7, 64))).epsilon(0.01));
}

TEST_CASE("BDPT rejects bad options with a clear error", "[bdpt]") {
    RenderOptions o = bdptOptions();
    o.bdpt.connectThreshold = 0.0f;
    CHECK_THROWS_AS(o.validate(), InputError);
}

TEST_CASE("CUDA BDPT agrees with the CPU backend, both schedules", "[bdpt][gpu]") {
    if (!wftest::haveGpu()) return;
    for (const char* name : {"cornell-box", "cornell-spheres", "glass-caustic"}) {
        Scene scene = Scene::builtin(name);
        wftest::BlockStats cpu = wftest::renderBlockStats(scene, bdptOptions(Backend::Cpu, 32, 8), 8, 8, 1000);
        unsigned seedBase = 3000;
        for (BdptVariant v : {BdptVariant::Streaming, BdptVariant::Naive}) {
            RenderOptions o = bdptOptions(Backend::Cuda, 32, 8);
            o.bdpt.variant = v;
            wftest::BlockStats gpu = wftest::renderBlockStats(scene, o, 8, 8, seedBase++);
            INFO(name << " " << toString(v));
            CHECK(wftest::maxZScore(cpu, gpu) < 6.0);
            CHECK(wftest::globalZScore(cpu, gpu) < 4.5);
        }
    }
}
