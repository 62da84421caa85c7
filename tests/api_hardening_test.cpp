// Issue 58, the API part: calls a host program can make against the public headers that crashed,
// overflowed or kept memory without bound are refused with one InputError or made to work.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "test_support.h"

using namespace wavefront;

TEST_CASE("filterImage and writeImageWithAovs refuse pixel buffers shorter than the image", "[hardening][film]") {
    Image shortBuffer(64, 48);
    shortBuffer.rgb.resize(shortBuffer.rgb.size() / 2);  // was read past its end (4096 x 4096: SIGSEGV)
    for (PixelFilter f : {PixelFilter::Box, PixelFilter::Gaussian, PixelFilter::Mitchell}) {
        INFO(toString(f));
        CHECK_THAT(wftest::inputErrorOf([&] { filterImage(shortBuffer, f); }), Catch::Contains("pixel buffer holds"));
    }
    Image negative;
    negative.width = -3;
    negative.height = 2;
    CHECK_THAT(wftest::inputErrorOf([&] { filterImage(negative, PixelFilter::Gaussian); }), Catch::Contains("negative"));
    CHECK(filterImage(Image(), PixelFilter::Gaussian).rgb.empty());  // an empty image stays empty

    wftest::TempDir dir;
    Image colour(64, 48);
    AovImages aovs;
    aovs.albedo = Image(64, 48);
    aovs.depth = shortBuffer;  // as large as the image by its fields, not by its buffer
    CHECK_THAT(wftest::inputErrorOf([&] { writeImageWithAovs(dir.file("a.exr"), colour, aovs); }),
               Catch::Contains("depth layer") && Catch::Contains("pixel buffer holds"));
    aovs.depth = Image(64, 48);
    aovs.depth.rgb.resize(aovs.depth.rgb.size() + 3);  // a longer one is refused too
    CHECK_THAT(wftest::inputErrorOf([&] { writeImageWithAovs(dir.file("a.exr"), colour, aovs); }),
               Catch::Contains("pixel buffer holds"));
    aovs.depth = Image(64, 48);
    CHECK(writeImageWithAovs(dir.file("a.exr"), colour, aovs) == 0u);
}

TEST_CASE("a BDPT strategy whose path length overflows int is refused by validate", "[hardening][bdpt]") {
    RenderOptions o = wftest::smallRender(IntegratorType::Bdpt, Backend::Cpu, 8, 1);
    for (auto [s, t] : {std::pair{INT_MAX, 2}, std::pair{2, INT_MAX}, std::pair{INT_MAX, INT_MAX}}) {
        INFO(s << "," << t);
        o.bdpt.strategyS = s;
        o.bdpt.strategyT = t;  // INT_MAX,2 passed (s + t - 1 wrapped negative) and rendered black
        CHECK_THAT(wftest::inputErrorOf([&] { o.validate(); }), Catch::Contains("more than the max depth"));
    }
    o.bdpt.strategyS = 1;
    o.bdpt.strategyT = 2;
    o.validate();
}

TEST_CASE("edits without a render are kept as one merged entry per thing edited", "[hardening][edit]") {
    Renderer r(Scene::builtin("cornell-box"), wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 8, 1));
    r.render();
    const Camera camera = r.scene().camera();
    const Material material = r.scene().materials()[0];
    // A record per edit grew without bound: 4 M edits without a render kept 425 MB.
    std::uint64_t bytes = 0;
    for (int i = 0; i < 20000; ++i) bytes += r.setCamera(camera).bytesUploaded;
    r.setMaterial(0, material, EditMode::Accumulate);
    r.setMaterial(0, material, EditMode::Accumulate);
    r.setCamera(camera, EditMode::Accumulate);
    r.render();
    const std::vector<EditStats>& edits = r.stats().edits;
    REQUIRE(edits.size() == 2);
    CHECK(edits[0].what == "camera");
    CHECK(edits[0].count == 20001u);
    CHECK(edits[0].bytesUploaded >= bytes);
    CHECK(edits[0].filmReset);  // any reset among the merged edits
    CHECK(edits[1].what == "material 0");
    CHECK(edits[1].count == 2u);
    CHECK_FALSE(edits[1].filmReset);
    r.render();
    CHECK(r.stats().edits.empty());
}
