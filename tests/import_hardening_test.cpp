// Issue 18's input-file rules for the Assimp importer (glTF 2.0, .glb, PLY): the model and every
// file it references are read by the library (regular files only, size caps), referenced files
// stay in the model's folder unless allowExternalFiles, and hostile headers fail fast, on one line.
#include <catch2/catch.hpp>

#include "test_support.h"

#include <wavefront/error.h>
#include <wavefront/scene.h>

#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace wavefront;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

using wftest::inputErrorOf;
using wftest::TempDir;

// One triangle: three float positions (36 bytes), then three uvs (24 bytes).
std::string triangleBytes() {
    const float values[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1};
    return std::string(reinterpret_cast<const char*>(values), sizeof values);
}

void writeBinary(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

// The glTF JSON of the triangle, its buffer at `bufferUri`; with an image, a material whose base
// colour texture is `imageUri`. `nodes` and `scenes` replace the default single node.
std::string gltfJson(const std::string& bufferUri, const std::string& imageUri = "", long long count = 3,
                     const std::string& nodes = R"([{"mesh": 0}])", const std::string& scenes = R"([{"nodes": [0]}])") {
    const bool image = !imageUri.empty();
    std::string json = R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": )" + scenes + R"(, "nodes": )" + nodes + R"(,
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0)" + std::string(image ? R"(, "TEXCOORD_0": 1}, "material": 0)" : "}") + R"(}]}],
  "buffers": [{"byteLength": 60)" + (bufferUri.empty() ? "" : R"(, "uri": ")" + bufferUri + "\"") + R"(}],
  "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 24}],
  "accessors": [{"bufferView": 0, "componentType": 5126, "count": )" + std::to_string(count) + R"(, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
                {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC2"}])";
    if (image)
        json += R"(,
  "materials": [{"name": "textured", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
  "textures": [{"source": 0}], "images": [{"uri": ")" + imageUri + "\"}]";
    return json + "}\n";
}

// A 1x1 PNG.
std::string pngBytes() {
    const unsigned char png[] = {0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
                                 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90,
                                 0x77, 0x53, 0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8,
                                 0xcf, 0xc0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0x00, 0x00, 0x00,
                                 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
    return std::string(reinterpret_cast<const char*>(png), sizeof png);
}

std::string base64Buffer() {
    static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const std::string bytes = triangleBytes();
    std::string out = "data:application/octet-stream;base64,";
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        std::uint32_t v = std::uint32_t(std::uint8_t(bytes[i])) << 16;
        if (i + 1 < bytes.size()) v |= std::uint32_t(std::uint8_t(bytes[i + 1])) << 8;
        if (i + 2 < bytes.size()) v |= std::uint8_t(bytes[i + 2]);
        out += table[(v >> 18) & 63];
        out += table[(v >> 12) & 63];
        out += i + 1 < bytes.size() ? table[(v >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? table[v & 63] : '=';
    }
    return out;
}

// A .glb of the triangle; `jsonLength` overrides the JSON chunk's length field.
std::string glbBytes(std::uint32_t jsonLength = 0) {
    std::string json = gltfJson("");
    while (json.size() % 4) json += ' ';
    const std::string bin = triangleBytes();  // 60 bytes, a multiple of 4
    std::string out;
    auto u32 = [&](std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
    u32(0x46546C67);
    u32(2);
    u32(std::uint32_t(12 + 8 + json.size() + 8 + bin.size()));
    u32(jsonLength ? jsonLength : std::uint32_t(json.size()));
    u32(0x4E4F534A);
    out += json;
    u32(std::uint32_t(bin.size()));
    u32(0x004E4942);
    out += bin;
    return out;
}

// The message of the InputError `f` throws, which must be one line and come within a second.
template <typename F>
std::string fastOneLineError(F&& f) {
    const auto start = std::chrono::steady_clock::now();
    const std::string message = inputErrorOf(f);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(message);
    CHECK(message.find_first_of("\r\n") == std::string::npos);
    CHECK(seconds < 1.0 * wftest::timeScale());
    return message;
}

std::string warningsOf(const Scene& scene) {
    std::string all;
    for (const auto& w : scene.warnings()) all += w + "\n";
    return all;
}

}  // namespace

TEST_CASE("glTF hardening: a buffer in the model's folder loads", "[scene][io][import][hardening]") {
    TempDir dir;
    writeBinary(dir.path() / "tri.bin", triangleBytes());
    writeBinary(dir.path() / "tri.png", pngBytes());
    const Scene scene = Scene::loadFile(dir.write("tri.gltf", gltfJson("tri.bin", "tri.png")));
    CHECK(scene.triangles().size() == 1);
    CHECK(scene.textures().size() == 1);
    // And from a subfolder named relative to it.
    writeBinary(dir.path() / "sub" / "data" / "tri.bin", triangleBytes());
    const Scene nested = Scene::loadFile(dir.write("sub/model.gltf", gltfJson("data/tri.bin")));
    CHECK(nested.triangles().size() == 1);
}

TEST_CASE("glTF hardening: a buffer outside the model's folder is refused unless allowed", "[scene][io][import][hardening]") {
    TempDir dir;
    writeBinary(dir.path() / "outside.bin", triangleBytes());
    fs::create_directories(dir.path() / "sub");
    const std::string model = dir.write("sub/model.gltf", gltfJson("../outside.bin"));
    const std::string message = fastOneLineError([&] { Scene::loadFile(model); });
    CHECK_THAT(message, Contains("glTF buffer '../outside.bin' resolves to") && Contains("outside") &&
                            Contains("allowExternalFiles"));
    SceneLoadOptions allow;
    allow.allowExternalFiles = true;
    CHECK(Scene::loadFile(model, allow).triangles().size() == 1);

    // An absolute URI, and a link out of the folder.
    const std::string absolute = dir.write("sub/absolute.gltf", gltfJson("/dev/zero"));
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(absolute); }), Contains("glTF buffer '/dev/zero' is an absolute path"));
    fs::create_symlink("/dev/zero", dir.path() / "sub" / "zero.bin");
    const std::string linked = dir.write("sub/linked.gltf", gltfJson("zero.bin"));
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(linked); }), Contains("glTF buffer 'zero.bin' resolves to '/dev/zero'"));
    // Allowed, a device is still not a regular file.
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(linked, allow); }), Contains("character device"));
}

