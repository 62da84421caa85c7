// Issue 15's scene and what it needs: the RTIOW final scene rebuilt from its published
// construction, the procedural sky, and the path tracer without next-event estimation.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/core/sampler.h"
#include "kernels/lights/environment.h"
#include "test_support.h"

using namespace wavefront;
using Catch::Matchers::Contains;

namespace {

constexpr double kPiD = 3.14159265358979323846;

/// A diffuse sphere (albedo 1/2) on a floor quad, a rough metal sphere and a glass sphere, lit
/// only by the procedural sky: small, so that BDPT's light subpaths from the sky find it often.
Scene skyScene() {
    Scene scene;
    TriangleMesh floor;
    floor.positions = {{-3.0f, 0.0f, -3.0f}, {3.0f, 0.0f, -3.0f}, {3.0f, 0.0f, 3.0f}, {-3.0f, 0.0f, 3.0f}};
    floor.indices = {0, 2, 1, 0, 3, 2};  // counter-clockwise seen from above
    floor.material = scene.addMaterial(Material::lambertian(glm::vec3(0.6f)));
    scene.addMesh(floor);
    scene.addSphere(Sphere{glm::vec3(-1.1f, 0.5f, 0.0f), 0.5f, scene.addMaterial(Material::lambertian(glm::vec3(0.5f)))});
    scene.addSphere(Sphere{glm::vec3(0.0f, 0.5f, 0.3f), 0.5f,
                           scene.addMaterial(Material::conductor(glm::vec3(0.9f, 0.7f, 0.5f), 0.1f))});
    scene.addSphere(Sphere{glm::vec3(1.1f, 0.5f, 0.0f), 0.5f, scene.addMaterial(Material::dielectric(1.5f))});
    scene.setSkyGradient(SkyGradient{});
    Camera camera;
    camera.position = glm::vec3(0.0f, 1.5f, 4.5f);
    camera.target = glm::vec3(0.0f, 0.4f, 0.0f);
    camera.verticalFovDegrees = 40.0f;
    scene.setCamera(camera);
    return scene;
}

RenderOptions ptOptions(int width, int height, int spp, int maxDepth, bool nee) {
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, width, spp);
    o.height = height;
    o.maxDepth = maxDepth;
    o.pt.nextEventEstimation = nee;
    return o;
}

double zOf(const wftest::MeanEstimate& a, const wftest::MeanEstimate& b) {
    double se = std::sqrt(a.standardError * a.standardError + b.standardError * b.standardError);
    return se > 0.0 ? std::fabs(a.mean - b.mean) / se : 0.0;
}

}  // namespace

TEST_CASE("rtiow-final has the reference's 488 spheres: 389 diffuse, 74 metal (73 fuzzy), 25 glass", "[scene][rtiow]") {
    Scene scene = Scene::builtin("rtiow-final");
    REQUIRE(scene.spheres().size() == 488);
    CHECK(scene.triangles().empty());
    int diffuse = 0, metal = 0, fuzzy = 0, glass = 0;
    for (const Sphere& s : scene.spheres()) {
        const Material& m = scene.materials()[s.material];
        diffuse += m.type == MaterialType::Lambertian;
        metal += m.type == MaterialType::Conductor;
        fuzzy += m.type == MaterialType::Conductor && m.roughness > 0.0f;
        glass += m.type == MaterialType::Dielectric && m.ior == 1.5f;
    }
    CHECK(diffuse == 389);
    CHECK(metal == 74);
    CHECK(fuzzy == 73);
    CHECK(glass == 25);

    // Values from an independent implementation of the reference's generator (a Python script;
    // docs/decisions.md): the first small sphere, the first metal one (the 9th), the first glass
    // one (the 19th) and the last one. Index 0 is the ground.
    auto near = [](glm::vec3 a, glm::vec3 b) { return glm::length(a - b) < 1e-5f; };
    const std::vector<Sphere>& sp = scene.spheres();
    CHECK(near(sp[1].center, glm::vec3(-10.029826f, 0.2f, -10.268146f)));
    CHECK(near(scene.materials()[sp[1].material].diffuse, glm::vec3(0.71882197f, 0.65818764f, 0.98984769f)));
    const Material& firstMetal = scene.materials()[sp[1 + 8].material];
    CHECK(near(sp[1 + 8].center, glm::vec3(-10.738838f, 0.2f, -2.5199704f)));
    CHECK(firstMetal.type == MaterialType::Conductor);
    CHECK(near(firstMetal.specular, glm::vec3(0.93671659f, 0.89259708f, 0.87008414f)));
    CHECK(firstMetal.roughness == Approx(0.3f * 0.014381826f));
    CHECK(near(sp[1 + 18].center, glm::vec3(-10.990356f, 0.2f, 7.1649747f)));
    CHECK(scene.materials()[sp[1 + 18].material].type == MaterialType::Dielectric);
    CHECK(near(sp[484].center, glm::vec3(10.775454f, 0.2f, 10.885999f)));
    CHECK(near(scene.materials()[sp[484].material].diffuse, glm::vec3(0.93421474f, 0.23822799f, 0.73462451f)));

    CHECK(sp[0].center == glm::vec3(0.0f, -1000.0f, -1.0f));
    CHECK(scene.hasSkyGradient());
    CHECK(scene.camera().position == glm::vec3(13.0f, 2.0f, 3.0f));
    CHECK(scene.camera().lensRadius == 0.0f);
}

