// Scene files through Assimp (glTF 2.0, PLY), the default camera, the built-in sky and .hdr
// environment maps, meshes several nodes share as instances: small files written by the tests, and
// real models from Debian packages (assimp-testmodels, glmark2-data) when they are installed.
#include <catch2/catch.hpp>

#include "estimator_checks.h"
#include "test_support.h"

#include <wavefront/error.h>
#include <wavefront/image.h>
#include <wavefront/scene.h>

#include <stb_image_write.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

using namespace wavefront;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

using wftest::checkSameImage;
using wftest::imageMean;
using wftest::inputErrorOf;
using wftest::renderImage;
using wftest::renderSeedStats;
using wftest::SeedStats;
using wftest::smallRender;
using wftest::TempDir;

std::string base64(const std::vector<std::uint8_t>& bytes) {
    static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        std::uint32_t v = std::uint32_t(bytes[i]) << 16;
        if (i + 1 < bytes.size()) v |= std::uint32_t(bytes[i + 1]) << 8;
        if (i + 2 < bytes.size()) v |= bytes[i + 2];
        out += table[(v >> 18) & 63];
        out += table[(v >> 12) & 63];
        out += i + 1 < bytes.size() ? table[(v >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? table[v & 63] : '=';
    }
    return out;
}

template <typename T>
void append(std::vector<std::uint8_t>& buffer, const std::vector<T>& values) {
    const std::size_t at = buffer.size();
    buffer.resize(at + values.size() * sizeof(T));
    std::memcpy(buffer.data() + at, values.data(), values.size() * sizeof(T));
}

// The 2x2 base colour texture, rows top to bottom: red, green / blue, (10, 20, 30) with alpha 128.
const std::vector<std::uint8_t> kTexels = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 10, 20, 30, 128};

std::vector<std::uint8_t> pngBytes() {
    std::vector<std::uint8_t> png;
    stbi_write_png_to_func(
        [](void* context, void* data, int size) {
            auto* out = static_cast<std::vector<std::uint8_t>*>(context);
            out->insert(out->end(), static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(data) + size);
        },
        &png, 2, 2, 4, kTexels.data(), 2 * 4);
    return png;
}

