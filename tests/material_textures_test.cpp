// The textures beyond base colour (issue 14): tangent-space normal maps, glTF metallic-roughness
// textures and emission textures. The normal map's frame is checked on the surface the kernels
// compute; the other two against renders of the factors they stand for.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>

#include "kernels/scene/surface.h"
#include "test_support.h"

using namespace wavefront;

namespace {

/// One quad in the z = 0 plane facing +z, corners (-1, -1) .. (1, 1), its texture coordinates
/// given per corner (bottom-left, bottom-right, top-right, top-left), and a material whose normal
/// map is one float texel: a SceneView over host memory, as the kernels see it.
struct NormalMappedQuad {
    vec3 positions[4] = {vec3(-1, -1, 0), vec3(1, -1, 0), vec3(1, 1, 0), vec3(-1, 1, 0)};
    vec2 uvs[4];
    uvec3 triangles[2] = {uvec3(0, 1, 2), uvec3(0, 2, 3)};
    int triangleMaterial[2] = {0, 0};
    std::uint8_t hasNormals[2] = {0, 0};
    Float4 sphere = Float4(0.0f, 0.0f, 0.0f, 1.0f);
    int sphereMaterial = 0;
    MaterialData material{};
    MaterialTextures textures;
    Float4 texel;
    TextureView map;

    NormalMappedQuad(vec3 tangentSpaceNormal, float scale, const std::array<vec2, 4>& cornerUvs) {
        for (int k = 0; k < 4; ++k) uvs[k] = cornerUvs[k];
        material.setNormalScale(scale);
        textures.normal = 0;
        texel = Float4(0.5f * tangentSpaceNormal + vec3(0.5f), 1.0f);
        map.rgbaFloat = &texel;
        map.width = map.height = 1;
    }
    SceneView view() const {
        SceneView v;
        v.positions = positions;
        v.uvs = uvs;
        v.triangles = triangles;
        v.triangleMaterial = triangleMaterial;
        v.hasNormals = hasNormals;
        v.spheres = &sphere;
        v.sphereMaterial = &sphereMaterial;
        v.materials = &material;
        v.materialTextures = &textures;
        v.textures = &map;
        v.numTriangles = 2;
        v.numSpheres = 1;
        return v;
    }
    /// The shading normal where a ray down the z axis meets primitive `prim` at (x, y).
    vec3 shadingNormalAt(int prim, float x, float y) const {
        vec3 origin(x, y, 5.0f);
        SurfaceHit h = surfaceAt<AllMaterials>(view(), Hit{5.0f, prim}, origin, vec3(0, 0, -1));
        return h.ns;
    }
};

// glTF's convention: (0, 0) at the image's top-left, v running down.
const std::array<vec2, 4> kUpright = {vec2(0, 1), vec2(1, 1), vec2(1, 0), vec2(0, 0)};
// The same image mirrored left to right: u runs against x.
const std::array<vec2, 4> kMirrored = {vec2(1, 1), vec2(0, 1), vec2(0, 0), vec2(1, 0)};

bool near(vec3 a, vec3 b, float eps = 1e-5f) { return glm::length(a - b) <= eps; }

}  // namespace

