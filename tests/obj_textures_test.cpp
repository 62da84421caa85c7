// OBJ texture coordinates (vt, f v/vt/vn) and MTL diffuse textures (map_Kd): the v flip, seams,
// texture sharing, the Kd rule, map_Kd's options, confinement to the folder and error messages,
// and a small render of a textured quad. Files are written by the tests.
#include <catch2/catch.hpp>

#include "test_support.h"

#include <wavefront/error.h>
#include <wavefront/scene.h>

#include <stb_image_write.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

using namespace wavefront;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

using wftest::inputErrorOf;
using wftest::TempDir;

// 2 x 2 RGBA texels, rows top to bottom: red, green / blue, (10, 20, 30) with alpha 128.
const std::vector<std::uint8_t> kTexels = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 10, 20, 30, 128};

void writePng(const fs::path& file, int width, int height, const std::vector<std::uint8_t>& rgba) {
    std::vector<std::uint8_t> png;
    stbi_write_png_to_func(
        [](void* context, void* data, int size) {
            auto* out = static_cast<std::vector<std::uint8_t>*>(context);
            out->insert(out->end(), static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(data) + size);
        },
        &png, width, height, 4, rgba.data(), width * 4);
    REQUIRE(!png.empty());
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
}

// A unit quad in the xy plane facing +z; OBJ's texture coordinates follow the positions (v
// upwards), so its top-left corner (0, 1, 0) has vt 0 1.
const char* kQuad = R"(mtllib m.mtl
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
vt 0 0
vt 1 0
vt 1 1
vt 0 1
vn 0 0 1
usemtl tex
f 1/1/1 2/2/1 3/3/1 4/4/1
)";

// The uv of each vertex of the scene, by position.
glm::vec2 uvAt(const Scene& scene, glm::vec3 position) {
    for (std::size_t i = 0; i < scene.positions().size(); ++i)
        if (scene.positions()[i] == position) return scene.uvs().at(i);
    FAIL("no vertex at the position");
    return glm::vec2(-1.0f);
}

}  // namespace

TEST_CASE("OBJ texture coordinates are read with v flipped: (0, 0) is the texture's top-left corner", "[scene][io][obj][textures]") {
    TempDir dir;
    writePng(dir.path() / "t.png", 2, 2, kTexels);
    dir.write("m.mtl", "newmtl tex\nKd 1 1 1\nmap_Kd t.png\n");
    Scene scene = Scene::loadObj(dir.write("quad.obj", kQuad));
    REQUIRE(scene.triangles().size() == 2);
    REQUIRE(scene.uvs().size() == scene.positions().size());
    CHECK(scene.positions().size() == 4);
    CHECK(uvAt(scene, {0, 1, 0}) == glm::vec2(0, 0));
    CHECK(uvAt(scene, {1, 1, 0}) == glm::vec2(1, 0));
    CHECK(uvAt(scene, {1, 0, 0}) == glm::vec2(1, 1));
    CHECK(uvAt(scene, {0, 0, 0}) == glm::vec2(0, 1));
    CHECK(scene.triangleHasNormals()[0]);

    SECTION("f v/vt, relative indices and vt with one or three numbers") {
        Scene s = Scene::loadObj(dir.write("rel.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0.25\nvt 1 0 7\nvt 0 1 0\nf -3/-3 -2/-2 -1/-1\n"));
        REQUIRE(s.uvs().size() == 3);
        CHECK(uvAt(s, {0, 0, 0}) == glm::vec2(0.25f, 1.0f));  // v defaults to 0
        CHECK(uvAt(s, {1, 0, 0}) == glm::vec2(1.0f, 1.0f));
        CHECK(uvAt(s, {0, 1, 0}) == glm::vec2(0.0f, 0.0f));
        CHECK(!s.triangleHasNormals()[0]);
    }
}

