// Image textures (issue 14): the lookup (sRGB decoding, bilinear filtering, repetition, texture
// coordinates kept in 32 bits) and what a render makes of them on a flat textured card under a
// uniform sky, where every pixel's value is known.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/materials/texture.h"
#include "test_support.h"

using namespace wavefront;

namespace {

/// The sRGB decoding of an 8-bit value, from the standard's formula in double precision.
double srgbDecoded(int byte) {
    double c = byte / 255.0;
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

}  // namespace

TEST_CASE("texture lookups decode sRGB, filter bilinearly between texel centres and repeat", "[textures]") {
    // 2 x 2 texels: bytes 0, 128 / 255, 64 (red channel), as sRGB and as linear.
    std::uint32_t texels[4] = {0u, 128u, 255u, 64u};
    TextureView t;
    t.rgba8 = texels;
    t.width = t.height = 2;
    t.srgb = 1;
    CHECK(t.sample(vec2(0.25f, 0.25f)).x == Approx(0.0).margin(1e-7));
    CHECK(t.sample(vec2(0.75f, 0.25f)).x == Approx(srgbDecoded(128)).epsilon(1e-5));
    CHECK(t.sample(vec2(0.25f, 0.75f)).x == Approx(1.0).epsilon(1e-6));
    CHECK(t.sample(vec2(1.75f, -0.25f)).x == Approx(srgbDecoded(64)).epsilon(1e-5));  // repeated
    // Halfway between two texel centres: the mean of the decoded values, not the decoded mean.
    CHECK(t.sample(vec2(0.5f, 0.25f)).x == Approx(0.5 * srgbDecoded(128)).epsilon(1e-5));
    // At the edge the filter wraps to the opposite texel.
    CHECK(t.sample(vec2(0.0f, 0.25f)).x == Approx(0.5 * srgbDecoded(128)).epsilon(1e-5));
    t.srgb = 0;
    CHECK(t.sample(vec2(0.75f, 0.25f)).x == Approx(128.0 / 255.0).epsilon(1e-6));
    for (int b = 0; b < 256; ++b) CHECK(srgbToLinear(b / 255.0f) == Approx(srgbDecoded(b)).epsilon(2e-6).margin(1e-7));

    Float4 floats[2] = {Float4(0.1f, 0.2f, 0.3f, 1.0f), Float4(0.5f, 0.6f, 0.7f, 1.0f)};
    TextureView f;
    f.rgbaFloat = floats;
    f.width = 2;
    f.height = 1;
    vec3 mid = f.sample(vec2(0.5f, 0.3f));
    CHECK(mid.y == Approx(0.4f));
    CHECK(f.sample(vec2(0.25f, 0.9f)).z == Approx(0.3f));
}

TEST_CASE("texture coordinates survive the path vertex's 32 bits to within 1/65536 after repetition", "[textures]") {
    double worst = 0.0;
    for (int i = 0; i < 100000; ++i) {
        vec2 uv(std::fmod(i * 0.61803398875f, 7.0f) - 3.0f, std::fmod(i * 0.7548776662f, 5.0f) - 2.0f);
        vec2 back = unpackTextureCoordinates(packTextureCoordinates(uv));
        vec2 expected = uv - glm::floor(uv);
        for (int k = 0; k < 2; ++k) {
            double d = std::fabs(double(back[k]) - double(expected[k]));
            worst = std::max(worst, std::min(d, 1.0 - d));  // 0.99999 and 0 are neighbours
        }
    }
    INFO("worst " << worst);
    CHECK(worst <= 1.0 / 65536.0);
}

TEST_CASE("a textured card under a uniform sky shows its texels' albedo in the right places", "[textures][gpu]") {
    // A Lambertian card facing the camera, filling the view, under a sky of radiance 1 from
    // every direction and nothing else: its radiance is its albedo. The texture has four 4 x 4
    // blocks of one colour each (bilinear filtering is exact inside a block): texture
    // coordinate (0, 0), the top-left corner, must show at the image's top left, and 8-bit
    // values must be decoded from sRGB.
    Texture t;
    t.width = t.height = 8;
    const glm::u8vec3 colours[4] = {{200, 40, 40}, {40, 200, 40}, {40, 40, 200}, {128, 128, 128}};  // TL, TR, BL, BR
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) {
            glm::u8vec3 c = colours[(y / 4) * 2 + x / 4];
            t.rgba8.insert(t.rgba8.end(), {c.x, c.y, c.z, 255});
        }
    Scene scene;
    Material card = Material::lambertian(glm::vec3(1.0f));
    card.baseColorTexture = scene.addTexture(t);
    TriangleMesh quad;
    quad.material = scene.addMaterial(card);
    // The camera at z = 2 sees [-h, h]^2 at z = 0 with h = 2 tan(fov / 2).
    const float fov = 40.0f, h = 2.0f * std::tan(glm::radians(fov) / 2.0f);
    quad.positions = {{-h, h, 0}, {h, h, 0}, {h, -h, 0}, {-h, -h, 0}};
    quad.uvs = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    quad.indices = {0, 3, 2, 0, 2, 1};
    scene.addMesh(quad);
    Camera cam;
    cam.position = glm::vec3(0, 0, 2);
    cam.target = glm::vec3(0);
    cam.verticalFovDegrees = fov;
    scene.setCamera(cam);
    Image sky(1, 1);
    sky.rgb = {1.0f, 1.0f, 1.0f};
    scene.setEnvironment(sky);

