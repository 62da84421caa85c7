// PT, BDPT and MLT on what BDPT and MLT once refused (issue 13): environment maps (alone and with
// an area light), a thin-lens camera, and shading normals far from the geometric ones; and
// analytic scenes under a constant environment. Three independent estimators of one image: BDPT
// and MLT share the estimator functions but not the sampling, PT shares neither, so agreement
// means the MIS weights of every strategy sum to one and the contributions are right.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>

#include "host/backends/cpu/cpu_exec.h"
#include "host/render/film_buffers.h"
#include "host/device_scene/scene_upload.h"
#include "kernels/bdpt/bdpt.h"
#include "kernels/pt/path_tracer.h"
#include "estimator_checks.h"
#include "test_support.h"

using namespace wavefront;

namespace {

constexpr float kPi = 3.14159265358979f;

/// A quad from `corner` along `u` and `v`, seen from the side of u x v.
void addQuad(TriangleMesh& mesh, glm::vec3 corner, glm::vec3 u, glm::vec3 v) {
    auto base = std::uint32_t(mesh.positions.size());
    for (glm::vec3 p : {corner, corner + u, corner + u + v, corner + v}) mesh.positions.push_back(p);
    for (std::uint32_t i : {0u, 1u, 2u, 0u, 2u, 3u}) mesh.indices.push_back(base + i);
}

/// A UV sphere of `stacks` x `slices` facets with the sphere's normals at its vertices: the
/// interpolated shading normals differ from the facets' by up to about 180 / stacks degrees.
TriangleMesh lowPolySphere(glm::vec3 centre, float radius, int stacks, int slices, int material) {
    TriangleMesh mesh;
    mesh.material = material;
    for (int i = 0; i <= stacks; ++i)
        for (int j = 0; j <= slices; ++j) {
            float theta = kPi * float(i) / float(stacks), phi = 2.0f * kPi * float(j) / float(slices);
            glm::vec3 n(std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi));
            mesh.positions.push_back(centre + radius * n);
            mesh.normals.push_back(n);
        }
    auto index = [&](int i, int j) { return std::uint32_t(i * (slices + 1) + j); };
    for (int i = 0; i < stacks; ++i)
        for (int j = 0; j < slices; ++j) {
            std::uint32_t a = index(i, j), b = index(i + 1, j), c = index(i + 1, j + 1), d = index(i, j + 1);
            for (glm::uvec3 t : {glm::uvec3(a, c, b), glm::uvec3(a, d, c)}) {
                glm::vec3 p0 = mesh.positions[t.x], p1 = mesh.positions[t.y], p2 = mesh.positions[t.z];
                if (glm::length(glm::cross(p1 - p0, p2 - p0)) < 1e-6f) continue;  // at a pole
                mesh.indices.insert(mesh.indices.end(), {t.x, t.y, t.z});
            }
        }
    return mesh;
}

/// The small quad light above the outdoor scenes' objects, facing down.
void addOutdoorLight(Scene& scene) {
    TriangleMesh light;
    light.material = scene.addMaterial(Material::lambertian(glm::vec3(0.0f), glm::vec3(12.0f, 11.0f, 9.0f)));
    addQuad(light, glm::vec3(-0.3f, 1.6f, -0.2f), glm::vec3(0.5f, 0.0f, 0.0f), glm::vec3(0.0f, 0.0f, 0.5f));
    scene.addMesh(light);
}

void setOutdoorCamera(Scene& scene) {
    Camera cam;
    cam.position = glm::vec3(0.0f, 1.3f, 3.2f);
    cam.target = glm::vec3(0.0f, 0.35f, 0.0f);
    cam.verticalFovDegrees = 42.0f;
    scene.setCamera(cam);
}