TEST_CASE("the procedural sky's radiance is mix(nadir, zenith, (d.y + 1) / 2)", "[environment][rtiow]") {
    EnvironmentView sky;
    sky.gradient = true;
    sky.nadir = vec3(1.0f);
    sky.zenith = vec3(0.5f, 0.7f, 1.0f);
    REQUIRE(sky.present());
    for (vec3 d : {vec3(0, 1, 0), vec3(0, -1, 0), vec3(1, 0, 0), glm::normalize(vec3(0.3f, 0.8f, -0.5f)),
                   glm::normalize(vec3(-0.2f, -0.6f, 0.7f))}) {
        float t = 0.5f * (d.y + 1.0f);
        vec3 expected = (1.0f - t) * vec3(1.0f) + t * vec3(0.5f, 0.7f, 1.0f);
        INFO("d = " << d.x << ", " << d.y << ", " << d.z);
        CHECK(glm::length(sky.radiance(d) - expected) < 1e-6f);
    }
    CHECK(sky.radiance(vec3(0, 1, 0)) == vec3(0.5f, 0.7f, 1.0f));
    CHECK(sky.radiance(vec3(0, -1, 0)) == vec3(1.0f));

    // Seen straight through the camera (weight 1, no bounce), with and without next-event
    // estimation: a camera looking along +x sees the horizon, t = 1/2.
    Scene scene;
    scene.addSphere(Sphere{glm::vec3(-50.0f, 0.0f, 0.0f), 1.0f, scene.addMaterial(Material::lambertian(glm::vec3(0.5f)))});
    scene.setSkyGradient(SkyGradient{});
    Camera camera;
    camera.position = glm::vec3(0.0f);
    camera.target = glm::vec3(1.0f, 0.0f, 0.0f);
    camera.verticalFovDegrees = 1.0f;
    scene.setCamera(camera);
    for (bool nee : {true, false}) {
        Image img = wftest::renderImage(scene, ptOptions(9, 9, 4, 4, nee));
        INFO("nee " << nee);
        CHECK(img.pixel(4, 4)[0] == Approx(0.75f).epsilon(1e-3));
        CHECK(img.pixel(4, 4)[1] == Approx(0.85f).epsilon(1e-3));
        CHECK(img.pixel(4, 4)[2] == Approx(1.0f).epsilon(1e-3));
    }
}