TEST_CASE("an OBJ vertex with two texture coordinates (a seam) stays two vertices", "[scene][io][obj][textures]") {
    TempDir dir;
    // Two triangles share positions 1 and 3; position 1 has vt 1 in one and vt 4 in the other.
    const std::string obj = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0.5 0.5\nvt 0 1\n"
                            "f 1/1 2/2 3/3\nf 1/4 3/3 4/5\n";
    Scene seam = Scene::loadObj(dir.write("seam.obj", obj));
    CHECK(seam.positions().size() == 5);
    std::set<std::pair<float, float>> uvsAtOrigin;
    for (std::size_t i = 0; i < seam.positions().size(); ++i)
        if (seam.positions()[i] == glm::vec3(0.0f)) uvsAtOrigin.insert({seam.uvs()[i].x, seam.uvs()[i].y});
    CHECK(uvsAtOrigin == std::set<std::pair<float, float>>{{0.0f, 1.0f}, {0.5f, 0.5f}});
    // The shared corner with the same uv (position 3, vt 3) is still one vertex.
    int atCorner = 0;
    for (const glm::vec3& p : seam.positions()) atCorner += p == glm::vec3(1, 1, 0);
    CHECK(atCorner == 1);

    // Without texture coordinates the positions are shared as before.
    Scene plain = Scene::loadObj(dir.write("plain.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n"));
    CHECK(plain.positions().size() == 4);
    CHECK(plain.uvs().empty());

    // A face missing a texture coordinate on a corner has none; it goes to a mesh without uvs.
    Scene mixed = Scene::loadObj(dir.write("mixed.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\n"
                                                        "f 1/1 2/1 3/1\nf 1/1 3 4/1\n"));
    CHECK(mixed.positions().size() == 6);
    CHECK(mixed.warnings().empty());  // no texture: nothing is lost
}

TEST_CASE("map_Kd is read once per file, as sRGB bytes, and multiplies Kd", "[scene][io][obj][textures]") {
    TempDir dir;
    fs::create_directories(dir.path() / "maps");
    writePng(dir.path() / "maps" / "t.png", 2, 2, kTexels);
    dir.write("m.mtl", "newmtl tex\nKd 0.5 0.25 1\nmap_Kd maps/t.png\n"
                       "newmtl same\nmap_Kd ./maps/../maps/t.png\n"
                       "newmtl shiny\nKs 0.25 0.25 0.25\nNs 20\nmap_Kd maps/t.png\n"
                       "newmtl pbr\nPm 1\nPr 0.5\nmap_Kd maps/t.png\n"
                       "newmtl linear\nmap_Kd -colorspace linear maps/t.png\n");
    const std::string obj = std::string(kQuad) + "usemtl same\nf 1/1 2/2 3/3\nusemtl shiny\nf 1/1 2/2 3/3\n"
                                                 "usemtl pbr\nf 1/1 2/2 3/3\nusemtl linear\nf 1/1 2/2 3/3\n";
    Scene scene = Scene::loadObj(dir.write("quad.obj", obj));
    REQUIRE(scene.textures().size() == 2);  // maps/t.png as sRGB, and as linear
    const Texture& t = scene.textures()[0];
    CHECK(t.width == 2);
    CHECK(t.height == 2);
    CHECK(t.srgb);
    CHECK(t.rgba8 == kTexels);
    CHECK(!scene.textures()[1].srgb);
    CHECK(scene.textures()[1].rgba8 == kTexels);

    const auto& m = scene.materials();
    REQUIRE(m.size() == 5);
    CHECK(m[0].type == MaterialType::Lambertian);
    CHECK(m[0].baseColorTexture == 0);
    CHECK(m[0].diffuse == glm::vec3(0.5f, 0.25f, 1.0f));  // an explicit Kd is the factor
    CHECK(m[1].baseColorTexture == 0);                    // the same file by another path
    CHECK(m[1].diffuse == glm::vec3(1.0f));               // no Kd: the texture alone
    CHECK(m[2].type == MaterialType::Glossy);
    CHECK(m[2].baseColorTexture == 0);
    CHECK(m[2].diffuse == glm::vec3(0.75f));  // no Kd with Ks 0.25: 1 - Ks, Ks kept
    CHECK(m[2].specular == glm::vec3(0.25f));
    CHECK(m[3].type == MaterialType::MetallicRoughness);
    CHECK(m[3].baseColorTexture == 0);
    CHECK(m[3].diffuse == glm::vec3(1.0f));
    CHECK(m[4].baseColorTexture == 1);
    CHECK(scene.warnings().empty());
}