/// Objects on a floor: a diffuse sphere, a glossy sphere and a glossy floor; lit by the
/// environment, and with `areaLight` also by a small quad light above them.
Scene outdoorScene(bool areaLight) {
    Scene scene;
    TriangleMesh floor;
    floor.material = scene.addMaterial(Material::glossy(glm::vec3(0.45f), glm::vec3(0.2f), 20.0f));
    addQuad(floor, glm::vec3(-2.0f, 0.0f, 2.0f), glm::vec3(4.0f, 0.0f, 0.0f), glm::vec3(0.0f, 0.0f, -4.0f));
    scene.addMesh(floor);
    scene.addSphere(Sphere{glm::vec3(-0.55f, 0.45f, 0.0f), 0.45f,
                           scene.addMaterial(Material::lambertian(glm::vec3(0.7f, 0.35f, 0.2f)))});
    scene.addSphere(Sphere{glm::vec3(0.55f, 0.4f, 0.3f), 0.4f,
                           scene.addMaterial(Material::glossy(glm::vec3(0.2f, 0.3f, 0.5f), glm::vec3(0.4f), 40.0f))});
    if (areaLight) addOutdoorLight(scene);
    setOutdoorCamera(scene);
    return scene;
}

/// A latitude-longitude sky: a blue gradient above, a dim ground below and a small bright sun,
/// written as PFM.
std::string writeSky(const wftest::TempDir& dir) {
    Image env(32, 16);
    for (int y = 0; y < env.height; ++y)
        for (int x = 0; x < env.width; ++x) {
            float* p = env.pixel(x, y);
            float up = std::cos(kPi * (y + 0.5f) / env.height);
            glm::vec3 c = up > 0.0f ? glm::vec3(0.3f, 0.45f, 0.9f) * (0.4f + up) : glm::vec3(0.15f, 0.12f, 0.1f);
            if ((x == 5 || x == 6) && y == 3) c = glm::vec3(60.0f, 55.0f, 45.0f);
            p[0] = c.x;
            p[1] = c.y;
            p[2] = c.z;
        }
    std::string path = dir.file("sky.pfm");
    writeImage(path, env);
    return path;
}

/// A constant environment map of radiance 1 (scaled by RenderOptions::environmentScale).
std::string writeConstantSky(const wftest::TempDir& dir) {
    Image env(8, 4);
    for (float& v : env.rgb) v = 1.0f;
    std::string path = dir.file("constant.pfm");
    writeImage(path, env);
    return path;
}

/// A flat floor [0, 1] x {0} x [0, 1] of n x n quads whose vertex normals lean by up to 47
/// degrees, in a pattern without symmetry: the adjoint correction on light subpaths changes its
/// t = 1 connections by tens of percent, the same way all over the floor.
TriangleMesh bumpyFloor(int n, int material) {
    TriangleMesh f;
    f.material = material;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
            float fx = float(i) / float(n), fz = float(j) / float(n);
            f.positions.push_back(glm::vec3(fx, 0.0f, fz));
            f.normals.push_back(glm::normalize(
                glm::vec3(0.7f * std::sin(5.0f * fx + 2.0f * fz), 1.0f, 0.5f + 0.3f * std::cos(4.0f * fz))));
        }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            std::uint32_t a = std::uint32_t(i * (n + 1) + j), b = a + std::uint32_t(n + 1), c = b + 1, d = a + 1;
            f.indices.insert(f.indices.end(), {a, d, c, a, c, b});
        }
    return f;
}