// A unit quad in the xy plane facing +z, with glTF texture coordinates: (0, 0) at its top-left
// corner (0, 1, 0). Node 0 translates by (10, 0, 0); its child, node 1, rotates a quarter turn
// about +y and scales by 2, and holds the mesh: the quad's corner (1, 0, 0) lands at (10, 0, -2)
// and its normal turns to +x. Node 2, a child of node 4 (which translates by (0, 1, 0)), holds a
// camera at (0, 0, 5): at (0, 1, 5) looking down -z (yfov 0.5 rad, aspect 1.5). Node 3 holds a
// point light. Primitive 0 uses the textured metallic-roughness
// material, primitive 1 (the same quad) a transmissive one.
std::string writeGltf(const TempDir& dir, const std::string& name) {
    const std::vector<float> positions = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    const std::vector<float> normals = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    const std::vector<float> uvs = {0, 1, 1, 1, 1, 0, 0, 0};
    const std::vector<std::uint16_t> indices = {0, 1, 2, 0, 2, 3};
    std::vector<std::uint8_t> buffer;
    append(buffer, positions);  // bytes 0..47
    append(buffer, normals);    // 48..95
    append(buffer, uvs);        // 96..127
    append(buffer, indices);    // 128..139
    const std::string json = R"({
  "asset": {"version": "2.0"},
  "extensionsUsed": ["KHR_materials_emissive_strength", "KHR_materials_transmission", "KHR_materials_ior",
                     "KHR_lights_punctual", "KHR_materials_sheen"],
  "extensions": {"KHR_lights_punctual": {"lights": [{"type": "point", "intensity": 10}]}},
  "scene": 0,
  "scenes": [{"nodes": [0, 4, 3]}],
  "nodes": [
    {"translation": [10, 0, 0], "children": [1]},
    {"rotation": [0, 0.70710678, 0, 0.70710678], "scale": [2, 2, 2], "mesh": 0},
    {"translation": [0, 0, 5], "camera": 0},
    {"translation": [0, 3, 0], "extensions": {"KHR_lights_punctual": {"light": 0}}},
    {"translation": [0, 1, 0], "children": [2]}
  ],
  "cameras": [{"type": "perspective", "perspective": {"yfov": 0.5, "aspectRatio": 1.5, "znear": 0.1}}],
  "meshes": [{"primitives": [
    {"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3, "material": 0},
    {"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3, "material": 1}
  ]}],
  "materials": [
    {"name": "textured",
     "pbrMetallicRoughness": {"baseColorFactor": [0.5, 0.25, 1.0, 1.0], "metallicFactor": 0.3,
                              "roughnessFactor": 0.6, "baseColorTexture": {"index": 0},
                              "metallicRoughnessTexture": {"index": 0}},
     "normalTexture": {"index": 0, "scale": 0.5}, "emissiveTexture": {"index": 0},
     "emissiveFactor": [0.1, 0.2, 0.3],
     "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 4.0}}},
    {"name": "glass", "pbrMetallicRoughness": {"roughnessFactor": 0.5},
     "extensions": {"KHR_materials_transmission": {"transmissionFactor": 1.0}, "KHR_materials_ior": {"ior": 1.33}}}
  ],
  "textures": [{"source": 0}],
  "images": [{"uri": "data:image/png;base64,)" + base64(pngBytes()) + R"("}],
  "buffers": [{"byteLength": 140, "uri": "data:application/octet-stream;base64,)" + base64(buffer) + R"("}],
  "bufferViews": [
    {"buffer": 0, "byteOffset": 0, "byteLength": 48},
    {"buffer": 0, "byteOffset": 48, "byteLength": 48},
    {"buffer": 0, "byteOffset": 96, "byteLength": 32},
    {"buffer": 0, "byteOffset": 128, "byteLength": 12}
  ],
  "accessors": [
    {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
    {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3"},
    {"bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC2"},
    {"bufferView": 3, "componentType": 5123, "count": 6, "type": "SCALAR"}
  ]
})";
    return dir.write(name, json);
}

// Meshes for the instancing cases: a box [-1, 1]^3 with one corner pulled out (so that a mirror
// image differs from it; counter-clockwise from outside, smooth normals along the positions),
// a unit quad [-1, 1]^2 facing +z, and three points on a line (a triangle of no area).
std::string sharedMeshBuffers() {
    std::vector<float> box;
    for (int corner = 0; corner < 8; ++corner)
        box.insert(box.end(), {corner & 1 ? 1.0f : -1.0f, corner & 2 ? 1.0f : -1.0f, corner & 4 ? 1.0f : -1.0f});
    box[21] = 1.6f, box[22] = 1.4f, box[23] = 1.2f;  // corner 7, (1, 1, 1)
    std::vector<float> boxNormals;
    for (int v = 0; v < 8; ++v) {
        const glm::vec3 n = glm::normalize(glm::vec3(box[3 * v], box[3 * v + 1], box[3 * v + 2]));
        boxNormals.insert(boxNormals.end(), {n.x, n.y, n.z});
    }
    const std::vector<std::uint16_t> boxIndices = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                                   2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    const std::vector<float> quad = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
    const std::vector<std::uint16_t> quadIndices = {0, 1, 2, 0, 2, 3};
    const std::vector<float> line = {0, 0, 0, 1, 0, 0, 2, 0, 0};
    std::vector<std::uint8_t> buffer;
    append(buffer, box);          // bytes 0..95
    append(buffer, boxNormals);   // 96..191
    append(buffer, boxIndices);   // 192..263
    append(buffer, quad);         // 264..311
    append(buffer, quadIndices);  // 312..323
    append(buffer, line);         // 324..359
    return R"(
  "buffers": [{"byteLength": 360, "uri": "data:application/octet-stream;base64,)" + base64(buffer) + R"("}],
  "bufferViews": [
    {"buffer": 0, "byteOffset": 0, "byteLength": 96}, {"buffer": 0, "byteOffset": 96, "byteLength": 96},
    {"buffer": 0, "byteOffset": 192, "byteLength": 72}, {"buffer": 0, "byteOffset": 264, "byteLength": 48},
    {"buffer": 0, "byteOffset": 312, "byteLength": 12}, {"buffer": 0, "byteOffset": 324, "byteLength": 36}
  ],
  "accessors": [
    {"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3", "min": [-1, -1, -1], "max": [1.6, 1.4, 1.2]},
    {"bufferView": 1, "componentType": 5126, "count": 8, "type": "VEC3"},
    {"bufferView": 2, "componentType": 5123, "count": 36, "type": "SCALAR"},
    {"bufferView": 3, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-1, -1, 0], "max": [1, 1, 0]},
    {"bufferView": 4, "componentType": 5123, "count": 6, "type": "SCALAR"},
    {"bufferView": 5, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [2, 0, 0]}
  ])";
}

const char* const kBoxPrimitive = R"({"attributes": {"POSITION": 0, "NORMAL": 1}, "indices": 2, "material": 0})";

// A glass box placed by three nodes (translated and scaled; turned with a non-uniform scale; a
// mirror image under a turned parent), two emissive quads above it sharing one mesh, and a
// floor, seen by a camera. `instanced`: the three nodes use one mesh; otherwise each its own
// copy of it (the same primitive, so the same data).
std::string writeSharedBoxGltf(const TempDir& dir, const std::string& name, bool instanced) {
    const std::string json = R"({
  "asset": {"version": "2.0"},
  "extensionsUsed": ["KHR_materials_transmission", "KHR_materials_emissive_strength"],
  "scene": 0,
  "scenes": [{"nodes": [0, 1, 2, 4, 5, 6, 7]}],
  "nodes": [
    {"translation": [-1.6, 0.5, 0], "scale": [0.5, 0.5, 0.5], "mesh": 0},
    {"translation": [0, 0.6, -0.5], "rotation": [0, 0.3007058, 0, 0.9537170], "scale": [0.4, 0.6, 0.5], "mesh": )" +
                             std::string(instanced ? "0" : "3") + R"(},
    {"translation": [1.5, 0, 0.3], "rotation": [0, 0.1736482, 0, 0.9848078], "children": [3]},
    {"translation": [0, 0.5, 0], "scale": [-0.5, 0.45, 0.55], "mesh": )" +
                             std::string(instanced ? "0" : "4") + R"(},
    {"translation": [-1.2, 3.5, 0], "rotation": [0.70710678, 0, 0, 0.70710678], "scale": [0.8, 0.8, 0.8], "mesh": 1},
    {"translation": [1.2, 3.5, 0.5], "rotation": [0.70710678, 0, 0, 0.70710678], "scale": [0.8, 0.8, 0.8], "mesh": 1},
    {"rotation": [-0.70710678, 0, 0, 0.70710678], "scale": [6, 6, 6], "mesh": 2},
    {"translation": [0, 2.2, 7], "rotation": [-0.1045285, 0, 0, 0.9945219], "camera": 0}
  ],
  "cameras": [{"type": "perspective", "perspective": {"yfov": 0.7, "aspectRatio": 1.0, "znear": 0.1}}],
  "meshes": [
    {"primitives": [)" + std::string(kBoxPrimitive) + R"(]},
    {"primitives": [{"attributes": {"POSITION": 3}, "indices": 4, "material": 1}]},
    {"primitives": [{"attributes": {"POSITION": 3}, "indices": 4, "material": 2}]},
    {"primitives": [)" + std::string(kBoxPrimitive) + R"(]},
    {"primitives": [)" + std::string(kBoxPrimitive) + R"(]}
  ],
  "materials": [
    {"name": "glass", "pbrMetallicRoughness": {"roughnessFactor": 0.3},
     "extensions": {"KHR_materials_transmission": {"transmissionFactor": 1.0}}},
    {"name": "lamp", "pbrMetallicRoughness": {"baseColorFactor": [0, 0, 0, 1]}, "emissiveFactor": [1, 0.9, 0.8],
     "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 15.0}}},
    {"name": "floor", "pbrMetallicRoughness": {"baseColorFactor": [0.6, 0.5, 0.4, 1], "metallicFactor": 0}}
  ],)" + sharedMeshBuffers() + "\n}";
    return dir.write(name, json);
}

