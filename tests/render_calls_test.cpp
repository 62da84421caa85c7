// One Renderer, many calls: render() again gives the same film, renderMore() adds to it as one
// longer render would, a time limit ends at a pass boundary, and a render can be cancelled from
// the progress callback or from another thread. Every integrator and schedule, on both backends.
#include <catch2/catch.hpp>

#include <chrono>
#include <limits>
#include <numeric>
#include <thread>

#include "test_support.h"

using namespace wavefront;

namespace {

struct Schedule {
    IntegratorType integrator;
    PtVariant variant;
    BdptVariant bdptVariant;
    const char* name;
};
const Schedule kPerSampleSchedules[] = {
    {IntegratorType::PathTracer, PtVariant::Megakernel, BdptVariant::Streaming, "pt megakernel"},
    {IntegratorType::PathTracer, PtVariant::PtR, BdptVariant::Streaming, "pt pt-r"},
    {IntegratorType::PathTracer, PtVariant::Spt, BdptVariant::Streaming, "pt spt"},
    {IntegratorType::PathTracer, PtVariant::SptR, BdptVariant::Streaming, "pt spt-r"},
    {IntegratorType::Bdpt, PtVariant::SptR, BdptVariant::Streaming, "bdpt streaming"},
    {IntegratorType::Bdpt, PtVariant::SptR, BdptVariant::Naive, "bdpt naive"},
};

RenderOptions optionsFor(const Schedule& s, Backend backend, int size, int spp) {
    RenderOptions o = wftest::smallRender(s.integrator, backend, size, spp);
    if (s.integrator == IntegratorType::PathTracer) o.pt.variant = s.variant;
    if (s.integrator == IntegratorType::Bdpt) o.bdpt.variant = s.bdptVariant;
    return o;
}

std::uint64_t filmSamples(const Film& film) {
    return std::accumulate(film.samples.begin(), film.samples.end(), std::uint64_t(0));
}

/// Largest per-value difference relative to the image's mean (only the order of float additions
/// may differ between two renders of the same samples).
double largestDifference(const Image& a, const Image& b) {
    double worst = 0.0, scale = std::max(wftest::imageMean(b), 1e-6);
    for (std::size_t i = 0; i < a.rgb.size(); ++i) worst = std::max(worst, std::fabs(double(a.rgb[i]) - b.rgb[i]) / scale);
    return worst;
}

void checkRenderAgain(Backend backend) {
    Scene scene = Scene::builtin("cornell-spheres");
    for (const Schedule& s : kPerSampleSchedules) {
        INFO(s.name);
        RenderOptions o = optionsFor(s, backend, 24, 4);
        o.streamCapacity = 1000;  // several regenerations per call
        Renderer r(scene, o);
        r.render();
        Image first = r.image();
        RenderStats firstStats = r.stats();
        CHECK(firstStats.samples == 24u * 24u * 4u);
        CHECK(filmSamples(r.film()) == firstStats.samples);
        for (int call = 0; call < 2; ++call) {
            r.render();
            CHECK(r.stats().samples == firstStats.samples);
            CHECK(filmSamples(r.film()) == firstStats.samples);
            CHECK(r.stats().extensionRays == firstStats.extensionRays);
            CHECK(r.stats().shadowRays == firstStats.shadowRays);
            CHECK(largestDifference(r.image(), first) < 1e-4);
        }
        // A fresh renderer gives the same image too.
        CHECK(largestDifference(wftest::renderImage(scene, o), first) < 1e-4);
    }
    // MLT restarts its chains on every render(): the same number of mutations, the same image in
    // distribution.
    RenderOptions m = wftest::smallRender(IntegratorType::Mlt, backend, 24, 16);
    m.streamCapacity = 512;
    Renderer r(scene, m);
    r.render();
    double mean = wftest::imageMean(r.image());
    std::uint64_t rays = r.stats().extensionRays;
    for (int call = 0; call < 2; ++call) {
        r.render();
        CHECK(r.stats().samples == 24u * 24u * 16u);
        CHECK(r.film().samples[0] == 16u);
        CHECK(wftest::imageMean(r.image()) == Approx(mean).epsilon(0.1));
        CHECK(double(r.stats().extensionRays) == Approx(double(rays)).epsilon(0.2));
    }
}

void checkRenderMore(Backend backend) {
    Scene scene = Scene::builtin("cornell-spheres");
    for (const Schedule& s : kPerSampleSchedules) {
        INFO(s.name);
        // Sample indices continue where the film left off: 2 + 3 samples per pixel are the 5 of
        // one render, sample for sample.
        Renderer progressive(scene, optionsFor(s, backend, 20, 2));
        progressive.render();
        progressive.renderMore(3);
        RenderOptions whole = optionsFor(s, backend, 20, 5);
        Renderer once(scene, whole);
        once.render();
        CHECK(progressive.stats().samples == 20u * 20u * 5u);
        CHECK(progressive.film().samples == once.film().samples);
        CHECK(progressive.stats().extensionRays == once.stats().extensionRays);
        CHECK(largestDifference(progressive.image(), once.image()) < 1e-4);
    }
    // MLT: the chains continue, and 8 + 8 mutations per pixel converge to what 16 do.
    Scene box = Scene::builtin("cornell-box");
    RenderOptions m = wftest::smallRender(IntegratorType::Mlt, backend, 16, 16);
    m.streamCapacity = 256;
    wftest::BlockStats once = wftest::renderBlockStats(box, m, 8, 8, 40);
    std::vector<std::vector<double>> runs;
    for (int k = 0; k < 8; ++k) {
        RenderOptions half = m;
        half.samplesPerPixel = 8;
        half.seed = 90 + 7919u * unsigned(k);
        Renderer r(box, half);
        r.render();
        r.renderMore(8);
        CHECK(r.stats().samples == 16u * 16u * 16u);
        CHECK(r.film().samples[0] == 16u);
        runs.push_back(wftest::blockAverages(r.image(), 8));
    }
    wftest::BlockStats twice = wftest::statsOf(runs);
    CHECK(wftest::maxZScore(twice, once) < 6.0);
    CHECK(wftest::globalZScore(twice, once) < 4.5);
}

void checkTimeLimit(Backend backend) {
    Scene scene = Scene::builtin("cornell-box");
    const Schedule schedules[] = {kPerSampleSchedules[0], kPerSampleSchedules[3], kPerSampleSchedules[4],
                                  {IntegratorType::Mlt, PtVariant::SptR, BdptVariant::Streaming, "mlt"}};
    for (const Schedule& s : schedules) {
        INFO(s.name);
        RenderOptions o = optionsFor(s, backend, 16, 1);
        o.timeLimitSeconds = 0.3;
        auto start = std::chrono::steady_clock::now();
        Renderer r(scene, o);
        r.render();
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        CHECK(seconds < 5.0 * wftest::timeScale());
        CHECK(r.stats().samples >= 256u);
        CHECK(r.stats().samples % 256u == 0);  // whole passes
        for (unsigned c : r.film().samples) CHECK(c == r.film().samples[0]);
        CHECK(std::uint64_t(r.film().samples[0]) * 256u == r.stats().samples);
        CHECK(wftest::allFinite(r.image()));
        CHECK(wftest::imageMean(r.image()) > 0.05);
    }
}

void checkCancel(Backend backend) {
    Scene scene = Scene::builtin("cornell-box");
    const Schedule schedules[] = {kPerSampleSchedules[0], kPerSampleSchedules[1], kPerSampleSchedules[3],
                                  kPerSampleSchedules[4], kPerSampleSchedules[5],
                                  {IntegratorType::Mlt, PtVariant::SptR, BdptVariant::Streaming, "mlt"}};
    const int kSpp = 1 << 14;  // far more than the test waits for
    for (const Schedule& s : schedules) {
        INFO(s.name);
        // The progress callback says stop at its second report.
        RenderOptions o = optionsFor(s, backend, 32, kSpp);
        o.streamCapacity = 4096;
        int reports = 0;
        o.progress = [&](std::uint64_t, std::uint64_t, double) { return ++reports < 2; };
        Renderer r(scene, o);
        r.render();
        CHECK(r.stats().cancelled);
        CHECK(r.stats().samples > 0u);
        CHECK(r.stats().samples < std::uint64_t(32 * 32) * kSpp);
        if (s.integrator != IntegratorType::Mlt) CHECK(filmSamples(r.film()) == r.stats().samples);
        CHECK(wftest::allFinite(r.image()));
        CHECK(wftest::imageMean(r.image()) > 0.02);
        // The film can be added to after a cancellation.
        std::uint64_t before = r.stats().samples;
        reports = -1000000;
        r.renderMore(1);
        CHECK_FALSE(r.stats().cancelled);
        CHECK(r.stats().samples >= before + 32u * 32u);

        // Renderer::cancel() from another thread, on a render far too long to finish first (4G
        // samples: seconds on a GPU, hours on a CPU).
        RenderOptions t = optionsFor(s, backend, 64, 1 << 20);
        Renderer other(scene, t);
        std::thread worker([&] { other.render(); });
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        auto asked = std::chrono::steady_clock::now();
        other.cancel();
        worker.join();
        double wait = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
        CHECK(wait < 3.0 * wftest::timeScale());
        CHECK(other.stats().cancelled);
        CHECK(other.stats().samples < std::uint64_t(64 * 64) << 20);
        CHECK(wftest::allFinite(other.image()));
    }
}

}  // namespace