TEST_CASE("glTF hardening: a buffer that is a FIFO is refused without blocking", "[scene][io][import][hardening]") {
    TempDir dir;
    REQUIRE(::mkfifo((dir.path() / "pipe.bin").c_str(), 0600) == 0);
    const std::string model = dir.write("model.gltf", gltfJson("pipe.bin"));
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(model); }),
               Contains("glTF buffer 'pipe.bin'") && Contains("FIFO (named pipe), not a regular file"));
    // A missing buffer names itself too.
    const std::string missing = dir.write("missing.gltf", gltfJson("missing.bin"));
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(missing); }), Contains("glTF buffer 'missing.bin'") && Contains("No such file"));
}

TEST_CASE("glTF hardening: a model that is a directory or a FIFO is refused", "[scene][io][import][hardening]") {
    TempDir dir;
    fs::create_directories(dir.path() / "dir.gltf");
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.file("dir.gltf")); }), Contains("it is a directory"));
    REQUIRE(::mkfifo((dir.path() / "pipe.glb").c_str(), 0600) == 0);
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.file("pipe.glb")); }), Contains("it is a FIFO"));
    REQUIRE(::mkfifo((dir.path() / "pipe.ply").c_str(), 0600) == 0);
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.file("pipe.ply")); }), Contains("it is a FIFO"));
}

TEST_CASE("glTF hardening: an image outside the model's folder is not read", "[scene][io][import][hardening]") {
    TempDir dir;
    writeBinary(dir.path() / "outside.png", pngBytes());
    writeBinary(dir.path() / "sub" / "tri.bin", triangleBytes());
    const std::string model = dir.write("sub/model.gltf", gltfJson("tri.bin", "../outside.png"));
    const Scene scene = Scene::loadFile(model);
    CHECK(scene.textures().empty());
    CHECK_THAT(warningsOf(scene), Contains("texture '../outside.png' resolves to") && Contains("drawn without it"));
    SceneLoadOptions allow;
    allow.allowExternalFiles = true;
    CHECK(Scene::loadFile(model, allow).textures().size() == 1);
    // An image that is a FIFO is refused as one, without blocking.
    REQUIRE(::mkfifo((dir.path() / "sub" / "pipe.png").c_str(), 0600) == 0);
    const auto start = std::chrono::steady_clock::now();
    const Scene piped = Scene::loadFile(dir.write("sub/piped.gltf", gltfJson("tri.bin", "pipe.png")));
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 1.0 * wftest::timeScale());
    CHECK(piped.textures().empty());
    CHECK_THAT(warningsOf(piped), Contains("FIFO"));
}

