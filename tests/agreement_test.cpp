// One image, whichever integrator: PT, BDPT, MLT and VCM converge to the same image pixel by pixel.
// Each comparison renders independent seeds of every integrator and runs Welch's t-test on every
// pixel and channel against the path tracer, Sidak-corrected over the image (a bias confined to a
// few pixels fails it, where an image or block mean would average it away), and also compares
// blocks. On the CPU (CI) the images are small (4 x 4 blocks); with a GPU the [gpu] half renders
// 256x256 with enough samples that a 0.3% bias in a block of an 8 x 8 grid fails.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <utility>
#include <string>
#include <vector>

#include "support/test_support.h"
#include "wavefront/wavefront.h"

using namespace wavefront;

namespace {

struct Run {
    IntegratorType integrator;
    int spp;
    /// Welch's test per pixel assumes each pixel's mean over the seeds is near normal; where an
    /// integrator finds a pixel's light in rare, large samples (the path tracer on caustics seen
    /// through glass: a few renders in a row can miss them), only its blocks are compared.
    bool perPixel = true;
    /// VCM's first merge radius in pixels (0: its default): small enough that the merges' blur
    /// (their bias) stays below these tests' noise.
    float vcmRadius = 0.0f;
    /// MLT's chains (0: the chain policy's, 16 mutations each). Chains of a few mutations give
    /// heavy-tailed pixel estimates that a Welch test over 8 seeds misjudges (docs/decisions.md,
    /// "MLT's relative importance"): a small render's MLT run takes fewer, longer chains.
    int mltChains = 0;
};

/// Renders every run `seeds` times (independent seeds) and checks each against the first run by
/// Welch's test per pixel and per block of `block` x `block` pixels, each Sidak-corrected to the
/// family-wise significance `alpha`.
void checkAgreement(const std::string& name, const Scene& scene, RenderOptions base, const std::vector<Run>& runs,
                    int seeds, int block, double alpha = 1e-4) {
    std::vector<wftest::PixelStats> pixels;
    std::vector<wftest::BlockStats> blocks;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        RenderOptions o = base;
        o.integrator = runs[r].integrator;
        o.samplesPerPixel = runs[r].spp;
        if (runs[r].vcmRadius > 0.0f) o.vcm.radius = runs[r].vcmRadius;
        if (runs[r].mltChains > 0) o.mlt.chains = runs[r].mltChains;
        std::vector<Image> images;
        for (int s = 0; s < seeds; ++s) {
            o.seed = unsigned(1000 * (r + 1) + 7919 * s);
            images.push_back(wftest::renderImage(scene, o));
        }
        pixels.push_back(wftest::pixelStatsOf(images));
        std::vector<std::vector<double>> perRender;
        for (const Image& im : images) perRender.push_back(wftest::blockAverages(im, block));
        blocks.push_back(wftest::statsOf(perRender));
    }
    for (std::size_t r = 1; r < runs.size(); ++r) {
        wftest::PixelTest t = wftest::pixelTest(pixels[r], pixels[0], alpha);
        wftest::PixelTest b = wftest::pixelTest(wftest::PixelStats{seeds, blocks[r].mean, blocks[r].variance},
                                                wftest::PixelStats{seeds, blocks[0].mean, blocks[0].variance}, alpha);
        INFO(name << ": " << toString(runs[r].integrator) << " against " << toString(runs[0].integrator) << " on "
                  << toString(base.backend) << ": " << t.failed << " of " << t.tested
                  << " pixel-channels fail (worst p " << t.worstP << "), " << b.failed << " of " << b.tested << " "
                  << block << "x" << block << " blocks (worst p " << b.worstP << ")");
        CHECK(t.tested > pixels[0].mean.size() / 4);  // the image is lit
        if (runs[r].perPixel) CHECK(t.failed == 0);
        CHECK(b.failed == 0);
    }
}

/// A tangent-space normal map of steep bumps (about 50 degrees at their flanks), linear.
int addBumpMap(Scene& scene) {
    Texture t;
    t.width = t.height = 64;
    t.srgb = false;
    for (int y = 0; y < t.height; ++y)
        for (int x = 0; x < t.width; ++x) {
            const float u = 6.2831853f * (x + 0.5f) / t.width, v = 6.2831853f * (y + 0.5f) / t.height;
            glm::vec3 n = glm::normalize(glm::vec3(1.2f * std::cos(u), 1.2f * std::cos(v), 1.0f));
            for (int c = 0; c < 3; ++c) t.rgba8.push_back(std::uint8_t(std::lround(255.0f * (0.5f * n[c] + 0.5f))));
            t.rgba8.push_back(255);
        }
    return scene.addTexture(t);
}

}  // namespace

