// Point, spot and directional lights: their radiance on a Lambertian plane against the analytic
// values in every integrator, their sampling (chi-square), the light choice in proportion to
// power alongside area lights, and bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "host/backends/cpu/cpu_exec.h"
#include "host/device_scene/scene_upload.h"
#include "kernels/scene/light_sample.h"
#include "support/test_support.h"
#include "wavefront/wavefront.h"

using namespace wavefront;

namespace {

constexpr float kAlbedo = 0.5f;

/// A large Lambertian floor at y = 0 seen straight down from (0, 3, 0), lit by `light` alone.
Scene floorUnder(const Light& light) {
    Scene scene;
    TriangleMesh quad;
    quad.positions = {{-100, 0, -100}, {100, 0, -100}, {100, 0, 100}, {-100, 0, 100}};
    quad.indices = {0, 2, 1, 0, 3, 2};
    quad.material = scene.addMaterial(Material::lambertian(glm::vec3(kAlbedo)));
    scene.addMesh(quad);
    scene.addLight(light);
    Camera camera;
    camera.position = glm::vec3(0.0f, 3.0f, 0.0f);
    camera.target = glm::vec3(0.0f);
    camera.up = glm::vec3(0.0f, 0.0f, -1.0f);
    camera.verticalFovDegrees = 70.0f;
    scene.setCamera(camera);
    return scene;
}

/// The image of the floor with the radiance `radiance(p)` of each floor point p, each pixel the
/// mean over 8 x 8 points of its footprint (the camera of floorUnder, a pinhole).
Image expectedImage(int size, float fovDegrees, const std::function<double(glm::vec3)>& radiance) {
    Image img(size, size);
    const double tanHalf = std::tan(0.5 * fovDegrees * 3.14159265358979 / 180.0);
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) {
            double sum = 0.0;
            for (int j = 0; j < 8; ++j)
                for (int i = 0; i < 8; ++i) {
                    double sx = (2.0 * (x + (i + 0.5) / 8.0) / size - 1.0) * tanHalf;
                    double sy = (1.0 - 2.0 * (y + (j + 0.5) / 8.0) / size) * tanHalf;
                    // forward (0, -1, 0), right (1, 0, 0), up (0, 0, -1): the floor at distance 3.
                    glm::vec3 p(float(3.0 * sx), 0.0f, float(-3.0 * sy));
                    sum += radiance(p);
                }
            for (int c = 0; c < 3; ++c) img.rgb[3 * (std::size_t(y) * size + x) + c] = float(sum / 64.0);
        }
    return img;
}

/// Every integrator's image of `scene` against `expected`: the path tracer pixel by pixel over
/// independent seeds (its only noise is where in the pixel a sample lands, large across a spot's
/// edge), BDPT and MLT by their image means over seeds.
void checkAgainstAnalytic(const Scene& scene, const Image& expected, Backend backend) {
    const int size = expected.width;
    RenderOptions pt = wftest::smallRender(IntegratorType::PathTracer, backend, size, 256);
    wftest::PixelStats p = wftest::renderPixelStats(scene, pt, 6, 5);
    double worst = 0.0;
    for (std::size_t i = 0; i < p.mean.size(); ++i)
        worst = std::max(worst, std::fabs(p.mean[i] - expected.rgb[i]) /
                                    (std::sqrt(p.variance[i]) + 1e-3 * expected.rgb[i] + 1e-7));
    INFO(toString(backend) << ": PT's worst pixel is " << worst << " standard errors off the analytic value");
    CHECK(worst < 6.0);
    for (IntegratorType integrator : {IntegratorType::Bdpt, IntegratorType::Mlt}) {
        RenderOptions o = wftest::smallRender(integrator, backend, size, integrator == IntegratorType::Mlt ? 128 : 64);
        wftest::MeanEstimate m = wftest::imageMeanOverSeeds(scene, o, 8, 77);
        const double want = wftest::imageMean(expected);
        INFO(toString(backend) << " " << toString(integrator) << ": image mean " << m.mean << " +- " << m.standardError
                               << ", analytic " << want);
        CHECK(std::fabs(m.mean - want) < 4.5 * m.standardError + 0.002 * want);
    }
}

}  // namespace