bool near(const glm::vec3& a, const glm::vec3& b, float eps = 1e-4f) { return glm::length(a - b) <= eps; }

// Index of the scene vertex at `p` among the first `count` vertices, or -1.
int vertexAt(const Scene& scene, const glm::vec3& p, std::size_t count) {
    for (std::size_t i = 0; i < count && i < scene.positions().size(); ++i)
        if (near(scene.positions()[i], p)) return int(i);
    return -1;
}

bool hasWarning(const Scene& scene, const std::string& word) {
    for (const auto& w : scene.warnings())
        if (w.find(word) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("glTF: KHR_lights_punctual becomes point, spot and directional lights under their nodes", "[scene][io][import][lights]") {
    TempDir dir;
    // writeGltf's point light (intensity 10) at node 3's translation (0, 3, 0).
    Scene quad = Scene::loadFile(writeGltf(dir, "quad.gltf"));
    REQUIRE(quad.lights().size() == 1);
    CHECK(quad.lights()[0].type == LightType::Point);
    CHECK(glm::length(quad.lights()[0].position - glm::vec3(0, 3, 0)) < 1e-5f);
    CHECK(quad.lights()[0].intensity == glm::vec3(10.0f));
    for (const std::string& w : quad.warnings()) CHECK(w.find("punctual") == std::string::npos);

    // A spot (cone 0.2 to 0.6 rad, red times 5) on a node turned -90 degrees about +x (its -z
    // becomes -y: straight down) under a parent moved by (1, 2, 3), a directional light (colour
    // white by default, intensity 3) turned 90 degrees about +y (-z becomes -x), and a range, which
    // is not honoured.
    const std::vector<float> positions = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    std::vector<std::uint8_t> buffer;
    append(buffer, positions);
    const std::string json = R"({
  "asset": {"version": "2.0"},
  "extensionsUsed": ["KHR_lights_punctual"],
  "extensions": {"KHR_lights_punctual": {"lights": [
    {"type": "spot", "color": [1, 0, 0], "intensity": 5, "range": 20, "spot": {"innerConeAngle": 0.2, "outerConeAngle": 0.6}},
    {"type": "directional", "intensity": 3}]}},
  "scene": 0,
  "scenes": [{"nodes": [0, 1, 3]}],
  "nodes": [
    {"translation": [1, 2, 3], "children": [2]},
    {"rotation": [0, 0.70710678, 0, 0.70710678], "extensions": {"KHR_lights_punctual": {"light": 1}}},
    {"name": "spot", "rotation": [-0.70710678, 0, 0, 0.70710678], "extensions": {"KHR_lights_punctual": {"light": 0}}},
    {"mesh": 0}
  ],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
  "buffers": [{"byteLength": 36, "uri": "data:application/octet-stream;base64,)" + base64(buffer) + R"("}],
  "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36}],
  "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]}]
})";
    Scene scene = Scene::loadFile(dir.write("lights.gltf", json));
    REQUIRE(scene.lights().size() == 2);
    const Light* spot = nullptr;
    const Light* sun = nullptr;
    for (const Light& l : scene.lights()) (l.type == LightType::Spot ? spot : sun) = &l;
    REQUIRE(spot);
    REQUIRE(sun);
    CHECK(sun->type == LightType::Directional);
    CHECK(glm::length(spot->position - glm::vec3(1, 2, 3)) < 1e-5f);
    CHECK(glm::length(spot->direction - glm::vec3(0, -1, 0)) < 1e-5f);
    CHECK(glm::length(spot->intensity - glm::vec3(5, 0, 0)) < 1e-5f);
    CHECK(spot->innerConeDegrees == Approx(0.2 * 180.0 / 3.14159265358979));
    CHECK(spot->outerConeDegrees == Approx(0.6 * 180.0 / 3.14159265358979));
    CHECK(glm::length(sun->direction - glm::vec3(-1, 0, 0)) < 1e-5f);
    CHECK(sun->intensity == glm::vec3(3.0f));
    CHECK(hasWarning(scene, "range"));
}

TEST_CASE("glTF: node transforms apply to positions and normals, uv (0, 0) stays top-left", "[scene][io][import]") {
    TempDir dir;
    Scene scene = Scene::loadFile(writeGltf(dir, "quad.gltf"));
    // Two primitives of four vertices each, two triangles each.
    REQUIRE(scene.positions().size() == 8);
    REQUIRE(scene.triangles().size() == 4);
    // Local (x, y, 0) -> scale 2, quarter turn about y (x -> -z), + (10, 0, 0) = (10, 2y, -2x).
    const int origin = vertexAt(scene, {10, 0, 0}, 4), right = vertexAt(scene, {10, 0, -2}, 4);
    const int topLeft = vertexAt(scene, {10, 2, 0}, 4), topRight = vertexAt(scene, {10, 2, -2}, 4);
    REQUIRE(origin >= 0);
    REQUIRE(right >= 0);
    REQUIRE(topLeft >= 0);
    REQUIRE(topRight >= 0);
    REQUIRE(scene.normals().size() == 8);
    CHECK(near(scene.normals()[origin], {1, 0, 0}));
    // The texture's top-left corner is at the quad's top-left (seen from its front): uv (0, 0).
    REQUIRE(scene.uvs().size() == 8);
    CHECK(scene.uvs()[topLeft] == glm::vec2(0, 0));
    CHECK(scene.uvs()[topRight] == glm::vec2(1, 0));
    CHECK(scene.uvs()[origin] == glm::vec2(0, 1));
    CHECK(scene.uvs()[right] == glm::vec2(1, 1));
    // Counter-clockwise seen from the front: the geometric normal agrees with the shading one.
    for (std::size_t t = 0; t < scene.triangles().size(); ++t) {
        const glm::uvec3 tri = scene.triangles()[t];
        const glm::vec3 n = glm::cross(scene.positions()[tri.y] - scene.positions()[tri.x],
                                       scene.positions()[tri.z] - scene.positions()[tri.x]);
        CHECK(glm::dot(n, glm::vec3(1, 0, 0)) > 0.0f);
    }
}