TEST_CASE("agreement: a normal-mapped floor seen at grazing angles under a sky", "[agreement][statistical][gpu]") {
    // The case that split PT from BDPT and MLT by 2.7% (docs/decisions.md, "Shading normals: one
    // BSDF for both directions"): seen at grazing angles, most of a bumpy floor faces away from
    // the camera's direction while it faces the sky, so light walks and eye walks meet its shading
    // normal from different sides.
    Scene scene;
    const int bumps = addBumpMap(scene);
    Material floor = Material::lambertian(glm::vec3(0.7f, 0.6f, 0.5f));
    floor.normalTexture = bumps;
    TriangleMesh quad;
    quad.positions = {{-20, 0, -20}, {20, 0, -20}, {20, 0, 20}, {-20, 0, 20}};
    quad.uvs = {{0, 0}, {40, 0}, {40, 40}, {0, 40}};
    quad.indices = {0, 2, 1, 0, 3, 2};
    quad.material = scene.addMaterial(floor);
    scene.addMesh(quad);
    Material metal = Material::metallicRoughness(glm::vec3(0.9f, 0.8f, 0.6f), 1.0f, 0.4f);
    metal.normalTexture = bumps;
    scene.addSphere({glm::vec3(0.0f, 1.0f, 0.0f), 1.0f, scene.addMaterial(metal)});
    scene.addSphere({glm::vec3(3.0f, 6.0f, 2.0f), 0.5f, scene.addMaterial(Material::lambertian(glm::vec3(0.0f), glm::vec3(20.0f)))});
    scene.setSkyGradient(SkyGradient{glm::vec3(0.3f), glm::vec3(0.6f, 0.8f, 1.2f)});
    Camera camera;
    camera.position = glm::vec3(0.0f, 0.9f, 7.0f);
    camera.target = glm::vec3(0.0f, 0.5f, 0.0f);
    camera.verticalFovDegrees = 40.0f;
    scene.setCamera(camera);
    for (Backend backend : wftest::testBackends()) {
        const bool gpu = backend == Backend::Cuda;
        RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, backend, gpu ? 256 : 24, 1);
        o.maxDepth = 6;
        checkAgreement("bumpy floor", scene, o,
                       {{IntegratorType::PathTracer, gpu ? 2048 : 256}, {IntegratorType::Bdpt, gpu ? 512 : 64},
                        {IntegratorType::Mlt, gpu ? 512 : 64}},
                       gpu ? 16 : 10, gpu ? 32 : 4);
    }
}

TEST_CASE("agreement: every built-in scene", "[agreement][statistical][gpu]") {
    for (Backend backend : wftest::testBackends()) {
        const bool gpu = backend == Backend::Cuda;
        for (const std::string& name : Scene::builtinSceneNames()) {
            // A million triangles take the CPU 3 s to build a BVH for, per render: the GPU checks it.
            if (!gpu && name == "mesh-1m") continue;
            Scene scene = Scene::builtin(name);
            RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, backend, gpu ? 256 : 16, 1);
            o.maxDepth = 8;
            const int scale = gpu ? 16 : 1;
            // rtiow-final's NEE-free default does not matter here: PT runs with next-event estimation.
            // Against BDPT: the path tracer's caustics through glass are rare, large samples, whose
            // means over a few renders are far from normal; BDPT's are not. On the scenes with glass
            // balls its pixels are not tested one by one (on the GPU at 256x256, 16 seeds, a few of
            // the caustics' pixels failed at p ~ 1e-11 while every block agreed).
            const bool glass = name == "glass-caustic" || name == "cornell-spheres" || name == "cornell-lens" ||
                               name == "rtiow-final" || name == "mirror-caustic" || name == "caustic-behind-glass";
            // VCM at a fifth of a pixel (its merges' bias below these tests' noise), fewer samples:
            // a sample costs it BDPT's plus the light vertex cache, its grid and the merges.
            checkAgreement(name, scene, o,
                           {{IntegratorType::Bdpt, 32 * scale / (gpu ? 2 : 1)},
                            {IntegratorType::PathTracer, 1024 * scale / (gpu ? 2 : 1), !glass},
                            {IntegratorType::Mlt, 32 * scale / (gpu ? 2 : 1)},
                            {IntegratorType::Vcm, 8 * scale / (gpu ? 2 : 1), true, 0.2f}},
                           gpu ? 16 : 8, gpu ? 32 : 4);
        }
    }
}

TEST_CASE("agreement: the textured glTF example under its HDR sky", "[agreement][statistical][gpu]") {
    const std::string dir = WAVEFRONT_EXAMPLE_SCENES_DIR;
    Scene scene = Scene::loadFile(dir + "/textured-spheres.gltf");
    for (Backend backend : wftest::testBackends()) {
        const bool gpu = backend == Backend::Cuda;
        RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, backend, gpu ? 256 : 24, 1);
        o.environmentMap = dir + "/sky.hdr";
        o.maxDepth = 8;
        const int scale = gpu ? 16 : 1;
        checkAgreement("textured example", scene, o,
                       {{IntegratorType::PathTracer, 256 * scale / (gpu ? 2 : 1)}, {IntegratorType::Bdpt, 64 * scale / (gpu ? 2 : 1)},
                        {IntegratorType::Mlt, 64 * scale / (gpu ? 2 : 1), true, 0.0f, gpu ? 0 : 24 * 24}},
                       gpu ? 16 : 8, gpu ? 32 : 4);
    }
}

TEST_CASE("agreement: a glTF sample model with normal maps (assimp-testmodels' ClearCoatTest)", "[agreement][import][statistical][gpu]") {
    const std::string path = "/usr/share/assimp/models/glTF2/ClearCoat-glTF/ClearCoatTest.gltf";
    if (!std::filesystem::exists(path)) {
        WARN("assimp-testmodels not installed (scripts/install-deps.sh): skipped");
        return;
    }
    Scene scene = Scene::loadFile(path);
    int normalMaps = 0;
    for (const Material& m : scene.materials()) normalMaps += m.normalTexture >= 0;
    REQUIRE(normalMaps > 0);
    scene.setEnvironment(skyEnvironment("gradient"));
    scene.frameCamera();
    for (Backend backend : wftest::testBackends()) {
        const bool gpu = backend == Backend::Cuda;
        RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, backend, gpu ? 256 : 24, 1);
        o.maxDepth = 6;
        const int scale = gpu ? 8 : 1;
        checkAgreement("ClearCoatTest", scene, o,
                       {{IntegratorType::PathTracer, 256 * scale}, {IntegratorType::Bdpt, 64 * scale},
                        {IntegratorType::Mlt, 64 * scale}},
                       gpu ? 16 : 8, gpu ? 32 : 4);
    }
}