/// A room lit by a small ceiling light, on a floor with leaning shading normals, with two
/// low-poly spheres whose interpolated normals are far from their facets' (a glossy one and a
/// diffuse one).
Scene shadingNormalScene() {
    Scene scene;
    int white = scene.addMaterial(Material::lambertian(glm::vec3(0.7f)));
    int red = scene.addMaterial(Material::lambertian(glm::vec3(0.65f, 0.1f, 0.08f)));
    int green = scene.addMaterial(Material::lambertian(glm::vec3(0.12f, 0.5f, 0.15f)));
    int light = scene.addMaterial(Material::lambertian(glm::vec3(0.0f), glm::vec3(20.0f)));
    int glossy = scene.addMaterial(Material::glossy(glm::vec3(0.05f), glm::vec3(0.9f), 60.0f));
    int diffuse = scene.addMaterial(Material::lambertian(glm::vec3(0.8f, 0.75f, 0.5f)));
    const glm::vec3 x(1, 0, 0), y(0, 1, 0), z(0, 0, 1);
    auto quad = [&](int material, glm::vec3 corner, glm::vec3 u, glm::vec3 v) {
        TriangleMesh m;
        m.material = material;
        addQuad(m, corner, u, v);
        scene.addMesh(m);
    };
    scene.addMesh(bumpyFloor(6, white));
    quad(white, glm::vec3(0, 1, 0), x, z);                 // ceiling, facing down
    quad(white, glm::vec3(0, 0, 0), x, y);                 // back wall
    quad(red, glm::vec3(0, 0, 1), -z, y);                  // left wall, facing +x
    quad(green, glm::vec3(1, 0, 0), z, y);                 // right wall, facing -x
    quad(light, glm::vec3(0.4f, 0.999f, 0.4f), x * 0.2f, z * 0.2f);  // facing down
    scene.addMesh(lowPolySphere(glm::vec3(0.35f, 0.24f, 0.45f), 0.24f, 5, 7, glossy));
    scene.addMesh(lowPolySphere(glm::vec3(0.72f, 0.2f, 0.6f), 0.2f, 4, 6, diffuse));
    Camera cam;
    cam.position = glm::vec3(0.5f, 0.5f, 2.3f);
    cam.target = glm::vec3(0.5f, 0.4f, 0.0f);
    cam.verticalFovDegrees = 38.0f;
    scene.setCamera(cam);
    return scene;
}

/// The Cornell box through a wide thin lens focused just in front of the box: everything is
/// blurred, the back wall by about 7 pixels of 24.
Scene thinLensScene() {
    Scene scene = Scene::builtin("cornell-box");
    Camera c = scene.camera();
    c.lensRadius = 0.25f;
    c.focusDistance = 1.2f;
    scene.setCamera(c);
    return scene;
}

/// A small card lit by a light beside it, far behind the focal plane: its image is a disk about
/// 14 pixels wide (bokeh), which most of its light reaches through t = 1 (the light tracer), so
/// a t = 1 that ignored the lens would pile that light into the card's sharp image (2 pixels).
/// A floor below runs from in focus to out of focus.
Scene bokehScene() {
    Scene scene;
    TriangleMesh card, floor, light;
    card.material = scene.addMaterial(Material::lambertian(glm::vec3(0.8f)));
    addQuad(card, glm::vec3(0.09f, 0.29f, 0.0f), glm::vec3(0.12f, 0.0f, 0.0f), glm::vec3(0.0f, 0.12f, 0.0f));
    floor.material = scene.addMaterial(Material::lambertian(glm::vec3(0.5f)));
    addQuad(floor, glm::vec3(-1.5f, 0.0f, 2.5f), glm::vec3(3.0f, 0.0f, 0.0f), glm::vec3(0.0f, 0.0f, -3.5f));
    light.material = scene.addMaterial(Material::lambertian(glm::vec3(0.0f), glm::vec3(15.0f)));
    addQuad(light, glm::vec3(1.1f, 0.2f, 0.3f), glm::vec3(0.0f, 0.0f, 0.3f), glm::vec3(0.0f, 0.3f, 0.0f));  // facing -x
    for (const TriangleMesh* m : {&card, &floor, &light}) scene.addMesh(*m);
    Camera c;
    c.position = glm::vec3(0.0f, 0.3f, 3.2f);
    c.target = glm::vec3(0.0f, 0.3f, 0.0f);
    c.verticalFovDegrees = 30.0f;
    c.lensRadius = 0.3f;
    c.focusDistance = 1.2f;
    scene.setCamera(c);
    return scene;
}

RenderOptions optionsFor(IntegratorType integrator, Backend backend, int size, int spp, const std::string& env,
                         float envScale = 1.0f) {
    RenderOptions o = wftest::smallRender(integrator, backend, size, spp);
    o.maxDepth = 8;
    o.environmentMap = env;
    o.environmentScale = envScale;
    if (integrator == IntegratorType::Mlt) o.streamCapacity = size * size * spp / 16;
    return o;
}