TEST_CASE("glTF: a mesh several nodes use is one object with an instance per node, drawn as its copies",
          "[scene][io][import][instancing]") {
    TempDir dir;
    Scene instanced = Scene::loadFile(writeSharedBoxGltf(dir, "shared.gltf", true));
    Scene flat = Scene::loadFile(writeSharedBoxGltf(dir, "copies.gltf", false));
    // The box once, placed three times (the mirror image too); the emissive quads, shared as
    // well, are copies (instanced emitters would not be sampled as lights), the floor one mesh.
    REQUIRE(instanced.objects().size() == 1);
    CHECK(instanced.objects()[0].triangles.size() == 12);
    REQUIRE(instanced.instances().size() == 3);
    CHECK(glm::determinant(glm::mat3(instanced.instances()[2].objectToWorld)) < 0.0f);
    CHECK(instanced.meshes().size() == 3);
    CHECK(instanced.triangles().size() == 6);
    CHECK(flat.objects().empty());
    CHECK(flat.instances().empty());
    CHECK(flat.meshes().size() == 6);
    CHECK(instanced.warnings() == flat.warnings());

    RenderOptions o = smallRender(IntegratorType::PathTracer, Backend::Cpu, 32, 16);
    RenderStats st;
    const SeedStats a = renderSeedStats(instanced, o, 8, 8, 11), b = renderSeedStats(flat, o, 8, 8, 9001);
    checkSameImage("shared box", a, b);
    // From the same seed, paths that meet the same surfaces draw the same numbers: most pixels
    // agree closely, which a box placed a little off would break.
    const Image image = renderImage(instanced, o, &st), copies = renderImage(flat, o);
    CHECK(st.instances == 3);
    CHECK(imageMean(image) > 0.01);
    std::size_t close = 0;
    for (std::size_t i = 0; i < image.rgb.size(); ++i)
        close += std::fabs(image.rgb[i] - copies.rgb[i]) <= 1e-3f * std::max(1.0f, std::fabs(copies.rgb[i]));
    CHECK(double(close) / double(image.rgb.size()) > 0.9);
}

TEST_CASE("glTF: a mesh one node uses is copied into the scene, not instanced", "[scene][io][import][instancing]") {
    TempDir dir;
    // writeGltf's mesh (two primitives: two Assimp meshes) is used by one node.
    Scene scene = Scene::loadFile(writeGltf(dir, "quad.gltf"));
    CHECK(scene.objects().empty());
    CHECK(scene.instances().empty());
    CHECK(scene.meshes().size() == 2);
}

TEST_CASE("glTF: transforms and meshes instancing cannot take are copied, as before instancing",
          "[scene][io][import][instancing]") {
    // The box shared by a plain node and one hidden by a zero scale (legal glTF); the quad shared
    // by a plain node and one that flattens it along its own normal (a singular transform that
    // leaves the quad whole); the line shared by two nodes (no triangle of any area).
    const std::string json = R"({
  "asset": {"version": "2.0"},
  "scene": 0,
  "scenes": [{"nodes": [0, 1, 2, 3, 4, 5]}],
  "nodes": [
    {"mesh": 0},
    {"name": "hidden", "translation": [5, 0, 0], "scale": [0, 0, 0], "mesh": 0},
    {"translation": [0, 3, 0], "mesh": 1},
    {"translation": [0, -3, 0], "scale": [2, 2, 0], "mesh": 1},
    {"mesh": 2},
    {"translation": [0, 0, 1], "mesh": 2}
  ],
  "meshes": [
    {"primitives": [)" + std::string(kBoxPrimitive) + R"(]},
    {"primitives": [{"attributes": {"POSITION": 3}, "indices": 4, "material": 0}]},
    {"primitives": [{"attributes": {"POSITION": 5}, "material": 0}]}
  ],
  "materials": [{"name": "white", "pbrMetallicRoughness": {"metallicFactor": 0}}],)" +
                             sharedMeshBuffers() + "\n}";
    TempDir dir;
    Scene scene = Scene::loadFile(dir.write("singular.gltf", json));
    CHECK(scene.warnings().empty());
    // The box and the quad are objects, each placed once; the hidden box, the flattened quad and
    // both lines are copies.
    REQUIRE(scene.objects().size() == 2);
    REQUIRE(scene.instances().size() == 2);
    CHECK(scene.instances()[0].object == 0);
    CHECK(scene.instances()[1].object == 1);
    REQUIRE(scene.meshes().size() == 4);
    // The hidden box's and the lines' triangles have no area: counted, and kept (never hit) for
    // edits to move; the flattened quad stays, at twice the size.
    Light light;  // validate() wants an emitter
    light.type = LightType::Point;
    light.position = glm::vec3(0, 5, 5);
    light.intensity = glm::vec3(1.0f);
    scene.addLight(light);
    scene.validate();
    CHECK(scene.skippedDegenerateTriangles() == 12 + 2);
    REQUIRE(scene.triangles().size() == 12 + 2 + 2);
    const MeshRange& quad = scene.meshes()[1];
    for (std::uint32_t v = quad.firstVertex; v < quad.firstVertex + quad.vertexCount; ++v) {
        CHECK(std::fabs(scene.positions()[v].x) == Approx(2.0f));
        CHECK(scene.positions()[v].y == Approx(-3.0f).margin(2.0f));
        CHECK(scene.positions()[v].z == 0.0f);
    }
}