TEST_CASE("a point light over a Lambertian plane: radiance rho / pi I cos / r^2", "[lights][gpu]") {
    const glm::vec3 position(0.3f, 1.0f, -0.2f);
    const float I = 2.0f;
    Scene scene = floorUnder(Light::point(position, glm::vec3(I)));
    Image expected = expectedImage(16, 70.0f, [&](glm::vec3 p) {
        glm::vec3 d = position - p;
        double r2 = glm::dot(d, d);
        return kAlbedo / 3.14159265358979 * I * (position.y / std::sqrt(r2)) / r2;
    });
    for (Backend backend : wftest::testBackends()) checkAgainstAnalytic(scene, expected, backend);
}

TEST_CASE("a spot light's cone: full inside, none outside, a smoothstep between", "[lights][gpu]") {
    const glm::vec3 position(0.0f, 1.0f, 0.0f);
    const float I = 3.0f, inner = 20.0f, outer = 40.0f;
    Scene scene = floorUnder(Light::spot(position, glm::vec3(0.0f, -1.0f, 0.0f), glm::vec3(I), inner, outer));
    const double cosInner = std::cos(inner * 3.14159265358979 / 180.0), cosOuter = std::cos(outer * 3.14159265358979 / 180.0);
    Image expected = expectedImage(16, 70.0f, [&](glm::vec3 p) {
        glm::vec3 d = position - p;
        double r2 = glm::dot(d, d), cosTheta = position.y / std::sqrt(r2);
        double t = std::min(1.0, std::max(0.0, (cosTheta - cosOuter) / (cosInner - cosOuter)));
        return kAlbedo / 3.14159265358979 * I * t * t * (3.0 - 2.0 * t) * cosTheta / r2;
    });
    for (Backend backend : wftest::testBackends()) checkAgainstAnalytic(scene, expected, backend);
}

TEST_CASE("a directional light: irradiance E cos theta everywhere", "[lights][gpu]") {
    const float angle = 30.0f * 3.14159265f / 180.0f, E = 1.5f;
    Scene scene = floorUnder(Light::directional(glm::vec3(std::sin(angle), -std::cos(angle), 0.0f), glm::vec3(E)));
    Image expected = expectedImage(16, 70.0f, [&](glm::vec3) { return kAlbedo / 3.14159265358979 * E * std::cos(angle); });
    for (Backend backend : wftest::testBackends()) checkAgainstAnalytic(scene, expected, backend);
}

TEST_CASE("lights are chosen in proportion to power, delta lights beside area lights (chi-square)", "[lights]") {
    Scene scene = floorUnder(Light::point(glm::vec3(0.0f, 1.0f, 0.0f), glm::vec3(1.0f, 2.0f, 0.5f)));
    scene.addLight(Light::spot(glm::vec3(1.0f, 2.0f, 0.0f), glm::vec3(0.0f, -1.0f, 0.0f), glm::vec3(5.0f), 10.0f, 30.0f));
    scene.addLight(Light::directional(glm::vec3(0.0f, -1.0f, 0.2f), glm::vec3(0.3f)));
    scene.addSphere({glm::vec3(0.0f, 2.0f, 1.0f), 0.25f, scene.addMaterial(Material::lambertian(glm::vec3(0.0f), glm::vec3(4.0f)))});
    scene.validate();
    CpuExec exec;
    SceneBuffers<CpuExec> buffers = uploadScene(exec, scene);
    SceneView view = buffers.view(8, 8);
    REQUIRE(view.lights.numAreaLights == 1);
    REQUIRE(view.lights.numLights == 4);
    // The expected weights: area x luminance for the emitter, power / pi for the others.
    auto lum = [](glm::vec3 c) { return 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z; };
    const double pi = 3.14159265358979, radius = buffers.boundingSphere.w;
    std::vector<double> w = {4.0 * pi * 0.25 * 0.25 * lum(glm::vec3(4.0f)), 4.0 * lum(glm::vec3(1.0f, 2.0f, 0.5f)),
                             2.0 * (1.0 - 0.5 * (std::cos(10.0 * pi / 180.0) + std::cos(30.0 * pi / 180.0))) * 5.0,
                             radius * radius * 0.3};
    double total = w[0] + w[1] + w[2] + w[3];
    std::vector<int> counts(4, 0);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
        DistributionSample c = chooseLight(view, u(rng));
        ++counts[c.index];
        CHECK(std::fabs(c.pmf - w[c.index] / total) < 1e-4 * (1.0 + w[c.index] / total));
    }
    double chi2 = 0.0;
    for (int k = 0; k < 4; ++k) {
        double e = n * w[k] / total;
        chi2 += (counts[k] - e) * (counts[k] - e) / e;
    }
    INFO("chi2 " << chi2 << " with 3 dof; counts " << counts[0] << " " << counts[1] << " " << counts[2] << " " << counts[3]);
    CHECK(chi2 < 3.0 + 6.0 * std::sqrt(6.0) + 10.0);
}

