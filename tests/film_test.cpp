// Film options (issue 38, item 4): pixel filters normalise (a constant image stays constant, at
// the borders too) and blur what is not constant; Renderer::image() applies the option while the
// film stays box-filtered; PNG tone maps.
#include <catch2/catch.hpp>

#if defined(WAVEFRONT_HAS_CUDA)
#include <cuda_runtime_api.h>
#endif

#include "test_support.h"

using namespace wavefront;

TEST_CASE("pixel filters keep a constant image constant and spread a point", "[film]") {
    Image flat(9, 7);
    for (float& v : flat.rgb) v = 0.37f;
    Image point(11, 11);  // the point's spread (2 pixels each way) meets no border
    point.pixel(5, 5)[1] = 1.0f;
    for (PixelFilter f : {PixelFilter::Box, PixelFilter::Gaussian, PixelFilter::Mitchell}) {
        INFO(toString(f));
        Image g = filterImage(flat, f);
        for (float v : g.rgb) CHECK(v == Approx(0.37f).epsilon(1e-6));
        Image p = filterImage(point, f);
        double total = 0.0;
        for (int y = 0; y < 11; ++y)
            for (int x = 0; x < 11; ++x) total += p.pixel(x, y)[1];
        CHECK(total == Approx(1.0).epsilon(1e-5));  // the weights sum to 1 away from the borders
        if (f == PixelFilter::Box) CHECK(p.pixel(5, 5)[1] == 1.0f);
        else {
            CHECK(p.pixel(5, 5)[1] < 0.9f);
            CHECK(p.pixel(6, 5)[1] > 0.0f);
        }
    }
    // Mitchell's negative lobe: two pixels away the weight is negative.
    CHECK(filterImage(point, PixelFilter::Mitchell).pixel(7, 5)[1] < 0.0f);
    CHECK_THAT(wftest::inputErrorOf([&] { filterImage(flat, PixelFilter(9)); }), Catch::Contains("PixelFilter"));
}

TEST_CASE("Renderer::image() resolves with the option's filter, the film stays box-filtered", "[film]") {
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 12, 2);
    o.filter = PixelFilter::Gaussian;
    Renderer r(Scene::builtin("cornell-box"), o);
    r.render();
    CHECK(wftest::maxRelativeDifference(r.image(), filterImage(r.film().resolve(), PixelFilter::Gaussian)) == 0.0);
    CHECK(wftest::maxRelativeDifference(r.image(), r.film().resolve()) > 1e-3);
    o.filter = PixelFilter(5);
    CHECK_THAT(wftest::inputErrorOf([&] { o.validate(); }), Catch::Contains("PixelFilter"));
}

TEST_CASE("PNG tone maps: Reinhard and ACES keep highlights below white", "[film]") {
    Image img(2, 1);
    img.pixel(0, 0)[0] = 0.5f;
    img.pixel(1, 0)[0] = 4.0f;
    wftest::TempDir dir;
    for (ToneMap t : {ToneMap::Clamp, ToneMap::Reinhard, ToneMap::Aces}) CHECK(writeImage(dir.file("t.png"), img, 0.0f, t) == 0u);
    CHECK(parseToneMap("ACES") == ToneMap::Aces);
    CHECK_THAT(wftest::inputErrorOf([&] { parseToneMap("filmic"); }), Catch::Contains("unknown tone map"));
    CHECK_THAT(wftest::inputErrorOf([&] { writeImage(dir.file("t.png"), img, 0.0f, ToneMap(7)); }), Catch::Contains("ToneMap"));
}

TEST_CASE("deviceImage() is film().resolve() where the backend keeps the film, crop windows too", "[film][gpu]") {
    const Scene scene = Scene::builtin("cornell-box");
    for (Backend backend : wftest::testBackends()) {
        for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Mlt}) {
            INFO(toString(backend) << " " << toString(integrator));
            RenderOptions o = wftest::smallRender(integrator, backend, 24, 4);
            if (integrator == IntegratorType::PathTracer) o.crop = CropWindow{3, 5, 20, 17};
            o.devices = {0};
            Renderer r(scene, o);
            DeviceImage before = r.deviceImage();  // an empty film: black
            CHECK(before.onDevice == (backend == Backend::Cuda));
            Image black = copyToHost(before);
            CHECK(std::all_of(black.rgb.begin(), black.rgb.end(), [](float v) { return v == 0.0f; }));
            r.render();
            DeviceImage d = r.deviceImage();
            CHECK(d.width == o.filmWidth());
            CHECK(d.height == o.filmHeight());
            const Image resolved = r.film().resolve();
            CHECK(copyToHost(d).rgb == resolved.rgb);  // the same function, bit for bit
            CHECK(wftest::imageMean(resolved) > 0.0);
        }
    }
}

TEST_CASE("deviceImage() and a host CUDA stream: what they refuse", "[film]") {
    const Scene scene = Scene::builtin("cornell-box");
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 8, 1);
    o.filter = PixelFilter::Mitchell;
    Renderer filtered(scene, o);
    CHECK_THAT(wftest::inputErrorOf([&] { filtered.deviceImage(); }),
               Catch::Contains("box filter only") && Catch::Contains("mitchell"));
    o.filter = PixelFilter::Box;
    o.devices = {0, 1};
    Renderer split(scene, o);
    split.render();
    CHECK_THAT(wftest::inputErrorOf([&] { split.deviceImage(); }), Catch::Contains("single device"));
    int stream = 0;  // any non-null pointer: refused before it is used
    o.devices = {};
    o.cudaStream = &stream;
    CHECK_THAT(wftest::inputErrorOf([&] { Renderer r(scene, o); }), Catch::Contains("CUDA backend"));
    o.backend = Backend::Cuda;
    o.devices = {0, 1};
    CHECK_THAT(wftest::inputErrorOf([&] { Renderer r(scene, o); }), Catch::Contains("one device"));
    CHECK_THAT(wftest::inputErrorOf([&] { copyToHost(DeviceImage{}); }), Catch::Contains("empty"));
}

TEST_CASE("a renderer on a host's CUDA stream: its renders and deviceImage() are ordered on it", "[film][gpu]") {
#if defined(WAVEFRONT_HAS_CUDA)
    if (cudaDeviceCount() == 0) return;
    int current = 0;
    REQUIRE(cudaGetDevice(&current) == cudaSuccess);
    cudaStream_t stream = nullptr;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    {
        RenderOptions o = wftest::smallRender(IntegratorType::Bdpt, Backend::Cuda, 32, 4);
        o.devices = {current};
        o.cudaStream = stream;
        Renderer r(Scene::builtin("cornell-box"), o);
        r.render();
        r.renderMore(2);
        DeviceImage d = r.deviceImage();
        CHECK(d.onDevice);
        // The host's own work on its stream after deviceImage() sees the image: a copy there.
        std::vector<float> viaStream(std::size_t(3) * d.width * d.height);
        REQUIRE(cudaMemcpyAsync(viaStream.data(), d.rgb, viaStream.size() * sizeof(float), cudaMemcpyDeviceToHost,
                                stream) == cudaSuccess);
        REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
        CHECK(viaStream == r.film().resolve().rgb);
        // The same render on the renderer's own stream gives the same film.
        o.cudaStream = nullptr;
        Renderer own(Scene::builtin("cornell-box"), o);
        own.render();
        own.renderMore(2);
        CHECK(wftest::maxRelativeDifference(own.image(), r.image()) == 0.0);
    }
    // The renderer has not destroyed the host's stream.
    CHECK(cudaStreamQuery(stream) == cudaSuccess);
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
#endif
}