/// PT, BDPT and MLT over `seeds` independent renders each: every pixel-channel by Welch's t-test,
/// 8 x 8-pixel blocks (a bias spread over a region: a missing adjoint correction shows here first)
/// and the image means, each against PT (and MLT against BDPT). `spp` are BDPT's samples per
/// pixel; PT takes 4x, MLT 2x as many (cheaper per sample, or noisier per sample).
void checkAgreement(const char* what, const Scene& scene, Backend backend, int size, int spp, const std::string& env,
                    double minPass = 0.99) {
    const int seeds = 8;
    wftest::SeedStats pt =
        wftest::renderSeedStats(scene, optionsFor(IntegratorType::PathTracer, backend, size, 4 * spp, env), seeds, 8, 100);
    std::vector<RenderStats> stats;
    wftest::SeedStats bdpt =
        wftest::renderSeedStats(scene, optionsFor(IntegratorType::Bdpt, backend, size, spp, env), seeds, 8, 200, {}, &stats);
    wftest::SeedStats mlt =
        wftest::renderSeedStats(scene, optionsFor(IntegratorType::Mlt, backend, size, 2 * spp, env), seeds, 8, 300, {}, &stats);
    for (const RenderStats& st : stats) CHECK(st.nonFiniteSamples == 0);
    auto report = [&](const char* pair, const wftest::SeedStats& a, const wftest::SeedStats& b) {
        wftest::checkSameImage(std::string(what) + " (" + toString(backend) + "), " + pair, a, b, minPass);
    };
    report("BDPT vs PT", bdpt, pt);
    report("MLT vs PT", mlt, pt);
    report("MLT vs BDPT", mlt, bdpt);
}

}  // namespace

TEST_CASE("BDPT and MLT match PT under an environment map", "[bdpt][mlt][environment][statistical][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    wftest::TempDir dir;
    std::string sky = writeSky(dir);
    checkAgreement("environment only", outdoorScene(false), backend, 24, 16, sky);
    checkAgreement("environment and an area light", outdoorScene(true), backend, 24, 16, sky);
}

TEST_CASE("BDPT and MLT match PT through a thin lens", "[bdpt][mlt][statistical][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    checkAgreement("thin lens", thinLensScene(), backend, 24, 16, "");
    checkAgreement("thin lens, bokeh", bokehScene(), backend, 24, 16, "");
}

TEST_CASE("BDPT and MLT match PT with shading normals far from the geometric ones", "[bdpt][mlt][statistical][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    checkAgreement("shading normals", shadingNormalScene(), backend, 24, 32, "");
}

TEST_CASE("BDPT and MLT match PT on the built-in hdr-spheres: HDR sky, microfacet materials, smooth normals",
          "[bdpt][mlt][materials][statistical][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    checkAgreement("hdr-spheres", Scene::builtin("hdr-spheres"), backend, 24, 16, "");
}