TEST_CASE("normal maps tilt the shading normal along +u and up in the image", "[textures][materials]") {
    const float s = std::sqrt(0.5f);
    // x in tangent space follows dp/du: +x world on the upright quad, -x on the mirrored one.
    CHECK(near(NormalMappedQuad(vec3(s, 0, s), 1.0f, kUpright).shadingNormalAt(0, 0.5f, -0.2f), vec3(s, 0, s)));
    CHECK(near(NormalMappedQuad(vec3(s, 0, s), 1.0f, kMirrored).shadingNormalAt(1, -0.4f, 0.5f), vec3(-s, 0, s)));
    // y is up in the image: +y world on both (v runs down the quad either way).
    CHECK(near(NormalMappedQuad(vec3(0, s, s), 1.0f, kUpright).shadingNormalAt(1, -0.4f, 0.5f), vec3(0, s, s)));
    CHECK(near(NormalMappedQuad(vec3(0, s, s), 1.0f, kMirrored).shadingNormalAt(0, 0.5f, -0.2f), vec3(0, s, s)));
    // The scale multiplies x and y: scale 0 leaves the surface's own normal, 2 doubles the tilt.
    CHECK(near(NormalMappedQuad(vec3(s, 0, s), 0.0f, kUpright).shadingNormalAt(0, 0.5f, -0.2f), vec3(0, 0, 1)));
    CHECK(near(NormalMappedQuad(vec3(0.6f, 0, 0.8f), 2.0f, kUpright).shadingNormalAt(0, 0.5f, -0.2f),
               glm::normalize(vec3(1.2f, 0, 0.8f))));
    // A flat texel (0, 0, 1) is no change.
    CHECK(near(NormalMappedQuad(vec3(0, 0, 1), 1.0f, kUpright).shadingNormalAt(0, 0.5f, -0.2f), vec3(0, 0, 1)));
    // A map that would turn the normal below the surface is not taken.
    CHECK(near(NormalMappedQuad(vec3(1, 0, 0), 3.0f, kUpright).shadingNormalAt(0, 0.5f, -0.2f), vec3(0, 0, 1)));
    // The sphere (unit, at the origin): where +z leaves it, u grows towards -x and v downwards.
    NormalMappedQuad tiltU(vec3(s, 0, s), 1.0f, kUpright), tiltUp(vec3(0, s, s), 1.0f, kUpright);
    auto sphereNormal = [](const NormalMappedQuad& q) {
        return surfaceAt<AllMaterials>(q.view(), Hit{4.0f, 2}, vec3(0, 0, 5), vec3(0, 0, -1)).ns;
    };
    CHECK(near(sphereNormal(tiltU), vec3(-s, 0, s)));
    CHECK(near(sphereNormal(tiltUp), vec3(0, s, s)));
    // Kernels compiled without textures never read the map.
    CHECK(near(surfaceAt<ClassicMaterials>(tiltU.view(), Hit{5.0f, 0}, vec3(0.5f, -0.2f, 5), vec3(0, 0, -1)).ns,
               vec3(0, 0, 1)));
}

TEST_CASE("constant metallic-roughness and emission textures render as the factors they scale", "[textures][gpu]") {
    // A metallic-roughness floor and ball lit by a spherical lamp (one light: its selection
    // probability is 1 either way). Textured: roughness 0.8 x G 0.5, metallic 0.6 x B 1, emission
    // E / 2 x an HDR texel of 2, base colour c x 1; untextured: the products. Powers of two keep
    // the products exact, so every sample is the same and the images agree to the order of film
    // sums.
    auto build = [](bool textured) {
        Scene scene;
        Texture mr, hdr, white;
        mr.width = mr.height = hdr.width = hdr.height = white.width = white.height = 1;
        mr.rgbaFloat = {0.0f, 0.5f, 1.0f, 1.0f};
        hdr.rgbaFloat = {2.0f, 2.0f, 2.0f, 1.0f};
        white.rgbaFloat = {1.0f, 1.0f, 1.0f, 1.0f};
        Material floor = Material::metallicRoughness(glm::vec3(0.7f, 0.5f, 0.3f), textured ? 0.6f : 0.6f,
                                                     textured ? 0.8f : 0.4f);
        Material ball = Material::metallicRoughness(glm::vec3(0.9f, 0.8f, 0.4f), 0.6f, textured ? 0.8f : 0.4f);
        Material lamp = Material::lambertian(glm::vec3(0.0f), glm::vec3(6.0f, 4.0f, 3.0f) * (textured ? 0.5f : 1.0f));
        if (textured) {
            const int mrIndex = scene.addTexture(mr), hdrIndex = scene.addTexture(hdr), whiteIndex = scene.addTexture(white);
            floor.metallicRoughnessTexture = ball.metallicRoughnessTexture = mrIndex;
            floor.baseColorTexture = whiteIndex;
            lamp.emissionTexture = hdrIndex;
        }
        TriangleMesh quad;
        quad.material = scene.addMaterial(floor);
        quad.positions = {{-2, 0, -2}, {-2, 0, 2}, {2, 0, 2}, {2, 0, -2}};
        quad.uvs = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
        quad.indices = {0, 1, 2, 0, 2, 3};
        scene.addMesh(quad);
        scene.addSphere(Sphere{glm::vec3(0.3f, 0.5f, 0.0f), 0.5f, scene.addMaterial(ball)});
        scene.addSphere(Sphere{glm::vec3(-0.8f, 1.4f, 0.6f), 0.25f, scene.addMaterial(lamp)});
        Camera cam;
        cam.position = glm::vec3(0.0f, 1.5f, 4.0f);
        cam.target = glm::vec3(0.0f, 0.4f, 0.0f);
        scene.setCamera(cam);
        return scene;
    };
    const Scene textured = build(true), plain = build(false);
    REQUIRE(plain.textures().empty());
    for (Backend backend : wftest::testBackends())
        for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt, IntegratorType::Mlt}) {
            RenderOptions o = wftest::smallRender(integrator, backend, 16, 8);
            o.maxDepth = 5;
            const Image a = wftest::renderImage(textured, o), b = wftest::renderImage(plain, o);
            double sum = 0.0, worst = 0.0;
            for (std::size_t i = 0; i < a.rgb.size(); ++i) {
                sum += b.rgb[i];
                worst = std::max(worst, std::fabs(double(a.rgb[i]) - double(b.rgb[i])) / std::max(1e-3, double(b.rgb[i])));
            }
            INFO(toString(backend) << " " << toString(integrator) << ": mean " << sum / double(a.rgb.size()) << ", worst "
                                   << worst);
            CHECK(sum / double(a.rgb.size()) > 0.01);
            CHECK(worst < 1e-4);
        }
}