TEST_CASE("map_Kd's -s and -o scale and move the texture coordinates, other options warn", "[scene][io][obj][textures]") {
    TempDir dir;
    writePng(dir.path() / "t.png", 2, 2, kTexels);
    dir.write("m.mtl", "newmtl tex\nKd 1 1 1\nmap_Kd -s 2 4 1 -o 0.25 0.5 0 -clamp on t.png\n");
    Scene scene = Scene::loadObj(dir.write("quad.obj", kQuad));
    // (u, v) -> (2 u + 0.25, 1 - (4 v + 0.5)).
    CHECK(uvAt(scene, {0, 1, 0}) == glm::vec2(0.25f, -3.5f));
    CHECK(uvAt(scene, {1, 0, 0}) == glm::vec2(2.25f, 0.5f));
    REQUIRE(scene.warnings().size() == 1);
    CHECK_THAT(scene.warnings()[0], Contains("m.mtl") && Contains("'tex'") && Contains("-clamp"));
}

TEST_CASE("map_Kd outside the MTL's folder is refused unless external files are allowed", "[scene][io][obj][textures][hardening]") {
    TempDir dir;
    writePng(dir.path() / "outside.png", 2, 2, kTexels);
    fs::create_directories(dir.path() / "model");
    dir.write("model/m.mtl", "newmtl tex\nmap_Kd ../outside.png\n");
    const std::string path = dir.write("model/quad.obj", kQuad);
    const std::string message = inputErrorOf([&] { Scene::loadObj(path); });
    CHECK_THAT(message, Contains("m.mtl") && Contains("'tex'") && Contains("map_Kd '../outside.png'") &&
                            Contains("outside") && Contains("allowExternalFiles"));
    CHECK(message.find('\n') == std::string::npos);

    SceneLoadOptions options;
    options.allowExternalFiles = true;
    Scene scene = Scene::loadObj(path, options);
    REQUIRE(scene.textures().size() == 1);
    CHECK(scene.textures()[0].rgba8 == kTexels);
}