TEST_CASE("BDPT and MLT under a constant environment: a convex diffuse object and a white furnace",
          "[bdpt][mlt][environment][analytic][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    wftest::TempDir dir;
    std::string sky = writeConstantSky(dir);
    const float L = 2.0f;
    auto regionMean = [](const Image& img, int x0, int y0, int size) {
        double s = 0.0;
        for (int y = y0; y < y0 + size; ++y)
            for (int x = x0; x < x0 + size; ++x)
                for (int c = 0; c < 3; ++c) s += img.pixel(x, y)[c];
        return s / (3.0 * size * size);
    };
    // A diffuse sphere of albedo 1/2 fills the middle of the image: every point of a convex object
    // sees only the environment, so it reflects L / 2; the background is L.
    Scene sphere;
    sphere.addSphere(Sphere{glm::vec3(0.0f), 1.0f, sphere.addMaterial(Material::lambertian(glm::vec3(0.5f)))});
    Camera cam;
    cam.position = glm::vec3(0.0f, 0.0f, 4.0f);
    cam.target = glm::vec3(0.0f);
    cam.verticalFovDegrees = 40.0f;
    sphere.setCamera(cam);
    // White furnace: albedo 1 everywhere (two spheres resting on a floor, light bouncing between
    // them), so every pixel is L: the sum over all bounces, none lost or counted twice.
    Scene furnace;
    int white = furnace.addMaterial(Material::lambertian(glm::vec3(1.0f)));
    TriangleMesh floor;
    floor.material = white;
    addQuad(floor, glm::vec3(-3.0f, 0.0f, 3.0f), glm::vec3(6.0f, 0.0f, 0.0f), glm::vec3(0.0f, 0.0f, -6.0f));
    furnace.addMesh(floor);
    furnace.addSphere(Sphere{glm::vec3(-0.5f, 0.5f, 0.0f), 0.5f, white});
    furnace.addSphere(Sphere{glm::vec3(0.45f, 0.4f, 0.1f), 0.4f, white});
    Camera fc;
    fc.position = glm::vec3(0.0f, 1.5f, 3.0f);
    fc.target = glm::vec3(0.0f, 0.3f, 0.0f);
    furnace.setCamera(fc);

    // BDPT: one render of 64 samples per pixel. MLT: the mean of 8 renders of 256 mutations per
    // pixel, as its small regions are noisy (mutations cluster; one render's regions scatter by
    // about 3%) and its whole image scales with its estimate b.
    for (IntegratorType integrator : {IntegratorType::Bdpt, IntegratorType::Mlt}) {
        const bool bdpt = integrator == IntegratorType::Bdpt;
        INFO((bdpt ? "BDPT" : "MLT"));
        const int size = 24, renders = bdpt ? 1 : 8;
        RenderOptions o = optionsFor(integrator, backend, size, bdpt ? 64 : 256, sky, L);
        o.maxDepth = 64;
        auto meanImage = [&](const Scene& scene) {
            Image mean(size, size);
            for (int k = 0; k < renders; ++k) {
                o.seed = 11u + 7919u * unsigned(k);
                RenderStats st;
                Image img = wftest::renderImage(scene, o, &st);
                CHECK(st.nonFiniteSamples == 0);
                for (std::size_t i = 0; i < img.rgb.size(); ++i) mean.rgb[i] += img.rgb[i] / float(renders);
            }
            return mean;
        };
        Image img = meanImage(sphere);
        double centre = regionMean(img, 8, 8, 8);
        double corners = (regionMean(img, 0, 0, 4) + regionMean(img, 20, 0, 4) + regionMean(img, 0, 20, 4) +
                          regionMean(img, 20, 20, 4)) / 4.0;
        INFO("sphere " << centre << ", background " << corners);
        CHECK(centre == Approx(0.5 * L).epsilon(0.03));
        // BDPT sees the background through s = 0 at depth 1 alone (weight 1): exact.
        CHECK(corners == Approx(L).epsilon(bdpt ? 1e-4 : 0.03));
        double white = wftest::imageMean(meanImage(furnace));
        INFO("furnace " << white);
        CHECK(white == Approx(L).epsilon(0.01));
    }
}