// One case per behaviour over the backends: the CPU always, CUDA where there is a device.
TEST_CASE("render() again gives the same film and stats count what reached it", "[render][pt][bdpt][mlt][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    checkRenderAgain(backend);
}
TEST_CASE("renderMore() adds to the film as one longer render would", "[render][pt][bdpt][mlt][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    checkRenderMore(backend);
}
TEST_CASE("a time limit ends at a pass boundary for every integrator", "[render][pt][bdpt][mlt][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    checkTimeLimit(backend);
}
TEST_CASE("a render stops when cancelled and its film stays usable", "[render][pt][bdpt][mlt][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    checkCancel(backend);
}

TEST_CASE("films of disjoint pass ranges add up to the film of one render", "[render][pt][bdpt]") {
    // What wavefront-render-mpi does with a process per range: passes [0, 2) and [2, 5).
    Scene scene = Scene::builtin("cornell-spheres");
    for (const Schedule& s : kPerSampleSchedules) {
        INFO(s.name);
        Renderer once(scene, optionsFor(s, Backend::Cpu, 20, 5));
        once.render();
        RenderOptions first = optionsFor(s, Backend::Cpu, 20, 2), second = optionsFor(s, Backend::Cpu, 20, 3);
        second.firstPass = 2;
        Renderer a(scene, first), b(scene, second);
        a.render();
        b.render();
        Film sum = a.film();
        for (std::size_t i = 0; i < sum.sum.size(); ++i) sum.sum[i] += b.film().sum[i];
        for (std::size_t i = 0; i < sum.samples.size(); ++i) sum.samples[i] += b.film().samples[i];
        CHECK(sum.samples == once.film().samples);
        CHECK(a.stats().extensionRays + b.stats().extensionRays == once.stats().extensionRays);
        CHECK(largestDifference(sum.resolve(), once.image()) < 1e-4);
        // firstPass moves the samples: the second range alone is not the first one's image.
        CHECK(largestDifference(b.image(), wftest::renderImage(scene, optionsFor(s, Backend::Cpu, 20, 3))) > 1e-3);
    }
}