    for (Backend backend : wftest::testBackends()) {
        RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, backend, 16, 256);
        Image img = wftest::renderImage(scene, o);
        // Pixels whose footprint lies inside one block's filter-exact region: 2..5 and 10..13.
        for (int block = 0; block < 4; ++block) {
            glm::dvec3 sum(0.0);
            int x0 = (block % 2) * 8 + 2, y0 = (block / 2) * 8 + 2;
            for (int y = y0; y < y0 + 4; ++y)
                for (int x = x0; x < x0 + 4; ++x)
                    for (int c = 0; c < 3; ++c) sum[c] += img.pixel(x, y)[c] / 16.0;
            for (int c = 0; c < 3; ++c) {
                INFO(toString(backend) << " block " << block << " channel " << c << ": " << sum[c] << ", expected "
                                       << srgbDecoded(colours[block][c]));
                CHECK(sum[c] == Approx(srgbDecoded(colours[block][c])).epsilon(0.04));
            }
        }
    }
}

TEST_CASE("the example scene: a textured glTF model under an HDR sky, PT = BDPT = MLT", "[textures][import][statistical][gpu]") {
    // examples/scenes/textured-spheres.gltf (embedded PNG textures of every kind: base colour,
    // metallic-roughness, normal and emissive; a glTF camera) lit by examples/scenes/sky.hdr (a
    // Radiance file with a small sun) and its lamp: the three integrators agree on the image mean
    // over independent seeds.
    const std::string dir = WAVEFRONT_EXAMPLE_SCENES_DIR;
    Scene scene = Scene::loadFile(dir + "/textured-spheres.gltf");
    REQUIRE(scene.textures().size() == 5);
    int normalMaps = 0, roughnessMaps = 0, emissionMaps = 0;
    for (const Material& m : scene.materials()) {
        normalMaps += m.normalTexture >= 0;
        roughnessMaps += m.metallicRoughnessTexture >= 0;
        emissionMaps += m.emissionTexture >= 0 && m.isEmissive();
    }
    CHECK(normalMaps == 2);
    CHECK(roughnessMaps == 1);
    CHECK(emissionMaps == 1);
    for (Backend backend : wftest::testBackends()) {
        auto options = [&](IntegratorType integrator, int spp) {
            RenderOptions o = wftest::smallRender(integrator, backend, 16, spp);
            o.environmentMap = dir + "/sky.hdr";
            o.maxDepth = 8;
            return o;
        };
        wftest::MeanEstimate pt = wftest::imageMeanOverSeeds(scene, options(IntegratorType::PathTracer, 128), 6, 11);
        wftest::MeanEstimate bdpt = wftest::imageMeanOverSeeds(scene, options(IntegratorType::Bdpt, 32), 6, 21);
        wftest::MeanEstimate mlt = wftest::imageMeanOverSeeds(scene, options(IntegratorType::Mlt, 64), 6, 31);
        auto z = [](const wftest::MeanEstimate& a, const wftest::MeanEstimate& b) {
            return std::fabs(a.mean - b.mean) / std::sqrt(a.standardError * a.standardError + b.standardError * b.standardError);
        };
        INFO(toString(backend) << ": PT " << pt.mean << " +- " << pt.standardError << ", BDPT " << bdpt.mean << " +- "
                               << bdpt.standardError << ", MLT " << mlt.mean << " +- " << mlt.standardError);
        CHECK(pt.mean > 0.05);
        CHECK(z(pt, bdpt) < 4.5);
        CHECK(z(pt, mlt) < 4.5);
        CHECK(z(bdpt, mlt) < 4.5);
    }
}