TEST_CASE("the light strategies see one light density: s = 1 samples what s = 0 weights", "[bdpt][environment]") {
    // An area light and the environment, chosen with probability 1/2 each. A light sample seen from
    // a surface point (s = 1) must have the density that the eye walk's weight gives the same
    // emitter or environment direction when it finds it by chance (s = 0): emitterPdfA x d^2 / cos
    // on the area light, environmentSelect x the map's pdf for the environment. And light leaving
    // the environment starts on a disk tangent to a sphere around the whole scene.
    Scene scene = outdoorScene(true);
    scene.validate();
    const int w = 32, h = 16;
    std::vector<float> rgb(std::size_t(w) * h * 3);
    for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = 0.2f + float(i % 7) * 0.3f + (i / 3 == 101 ? 40.0f : 0.0f);
    CpuExec exec;
    SceneBuffers<CpuExec> buffers = uploadScene(exec, scene);
    buffers.environment.build(exec, rgb, w, h, LightSampler::BinarySearch);
    SceneView view = buffers.view(24, 24);
    REQUIRE(view.environmentSelect == 0.5f);

    for (const glm::vec3& p : scene.positions()) CHECK(glm::length(p - view.sceneCenter) < view.sceneRadius);
    for (const Sphere& sp : scene.spheres())
        CHECK(glm::length(sp.center - view.sceneCenter) + sp.radius < view.sceneRadius);

    HashSampler rng(3);
    const glm::vec3 point(0.1f, 0.02f, 0.9f);  // just above the floor, the light in sight
    int area = 0, environment = 0, areaMismatch = 0, environmentMismatch = 0, diskMismatch = 0;
    for (int i = 0; i < 20000; ++i) {
        DirectLight d = sampleDirectLight(view, point, rng.get(std::uint64_t(i), 0), rng.get2(std::uint64_t(i), 1));
        if (!(d.pdfDirect > 0.0f)) continue;
        if (d.infinite) {
            ++environment;
            float escape = view.environmentSelect * view.environment.pdf(d.wi);
            environmentMismatch += std::fabs(escape - d.pdfDirect) > 1e-3f * d.pdfDirect;
            diskMismatch += std::fabs(d.pdfEmit - d.pdfDirect * environmentDiskPdf(view)) > 1e-5f * d.pdfEmit;
            EnvironmentEmission e = sampleEnvironmentEmission(view, rng.get2(std::uint64_t(i), 3), rng.get2(std::uint64_t(i), 5));
            glm::vec3 offset = e.origin - view.sceneCenter;
            CHECK(glm::dot(offset, -e.direction) == Approx(view.sceneRadius).epsilon(1e-4));
            CHECK(glm::length(offset + view.sceneRadius * e.direction) <= view.sceneRadius * 1.0001f);
            continue;
        }
        Hit hit = traceClosest(view, Ray{point, d.wi, FLT_MAX});
        if (hit.prim < 0 || !view.materials[view.materialOf(hit.prim)].emissive()) continue;  // behind a sphere
        ++area;
        SurfaceHit sh = surfaceAt(view, hit, point, d.wi);
        float cosLight = -glm::dot(sh.ng, d.wi);
        float found = emitterPdfA(view, hit.prim) * hit.t * hit.t / cosLight;
        areaMismatch += std::fabs(found - d.pdfDirect) > 1e-3f * d.pdfDirect;
        areaMismatch += std::fabs(d.pdfEmit - emitterPdfA(view, hit.prim) * cosLight * kInvPi) > 1e-3f * d.pdfEmit;
    }
    INFO(area << " area light samples (" << areaMismatch << " mismatched), " << environment << " environment samples ("
              << environmentMismatch << ", " << diskMismatch << ")");
    CHECK(area > 5000);
    CHECK(environment > 9000);
    CHECK(areaMismatch == 0);
    CHECK(environmentMismatch < environment / 1000);  // a texel boundary can round either way
    CHECK(diskMismatch == 0);
}

TEST_CASE("path vertices keep both normals to within 1e-4 radians", "[bdpt]") {
    // PathVertex packs the geometric and the shading normal in 32 bits each; equal normals decode
    // to the same vector.
    std::mt19937 rng(5);
    std::normal_distribution<float> g;
    double worst = 0.0;
    for (int i = 0; i < 200000; ++i) {
        glm::vec3 n = glm::normalize(glm::vec3(g(rng), g(rng), g(rng)));
        if (i < 6) n = glm::vec3(0.0f), n[i % 3] = i < 3 ? 1.0f : -1.0f;  // the axes
        PathVertex v;
        v.setNormals(n, n, 0.5f);
        glm::vec3 ng = v.ng(), ns = v.ns();
        CHECK(ng == ns);
        glm::dvec3 a(ng), b(n);
        worst = std::max(worst, std::atan2(glm::length(glm::cross(a, b)), glm::dot(a, b)));
        CHECK(v.error() == 0.5f);
    }
    INFO("worst angle " << worst);
    CHECK(worst < 1e-4);  // 6.4e-5 measured
}