TEST_CASE("glTF hardening: hostile counts, lengths and node graphs fail fast on one line", "[scene][io][import][hardening]") {
    TempDir dir;
    const std::string data = base64Buffer();
    // Accessor counts beyond the buffer (Assimp checked these itself; now the pre-check does).
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.write("count.gltf", gltfJson(data, "", 1000000000))); }),
               Contains("accessor 0: 1000000000 elements of 12 bytes") && Contains("beyond the 36 bytes of bufferView 0"));
    // A .glb whose JSON chunk claims 4 GB (Assimp allocated it: 4 GB and 18 s).
    writeBinary(dir.path() / "ok.glb", glbBytes());
    CHECK(Scene::loadFile(dir.file("ok.glb")).triangles().size() == 1);
    writeBinary(dir.path() / "chunk.glb", glbBytes(0xfffffff0u));
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.file("chunk.glb")); }), Contains("JSON chunk claims 4294967280 bytes"));
    // JSON nested a million levels (crashed Assimp's recursive parser).
    const std::string deep = R"({"asset": {"version": "2.0"}, "x": )" + std::string(1000000, '[') + std::string(1000000, ']') + "}";
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.write("deep.gltf", deep)); }), Contains("nests deeper than 256"));
    // A chain of 200,000 nodes (crashed Assimp's recursive import).
    std::string chain = "[";
    for (int i = 0; i < 199999; ++i) chain += R"({"children": [)" + std::to_string(i + 1) + "]},";
    chain += R"({"mesh": 0}])";
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.write("chain.gltf", gltfJson(data, "", 3, chain))); }),
               Contains("node hierarchy deeper than 1024 levels"));
    // 40 nodes, each listing the next twice: 2^40 imports (over 20 s and 9 GB).
    std::string diamond = "[";
    for (int i = 0; i < 39; ++i) diamond += R"({"mesh": 0, "children": [)" + std::to_string(i + 1) + ", " + std::to_string(i + 1) + "]},";
    diamond += R"({"mesh": 0}])";
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.write("diamond.gltf", gltfJson(data, "", 3, diamond))); }),
               Contains("glTF node 1 is a child of node 0 and again of node 0"));
    CHECK_THAT(fastOneLineError([&] {
                   Scene::loadFile(dir.write("cycle.gltf", gltfJson(data, "", 3, R"([{"mesh": 0, "children": [1]}, {"children": [0]}])")));
               }),
               Contains("is its own ancestor"));
    CHECK_THAT(fastOneLineError([&] {
                   Scene::loadFile(dir.write("roots.gltf", gltfJson(data, "", 3, R"([{"mesh": 0}])", R"([{"nodes": [0, 0]}])")));
               }),
               Contains("glTF scene 0 lists node 0 more than once"));
    // A 1,000-deep chain is fine.
    std::string fine = "[";
    for (int i = 0; i < 999; ++i) fine += R"({"children": [)" + std::to_string(i + 1) + "]},";
    fine += R"({"mesh": 0}])";
    CHECK(Scene::loadFile(dir.write("fine.gltf", gltfJson(data, "", 3, fine))).triangles().size() == 1);
}

TEST_CASE("PLY hardening: element counts the file cannot hold are refused before Assimp allocates", "[scene][io][import][hardening]") {
    TempDir dir;
    const std::string header = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                               "element face 1\nproperty list uchar int vertex_indices\nend_header\n";
    const std::string body = "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    CHECK(Scene::loadFile(dir.write("ok.ply", header + body)).triangles().size() == 1);
    // 2e9 vertices in a 200-byte file: over 20 s and 9 GB in Assimp before.
    std::string huge = header;
    huge.replace(huge.find("vertex 3"), 8, "vertex 2000000000");
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.write("huge.ply", huge + body)); }),
               Contains("PLY element 'vertex' declares 2000000000 instances of at least 6 bytes each"));
    std::string faces = header;
    faces.replace(faces.find("face 1"), 6, "face 4000000000");
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.write("faces.ply", faces + body)); }), Contains("PLY element 'face'"));
    // Binary: 12 bytes a vertex.
    std::string binary = header;
    binary.replace(binary.find("ascii"), 5, "binary_little_endian");
    binary.replace(binary.find("vertex 3"), 8, "vertex 5");
    const std::string triangle = triangleBytes().substr(0, 36);
    const std::string face = std::string(1, '\3') + std::string("\0\0\0\0\1\0\0\0\2\0\0\0", 12);
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.write("short.ply", binary + triangle + face)); }),
               Contains("declares 5 instances of at least 12 bytes each"));
    binary.replace(binary.find("vertex 5"), 8, "vertex 3");
    writeBinary(dir.path() / "binary.ply", binary + triangle + face);
    CHECK(Scene::loadFile(dir.file("binary.ply")).triangles().size() == 1);
}

