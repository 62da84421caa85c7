// Film options (issue 38, item 4): pixel filters normalise (a constant image stays constant, at
// the borders too) and blur what is not constant; Renderer::image() applies the option while the
// film stays box-filtered; PNG tone maps.
#include <catch2/catch.hpp>

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

TEST_CASE("Renderer::image() resolves with the option's filter; the film stays box-filtered", "[film]") {
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