namespace {

template <class T>
bool sameBits(const T& a, const T& b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Shades `samples` PT paths and BDPT eye and light walks of `scene` with the kernels of both
/// material sets, following the full set's choices, and connects every light vertex to the eye
/// vertices of its sample; returns the first place they differ ("" if nowhere), and counts what
/// was compared.
std::string compareMaterialSets(const Scene& scene, int samples, int& shaded, int& connected) {
    CpuExec exec;
    SceneBuffers<CpuExec> buffers = uploadScene(exec, scene);
    const int w = 16, h = 16;
    SceneView view = buffers.view(w, h);
    FilmBuffers<CpuExec> filmAll(exec, w * h), filmClassic(exec, w * h);
    PtParams pt;
    pt.sampler = HashSampler(11);
    pt.numPixels = w * h;
    BdptParams bp = makeBdptParams(view, 8);
    FilmSink sinkAll{filmAll.view()}, sinkClassic{filmClassic.view()};
    for (int s = 0; s < samples; ++s) {
        PathState path = generateCameraPath(view, pt, std::uint64_t(s));
        for (int bounce = 0; bounce < 16; ++bounce) {
            Hit hit = traceClosest(view, Ray{path.origin.xyz(), path.direction.xyz(), FLT_MAX});
            ShadeOutput a = shadePath<AllMaterials>(view, pt, filmAll.view(), path, hit);
            ShadeOutput c = shadePath<ClassicMaterials>(view, pt, filmClassic.view(), path, hit);
            ++shaded;
            if (a.hasNext != c.hasNext || a.hasShadow != c.hasShadow) return "PT path flags, sample " + std::to_string(s);
            if (a.hasShadow && !sameBits(a.shadow, c.shadow)) return "PT shadow ray, sample " + std::to_string(s);
            if (!a.hasNext) break;
            if (!sameBits(a.next, c.next)) return "PT continuation, sample " + std::to_string(s);
            path = a.next;
        }
        std::vector<PathVertex> eyeVertices;
        for (bool eye : {true, false}) {
            WalkState walk = eye ? startEyeWalk(view, bp, pt.sampler, std::uint64_t(s), 0)
                                 : startLightWalk<AllMaterials>(view, bp, pt.sampler, std::uint64_t(s), 0);
            for (int step = 0; step < 8; ++step) {
                Hit hit = traceClosest(view, Ray{walk.origin.xyz(), walk.direction.xyz(), FLT_MAX});
                WalkOutput a = eye ? shadeEyeVertex<AllMaterials>(view, bp, pt.sampler, sinkAll, walk, hit)
                                   : shadeLightVertex<AllMaterials>(view, bp, pt.sampler, walk, hit);
                WalkOutput c = eye ? shadeEyeVertex<ClassicMaterials>(view, bp, pt.sampler, sinkClassic, walk, hit)
                                   : shadeLightVertex<ClassicMaterials>(view, bp, pt.sampler, walk, hit);
                ++shaded;
                std::string where = std::string(eye ? "eye" : "light") + " walk, sample " + std::to_string(s);
                if (a.hasNext != c.hasNext || a.hasShadow != c.hasShadow || a.hasVertex != c.hasVertex)
                    return where + ": flags";
                if (a.hasShadow && !sameBits(a.shadow, c.shadow)) return where + ": shadow ray";
                PathVertex va = a.vertex;
                va.normal.w = 0.0f;  // texture coordinates: stored by the kernels with textures only
                if (a.hasVertex && !sameBits(va, c.vertex)) return where + ": vertex";
                if (a.hasVertex && eye) eyeVertices.push_back(a.vertex);
                if (a.hasVertex && !eye)
                    for (const PathVertex& e : eyeVertices) {  // the connect phase: both BSDFs, both sets
                        ShadowRay ra, rc;
                        bool va = connectVertices<AllMaterials>(view, bp, e, a.vertex, 0, 0, ra);
                        bool vc = connectVertices<ClassicMaterials>(view, bp, e, a.vertex, 0, 0, rc);
                        ++connected;
                        if (va != vc || (va && !sameBits(ra.contribution, rc.contribution))) return where + ": connection";
                    }
                if (!a.hasNext) break;
                if (!sameBits(a.next, c.next)) return where + ": continuation";
                walk = a.next;
            }
        }
    }
    std::vector<double> sa(std::size_t(3) * w * h), sc(sa.size());
    exec.download(sa.data(), filmAll.sum.data(), sa.size());
    exec.download(sc.data(), filmClassic.sum.data(), sc.size());
    if (sa != sc) return "film sums";
    return "";
}

}  // namespace

TEST_CASE("kernels compiled for the classic materials shade classic scenes bit for bit like the full set",
          "[materials][pt][bdpt]") {
    // The drivers run kernels without the microfacet code on scenes that use none of it
    // (withMaterialSet); they must compute exactly what the full kernels compute there.
    for (const std::string& name : Scene::builtinSceneNames()) {
        Scene scene = Scene::builtin(name);
        scene.validate();
        bool microfacet = false;
        for (const Material& m : scene.materials())
            microfacet |= m.type == MaterialType::Conductor || m.type == MaterialType::RoughDielectric ||
                          m.type == MaterialType::MetallicRoughness || m.type == MaterialType::Interface;
        CpuExec exec;
        INFO(name);
        CHECK(uploadScene(exec, scene).view(4, 4).microfacetMaterials == microfacet);
        // Scenes with instances or media run InstancedMaterials.
        if (microfacet || !scene.instances().empty() || scene.hasMedia()) continue;
        int shaded = 0, connected = 0;
        CHECK(compareMaterialSets(scene, 300, shaded, connected) == "");
        CHECK(shaded > 1000);
        CHECK(connected > 100);
    }
}

namespace {

/// A 4 x 4 checker of two colours as 8-bit sRGB texels.
Texture checkerTexture(glm::u8vec3 a, glm::u8vec3 b) {
    Texture t;
    t.width = t.height = 4;
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
            glm::u8vec3 c = (x + y) % 2 ? a : b;
            t.rgba8.insert(t.rgba8.end(), {c.x, c.y, c.z, 255});
        }
    return t;
}

/// Objects under the sky and a small light with textured materials: a checkered floor (8-bit
/// sRGB, Lambertian), a textured back wall (float texels, glossy), a textured diffuse sphere
/// (longitude-latitude coordinates) and a textured metallic-roughness sphere.
Scene texturedScene() {
    Scene scene;
    int checker = scene.addTexture(checkerTexture({230, 230, 230}, {40, 90, 200}));
    Texture gradient;
    gradient.width = 8;
    gradient.height = 2;
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 8; ++x) gradient.rgbaFloat.insert(gradient.rgbaFloat.end(), {x / 8.0f, 0.5f, y * 0.8f, 1.0f});
    int grad = scene.addTexture(gradient);
    int stripes = scene.addTexture(checkerTexture({250, 200, 30}, {20, 20, 20}));