TEST_CASE("glTF: metallic-roughness, texture, emission and transmission map onto materials", "[scene][io][import]") {
    TempDir dir;
    Scene scene = Scene::loadFile(writeGltf(dir, "quad.gltf"));
    REQUIRE(scene.materials().size() == 2);
    const Material& textured = scene.materials()[scene.triangleMaterials()[0]];
    CHECK(textured.type == MaterialType::MetallicRoughness);
    CHECK(near(textured.diffuse, {0.5f, 0.25f, 1.0f}));
    CHECK(textured.metallic == Approx(0.3f));
    CHECK(textured.roughness == Approx(0.6f));
    // KHR_materials_emissive_strength 4 (read from the JSON where Assimp 5.2 leaves it out).
    CHECK(near(textured.emission, {0.4f, 0.8f, 1.2f}));

    // One image used as colour (base colour, emission: sRGB) and as data (metallic-roughness,
    // normal: linear) becomes two textures with the PNG's bytes, rows top to bottom.
    REQUIRE(scene.textures().size() == 2);
    REQUIRE(textured.baseColorTexture >= 0);
    CHECK(textured.emissionTexture == textured.baseColorTexture);
    REQUIRE(textured.metallicRoughnessTexture >= 0);
    CHECK(textured.normalTexture == textured.metallicRoughnessTexture);
    CHECK(textured.normalTexture != textured.baseColorTexture);
    CHECK(textured.normalScale == Approx(0.5f));
    const Texture& colour = scene.textures()[textured.baseColorTexture];
    const Texture& data = scene.textures()[textured.normalTexture];
    CHECK(colour.width == 2);
    CHECK(colour.height == 2);
    CHECK(colour.srgb);
    CHECK_FALSE(data.srgb);
    CHECK(colour.rgba8 == kTexels);
    CHECK(data.rgba8 == kTexels);
    CHECK(colour.bytes() == 16);

    const Material& glass = scene.materials()[scene.triangleMaterials()[2]];
    CHECK(glass.type == MaterialType::RoughDielectric);
    CHECK(glass.roughness == Approx(0.25f));  // GGX alpha = perceptual roughness 0.5 squared
    CHECK(glass.ior == Approx(1.33f));         // KHR_materials_ior
    // An extension nothing reads: a warning, not an error.
    CHECK(hasWarning(scene, "KHR_materials_sheen"));
}

TEST_CASE("glTF: the first camera with its node transform becomes the scene camera", "[scene][io][import]") {
    TempDir dir;
    Scene scene = Scene::loadFile(writeGltf(dir, "quad.gltf"));
    CHECK_FALSE(scene.cameraIsDefault());
    const Camera& c = scene.camera();
    CHECK(near(c.position, {0, 1, 5}));
    CHECK(near(glm::normalize(c.target - c.position), {0, 0, -1}));
    CHECK(near(glm::normalize(c.up), {0, 1, 0}));
    CHECK(c.verticalFovDegrees == Approx(glm::degrees(0.5f)).epsilon(1e-4));
    CHECK(c.lensRadius == 0.0f);
    scene.validate();
}

TEST_CASE("glTF: warnings are one line each and not repeated", "[scene][io][import]") {
    TempDir dir;
    Scene scene = Scene::loadFile(writeGltf(dir, "quad.gltf"));
    for (std::size_t i = 0; i < scene.warnings().size(); ++i) {
        CHECK(scene.warnings()[i].find('\n') == std::string::npos);
        for (std::size_t j = i + 1; j < scene.warnings().size(); ++j) CHECK(scene.warnings()[i] != scene.warnings()[j]);
    }
    scene.addWarning("same");
    scene.addWarning("same");
    CHECK(std::count(scene.warnings().begin(), scene.warnings().end(), "same") == 1);
}

TEST_CASE("PLY: triangulated, smooth normals generated, grey Lambertian, framed camera", "[scene][io][import]") {
    TempDir dir;
    const std::string ply = dir.write("quad.ply", R"(ply
format ascii 1.0
element vertex 4
property float x
property float y
property float z
element face 1
property list uchar int vertex_indices
end_header
0 0 0
2 0 0
2 1 0
0 1 0
4 0 1 2 3
)");
    Scene scene = Scene::fromNameOrPath(ply);
    CHECK(scene.triangles().size() == 2);
    REQUIRE(scene.materials().size() == 1);
    CHECK(scene.materials()[0].type == MaterialType::Lambertian);
    CHECK(near(scene.materials()[0].diffuse, glm::vec3(0.8f)));
    REQUIRE(scene.normals().size() == scene.positions().size());
    for (const glm::vec3& n : scene.normals()) CHECK(near(n, {0, 0, 1}));
    CHECK(scene.uvs().empty());
    CHECK(scene.cameraIsDefault());
    // The default camera looks at the centre of the bounding box from (1, 0.6, 1.4).
    const Camera& c = scene.camera();
    CHECK(near(c.target, {1, 0.5f, 0}));
    CHECK(near(glm::normalize(c.position - c.target), glm::normalize(glm::vec3(1, 0.6f, 1.4f))));
    CHECK(c.verticalFovDegrees == Approx(40.0f));
    // The bounding sphere (radius sqrt(5) / 2) just fits the vertical field of view.
    CHECK(glm::length(c.position - c.target) * std::sin(glm::radians(20.0f)) == Approx(std::sqrt(5.0f) / 2));
}

