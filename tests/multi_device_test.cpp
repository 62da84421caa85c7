// One image on several devices (RenderOptions::devices): the work splitter on its own (pieces
// cover the range exactly once, a slower device takes less), then whole renders on CPU workers
// (in CI) and on every CUDA device when a machine has two or more: PT and BDPT give the film of
// one device, MLT the same image in distribution; renderMore, time limits, cancellation, bad
// device lists.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "host/integrators/render_budget.h"
#include "host/render/work_splitter.h"
#include "test_support.h"

using namespace wavefront;

namespace {

/// A device of the splitter test: hands out `perStep` samples of its piece every `pause`, as a
/// driver would, moving the end back when asked (as ShrinkWorkStage does).
struct FakeDevice {
    std::uint64_t perStep;
    std::chrono::microseconds pause;
};

struct Interval {
    std::uint64_t first, end;
};

std::vector<std::vector<Interval>> runFakeSplit(const std::vector<FakeDevice>& devices, std::uint64_t first,
                                                std::uint64_t count, int* steals) {
    RenderCall call;
    WorkSplitter::Settings s;
    s.first = first;
    s.count = count;
    s.speeds.assign(devices.size(), 1.0);  // equal shares at first: the fast device must take over
    WorkSplitter splitter(call, s);
    std::vector<std::vector<Interval>> done(devices.size());
    std::vector<std::thread> threads;
    for (int d = 0; d < int(devices.size()); ++d)
        threads.emplace_back([&, d] {
            WorkPiece piece;
            while (splitter.next(d, piece)) {
                RenderBudget budget(call, piece.count, splitter, d);
                std::uint64_t next = piece.first, end = piece.first + piece.count;
                while (next < end) {
                    next = std::min(end, next + devices[d].perStep);
                    std::this_thread::sleep_for(devices[d].pause);
                    RunVerdict v = budget.check(next - piece.first);
                    if (v == RunVerdict::Shrink) {
                        end = std::max(next, std::min(end, budget.shrinkTarget()));
                        budget.shrunk(end);
                    }
                }
                done[d].push_back({piece.first, end});
                splitter.done(d, end - piece.first);
            }
        });
    for (auto& t : threads) t.join();
    *steals = splitter.steals();
    return done;
}

/// The device lists a whole-render test runs on: two and three CPU workers, and every CUDA
/// device where there are two or more.
std::vector<std::pair<Backend, std::vector<int>>> multiDeviceSetups() {
    std::vector<std::pair<Backend, std::vector<int>>> setups{{Backend::Cpu, {0, 1}}, {Backend::Cpu, {0, 1, 2}}};
    if (cudaDeviceCount() >= 2)
        setups.push_back({Backend::Cuda, {}});
    else
        std::cout << "CUDA part not run (fewer than two CUDA devices)" << std::endl;
    return setups;
}

}  // namespace

TEST_CASE("the work splitter covers the range exactly once and a slower device takes less", "[multidevice]") {
    // Device 0 is ten times faster than device 1 and 2; all start with a third each.
    std::vector<FakeDevice> devices{{4000, std::chrono::microseconds(200)},
                                    {400, std::chrono::microseconds(200)},
                                    {400, std::chrono::microseconds(200)}};
    const std::uint64_t first = 1000, count = 600000;
    int steals = 0;
    auto done = runFakeSplit(devices, first, count, &steals);
    std::vector<Interval> all;
    std::uint64_t perDevice[3] = {0, 0, 0};
    for (int d = 0; d < 3; ++d)
        for (Interval i : done[d]) {
            all.push_back(i);
            perDevice[d] += i.end - i.first;
        }
    std::sort(all.begin(), all.end(), [](Interval a, Interval b) { return a.first < b.first; });
    std::uint64_t at = first;
    for (Interval i : all) {
        if (i.end == i.first) continue;
        REQUIRE(i.first == at);  // no gap, no overlap
        at = i.end;
    }
    CHECK(at == first + count);
    CHECK(steals >= 1);
    INFO("fast " << perDevice[0] << ", slow " << perDevice[1] << " and " << perDevice[2]);
    CHECK(perDevice[0] > 2 * perDevice[1]);
    CHECK(perDevice[0] > 2 * perDevice[2]);
}