    Material floorMaterial = Material::lambertian(glm::vec3(0.9f));
    floorMaterial.baseColorTexture = checker;
    TriangleMesh floor;
    floor.material = scene.addMaterial(floorMaterial);
    addQuad(floor, glm::vec3(-2.0f, 0.0f, 2.0f), glm::vec3(4.0f, 0.0f, 0.0f), glm::vec3(0.0f, 0.0f, -4.0f));
    floor.uvs = {{0, 0}, {2, 0}, {2, 2}, {0, 2}};  // repeats twice each way
    scene.addMesh(floor);
    Material wallMaterial = Material::glossy(glm::vec3(0.6f), glm::vec3(0.3f), 30.0f);
    wallMaterial.baseColorTexture = grad;
    TriangleMesh wall;
    wall.material = scene.addMaterial(wallMaterial);
    addQuad(wall, glm::vec3(-2.0f, 0.0f, -1.0f), glm::vec3(4.0f, 0.0f, 0.0f), glm::vec3(0.0f, 2.0f, 0.0f));
    wall.uvs = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    scene.addMesh(wall);
    Material ball = Material::lambertian(glm::vec3(1.0f));
    ball.baseColorTexture = stripes;
    scene.addSphere(Sphere{glm::vec3(-0.55f, 0.45f, 0.0f), 0.45f, scene.addMaterial(ball)});
    Material metal = Material::metallicRoughness(glm::vec3(1.0f), 0.6f, 0.4f);
    metal.baseColorTexture = checker;
    scene.addSphere(Sphere{glm::vec3(0.55f, 0.4f, 0.3f), 0.4f, scene.addMaterial(metal)});
    addOutdoorLight(scene);
    setOutdoorCamera(scene);
    return scene;
}

}  // namespace

TEST_CASE("BDPT and MLT match PT on textured materials", "[bdpt][mlt][materials][textures][statistical][gpu]") {
    // The texture reaches every use of a material: PT's shading, both BDPT walks, the stored
    // vertices of the connect phase (texture coordinates packed in the vertex) and their
    // continuation probabilities; a use that saw the untextured colour would bias BDPT or MLT.
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    wftest::TempDir dir;
    checkAgreement("textured", texturedScene(), backend, 24, 16, writeSky(dir));
}