TEST_CASE("frameCamera: z up looks from the same side, rotated", "[scene][import]") {
    Scene scene;
    scene.addMaterial(Material::lambertian(glm::vec3(0.5f)));
    scene.addSphere({glm::vec3(0.0f), 1.0f, 0});
    scene.frameCamera(glm::vec3(0, 0, 1));
    const Camera& c = scene.camera();
    CHECK(near(c.up, {0, 0, 1}));
    // y -> z, z -> -y: (1, 0.6, 1.4) becomes (1, -1.4, 0.6).
    CHECK(near(glm::normalize(c.position - c.target), glm::normalize(glm::vec3(1, -1.4f, 0.6f))));
    CHECK(scene.cameraIsDefault());
    scene.setCamera(c);
    CHECK_FALSE(scene.cameraIsDefault());
    CHECK_THAT(inputErrorOf([&] { scene.frameCamera(glm::vec3(0.0f)); }), Contains("up vector"));
}

TEST_CASE("scene files: malformed and missing files give one InputError line", "[scene][io][import]") {
    TempDir dir;
    const std::vector<std::string> bad = {
        dir.write("broken.gltf", "{\"asset\": {\"version\": \"2.0\"}, \"meshes\": [ {\"primitives\": 7"),
        dir.write("garbage.glb", std::string("glTF\x02\0\0\0\xff\xff\xff\x7f", 12) + "garbage"),
        dir.write("truncated.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nend_header\n0\n"),
        dir.write("empty.gltf", "{\"asset\": {\"version\": \"2.0\"}}"),
        dir.write("nan.gltf", "not json at all\n\nsecond line"),
        dir.file("missing.glb"),
    };
    for (const std::string& path : bad) {
        INFO(path);
        const std::string message = inputErrorOf([&] { Scene::fromNameOrPath(path); });
        CHECK(message != "<no InputError thrown>");
        CHECK(message.find('\n') == std::string::npos);
        CHECK_THAT(message, Contains(fs::path(path).filename().string()));
    }
}

TEST_CASE("skyEnvironment: uniform is 1 everywhere, gradient brightens toward the horizon", "[scene][import]") {
    const Image uniform = skyEnvironment("uniform");
    for (float v : uniform.rgb) CHECK(v == 1.0f);
    const Image gradient = skyEnvironment("gradient");
    REQUIRE(gradient.height > 2);
    // Rows run from the zenith (+y) down: the top row is bluer than the row just above the horizon.
    const float* zenith = gradient.pixel(0, 0);
    const float* horizon = gradient.pixel(0, gradient.height / 2 - 1);
    CHECK(zenith[2] > zenith[0]);
    CHECK(horizon[0] > zenith[0]);
    Scene scene;
    scene.setEnvironment(gradient);  // valid as an environment
    CHECK_THAT(inputErrorOf([] { skyEnvironment("sunset"); }), Contains("sunset"));
}

TEST_CASE("readImage: Radiance .hdr files load as linear RGB", "[io][import]") {
    TempDir dir;
    // 2x1; RGBE shares one exponent per texel, so each channel keeps 8 bits of the texel's largest.
    const std::vector<float> rgb = {0.5f, 1.0f, 2.0f, 100.0f, 50.0f, 25.0f};
    REQUIRE(stbi_write_hdr(dir.file("sky.hdr").c_str(), 2, 1, 3, rgb.data()));
    const Image image = readImage(dir.file("sky.hdr"));
    REQUIRE(image.width == 2);
    REQUIRE(image.height == 1);
    for (std::size_t i = 0; i < rgb.size(); ++i) CHECK(image.rgb[i] == Approx(rgb[i]).margin(0.01f * rgb[i] + 1e-6f));
    // A PNG named .hdr is refused by name, not decoded with a guessed gamma.
    {
        std::ofstream out(dir.file("fake.hdr"), std::ios::binary);
        const std::vector<std::uint8_t> png = pngBytes();
        out.write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
    }
    CHECK_THAT(inputErrorOf([&] { readImage(dir.file("fake.hdr")); }), Contains("not a Radiance"));
    CHECK_THAT(inputErrorOf([&] { readImage(dir.file("none.hdr")); }), Contains("none.hdr"));
}

// Real models from Debian packages; skipped (with a warning) where they are not installed.
namespace {
const char* kAssimpModels = "/usr/share/assimp/models/glTF2";
const char* kBunny = "/usr/share/glmark2/models/bunny.obj";
}  // namespace

TEST_CASE("real models: assimp-testmodels' textured boxes and glmark2's bunny load", "[scene][io][import]") {
    const std::string gltf = std::string(kAssimpModels) + "/BoxTextured-glTF/BoxTextured.gltf";
    const std::string glb = std::string(kAssimpModels) + "/BoxTextured-glTF-Binary/BoxTextured.glb";
    if (!fs::exists(gltf) || !fs::exists(glb) || !fs::exists(kBunny)) {
        WARN("assimp-testmodels or glmark2-data not installed (scripts/install-deps.sh): skipped");
        return;
    }
    for (const std::string& path : {gltf, glb}) {
        INFO(path);
        Scene scene = Scene::loadFile(path);
        CHECK(scene.triangles().size() == 12);
        REQUIRE(scene.textures().size() == 1);  // an external PNG, an embedded one
        CHECK(scene.textures()[0].width == 211);  // CesiumLogoFlat.png
        CHECK(scene.textures()[0].height == 211);
        CHECK(scene.uvs().size() == scene.positions().size());
        CHECK(scene.materials()[scene.triangleMaterials()[0]].baseColorTexture == 0);
        CHECK(scene.warnings().empty());
    }
    Scene bunny = Scene::fromNameOrPath(kBunny);
    CHECK(bunny.triangles().size() > 60000);
}