TEST_CASE("the LBVH and PLOC trees give the same images, and Auto picks PLOC for triangles", "[render][bvh][ploc][gpu]") {
    // Traversal finds the same closest hit in either tree (ties between coincident primitives
    // aside), so the same samples give the same film: nearly every pixel bit for bit. (MLT's chains
    // would carry one tie into every later state: its images are compared in the integrator tests.)
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    for (const char* name : {"cornell-box", "cornell-spheres"}) {
        Scene scene = Scene::builtin(name);
        for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt}) {
            INFO(name << " " << toString(integrator));
            RenderOptions o = wftest::smallRender(integrator, backend, 24, 4);
            o.bvhBuilder = BvhBuilder::Lbvh;
            Renderer lbvh(scene, o);
            lbvh.render();
            o.bvhBuilder = BvhBuilder::Ploc;
            Renderer ploc(scene, o);
            ploc.render();
            CHECK(lbvh.stats().bvhBuilder == "lbvh");
            CHECK(ploc.stats().bvhBuilder == "ploc");
            Image a = lbvh.image(), b = ploc.image();
            std::size_t same = 0;
            for (std::size_t i = 0; i < a.rgb.size(); ++i) same += a.rgb[i] == b.rgb[i];
            INFO(same << " of " << a.rgb.size() << " channel values equal");
            CHECK(same >= a.rgb.size() * 99 / 100);
        }
    }
    auto builtWith = [backend](const char* name) {
        Renderer r(Scene::builtin(name), wftest::smallRender(IntegratorType::PathTracer, backend, 8, 1));
        r.render();
        return r.stats().bvhBuilder;
    };
    CHECK(builtWith("cornell-box") == "ploc");
    CHECK(builtWith("rtiow-final") == "lbvh");
}