TEST_CASE("the procedural sky's samples match its pdf and integrate its radiance", "[environment][rtiow]") {
    EnvironmentView sky;
    sky.gradient = true;
    sky.nadir = vec3(1.0f, 0.9f, 0.2f);
    sky.zenith = vec3(0.5f, 0.7f, 3.0f);
    const int n = 400000, yBins = 16, phiBins = 8;
    std::vector<double> counts(yBins * phiBins, 0.0);
    double sum[3] = {0.0, 0.0, 0.0};
    int pdfMismatch = 0, radianceMismatch = 0, notUnit = 0;
    HashSampler rng(11);
    for (int i = 0; i < n; ++i) {
        EnvironmentView::Sample s = sky.sample(rng.get2(std::uint64_t(i), 0));
        vec3 d = s.direction;
        if (std::fabs(glm::length(d) - 1.0f) > 1e-5f) ++notUnit;
        if (s.pdf != sky.pdf(d)) ++pdfMismatch;
        if (glm::length(s.radiance - sky.radiance(d)) > 1e-6f) ++radianceMismatch;
        for (int c = 0; c < 3; ++c) sum[c] += double(s.radiance[c]) / s.pdf;
        // Uniform on the sphere: y uniform in [-1, 1] (Archimedes) and phi uniform.
        int yb = glm::clamp(int((d.y + 1.0f) * 0.5f * yBins), 0, yBins - 1);
        double phi = std::atan2(double(d.z), double(d.x)) + kPiD;
        int pb = glm::clamp(int(phi / (2.0 * kPiD) * phiBins), 0, phiBins - 1);
        counts[yb * phiBins + pb] += 1.0;
    }
    CHECK(notUnit == 0);
    CHECK(pdfMismatch == 0);
    CHECK(radianceMismatch == 0);
    double expected = double(n) / (yBins * phiBins), chi2 = 0.0;
    for (double c : counts) chi2 += (c - expected) * (c - expected) / expected;
    const int dof = yBins * phiBins - 1;
    INFO("chi2 " << chi2 << " with " << dof << " degrees of freedom");
    CHECK(chi2 < dof + 6.0 * std::sqrt(2.0 * dof));
    // The integral over the sphere: t = (y + 1) / 2 averages 1/2, so 4 pi (nadir + zenith) / 2.
    for (int c = 0; c < 3; ++c) {
        double integral = 2.0 * kPiD * (double(sky.nadir[c]) + double(sky.zenith[c]));
        INFO("channel " << c);
        CHECK(sum[c] / n == Approx(integral).epsilon(0.01));
    }
}

TEST_CASE("a constant procedural sky around a diffuse sphere gives a L, with and without NEE, PT and BDPT",
          "[environment][rtiow][analytic]") {
    Scene scene;
    scene.addSphere(Sphere{glm::vec3(0.0f), 1.0f, scene.addMaterial(Material::lambertian(glm::vec3(0.5f)))});
    scene.setSkyGradient(SkyGradient{glm::vec3(2.0f), glm::vec3(2.0f)});
    Camera cam;
    cam.position = glm::vec3(0.0f, 0.0f, 4.0f);
    cam.target = glm::vec3(0.0f);
    cam.verticalFovDegrees = 40.0f;
    scene.setCamera(cam);
    auto regionMean = [](const Image& img, int x0, int y0, int size) {
        double s = 0.0;
        for (int y = y0; y < y0 + size; ++y)
            for (int x = x0; x < x0 + size; ++x)
                for (int c = 0; c < 3; ++c) s += img.pixel(x, y)[c];
        return s / (3.0 * size * size);
    };
    for (int run = 0; run < 3; ++run) {
        RenderOptions o = ptOptions(32, 32, 64, 16, run != 1);
        if (run == 2) o.integrator = IntegratorType::Bdpt;
        INFO((run == 2 ? "BDPT" : run == 0 ? "PT, NEE on" : "PT, NEE off"));
        Image img = wftest::renderImage(scene, o);
        CHECK(regionMean(img, 12, 12, 8) == Approx(0.5 * 2.0).epsilon(0.02));
        CHECK(regionMean(img, 0, 0, 3) == Approx(2.0).epsilon(1e-4));
    }
    // The environment scale multiplies the sky as it does an image.
    RenderOptions o = ptOptions(32, 32, 16, 16, true);
    o.environmentScale = 0.5f;
    CHECK(regionMean(wftest::renderImage(scene, o), 0, 0, 3) == Approx(1.0).epsilon(1e-4));
}

