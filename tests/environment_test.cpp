// Environment-map light: analytic radiance, and sampling that matches its pdf.
#include <catch2/catch.hpp>

#include "host/backends/cpu/cpu_exec.h"
#include "host/device_scene/environment_buffers.h"
#include "kernels/core/sampler.h"
#include "test_support.h"

using namespace wavefront;

namespace {

/// A diffuse sphere (albedo 0.5) in front of the camera, no emitters: only the environment lights it.
Scene diffuseSphereScene() {
    Scene scene;
    int grey = scene.addMaterial(Material::lambertian(glm::vec3(0.5f)));
    scene.addSphere(Sphere{glm::vec3(0.0f), 1.0f, grey});
    Camera cam;
    cam.position = glm::vec3(0.0f, 0.0f, 4.0f);
    cam.target = glm::vec3(0.0f);
    cam.verticalFovDegrees = 40.0f;
    scene.setCamera(cam);
    return scene;
}

double regionMean(const Image& img, int x0, int y0, int size) {
    double s = 0.0;
    for (int y = y0; y < y0 + size; ++y)
        for (int x = x0; x < x0 + size; ++x)
            for (int c = 0; c < 3; ++c) s += img.pixel(x, y)[c];
    return s / (3.0 * size * size);
}

void checkConstantEnvironment(Backend backend) {
    wftest::TempDir dir;
    Image env(16, 8);
    for (float& v : env.rgb) v = 1.0f;
    std::string path = dir.file("constant.pfm");
    writeImage(path, env);
    for (LightSampler sampler : {LightSampler::BinarySearch, LightSampler::Alias}) {
        RenderOptions o;
        o.backend = backend;
        o.width = o.height = 32;
        o.samplesPerPixel = 64;
        o.environmentMap = path;
        o.environmentScale = 2.0f;
        o.lightSampler = sampler;
        Renderer r(diffuseSphereScene(), o);
        r.render();
        Image img = r.image();
        INFO(toString(sampler));
        CHECK(r.stats().nonFiniteSamples == 0);
        // A convex diffuse object under a uniform environment L reflects exactly a L.
        CHECK(regionMean(img, 12, 12, 8) == Approx(0.5 * 2.0).epsilon(0.02));
        CHECK(regionMean(img, 0, 0, 3) == Approx(2.0).epsilon(1e-4));  // background seen directly
    }
}

}  // namespace

TEST_CASE("a constant environment around a diffuse sphere gives a L", "[environment][analytic][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    checkConstantEnvironment(backend);
}

TEST_CASE("environment sampling matches its pdf (chi-square) and reports it consistently", "[environment]") {
    const int w = 16, h = 8;
    std::vector<float> rgb(std::size_t(w) * h * 3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c)
                rgb[(std::size_t(y) * w + x) * 3 + c] = 0.1f + x * 0.05f + (x == 11 && y == 2 ? 30.0f : 0.0f) + (y == 0 ? 2.0f : 0.0f);
    for (LightSampler sampler : {LightSampler::BinarySearch, LightSampler::Alias}) {
        CpuExec exec;
        EnvironmentBuffers<CpuExec> env;
        env.build(exec, rgb, w, h, sampler);
        EnvironmentView view = env.view();
        const int n = 1000000;
        std::vector<double> counts(std::size_t(w) * h, 0.0);
        HashSampler rng(7);
        int pdfMismatch = 0;
        for (int i = 0; i < n; ++i) {
            EnvironmentView::Sample s = view.sample(rng.get2(std::uint64_t(i), 0));
            int x, y;
            view.texel(s.direction, x, y);
            counts[std::size_t(y) * w + x] += 1.0;
            float p = view.pdf(s.direction);
            if (std::fabs(p - s.pdf) > 1e-3f * s.pdf) ++pdfMismatch;
        }
        double chi2 = 0.0;
        int bins = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                double expected = n * double(view.marginal.probability(0, y)) * view.conditional.probability(y, x);
                if (expected < 5.0) continue;
                double d = counts[std::size_t(y) * w + x] - expected;
                chi2 += d * d / expected;
                ++bins;
            }
        int dof = bins - 1;
        INFO(toString(sampler) << ": chi2 " << chi2 << " with " << dof << " degrees of freedom");
        CHECK(chi2 < dof + 6.0 * std::sqrt(2.0 * dof));
        // A texel boundary can round either way for a handful of samples; the pdf must agree elsewhere.
        CHECK(pdfMismatch < n / 100000);
    }
}

TEST_CASE("a scene's own environment renders as the same image given as a file", "[environment]") {
    // A gradient image with a bright spot: the same texels through Scene::setEnvironment (times a
    // scale) and through RenderOptions::environmentMap (times environmentScale) give the same film.
    wftest::TempDir dir;
    Image env(32, 16);
    for (int y = 0; y < env.height; ++y)
        for (int x = 0; x < env.width; ++x)
            for (int c = 0; c < 3; ++c) env.pixel(x, y)[c] = 0.2f + 0.05f * y + (x == 5 && y == 3 ? 40.0f : 0.0f) + 0.1f * c;
    std::string path = dir.file("gradient.pfm");
    writeImage(path, env);
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 16, 8);
    o.environmentMap = path;
    o.environmentScale = 3.0f;
    Image fromFile = wftest::renderImage(diffuseSphereScene(), o);
    o.environmentMap.clear();
    o.environmentScale = 1.0f;
    Scene scene = diffuseSphereScene();
    scene.setEnvironment(env, 3.0f);
    Image fromScene = wftest::renderImage(scene, o);
    REQUIRE(fromFile.rgb.size() == fromScene.rgb.size());
    CHECK(fromFile.rgb == fromScene.rgb);
    CHECK(wftest::imageMean(fromScene) > 0.5);
    // environmentScale multiplies the scene's own environment too.
    o.environmentScale = 2.0f;
    Image doubled = wftest::renderImage(scene, o);
    CHECK(wftest::imageMean(doubled) == Approx(2.0 * wftest::imageMean(fromScene)).epsilon(1e-5));

    Image bad = env;
    bad.rgb[7] = -1.0f;
    CHECK(wftest::inputErrorOf([&] { scene.setEnvironment(bad); }).find("negative or non-finite") != std::string::npos);
    Image huge = env;
    huge.rgb[7] = 3e38f;
    CHECK(wftest::inputErrorOf([&] { scene.setEnvironment(huge, 10.0f); }).find("beyond the float range") != std::string::npos);
    CHECK(wftest::inputErrorOf([&] { scene.setEnvironment(Image()); }).find("empty") != std::string::npos);
    // No emitter and no environment: the error names both ways to light the scene.
    CHECK(wftest::inputErrorOf([&] { Renderer r(diffuseSphereScene(), o); }).find("no emitter") != std::string::npos);
}