TEST_CASE("the shared state exchange: each device gets the sum of the others' latest posts, from any thread",
          "[multidevice][mlt]") {
    using V = std::vector<double>;
    SharedStateExchange exchange;
    exchange.reset(3);
    CHECK(exchange.exchange(0, {2.0, 4.0}) == V{0.0, 0.0});  // nobody else has posted
    CHECK(exchange.exchange(1, {1.0, 1.0}) == V{2.0, 4.0});
    CHECK(exchange.exchange(0, {3.0, 5.0}) == V{1.0, 1.0});  // its own post replaced, not added
    CHECK(exchange.exchange(2, {0.5, 2.0}) == V{4.0, 6.0});
    exchange.reset(2);  // a fresh film forgets every post
    CHECK(exchange.exchange(1, {1.0, 1.0}) == V{0.0, 0.0});
    CHECK_THROWS(exchange.exchange(2, {1.0, 1.0}));  // no such device
    // Posts of any length (MMLT: numbers per path length): the sum is as long as the longest
    // post, a shorter one counting 0 beyond its end; an empty post shares nothing.
    exchange.reset(3);
    CHECK(exchange.exchange(0, {1.0, 2.0, 3.0, 4.0}) == V{0.0, 0.0, 0.0, 0.0});
    CHECK(exchange.exchange(1, {10.0, 20.0}) == V{1.0, 2.0, 3.0, 4.0});
    CHECK(exchange.exchange(2, {}) == V{11.0, 22.0, 3.0, 4.0});
    CHECK(exchange.exchange(0, {1.0}) == V{10.0, 20.0});
    // Devices post from their own threads while others read: every read is some set of whole posts.
    exchange.reset(4);
    std::vector<std::thread> threads;
    std::atomic<int> torn{0};
    for (int d = 0; d < 4; ++d)
        threads.emplace_back([&, d] {
            for (int k = 1; k <= 2000; ++k) {
                const V others = exchange.exchange(d, {double(k), 2.0 * k});
                if (others.size() != 2 || others[1] != 2.0 * others[0]) ++torn;
            }
        });
    for (std::thread& t : threads) t.join();
    CHECK(torn == 0);
    CHECK(exchange.exchange(0, {0.0, 0.0}) == V{6000.0, 12000.0});
}

TEST_CASE("PT and BDPT on several devices give the film of one device", "[multidevice][pt][bdpt][gpu]") {
    Scene scene = Scene::builtin("cornell-box");
    for (auto [backend, devices] : multiDeviceSetups()) {
        for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt}) {
            for (int variant = 0; variant < 2; ++variant) {
                RenderOptions o = wftest::smallRender(integrator, backend, 40, 24);
                o.streamCapacity = 2048;  // several pieces' worth of stream refills per device
                if (variant == 1 && integrator == IntegratorType::PathTracer) o.pt.variant = PtVariant::Megakernel;
                if (variant == 1 && integrator == IntegratorType::Bdpt) o.bdpt.variant = BdptVariant::Naive;
                o.devices = {0};
                RenderStats one, many;
                Image reference = wftest::renderImage(scene, o, &one);
                o.devices = devices;
                Image split = wftest::renderImage(scene, o, &many);
                INFO(toString(backend) << " " << toString(integrator) << " variant " << variant << ", "
                                       << many.devices.size() << " devices");
                CHECK(wftest::maxRelativeDifference(split, reference) < 1e-5);
                CHECK(many.samples == one.samples);
                CHECK(many.extensionRays == one.extensionRays);
                CHECK(many.shadowRays == one.shadowRays);
                REQUIRE(many.devices.size() >= 2);
                std::uint64_t sum = 0;
                for (const DeviceStats& d : many.devices) sum += d.samples;
                CHECK(sum == many.samples);
            }
        }
    }
}

TEST_CASE("instances on several devices give the film of one device, also after one moves", "[multidevice][instancing][gpu]") {
    const Scene scene = Scene::builtin("forest");
    for (auto [backend, devices] : multiDeviceSetups()) {
        for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt}) {
            RenderOptions o = wftest::smallRender(integrator, backend, 32, 4);
            o.devices = {0};
            Renderer one(scene, o);
            o.devices = devices;
            Renderer many(scene, o);
            INFO(toString(backend) << " " << toString(integrator));
            Image before;
            for (int step = 0; step < 2; ++step) {
                if (step == 1) {
                    // Tree 5095 (row 50, column 95) stands close in front of the camera: moved on every device.
                    glm::mat4 m = scene.instances()[5095].objectToWorld;
                    m[3] += glm::vec4(0.8f, 0.0f, -0.5f, 0.0f);
                    one.setInstanceTransform(5095, m);
                    many.setInstanceTransform(5095, m);
                }
                one.render();
                many.render();
                CHECK(wftest::maxRelativeDifference(many.image(), one.image()) < 1e-5);
                CHECK(many.stats().samples == one.stats().samples);
                if (step == 0) before = one.image();
                else CHECK(wftest::maxRelativeDifference(one.image(), before) > 1e-2);  // the move shows
            }
        }
    }
}