TEST_CASE("glTF hardening: buffer view and accessor offsets, lengths and strides are checked before Assimp", "[scene][io][import][hardening]") {
    TempDir dir;
    const std::string data = base64Buffer();
    const std::string good = gltfJson(data);
    CHECK(Scene::loadFile(dir.write("ok.gltf", good)).triangles().size() == 1);
    // `from` replaced by `to` in the triangle's JSON.
    auto edited = [&](const std::string& from, const std::string& to) {
        std::string json = good;
        REQUIRE(json.find(from) != std::string::npos);
        return json.replace(json.find(from), from.size(), to);
    };
    const std::vector<std::pair<std::string, std::string>> bad = {
        // 2^64 - 8: Assimp's sum wrapped, it read 8 bytes before a heap block and rendered garbage.
        {edited(R"("byteOffset": 0, "byteLength": 36)", R"("byteOffset": 18446744073709551608, "byteLength": 36)"),
         "bufferView 0: byteOffset 18446744073709551608 and byteLength 36 reach beyond the 60 bytes of its buffer"},
        {edited(R"("byteOffset": 36, "byteLength": 24)", R"("byteOffset": 40, "byteLength": 24)"), "bufferView 1"},
        {edited(R"("byteLength": 36})", R"("byteLength": 36, "byteStride": 3})"), "byteStride 3 is not a multiple of 4"},
        {edited(R"("bufferView": 0, "componentType")", R"("bufferView": 0, "byteOffset": 4, "componentType")"),
         "accessor 0: 3 elements of 12 bytes, 12 apart, from byteOffset 4 reach beyond the 36 bytes of bufferView 0"},
        {edited(R"("bufferView": 0, "componentType")", R"("bufferView": 0, "byteOffset": -4, "componentType")"),
         "byteOffset -4 is not a whole number"},
        {edited(R"("bufferView": 1, "componentType")", R"("bufferView": 7, "componentType")"), "refers to bufferView 7"},
        {edited(R"("count": 3, "type": "VEC2"})",
                R"("count": 3, "type": "VEC2", "sparse": {"count": 2, "indices": {"bufferView": 1, "byteOffset": 20, "componentType": 5125}, "values": {"bufferView": 1}}})"),
         "accessor 1 sparse indices: 2 elements of 4 bytes"},
        // A skin without inverseBindMatrices (optional in the spec) crashed Assimp 5.2.5 (fuzzing).
        {edited(R"("scene": 0,)", R"("scene": 0, "skins": [{"joints": [0]}],)"), "skin 0: has no inverseBindMatrices"},
        // An embedded image's MIME type without '/' crashed it too (a fuzzed .glb: "imageepng").
        {edited(R"("scene": 0,)", R"("scene": 0, "images": [{"bufferView": 1, "mimeType": "imageepng"}],)"),
         "image 0: MIME type 'imageepng' is not of the form image/png"},
    };
    for (std::size_t i = 0; i < bad.size(); ++i) {
        INFO(bad[i].first);
        CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.write("bad" + std::to_string(i) + ".gltf", bad[i].first)); }),
                   Contains(bad[i].second));
    }
    // An empty .glb: Assimp read uninitialised memory. Malformed JSON: "No suitable reader found".
    writeBinary(dir.path() / "empty.glb", "");
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.file("empty.glb")); }), Contains("is empty"));
    writeBinary(dir.path() / "text.glb", good);
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.file("text.glb")); }), Contains("is not a binary glTF file"));
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.write("syntax.gltf", edited(R"("scene": 0,)", R"("scene": 0 "x": 1,)"))); }),
               Contains("its JSON is malformed: parse error at line 1"));
}