TEST_CASE("spot and point emission directions follow their densities (chi-square)", "[lights]") {
    // Directions of light subpaths: uniform on the sphere (point), uniform in the outer cone (spot),
    // binned by cos theta to the axis and by azimuth.
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (float cosMax : {-1.0f, 0.0f, 0.8f, 0.99f}) {
        const int bins = 16, n = 160000;
        std::vector<int> counts(bins * 4, 0);
        for (int i = 0; i < n; ++i) {
            vec3 d = cosMax == -1.0f ? sampleUniformSphere(vec2(u(rng), u(rng))) : sampleUniformCone(vec2(u(rng), u(rng)), cosMax);
            REQUIRE(std::fabs(glm::length(d) - 1.0f) < 1e-4f);
            REQUIRE(d.z >= cosMax - 1e-5f);
            int b = std::min(bins - 1, int((d.z - cosMax) / (1.0f - cosMax) * bins));
            int a = std::min(3, int((std::atan2(d.y, d.x) / (2.0f * kPi) + 0.5f) * 4));
            ++counts[b * 4 + a];
        }
        // Uniform in solid angle: uniform in cos theta and azimuth.
        double chi2 = 0.0, e = double(n) / (bins * 4);
        for (int c : counts) chi2 += (c - e) * (c - e) / e;
        const int dof = bins * 4 - 1;
        INFO("cos max " << cosMax << ": chi2 " << chi2 << " with " << dof << " dof");
        CHECK(chi2 < dof + 6.0 * std::sqrt(2.0 * dof));
    }
}

TEST_CASE("a scene lit only by delta lights is valid, and bad lights are refused with one line", "[lights]") {
    Scene scene = floorUnder(Light::point(glm::vec3(0.0f, 1.0f, 0.0f), glm::vec3(1.0f)));
    CHECK_NOTHROW(scene.validate());
    using wftest::inputErrorOf;
    Scene s;
    const float nan = std::nanf("");
    CHECK_THAT(inputErrorOf([&] { s.addLight(Light::spot(glm::vec3(0.0f), glm::vec3(0, -1, 0), glm::vec3(1.0f), 40.0f, 20.0f)); }),
               Catch::Contains("inner") && Catch::Contains("outer"));
    CHECK_THAT(inputErrorOf([&] { s.addLight(Light::point(glm::vec3(0.0f), glm::vec3(-1.0f))); }), Catch::Contains("intensity"));
    CHECK_THAT(inputErrorOf([&] { s.addLight(Light::point(glm::vec3(0.0f), glm::vec3(nan))); }), Catch::Contains("intensity"));
    CHECK_THAT(inputErrorOf([&] { s.addLight(Light::directional(glm::vec3(0.0f), glm::vec3(1.0f))); }),
               Catch::Contains("direction"));
    CHECK_THAT(inputErrorOf([&] { s.addLight(Light::spot(glm::vec3(0.0f), glm::vec3(nan), glm::vec3(1.0f), 0.0f, 30.0f)); }),
               Catch::Contains("direction"));
    CHECK_THAT(inputErrorOf([&] { s.addLight(Light::point(glm::vec3(1e30f, 0.0f, 0.0f), glm::vec3(1.0f))); }),
               Catch::Contains("position") && Catch::Contains("directional"));
    CHECK(s.lights().empty());
    // The direction is stored normalised.
    Scene t;
    t.addLight(Light::directional(glm::vec3(0.0f, -2.0f, 0.0f), glm::vec3(1.0f)));
    CHECK(t.lights()[0].direction == glm::vec3(0.0f, -1.0f, 0.0f));
}