TEST_CASE("renderMore, time limits and cancellation on several devices", "[multidevice][render][gpu]") {
    Scene scene = Scene::builtin("cornell-box");
    for (auto [backend, devices] : multiDeviceSetups()) {
        INFO(toString(backend) << ", " << devices.size() << " devices");
        RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, backend, 32, 5);
        o.devices = devices;
        // 2 + 3 samples per pixel are the 5 of one render.
        Image once = wftest::renderImage(scene, o);
        o.samplesPerPixel = 2;
        Renderer r(scene, o);
        r.render();
        r.renderMore(3);
        CHECK(wftest::maxRelativeDifference(r.image(), once) < 1e-5);
        CHECK(r.stats().samples == 5u * 32 * 32);

        // A time limit: whole passes on every device together.
        for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt, IntegratorType::Mlt}) {
            RenderOptions t = wftest::smallRender(integrator, backend, 24, 1);
            t.devices = devices;
            t.timeLimitSeconds = 0.3;
            Renderer timed(scene, t);
            auto start = std::chrono::steady_clock::now();
            timed.render();
            double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            INFO(toString(integrator));
            CHECK(seconds >= 0.3);
            CHECK(seconds < 0.3 + 10.0 * wftest::timeScale());
            const Film& film = timed.film();
            CHECK(film.samples[0] >= 1u);
            CHECK(std::all_of(film.samples.begin(), film.samples.end(), [&](std::uint32_t c) { return c == film.samples[0]; }));
            CHECK(timed.stats().samples >= std::uint64_t(24 * 24));
            // A second call, after the first measured each device's speed: every device still
            // renders (a time-limited MLT call gives each device one piece whatever its speed).
            timed.render();
            for (const DeviceStats& d : timed.stats().devices) CHECK(d.samples > 0u);
        }

        // Cancelled from the progress callback: returns, says so, and the film stays usable.
        RenderOptions c = wftest::smallRender(IntegratorType::Bdpt, backend, 32, 100000);
        c.devices = devices;
        std::atomic<int> calls{0};
        c.progress = [&](std::uint64_t, std::uint64_t, double) { return ++calls < 3; };
        Renderer cancelled(scene, c);
        cancelled.render();
        CHECK(cancelled.stats().cancelled);
        CHECK(cancelled.stats().samples < 100000ull * 32 * 32);
        Image img = cancelled.image();
        CHECK(std::all_of(img.rgb.begin(), img.rgb.end(), [](float v) { return std::isfinite(v); }));
    }
}

TEST_CASE("MLT on several devices converges to the image of one device", "[multidevice][mlt][statistical]") {
    // Each device runs chains of its own; the combined image is a consistent estimate of the same
    // image, checked block by block against BDPT over independent seeds.
    Scene scene = Scene::builtin("cornell-box");
    RenderOptions bdpt = wftest::smallRender(IntegratorType::Bdpt, Backend::Cpu, 32, 64);
    wftest::BlockStats ref = wftest::renderBlockStats(scene, bdpt, 8, 8, 100);
    RenderOptions mlt = wftest::smallRender(IntegratorType::Mlt, Backend::Cpu, 32, 64);
    mlt.streamCapacity = 512;  // per device
    mlt.devices = {0, 1};
    wftest::BlockStats split = wftest::renderBlockStats(scene, mlt, 8, 8, 300);
    CHECK(wftest::maxZScore(split, ref) < 6.0);
    CHECK(wftest::imageMeanZScore(split, ref) < 4.5);
    RenderStats stats;
    wftest::renderImage(scene, mlt, &stats);
    REQUIRE(stats.devices.size() == 2);
    CHECK(stats.devices[0].samples + stats.devices[1].samples == stats.samples);
    CHECK(stats.samples == 64u * 32 * 32);
}

TEST_CASE("device lists: duplicates, negative numbers and missing CUDA devices are refused", "[multidevice]") {
    Scene scene = Scene::builtin("cornell-box");
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 8, 1);
    o.devices = {0, 0};
    CHECK_THAT(wftest::inputErrorOf([&] { Renderer r(scene, o); }), Catch::Matchers::Contains("listed twice"));
    o.devices = {-1};
    CHECK_THAT(wftest::inputErrorOf([&] { Renderer r(scene, o); }), Catch::Matchers::Contains("not a device number"));
    if (cudaDeviceCount() > 0) {
        o.backend = Backend::Cuda;
        o.devices = {cudaDeviceCount()};
        CHECK_THAT(wftest::inputErrorOf([&] { Renderer r(scene, o); }), Catch::Matchers::Contains("does not exist"));
    }
}