TEST_CASE("materials refuse texture indices out of range and sRGB-flagged data textures", "[textures][scene]") {
    Scene scene;
    Texture t;
    t.width = t.height = 1;
    t.rgba8 = {128, 128, 255, 255};
    const int colour = scene.addTexture(t);
    t.srgb = false;
    const int data = scene.addTexture(t);
    Material m = Material::metallicRoughness(glm::vec3(0.5f), 0.0f, 0.5f);
    m.normalTexture = colour;
    CHECK_THROWS_WITH(scene.addMaterial(m), Catch::Contains("normal texture 0 holds data") && Catch::Contains("srgb"));
    m.normalTexture = data;
    m.metallicRoughnessTexture = colour;
    CHECK_THROWS_WITH(scene.addMaterial(m), Catch::Contains("metallic-roughness texture 0"));
    m.metallicRoughnessTexture = data;
    m.emissionTexture = 7;
    CHECK_THROWS_WITH(scene.addMaterial(m), Catch::Contains("emission texture 7 is out of range"));
    m.emissionTexture = colour;
    m.normalScale = NAN;
    CHECK_THROWS_WITH(scene.addMaterial(m), Catch::Contains("normal scale"));
    m.normalScale = 0.5f;
    CHECK(scene.addMaterial(m) == 0);
    // HDR texels (above 1) may scale emission only.
    Texture hdr;
    hdr.width = hdr.height = 1;
    hdr.rgbaFloat = {3.0f, 0.5f, 0.5f, 1.0f};
    const int bright = scene.addTexture(hdr);
    m.emissionTexture = bright;
    m.emission = glm::vec3(1.0f);
    CHECK(scene.addMaterial(m) == 1);
    m.baseColorTexture = bright;
    CHECK_THROWS_WITH(scene.addMaterial(m), Catch::Contains("base colour texture 2 has texel values up to 3"));
    hdr.rgbaFloat[0] = NAN;
    CHECK_THROWS_WITH(scene.addTexture(hdr), Catch::Contains("not finite"));
}

TEST_CASE("RenderStats counts the backend's memory: textures, film and streams, and its peak", "[textures][gpu]") {
    Scene scene;
    Texture big;
    big.width = big.height = 256;
    big.rgba8.assign(4 * 256 * 256, 200);
    Material m = Material::lambertian(glm::vec3(0.8f));
    m.baseColorTexture = scene.addTexture(big);
    TriangleMesh quad;
    quad.material = scene.addMaterial(m);
    quad.positions = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
    quad.uvs = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    quad.indices = {0, 1, 2, 0, 2, 3};
    scene.addMesh(quad);
    Image sky(1, 1);
    sky.rgb = {1.0f, 1.0f, 1.0f};
    scene.setEnvironment(sky);
    for (Backend backend : wftest::testBackends()) {
        RenderStats small, large;
        wftest::renderImage(scene, wftest::smallRender(IntegratorType::PathTracer, backend, 16, 1), &small);
        wftest::renderImage(scene, wftest::smallRender(IntegratorType::PathTracer, backend, 256, 1), &large);
        INFO(toString(backend) << ": " << small.memoryBytes << " / " << small.peakMemoryBytes << " bytes at 16x16, "
                               << large.memoryBytes << " / " << large.peakMemoryBytes << " at 256x256");
        CHECK(small.textureBytes == 4u * 256u * 256u);
        CHECK(small.memoryBytes >= small.textureBytes);
        CHECK(small.peakMemoryBytes >= small.memoryBytes);
        // The larger film: 3 doubles and a count per pixel more, at least.
        CHECK(large.memoryBytes - small.memoryBytes >= (256u * 256u - 16u * 16u) * 28u);
        CHECK(large.memoryBytes < (std::uint64_t(1) << 32));
    }
}
