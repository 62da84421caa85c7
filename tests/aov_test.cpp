// AOVs (issue 38, item 3): first-hit albedo, normal and depth on an analytic scene, the same for
// every integrator; PT's and BDPT's per-pixel variance equals the variance of the passes'
// estimates rendered one by one; the layers survive an EXR round trip.
#include <catch2/catch.hpp>

#include <cmath>

#include "test_support.h"

using namespace wavefront;

namespace {

constexpr float kDistance = 3.0f;
const glm::vec3 kReflectance(0.6f, 0.4f, 0.2f);

/// A diffuse plane z = 0 filling the view of a camera at distance kDistance looking down -z,
/// lit by a point light.
Scene planeScene() {
    Scene s;
    int m = s.addMaterial(Material::lambertian(kReflectance));
    TriangleMesh q;
    q.positions = {{-10, -10, 0}, {10, -10, 0}, {10, 10, 0}, {-10, 10, 0}};
    q.indices = {0, 1, 2, 0, 2, 3};
    q.material = m;
    s.addMesh(q);
    s.addLight(Light::point(glm::vec3(0.5f, 0.5f, 2.0f), glm::vec3(4.0f)));
    Camera c;
    c.position = glm::vec3(0.0f, 0.0f, kDistance);
    c.target = glm::vec3(0.0f);
    c.verticalFovDegrees = 20.0f;
    s.setCamera(c);
    return s;
}

RenderOptions aovOptions(IntegratorType integrator, int size, int spp) {
    RenderOptions o = wftest::smallRender(integrator, Backend::Cpu, size, spp);
    o.cpuThreads = 2;
    o.aovs = true;
    return o;
}

}  // namespace

TEST_CASE("first-hit AOVs of a diffuse plane: its reflectance, its normal, the distance to it", "[aov]") {
    const int size = 16;
    Image firstAlbedo;
    for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt, IntegratorType::Mlt}) {
        INFO(toString(integrator));
        Renderer r(planeScene(), aovOptions(integrator, size, 4));
        r.render();
        AovImages a = r.aovs();
        REQUIRE(a.albedo.width == size);
        REQUIRE(a.depth.height == size);
        const float tanHalf = std::tan(glm::radians(10.0f));
        for (int y = 0; y < size; ++y)
            for (int x = 0; x < size; ++x) {
                for (int c = 0; c < 3; ++c) CHECK(a.albedo.pixel(x, y)[c] == Approx(kReflectance[c]).epsilon(1e-6));
                CHECK(a.normal.pixel(x, y)[2] == Approx(1.0f).epsilon(1e-6));
                // The distance along a ray through the pixel: between those through its corners
                // (the camera samples are jittered inside it).
                float lo = 1e30f, hi = 0.0f;
                for (int corner = 0; corner < 4; ++corner) {
                    glm::vec3 d((2.0f * float(x + corner % 2) / size - 1.0f) * tanHalf,
                                (1.0f - 2.0f * float(y + corner / 2) / size) * tanHalf, -1.0f);
                    lo = std::min(lo, kDistance * glm::length(d));
                    hi = std::max(hi, kDistance * glm::length(d));
                }
                CHECK(a.depth.pixel(x, y)[0] >= lo * (1.0f - 1e-5f));
                CHECK(a.depth.pixel(x, y)[0] <= hi * (1.0f + 1e-5f));
            }
        // One first-hit pass serves every integrator.
        if (firstAlbedo.width == 0) firstAlbedo = a.albedo;
        CHECK(wftest::maxRelativeDifference(a.albedo, firstAlbedo) == 0.0);
        // MLT's passes are states of Markov chains: no variance.
        CHECK((a.variance.width == 0) == (integrator == IntegratorType::Mlt));
    }
}

TEST_CASE("the variance AOV is the variance of the passes' estimates", "[aov]") {
    // Each pass of PT and BDPT is one sample per pixel; render them one by one (firstPass) and
    // form the variance of their mean by hand.
    const Scene scene = Scene::builtin("cornell-spheres");
    for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt}) {
        INFO(toString(integrator));
        const int size = 12, passes = 5;
        RenderOptions o = aovOptions(integrator, size, passes);
        o.seed = 3;
        Renderer r(scene, o);
        r.render();
        const Image variance = r.aovs().variance;
        REQUIRE(variance.width == size);
        std::vector<Image> each;
        for (int k = 0; k < passes; ++k) {
            RenderOptions one = o;
            one.aovs = false;
            one.samplesPerPixel = 1;
            one.firstPass = std::uint64_t(k);
            each.push_back(wftest::renderImage(scene, one));
        }
        double largest = 0.0, worst = 0.0;
        for (std::size_t i = 0; i < variance.rgb.size(); ++i) {
            double s1 = 0, s2 = 0;
            for (const Image& e : each) {
                s1 += e.rgb[i];
                s2 += double(e.rgb[i]) * e.rgb[i];
            }
            const double expected = std::max(0.0, (s2 - s1 * s1 / passes) / (passes - 1)) / passes;
            largest = std::max(largest, expected);
            worst = std::max(worst, std::fabs(expected - variance.rgb[i]) / std::max(expected, 1e-4));
        }
        CHECK(largest > 1e-3);  // the scene is noisy at this sample count
        CHECK(worst < 1e-3);
        // Another render call starts the moments afresh; renderMore adds passes to them.
        r.renderMore(2);
        CHECK(r.film().variancePasses == passes + 2u);
        CHECK(r.film().aovPasses == passes + 2u);
    }
}

TEST_CASE("AOVs are written as layers of one EXR and read back", "[aov]") {
    Renderer r(planeScene(), aovOptions(IntegratorType::PathTracer, 10, 3));
    r.render();
    const AovImages a = r.aovs();
    wftest::TempDir dir;
    const std::string path = dir.file("layers.exr");
    CHECK(writeImageWithAovs(path, r.image(), a) == 0u);
    CHECK(wftest::maxRelativeDifference(readImage(path), r.image()) == 0.0);
    CHECK(wftest::maxRelativeDifference(readImageLayer(path, "albedo"), a.albedo) == 0.0);
    CHECK(wftest::maxRelativeDifference(readImageLayer(path, "normal"), a.normal) == 0.0);
    CHECK(wftest::maxRelativeDifference(readImageLayer(path, "depth"), a.depth) == 0.0);
    CHECK(wftest::maxRelativeDifference(readImageLayer(path, "variance"), a.variance) == 0.0);
    CHECK_THAT(wftest::inputErrorOf([&] { writeImageWithAovs(dir.file("x.png"), r.image(), a); }),
               Catch::Contains("only .exr holds layers"));
    CHECK_THAT(wftest::inputErrorOf([&] { readImageLayer(path, "colour"); }), Catch::Contains("unknown AOV layer"));
    // Without the option the film has none.
    Renderer plain(planeScene(), wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 10, 1));
    plain.render();
    CHECK(plain.aovs().albedo.width == 0);
}
