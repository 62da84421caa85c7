// OBJ/MTL loading: geometry, material mapping and error reporting.
#include <catch2/catch.hpp>

#include "test_support.h"

#include <wavefront/error.h>
#include <wavefront/scene.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

using namespace wavefront;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

using wftest::TempDir;
using wftest::inputErrorOf;


const char* kMtl = R"(newmtl matte
Kd 0.5 0.25 0.125

newmtl shiny
Kd 0.6 0.6 0.6
Ks 0.8 0.8 0.8
Ns 64

newmtl lamp
Kd 0 0 0
Ke 10 8 6

newmtl chrome
illum 3
Kd 0.2 0.2 0.2
Ks 0.9 0.9 0.9

newmtl glass
illum 7
Ni 1.33

newmtl dissolved
Kd 1 1 1
d 0.5
Ni 1.6
)";

const char* kObj = R"(mtllib materials.mtl
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 -1
v 1 0 -1
vn 0 0 1
f 1 2 3
usemtl matte
f 1 2 3 4
usemtl shiny
f 1//1 2//1 3//1
usemtl lamp
f 1 2 3
usemtl chrome
f 1 2 3
usemtl glass
f 5 6 3
usemtl dissolved
f 1 2 3
)";

}  // namespace

TEST_CASE("an OBJ file loads with its MTL materials", "[scene][io]") {
    TempDir dir;
    dir.write("materials.mtl", kMtl);
    std::string path = dir.write("model.obj", kObj);
    Scene scene = Scene::loadObj(path);

    CHECK(scene.triangles().size() == 8);  // the quad is split in two
    // Six MTL materials plus the default for the face before any usemtl.
    REQUIRE(scene.materials().size() == 7);
    const auto& m = scene.materials();

    CHECK(m[0].type == MaterialType::Lambertian);
    CHECK(m[0].diffuse == glm::vec3(0.5f, 0.25f, 0.125f));
    CHECK(!m[0].isEmissive());

    CHECK(m[1].type == MaterialType::Glossy);
    CHECK(m[1].exponent == 64.0f);
    CHECK(m[1].diffuse.x == Approx(0.6f));
    // Kd + Ks = 1.4 is scaled down to 1 by shrinking Ks.
    CHECK(m[1].specular.x == Approx(0.4f));
    CHECK(m[1].diffuse.x + m[1].specular.x <= 1.0f + 1e-6f);

    CHECK(m[2].emission == glm::vec3(10.0f, 8.0f, 6.0f));
    CHECK(m[2].isEmissive());

    CHECK(m[3].type == MaterialType::Mirror);
    CHECK(m[3].specular.x == Approx(0.9f));

    CHECK(m[4].type == MaterialType::Dielectric);
    CHECK(m[4].ior == Approx(1.33f));
    CHECK(m[5].type == MaterialType::Dielectric);
    CHECK(m[5].ior == Approx(1.6f));

    CHECK(m[6].type == MaterialType::Lambertian);
    CHECK(m[6].diffuse == glm::vec3(0.8f));

    std::set<int> used(scene.triangleMaterials().begin(), scene.triangleMaterials().end());
    CHECK(used == std::set<int>{0, 1, 2, 3, 4, 5, 6});

    // Only the shiny face gave normals.
    int withNormals = 0;
    for (std::size_t t = 0; t < scene.triangles().size(); ++t) {
        if (scene.triangleHasNormals()[t]) {
            ++withNormals;
            CHECK(scene.triangleMaterials()[t] == 1);
            CHECK(scene.normals()[scene.triangles()[t].x] == glm::vec3(0, 0, 1));
        }
    }
    CHECK(withNormals == 1);

    // The camera frames the bounding box [0,1] x [0,1] x [-1,0] from +z.
    CHECK(scene.camera().target.x == Approx(0.5f));
    CHECK(scene.camera().target.y == Approx(0.5f));
    CHECK(scene.camera().target.z == Approx(-0.5f));
    CHECK(scene.camera().position.z > 1.0f);
    CHECK(scene.camera().verticalFovDegrees == Approx(40.0f));
    CHECK_NOTHROW(scene.validate());

    // fromNameOrPath recognises the file.
    CHECK(Scene::fromNameOrPath(path).triangles().size() == 8);
}

TEST_CASE("an OBJ whose MTL file is missing is refused with that reason", "[scene][io]") {
    TempDir dir;
    // Loading it with default materials ended in "scene has no emitter", which named no cause.
    std::string path = dir.write("lonely.obj", "mtllib missing.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl x\nf 1 2 3\n");
    CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }),
               Contains("lonely.obj:1") && Contains("missing.mtl") && Contains("No such file"));
}

TEST_CASE("an OBJ without mtllib loads with the default material, usemtl or not", "[scene][io]") {
    TempDir dir;
    std::string path = dir.write("plain.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl x\nf 1 2 3\n");
    Scene scene = Scene::loadObj(path);
    CHECK(scene.triangles().size() == 1);
    REQUIRE(scene.materials().size() == 1);
    CHECK(scene.materials()[0].diffuse == glm::vec3(0.8f));
}

TEST_CASE("OBJ loading reports bad input as InputError", "[scene][io]") {
    TempDir dir;

    SECTION("missing file names the path") {
        std::string path = (fs::temp_directory_path() / "wavefront-no-such-file.obj").string();
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }), Contains(path));
    }
    SECTION("a face referencing a vertex that does not exist") {
        std::string path = dir.write("range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 99\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }),
                   Contains("face 2") && Contains("vertex 99") && Contains("3 vertices"));
    }
    SECTION("a negative index reaching before the first vertex") {
        std::string path = dir.write("negative.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -7\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }), Contains("face 1"));
    }
    SECTION("garbage face indices") {
        std::string path = dir.write("garbage.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf a b c\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }), Contains(path));
    }
    SECTION("a NaN vertex names the face that uses it") {
        std::string path = dir.write("nan.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv nan 0 0\nf 1 2 3\nf 2 3 4\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }),
                   Contains("face 2 uses vertex 4") && Contains("non-finite"));
    }
    SECTION("an infinite vertex") {
        std::string path = dir.write("inf.obj", "v inf 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }), Contains("face 1 uses vertex 1"));
    }
    SECTION("a file without faces") {
        std::string path = dir.write("empty.obj", "v 0 0 0\n");
        CHECK_THAT(inputErrorOf([&] { Scene::loadObj(path); }), Contains("no faces"));
    }
}