TEST_CASE("RenderOptions refuses a first pass past the sample-index limit, and any for MLT", "[render][mlt]") {
    Scene scene = Scene::builtin("cornell-box");
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 8, 4);
    o.firstPass = (1ull << 48) / 64 - 4;  // the last four passes below 2^48
    CHECK_NOTHROW(o.validate());
    o.firstPass += 1;
    CHECK(wftest::inputErrorOf([&] { o.validate(); }).find("first pass") != std::string::npos);
    o.firstPass = ~std::uint64_t(0);  // no overflow in firstPass x pixels
    o.timeLimitSeconds = 1.0;
    CHECK(wftest::inputErrorOf([&] { o.validate(); }).find("first pass") != std::string::npos);
    RenderOptions m = wftest::smallRender(IntegratorType::Mlt, Backend::Cpu, 8, 4);
    m.firstPass = 1;
    CHECK(wftest::inputErrorOf([&] { Renderer r(scene, m); }).find("seed") != std::string::npos);
}

TEST_CASE("RenderOptions refuses enum values outside their enums and non-finite time limits", "[render]") {
    // Values from casts or bindings: each used to render black or forever (issue 18).
    Scene scene = Scene::builtin("cornell-box");
    auto refused = [&](auto change, const char* words) {
        RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 8, 1);
        change(o);
        std::string message = wftest::inputErrorOf([&] { Renderer r(scene, o); });
        INFO(message);
        CHECK(message.find(words) != std::string::npos);
    };
    refused([](RenderOptions& o) { o.pt.variant = PtVariant(99); }, "PtVariant");
    refused([](RenderOptions& o) { o.integrator = IntegratorType(7); }, "IntegratorType");
    refused([](RenderOptions& o) { o.backend = Backend(-1); }, "Backend");
    refused([](RenderOptions& o) { o.integrator = IntegratorType::Bdpt; o.bdpt.variant = BdptVariant(2); }, "BdptVariant");
    refused([](RenderOptions& o) { o.lightSampler = LightSampler(4); }, "LightSampler");
    refused([](RenderOptions& o) { o.bvhBuilder = BvhBuilder(3); }, "BvhBuilder");
    refused([](RenderOptions& o) { o.timeLimitSeconds = std::numeric_limits<double>::quiet_NaN(); o.samplesPerPixel = 0; },
            "time limit");
    refused([](RenderOptions& o) { o.timeLimitSeconds = std::numeric_limits<double>::infinity(); }, "time limit");
    refused([](RenderOptions& o) { o.integrator = IntegratorType::Bdpt; o.bdpt.strategyS = 9; o.bdpt.strategyT = 9; o.maxDepth = 8; },
            "max depth");
    CHECK(wftest::inputErrorOf([] { writeImage("/tmp/wavefront-exposure-test.png", Image(2, 2), 1000.0f); })
              .find("exposure") != std::string::npos);
}