TEST_CASE("path tracing with next-event estimation on and off agrees on rtiow-final", "[pt][rtiow][statistical]") {
    Scene scene = Scene::builtin("rtiow-final");
    const int seeds = 8;
    RenderOptions on = ptOptions(32, 18, 8, 16, true), off = ptOptions(32, 18, 8, 16, false);
    wftest::MeanEstimate a = wftest::imageMeanOverSeeds(scene, on, seeds, 100);
    wftest::MeanEstimate b = wftest::imageMeanOverSeeds(scene, off, seeds, 200);
    INFO("image means: NEE on " << a.mean << " +- " << a.standardError << ", off " << b.mean << " +- " << b.standardError);
    CHECK(a.mean > 0.3);
    CHECK(zOf(a, b) < 4.5);
    // Off means no shadow rays at all.
    RenderStats stats;
    wftest::renderImage(scene, off, &stats);
    CHECK(stats.shadowRays == 0);
    CHECK(stats.extensionRays > 0);
}

TEST_CASE("PT and BDPT agree under the procedural sky", "[bdpt][rtiow][environment][statistical]") {
    Scene scene = skyScene();
    const int seeds = 8, block = 8;
    RenderOptions pt = ptOptions(24, 24, 32, 8, true);
    RenderOptions ptOff = ptOptions(24, 24, 32, 8, false);
    RenderOptions bdpt = ptOptions(24, 24, 8, 8, true);
    bdpt.integrator = IntegratorType::Bdpt;
    wftest::BlockStats a = wftest::renderBlockStats(scene, pt, seeds, block, 100);
    wftest::BlockStats b = wftest::renderBlockStats(scene, bdpt, seeds, block, 200);
    wftest::BlockStats c = wftest::renderBlockStats(scene, ptOff, seeds, block, 300);
    INFO("worst block z: BDPT vs PT " << wftest::maxZScore(a, b) << ", PT NEE off vs on " << wftest::maxZScore(a, c)
                                      << "; image-mean z " << wftest::imageMeanZScore(a, b) << ", "
                                      << wftest::imageMeanZScore(a, c));
    CHECK(wftest::maxZScore(a, b) < 6.0);
    CHECK(wftest::imageMeanZScore(a, b) < 4.5);
    CHECK(wftest::maxZScore(a, c) < 6.0);
    CHECK(wftest::imageMeanZScore(a, c) < 4.5);
}

TEST_CASE("next-event estimation off is refused outside the path tracer, and bad sky colours are refused",
          "[rtiow]") {
    RenderOptions o = ptOptions(8, 8, 1, 4, false);
    CHECK_NOTHROW(o.validate());
    o.integrator = IntegratorType::Bdpt;
    CHECK_THAT(wftest::inputErrorOf([&] { o.validate(); }), Contains("--nee off") && Contains("does not apply to integrator bdpt"));
    o.integrator = IntegratorType::Mlt;
    CHECK_THAT(wftest::inputErrorOf([&] { o.validate(); }), Contains("--nee off") && Contains("does not apply to integrator mlt"));

    Scene scene;
    CHECK_THAT(wftest::inputErrorOf([&] { scene.setSkyGradient(SkyGradient{glm::vec3(-1.0f), glm::vec3(1.0f)}); }),
               Contains("sky gradient"));
    CHECK_THAT(wftest::inputErrorOf([&] { scene.setSkyGradient(SkyGradient{glm::vec3(1.0f), glm::vec3(NAN)}); }),
               Contains("sky gradient"));
    CHECK(!scene.hasEnvironment());
    // The sky and an environment image replace each other.
    scene.setSkyGradient(SkyGradient{});
    CHECK(scene.hasEnvironment());
    Image image(4, 2);
    scene.setEnvironment(image);
    CHECK(!scene.hasSkyGradient());
    CHECK(scene.hasEnvironment());
    scene.setSkyGradient(SkyGradient{});
    CHECK(scene.environment().width == 0);
}