TEST_CASE("real models: assimp-testmodels' OBJ files load, or fail on one line naming the cause", "[scene][io][import]") {
    const std::string dir = "/usr/share/assimp/models/OBJ";
    if (!fs::is_directory(dir)) {
        WARN("assimp-testmodels not installed (scripts/install-deps.sh): skipped");
        return;
    }
    int loaded = 0, refused = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".obj") continue;
        INFO(entry.path());
        std::string message;
        try {
            Scene scene = Scene::loadFile(entry.path().string());
            CHECK(scene.triangles().size() > 0);
            ++loaded;
        } catch (const InputError& e) {
            message = e.what();
            ++refused;
        }
        INFO(message);
        CHECK(message.find('\n') == std::string::npos);
    }
    // 15 of 22 load; the others have no faces (points, lines, UTF-16), a malformed number
    // ("3.1+e2"), or name a material library or material that does not exist.
    CHECK(loaded >= 15);
    CHECK(refused <= 7);
    // Material names with spaces, as exporters write them, find their materials.
    Scene spaces = Scene::loadFile(dir + "/space_in_material_name.obj");
    REQUIRE(spaces.materials().size() >= 1);
    CHECK(spaces.materials()[spaces.triangleMaterials()[0]].diffuse != glm::vec3(0.8f));
    CHECK(Scene::loadFile(dir + "/box_mat_with_spaces.obj").triangles().size() > 0);
    // A usemtl without a name is the default material and a warning.
    CHECK(hasWarning(Scene::loadFile(dir + "/empty_mat.obj"), "usemtl without a material name"));
}

TEST_CASE("real models: the clear-coat test model brings normal, metallic-roughness and emissive textures",
          "[scene][io][import]") {
    const std::string path = std::string(kAssimpModels) + "/ClearCoat-glTF/ClearCoatTest.gltf";
    if (!fs::exists(path)) {
        WARN("assimp-testmodels not installed (scripts/install-deps.sh): skipped");
        return;
    }
    Scene scene = Scene::loadFile(path);
    int normal = 0, roughness = 0, emission = 0, colour = 0;
    for (const Material& m : scene.materials()) {
        normal += m.normalTexture >= 0;
        roughness += m.metallicRoughnessTexture >= 0;
        emission += m.emissionTexture >= 0;
        colour += m.baseColorTexture >= 0;
    }
    // Of its 19 materials, those the meshes use: normal maps on six, a roughness map, a label.
    CHECK(normal >= 4);
    CHECK(roughness == 1);
    CHECK(emission == 1);
    CHECK(colour == 1);
    for (const Material& m : scene.materials())
        if (m.normalTexture >= 0) CHECK_FALSE(scene.textures()[m.normalTexture].srgb);
    // The coat itself is not rendered, and a warning says so.
    CHECK(hasWarning(scene, "KHR_materials_clearcoat"));
}

TEST_CASE("scene files: formats other than OBJ, glTF and PLY are refused by name", "[scene][io][import]") {
    TempDir dir;
    for (const char* name : {"model.fbx", "model.dae", "model.stl", "model.3ds"}) {
        const std::string path = dir.write(name, "solid x\nendsolid x\n");
        const std::string message = inputErrorOf([&] { Scene::fromNameOrPath(path); });
        INFO(message);
        CHECK_THAT(message, Contains("unsupported format") && Contains(fs::path(name).extension().string()) &&
                                Contains(".gltf"));
    }
}

// ---- The command line: --sky, --camera, --lens, --up, --strict, --stats on scene files ----------
#if defined(WAVEFRONT_RENDER_EXE)

namespace {

struct Run {
    int exitCode = -1;
    std::string out, err;
    std::vector<std::string> errorLines;  ///< stderr lines starting with "wavefront-render:"
};

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// wavefront-render on the CPU at 16x16, 2 spp, with `args` added, stdout and stderr captured.
Run render(const TempDir& dir, std::vector<std::string> args) {
    const char* relocated = std::getenv("WAVEFRONT_RENDER_EXE");
    std::string command = quote(relocated ? relocated : WAVEFRONT_RENDER_EXE);
    for (const std::string& a : {"--backend", "cpu", "--res", "16x16", "--spp", "2"}) command += " " + quote(a);
    if (std::find(args.begin(), args.end(), "--out") == args.end())
        args.insert(args.end(), {"--out", dir.file("out.pfm")});
    for (const std::string& a : args) command += " " + quote(a);
    command += " >" + quote(dir.file("stdout.txt")) + " 2>" + quote(dir.file("stderr.txt"));
    INFO("command: " << command);
    const int status = std::system(command.c_str());
    REQUIRE(WIFEXITED(status));
    Run run;
    run.exitCode = WEXITSTATUS(status);
    run.out = slurp(dir.file("stdout.txt"));
    run.err = slurp(dir.file("stderr.txt"));
    std::istringstream lines(run.err);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("wavefront-render:", 0) == 0) run.errorLines.push_back(line);
    return run;
}

/// Exit 2 with one error line holding every word of `words`.
void requireRefused(const Run& run, std::initializer_list<std::string> words) {
    INFO("stderr:\n" << run.err);
    CHECK(run.exitCode == 2);
    REQUIRE(run.errorLines.size() == 1);
    for (const std::string& w : words) CHECK_THAT(run.errorLines[0], Contains(w));
}

std::string writePly(const TempDir& dir) {
    return dir.write("quad.ply", "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
                                 "property float z\nelement face 1\nproperty list uchar int vertex_indices\n"
                                 "end_header\n0 0 0\n2 0 0\n2 1 0\n0 1 0\n4 0 1 2 3\n");
}

}  // namespace