TEST_CASE("a moved-from Renderer throws Error from every public method", "[render][hardening]") {
    // render() on a moved-from renderer dereferenced a null Impl (issue 18).
    Renderer renderer(Scene::builtin("cornell-box"), wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 8, 1));
    Renderer moved(std::move(renderer));
    CHECK_NOTHROW(moved.render());
    auto movedFrom = [](auto call) {
        try {
            call();
        } catch (const InputError&) {
            return std::string("an InputError, which is for bad input");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("nothing thrown");
    };
    const std::string expected = "this Renderer was moved from; use the Renderer it was moved to";
    Renderer& r = renderer;  // NOLINT(bugprone-use-after-move): the point of the test
    CHECK(movedFrom([&] { r.render(); }) == expected);
    CHECK(movedFrom([&] { r.renderMore(1); }) == expected);
    CHECK(movedFrom([&] { r.cancel(); }) == expected);
    CHECK(movedFrom([&] { (void)r.film(); }) == expected);
    CHECK(movedFrom([&] { (void)r.image(); }) == expected);
    CHECK(movedFrom([&] { (void)r.stats(); }) == expected);
    CHECK(movedFrom([&] { (void)r.backend(); }) == expected);
    CHECK(movedFrom([&] { (void)r.options(); }) == expected);
    // Move assignment leaves its source moved from too; assigning to it makes it whole again.
    Renderer other(Scene::builtin("cornell-box"), wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 8, 1));
    r = std::move(other);
    CHECK_NOTHROW(r.render());
    CHECK(movedFrom([&] { other.render(); }) == expected);
}

TEST_CASE("overlapping render calls on one Renderer are refused, not a use after free", "[render][hardening]") {
    // renderMore() from the progress callback freed the runner render() was using (issue 37).
    Scene scene = Scene::builtin("cornell-box");
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 16, 64);
    o.streamCapacity = 64;  // many passes, so that the callback is called during the render
    Renderer* self = nullptr;
    std::string refused;
    o.progress = [&](std::uint64_t, std::uint64_t, double) {
        if (refused.empty()) {
            try {
                self->renderMore(1);
            } catch (const Error& e) {
                refused = e.what();
            }
        }
    };
    Renderer r(scene, o);
    self = &r;
    r.render();
    CHECK_THAT(refused, Catch::Contains("already rendering"));
    CHECK(r.stats().samples == 16u * 16u * 64u);  // the running call went on
    CHECK_FALSE(r.stats().cancelled);
    // Afterwards the renderer takes calls again.
    o.progress = nullptr;
    Renderer plain(scene, o);
    plain.render();
    CHECK_NOTHROW(plain.renderMore(1));
}

TEST_CASE("the CPU backend renders with the threads it is given", "[render]") {
    Scene scene = Scene::builtin("cornell-box");
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 8, 1);
    o.cpuThreads = 3;
    Renderer r(scene, o);
    r.render();
    CHECK(r.stats().backend == "cpu (3 threads)");
    o.backend = Backend::Cuda;
    CHECK_THAT(wftest::inputErrorOf([&] { o.validate(); }), Catch::Contains("CPU threads"));
    o.backend = Backend::Cpu;
    o.cpuThreads = -1;
    CHECK_THAT(wftest::inputErrorOf([&] { o.validate(); }), Catch::Contains("CPU threads"));
}