TEST_CASE("PLY hardening: list lengths in the body are checked against the data", "[scene][io][import][hardening]") {
    TempDir dir;
    const std::string header = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                               "element face 1\nproperty list uint uint vertex_indices\nend_header\n";
    const std::string vertices = "0 0 0\n1 0 0\n0 1 0\n";
    // A face list of 10^9 in 189 bytes took 14 GB (Assimp reserved the list before reading it).
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.write("list.ply", header + vertices + "1000000000 0 1 2\n")); }),
               Contains("list 'vertex_indices' claims 1000000000 items"));
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.write("minus.ply", header + vertices + "-3 0 1 2\n")); }),
               Contains("has the count '-3', not a whole number"));
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.write("short.ply", header + vertices + "3 0 1\n")); }),
               Contains("the PLY data ends in instance 1 of 1 of element 'face'"));
    // The same values spread over lines as the PLY grammar allows: Assimp reads them one instance a line.
    CHECK(Scene::loadFile(dir.write("spread.ply", header + "0 0 0 1 0\n0 0 1\n0\n3\n0 1 2\n")).triangles().size() == 1);
    // Binary: a count of 10^9, and a signed count of -1 (Assimp reads it as 4294967295).
    std::string binary = header;
    binary.replace(binary.find("ascii"), 5, "binary_little_endian");
    const float xyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const std::string points(reinterpret_cast<const char*>(xyz), sizeof xyz);
    const std::uint32_t face[] = {1000000000u, 0, 1, 2};
    writeBinary(dir.path() / "list-binary.ply", binary + points + std::string(reinterpret_cast<const char*>(face), sizeof face));
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.file("list-binary.ply")); }),
               Contains("claims 1000000000 items, but 12 bytes are left"));
    std::string signedCount = binary;
    signedCount.replace(signedCount.find("list uint uint"), 14, "list int uint");
    const std::int32_t minus[] = {-1, 0, 1, 2};
    writeBinary(dir.path() / "minus-binary.ply", signedCount + points + std::string(reinterpret_cast<const char*>(minus), sizeof minus));
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.file("minus-binary.ply")); }), Contains("claims 4294967295 items"));
    // 18446744073709551619 vertices read as 3 (the count wrapped modulo 2^64).
    std::string wrapped = header;
    wrapped.replace(wrapped.find("vertex 3"), 8, "vertex 18446744073709551619");
    CHECK_THAT(fastOneLineError([&] { Scene::loadFile(dir.write("wrap.ply", wrapped + vertices + "3 0 1 2\n")); }),
               Contains("count 18446744073709551619 is beyond 2^32 - 1"));
    // Old Blender's "Created by ..." header line: skipped with a warning (it was refused).
    std::string blender = header;
    blender.insert(blender.find("element"), "Created by Blender3D 247 - www.blender.org, source file: \n");
    const Scene scene = Scene::loadFile(dir.write("blender.ply", blender + vertices + "3 0 1 2\n"));
    CHECK(scene.triangles().size() == 1);
    REQUIRE(scene.warnings().size() == 1);
    CHECK_THAT(scene.warnings()[0], Contains("PLY header line 3 'Created by Blender3D") && Contains("skipped"));
}

TEST_CASE("PLY polygons are triangulated by the rule of OBJ polygons", "[scene][io][import]") {
    TempDir dir;
    // An L of six corners, concave at its fifth: a fan from the first corner covered the notch.
    const std::string ply = "ply\nformat ascii 1.0\nelement vertex 6\nproperty float x\nproperty float y\nproperty float z\n"
                            "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
                            "0 0 0\n2 0 0\n2 1 0\n1 1 0\n1 2 0\n0 2 0\n6 0 1 2 3 4 5\n";
    const Scene scene = Scene::loadFile(dir.write("l.ply", ply));
    double area = 0.0;
    for (const glm::uvec3& t : scene.triangles()) {
        const glm::vec3 a = scene.positions()[t.x], b = scene.positions()[t.y], c = scene.positions()[t.z];
        const glm::vec3 n = glm::cross(b - a, c - a);
        CHECK(n.z > 0.0f);  // the polygon's winding kept
        area += 0.5 * double(glm::length(n));
    }
    CHECK(area == Approx(3.0));
}

TEST_CASE("glTF skins, morph targets and animations are named in warnings", "[scene][io][import]") {
    const std::string root = "/usr/share/assimp/models/glTF2/";
    const std::string skin = root + "simple_skin/simple_skin.gltf", morph = root + "glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf";
    if (!fs::exists(skin) || !fs::exists(morph)) {
        WARN("assimp-testmodels is not installed; skipped");
        return;
    }
    CHECK_THAT(warningsOf(Scene::loadFile(skin)), Contains("1 animation(s) ignored") && Contains("skin is ignored"));
    CHECK_THAT(warningsOf(Scene::loadFile(morph)), Contains("morph targets") && Contains("animation(s) ignored"));
}