TEST_CASE("a missing or undecodable map_Kd is one error line naming the MTL and the texture", "[scene][io][obj][textures]") {
    TempDir dir;
    const std::string path = dir.write("quad.obj", kQuad);

    SECTION("missing") {
        dir.write("m.mtl", "newmtl tex\nKd 1 1 1\nmap_Kd nothere.png\n");
        const std::string message = inputErrorOf([&] { Scene::loadObj(path); });
        CHECK_THAT(message, Contains("material library '" + dir.file("m.mtl") + "'") && Contains("material 'tex'") &&
                                Contains("map_Kd 'nothere.png'") && Contains("No such file"));
        CHECK(message.find_first_of("\r\n") == std::string::npos);
    }
    SECTION("not an image") {
        dir.write("bad.png", "this is not a PNG\n");
        dir.write("m.mtl", "newmtl tex\nmap_Kd bad.png\n");
        const std::string message = inputErrorOf([&] { Scene::loadObj(path); });
        CHECK_THAT(message, Contains("m.mtl") && Contains("map_Kd 'bad.png'") && Contains("cannot decode"));
        CHECK(message.find_first_of("\r\n") == std::string::npos);
    }
    SECTION("a directory") {
        fs::create_directories(dir.path() / "dir.png");
        dir.write("m.mtl", "newmtl tex\nmap_Kd dir.png\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }), Contains("map_Kd 'dir.png'") && Contains("directory"));
    }
    SECTION("materials that no face uses and mirrors read no texture") {
        dir.write("m.mtl", "newmtl tex\nillum 3\nKs 0.9 0.9 0.9\nmap_Kd nothere.png\nnewmtl unused\nmap_Kd gone.png\n");
        Scene scene = Scene::loadObj(path);
        CHECK(scene.textures().empty());
        REQUIRE(scene.warnings().size() == 1);
        CHECK_THAT(scene.warnings()[0], Contains("'tex'") && Contains("not used") && Contains("mirror"));
    }
}

TEST_CASE("OBJ texture coordinates have the error discipline of vertices", "[scene][io][obj][textures]") {
    TempDir dir;
    const std::string tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    SECTION("an index beyond the texture coordinates") {
        std::string path = dir.write("range.obj", tri + "vt 0 0\nf 1/1 2/1 3/9\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }),
                   Contains("range.obj:5: face 1") && Contains("texture coordinate 9") && Contains("1 texture coordinates"));
    }
    SECTION("a relative index before the first") {
        std::string path = dir.write("neg.obj", tri + "vt 0 0\nf 1/-1 2/-1 3/-2\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }),
                   Contains("neg.obj:5: face 1") && Contains("texture coordinate -2") && Contains("1 defined so far"));
    }
    SECTION("index 0") {
        std::string path = dir.write("zero.obj", tri + "vt 0 0\nf 1/0 2/1 3/1\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }), Contains("texture coordinate 0"));
    }
    SECTION("garbage") {
        std::string path = dir.write("garbage.obj", tri + "vt 0 0\nf 1/x 2/1 3/1\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }), Contains("garbage.obj:5") && Contains("'1/x'"));
        path = dir.write("garbage2.obj", tri + "vt 0 zero\nf 1/1 2/1 3/1\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }), Contains("garbage2.obj:4") && Contains("'zero' is not a number"));
        path = dir.write("empty.obj", tri + "vt\nf 1 2 3\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }), Contains("empty.obj:4") && Contains("'vt'"));
    }
    SECTION("a non-finite texture coordinate is an error where a face uses it") {
        std::string path = dir.write("nan.obj", tri + "vt nan 0\nvt 0 1e39\nvt 0 0\nf 1/3 2/3 3/3\nf 1/3 2/2 3/3\n");
        const std::string message = inputErrorOf([&] { Scene::loadObj(path); });
        CHECK_THAT(message, Contains("nan.obj:8: face 2 uses texture coordinate 2") && Contains("(0 1e39) (line 5)") &&
                                Contains("float range"));
        path = dir.write("nan2.obj", tri + "vt nan 0\nf 1/1 2/1 3/1\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }),
                   Contains("nan2.obj:5: face 1 uses texture coordinate 1 (nan 0) (line 4), which is not finite"));
    }
    SECTION("an unused non-finite one is harmless") {
        std::string path = dir.write("unused.obj", tri + "vt nan inf\nvt 0 0\nf 1/2 2/2 3/2\n");
        CHECK(Scene::loadObj(path).uvs().size() == 3);
    }
}

TEST_CASE("faces without texture coordinates under a textured material are named in a warning", "[scene][io][obj][textures]") {
    TempDir dir;
    writePng(dir.path() / "t.png", 2, 2, kTexels);
    dir.write("m.mtl", "newmtl tex\nmap_Kd t.png\n");
    Scene scene = Scene::loadObj(dir.write("quad.obj", std::string(kQuad) + "f 1 2 3\nf 1 3 4\n"));
    REQUIRE(scene.warnings().size() == 1);
    CHECK_THAT(scene.warnings()[0], Contains("quad.obj") && Contains("2 faces") && Contains("'tex'"));
    CHECK(scene.uvs().size() == scene.positions().size());  // 0 for the faces without
}

TEST_CASE("an OBJ quad with a red-over-blue map_Kd renders red above blue under a white sky", "[scene][io][obj][textures][render]") {
    TempDir dir;
    // 4 x 4 texels: the top two rows red, the bottom two blue.
    std::vector<std::uint8_t> texels(64, 0);
    for (int i = 0; i < 16; ++i) texels[4 * i + (i < 8 ? 0 : 2)] = texels[4 * i + 3] = 255;
    writePng(dir.path() / "redblue.png", 4, 4, texels);
    dir.write("m.mtl", "newmtl tex\nmap_Kd redblue.png\n");
    Scene scene = Scene::loadObj(dir.write("quad.obj", kQuad));
    Camera camera;
    camera.position = glm::vec3(0.5f, 0.5f, 1.0f);
    camera.target = glm::vec3(0.5f, 0.5f, 0.0f);
    camera.verticalFovDegrees = 40.0f;  // sees [0.136, 0.864]^2 of the quad
    scene.setCamera(camera);
    Image sky(1, 1);
    sky.rgb = {1.0f, 1.0f, 1.0f};
    scene.setEnvironment(sky);
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 16, 16);
    Image img = wftest::renderImage(scene, o);
    // Image rows 0..3 see the quad's y in [0.68, 0.864]: v in [0.136, 0.32] after the flip, between
    // the centres of texel rows 0 and 1 (red); rows 12..15 likewise see blue.
    glm::dvec3 top(0.0), bottom(0.0);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 16; ++x)
            for (int c = 0; c < 3; ++c) {
                top[c] += img.pixel(x, y)[c] / 64.0;
                bottom[c] += img.pixel(x, 15 - y)[c] / 64.0;
            }
    INFO("top " << top.x << " " << top.y << " " << top.z << ", bottom " << bottom.x << " " << bottom.y << " " << bottom.z);
    // Albedo (1, 0, 0) under radiance 1: radiance (1, 0, 0); blue likewise.
    CHECK(top.x == Approx(1.0).epsilon(0.1));
    CHECK(top.y < 1e-3);
    CHECK(top.z < 1e-3);
    CHECK(bottom.z == Approx(1.0).epsilon(0.1));
    CHECK(bottom.x < 1e-3);
    CHECK(bottom.y < 1e-3);
}

TEST_CASE("map_Ke and norm are read, map_Ks, bump, map_d and the other maps are named in a warning", "[scene][io][obj][textures]") {
    TempDir dir;
    writePng(dir.path() / "t.png", 2, 2, kTexels);
    dir.write("m.obj", kQuad);
    dir.write("m.mtl", "newmtl tex\nKd 0.5 0.5 0.5\nKe 2 2 2\nmap_Ke t.png\nnorm -bm 0.5 t.png\nmap_Ks t.png\nbump t.png\n"
                       "map_d t.png\nmap_Ns t.png\n");
    const Scene scene = Scene::loadObj(dir.file("m.obj"));
    REQUIRE(scene.materials().size() == 1);
    const Material& m = scene.materials()[0];
    REQUIRE(m.emissionTexture >= 0);
    REQUIRE(m.normalTexture >= 0);
    CHECK(scene.textures()[std::size_t(m.emissionTexture)].srgb);
    CHECK_FALSE(scene.textures()[std::size_t(m.normalTexture)].srgb);  // data, not colour
    CHECK(m.normalScale == 0.5f);
    std::string warnings;
    for (const auto& w : scene.warnings()) warnings += w + "\n";
    for (const char* keyword : {"map_Ks 't.png'", "bump (a height map", "map_d 't.png'", "map_Ns 't.png'"}) {
        INFO(keyword);
        CHECK_THAT(warnings, Contains(keyword) && Contains("not supported"));
    }
    // map_Ke scales Ke: without Ke it does nothing, which is said.
    dir.write("m.mtl", "newmtl tex\nKd 0.5 0.5 0.5\nmap_Ke t.png\n");
    const Scene dark = Scene::loadObj(dir.file("m.obj"));
    CHECK(dark.materials()[0].emissionTexture < 0);
    REQUIRE(dark.warnings().size() == 1);
    CHECK_THAT(dark.warnings()[0], Contains("map_Ke 't.png' is not used"));
}

TEST_CASE("textures have a texel budget per scene, checked before decoding", "[scene][io][obj][textures][hardening]") {
    TempDir dir;
    writePng(dir.path() / "a.png", 2, 2, kTexels);
    writePng(dir.path() / "b.png", 2, 2, kTexels);
    dir.write("m.obj", std::string(kQuad) + "usemtl other\nf 1/1 2/2 3/3\n");
    dir.write("m.mtl", "newmtl tex\nmap_Kd a.png\nnewmtl other\nmap_Kd b.png\n");
    SceneLoadOptions options;
    CHECK(Scene::loadObj(dir.file("m.obj"), options).textures().size() == 2);
    options.maxTextureTexels = 6;  // room for one 2x2 texture, not two
    CHECK_THAT(inputErrorOf([&] { Scene::loadObj(dir.file("m.obj"), options); }),
               Contains("map_Kd 'b.png'") && Contains("image size 2x2 is over what is left of the scene's texture budget (2 texels"));
    // A PNG declaring 100000 x 100000: stb_image said "unknown image type".
    std::string png;
    {
        std::ifstream in(dir.path() / "a.png", std::ios::binary);
        png.assign(std::istreambuf_iterator<char>(in), {});
    }
    for (int k = 0; k < 2; ++k) {
        const unsigned char size[4] = {0x00, 0x01, 0x86, 0xa0};  // 100000, big-endian
        png.replace(16 + 4 * std::size_t(k), 4, reinterpret_cast<const char*>(size), 4);
    }
    std::ofstream(dir.path() / "a.png", std::ios::binary) << png;
    CHECK_THAT(inputErrorOf([&] { Scene::loadObj(dir.file("m.obj")); }),
               Contains("image size 100000x100000 is out of range"));
}

TEST_CASE("Radiance HDR is decoded without stb_image, run-length encoded or flat, and a truncated file is refused", "[io][textures][hardening]") {
    TempDir dir;
    // 8 x 2 texels: row 0 ramps up, row 1 is one colour; the encoded file stores row 0 as literals
    // and row 1 as runs.
    const std::string header = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 8\n";
    std::string rle = header, flat = header;
    for (int y = 0; y < 2; ++y) {
        rle += std::string("\2\2\0\10", 4);
        for (int c = 0; c < 4; ++c) {
            if (y == 0) {
                rle += char(8);
                for (int x = 0; x < 8; ++x) rle += char(c == 3 ? 129 : 16 * x + c);
            } else {
                rle += char(128 + 8);
                rle += char(c == 3 ? 128 : 100 + c);
            }
        }
        for (int x = 0; x < 8; ++x)
            for (int c = 0; c < 4; ++c) flat += char(y == 0 ? (c == 3 ? 129 : 16 * x + c) : (c == 3 ? 128 : 100 + c));
    }
    const Image a = readImage(dir.write("rle.hdr", rle)), b = readImage(dir.write("flat.hdr", flat));
    REQUIRE(a.width == 8);
    REQUIRE(a.height == 2);
    CHECK(a.rgb == b.rgb);
    CHECK(a.pixel(3, 0)[1] == Approx((16 * 3 + 1) * std::ldexp(1.0, 129 - 136)));
    CHECK(a.pixel(5, 1)[2] == Approx(102 * std::ldexp(1.0, 128 - 136)));
    // Issue 37's 49 bytes: stb_image looped forever on the run of length 0 past the end, as an
    // environment map and as a texture whatever its name.
    const std::string hang = std::string("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 8\n\2\2\0\10", 49);
    CHECK_THAT(inputErrorOf([&] { readImage(dir.write("trunc.hdr", hang)); }),
               Contains("8x1 texels take at least 12 bytes, but 4 follow the header"));
    CHECK_THAT(inputErrorOf([&] { readImage(dir.write("zero.hdr", hang + std::string(8, '\0'))); }),
               Contains("a run of 0 where 8 texels are left"));
    CHECK_THAT(inputErrorOf([&] { readImage(dir.write("cut.hdr", rle.substr(0, rle.size() - 6))); }),
               Contains("the data ends in scanline 2 of 2"));
    dir.write("t.png", hang);
    dir.write("m.obj", kQuad);
    dir.write("m.mtl", "newmtl tex\nmap_Kd t.png\n");
    CHECK_THAT(inputErrorOf([&] { Scene::loadObj(dir.file("m.obj")); }), Contains("map_Kd 't.png'") && Contains("take at least"));
    // Radiance content under a PNG name is a linear float texture.
    dir.write("t.png", rle);
    const Scene scene = Scene::loadObj(dir.file("m.obj"));
    REQUIRE(scene.textures().size() == 1);
    CHECK(scene.textures()[0].rgba8.empty());
    CHECK(scene.textures()[0].rgbaFloat.size() == 8 * 2 * 4);
}