TEST_CASE("cli: a glTF model renders under --sky with PT, BDPT and MLT", "[cli][import]") {
    TempDir dir;
    const std::string gltf = writeGltf(dir, "quad.gltf");
    for (const char* integrator : {"pt", "bdpt", "mlt"}) {
        const Run run = render(dir, {gltf, "--sky", "gradient", "--integrator", integrator, "--out", dir.file("o.pfm")});
        INFO(integrator << " stderr:\n" << run.err);
        CHECK(run.exitCode == 0);
        CHECK_THAT(run.err, Contains("warning:") && Contains("KHR_materials_sheen"));  // shown, one line each
        CHECK_FALSE(readImage(dir.file("o.pfm")).rgb.empty());
    }
    // --strict turns the loader's warnings into an error.
    requireRefused(render(dir, {gltf, "--sky", "uniform", "--strict"}), {"--strict", "KHR_materials_sheen"});
}

TEST_CASE("cli: --stats reports load and set-up times, triangles and texture memory", "[cli][import]") {
    TempDir dir;
    const Run run = render(dir, {writeGltf(dir, "quad.gltf"), "--sky", "uniform", "--stats"});
    INFO("stdout:\n" << run.out << "stderr:\n" << run.err);
    CHECK(run.exitCode == 0);
    CHECK_THAT(run.out, Contains("loaded in") && Contains("BVH build and upload") && Contains("4 triangles") &&
                            Contains("2 textures") && Contains("MiB of host memory"));
}

TEST_CASE("cli: a scene without light names --sky and --envmap", "[cli][import]") {
    TempDir dir;
    requireRefused(render(dir, {writePly(dir)}), {"--sky", "--envmap", "emitter"});
    const Run lit = render(dir, {writePly(dir), "--sky", "uniform"});
    INFO(lit.err);
    CHECK(lit.exitCode == 0);
    CHECK_THAT(lit.err, !Contains("black"));
}

TEST_CASE("cli: an .hdr environment map lights a model", "[cli][import]") {
    TempDir dir;
    const std::vector<float> rgb(8 * 4 * 3, 0.5f);
    REQUIRE(stbi_write_hdr(dir.file("sky.hdr").c_str(), 8, 4, 3, rgb.data()));
    const Run run = render(dir, {writePly(dir), "--envmap", dir.file("sky.hdr")});
    INFO(run.err);
    CHECK(run.exitCode == 0);
    requireRefused(render(dir, {writePly(dir), "--envmap", dir.file("sky.hdr"), "--sky", "uniform"}), {"--sky"});
}

TEST_CASE("cli: --camera, --lens, --up and --sky values are checked", "[cli][import]") {
    TempDir dir;
    const std::string ply = writePly(dir);
    for (const std::string& bad : {"1,2,3", "0,0,5,0,0,0,0,1,0", "0,0,5,0,0,0,0,1,0,40,1", "nan,0,5,0,0,0,0,1,0,40",
                                   "0,0,5,0,0,0,0,1,0,x", "1,1,1,1,1,1,0,1,0,40", "0,0,5,0,0,0,0,0,1,40",
                                   "0,0,5,0,0,0,0,1,0,180", "0,0,5,0,0,0,0,1,0,0"}) {
        INFO(bad);
        requireRefused(render(dir, {ply, "--sky", "uniform", "--camera", bad}), {"--camera", bad});
    }
    for (const std::string& bad : {"0.1", "-1,2", "0.1,0", "0.1,inf", "a,b"}) {
        INFO(bad);
        requireRefused(render(dir, {ply, "--sky", "uniform", "--lens", bad}), {"--lens"});
    }
    requireRefused(render(dir, {ply, "--sky", "uniform", "--up", "w"}), {"--up", "w"});
    requireRefused(render(dir, {ply, "--sky", "sunset"}), {"sunset"});
    const Run good = render(dir, {ply, "--sky", "gradient", "--up", "z", "--camera", "1,0.5,4,1,0.5,0,0,1,0,30",
                                  "--lens", "0.05,4"});
    INFO(good.err);
    CHECK(good.exitCode == 0);
}

TEST_CASE("cli: an entirely black image is warned about", "[cli][import]") {
    TempDir dir;
    // An emitter seen from behind (it emits towards +z only) in front of nothing: black.
    const std::string obj = dir.write("light.obj", "mtllib light.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl glow\nf 1 2 3\n");
    dir.write("light.mtl", "newmtl glow\nKd 0 0 0\nKe 1 1 1\n");
    const Run back = render(dir, {obj, "--camera", "0.3,0.3,-3,0.3,0.3,0,0,1,0,40"});
    INFO(back.err);
    CHECK(back.exitCode == 0);
    CHECK_THAT(back.err, Contains("warning") && Contains("entirely black"));
    const Run front = render(dir, {obj, "--camera", "0.3,0.3,3,0.3,0.3,0,0,1,0,40"});
    CHECK_THAT(front.err, !Contains("entirely black"));
}

TEST_CASE("cli: malformed scene files give one error line", "[cli][import]") {
    TempDir dir;
    const std::string broken = dir.write("broken.gltf", "{\"asset\": {\"version\": \"2.0\"}, \"meshes\": [7\n\n");
    requireRefused(render(dir, {broken, "--sky", "uniform"}), {"broken.gltf"});
    requireRefused(render(dir, {dir.file("missing.glb"), "--sky", "uniform"}), {"missing.glb"});
}

TEST_CASE("cli: real models from Debian packages render under --sky", "[cli][import]") {
    const std::string glb = std::string(kAssimpModels) + "/BoxTextured-glTF-Binary/BoxTextured.glb";
    if (!fs::exists(glb) || !fs::exists(kBunny)) {
        WARN("assimp-testmodels or glmark2-data not installed (scripts/install-deps.sh): skipped");
        return;
    }
    TempDir dir;
    for (const std::string& model : {glb, std::string(kBunny)}) {
        const Run run = render(dir, {model, "--sky", "gradient", "--stats"});
        INFO(model << "\n" << run.err);
        CHECK(run.exitCode == 0);
        CHECK(run.errorLines.empty());
        CHECK_THAT(run.err, !Contains("warning"));
    }
}

#endif
