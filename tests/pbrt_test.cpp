// pbrt-v4 scene files (issue 35): the grammar and its errors, Include and Import, transforms and
// the graphics state, object instances (kept as instances, flattened where they emit), cameras,
// shapes, materials, textures, lights and spectra; renders that must come out as pbrt draws them
// (handedness), as the built-in Cornell box, as the same shapes written out without instancing,
// and alike in PT, BDPT and MLT; the example scenes.
#include <catch2/catch.hpp>

#include "estimator_checks.h"
#include "host/io/input_file.h"
#include "test_support.h"

#include <wavefront/error.h>
#include <zlib.h>
#include <wavefront/scene.h>

#include <algorithm>
#include <chrono>
#include <cmath>
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

// A camera at +5 z looking at the origin, +y up: pbrt puts +x on the image's left, so the loader
// mirrors the world in x (see convert.cpp).
const std::string kHeader = R"(LookAt 0 0 5  0 0 0  0 1 0
Camera "perspective" "float fov" [ 40 ]
WorldBegin
)";

// One triangle at z = 0, facing +z (towards the camera) in pbrt's frame.
const std::string kTriangle = R"(Shape "trianglemesh" "point3 P" [ 0 0 0  1 0 0  0 1 0 ] "integer indices" [ 0 1 2 ]
)";

// A light so that the scene validates.
const std::string kLight = R"(AttributeBegin
AreaLightSource "diffuse" "rgb L" [ 1 1 1 ]
Translate 0 0 -3
Shape "sphere" "float radius" 0.5
AttributeEnd
)";

Scene loadText(const TempDir& dir, const std::string& text, const std::string& name = "scene.pbrt",
               SceneLoadOptions options = {}) {
    return Scene::loadPbrt(dir.write(name, text), options);
}

// pbrt's point p as the loader places it: mirrored in x.
glm::vec3 mirrored(glm::vec3 p) { return glm::vec3(-p.x, p.y, p.z); }

bool near(glm::vec3 a, glm::vec3 b, float tolerance = 1e-4f) { return glm::length(a - b) <= tolerance; }

// The geometric normal of scene triangle t (the side it emits to).
glm::vec3 faceNormal(const Scene& scene, std::size_t t) {
    const glm::uvec3 tri = scene.triangles()[t];
    const glm::vec3 a = scene.positions()[tri.x], b = scene.positions()[tri.y], c = scene.positions()[tri.z];
    return glm::normalize(glm::cross(b - a, c - a));
}

bool hasWarning(const Scene& scene, const std::string& text) {
    return std::any_of(scene.warnings().begin(), scene.warnings().end(),
                       [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

std::string allWarnings(const Scene& scene) {
    std::string out;
    for (const std::string& w : scene.warnings()) out += w + "\n";
    return out;
}

std::string pbrtDataDir() { return std::string(WAVEFRONT_TEST_DATA_DIR) + "/pbrt"; }

}  // namespace

// ---- Grammar and errors --------------------------------------------------------------------------

TEST_CASE("pbrt: the token grammar: comments, strings, bracketed and bare values, every parameter type", "[pbrt]") {
    TempDir dir;
    const Scene scene = loadText(dir, R"(# a comment
LookAt 0 0 5 0 0 0 0 1 0 # after a directive
Camera "perspective" "float fov" 40    # a bare value
WorldBegin
Texture "checks" "spectrum" "checkerboard" "rgb tex1" [ 1 1 1 ] "rgb tex2" [0 0 0] "float uscale" 4 "float vscale" [4]
MakeNamedMaterial "a \"quoted\" name" "string type" "diffuse" "texture reflectance" "checks"
NamedMaterial "a \"quoted\" name"
Shape "trianglemesh"
  "point3 P" [ 0 0 0 1 0 0 0 1 0 ]
  "normal N" [ 0 0 1 0 0 1 0 0 1 ]
  "point2 uv" [ 0 0 1 0 0 1 ]
  "integer indices" [ 0 1 2 ]
Shape "sphere" "float radius" [ 0.25 ] "bool doesnotexist" true
AttributeBegin
  AreaLightSource "diffuse" "blackbody L" [ 6500 ] "bool twosided" false "float scale" 2
  Shape "bilinearmesh" "point3 P" [ -1 2 -1  1 2 -1  -1 2 1  1 2 1 ] "vector3 unused" [ 1 2 3 ]
AttributeEnd
)");
    CHECK(scene.triangles().size() >= 3);
    CHECK(scene.textures().size() == 1);
    REQUIRE(scene.materials().size() >= 2);
    CHECK(scene.materials()[0].baseColorTexture == 0);
    CHECK(hasWarning(scene, "scene.pbrt:13:40: Shape \"sphere\": parameter \"bool doesnotexist\" is not known"));
    CHECK(hasWarning(scene, "\"vector3 unused\""));
}

TEST_CASE("pbrt: every parse error names file:line:column on one line", "[pbrt]") {
    TempDir dir;
    struct Case {
        const char* text;
        const char* where;
        const char* what;
    };
    const Case cases[] = {
        {"WorldBegin\nShape \"trianglemesh", "scene.pbrt:2:7", "closing quote"},
        {"Translate 1 x 3", "scene.pbrt:1:13", "'x' is not a finite number"},
        {"Translate 1 nan 3", "scene.pbrt:1:13", "not a finite number"},
        {"WorldBegin\nShape \"sphere\" \"float radius\" [ 1", "scene.pbrt:2", "']'"},
        {"WorldBegin\nShape \"sphere\" \"radius\" 1", "scene.pbrt:2:16", "not of the form \"type name\""},
        {"WorldBegin\nShape \"trianglemesh\" \"integer indices\" [ 0 1 2.5 ]", "scene.pbrt:2:46", "not a 32-bit integer"},
        {"WorldBegin\nShape \"trianglemesh\" \"integer indices\" [ 0 1 99999999999 ]", "scene.pbrt:2:46", "32-bit integer"},
        {"WorldBegin\nShape \"sphere\" \"string filename\" [ 3 ]", "scene.pbrt:2:36", "not a quoted string"},
        {"WorldBegin\nShape \"sphere\" \"bool b\" \"maybe\"", "scene.pbrt:2:25", "not true or false"},
        {"Shape \"sphere\"", "scene.pbrt:1:1", "only allowed after WorldBegin"},
        {"WorldBegin\nCamera \"perspective\"", "scene.pbrt:2:1", "only allowed before WorldBegin"},
        {"WorldBegin\n  1 2 3", "scene.pbrt:2:3", "a directive was expected, found the number '1'"},
        {"WorldBegin\n\"oops\"", "scene.pbrt:2:1", "a directive was expected"},
        {"WorldBegin\nObjectEnd", "scene.pbrt:2:1", "ObjectEnd without ObjectBegin"},
        {"WorldBegin\nAttributeBegin\nObjectBegin \"x\"\nAttributeEnd", "scene.pbrt:4:1", "scene.pbrt:3:1 is open"},
        {"WorldBegin\nAttributeBegin\n", "scene.pbrt:2:1", "AttributeBegin without its AttributeEnd"},
        {"LookAt 0 0 0 0 0 0 0 1 0", "scene.pbrt:1:1", "LookAt"},
        {"Rotate 30 0 0 0", "scene.pbrt:1:1", "zero or non-finite axis"},
        {"Transform [ 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 ]", "scene.pbrt:1:43", "']' is not a finite number"},
        {"WorldBegin\nObjectInstance \"missing\"", "scene.pbrt:2:1", "no object of that name"},
        {"WorldBegin\nNamedMaterial \"missing\"\nShape \"sphere\"", "scene.pbrt:2:1", "no MakeNamedMaterial of that name"},
        {"WorldBegin\nMaterial \"diffuse\" \"texture reflectance\" \"none\"\nShape \"sphere\"", "scene.pbrt:2:20",
         "no spectrum texture \"none\""},
        {"WorldBegin\nMaterial \"diffuse\" \"rgb reflectance\" [ 1 1 ]\nShape \"sphere\"", "scene.pbrt:2:20", "needs 3 values"},
        {"WorldBegin\nShape \"sphere\" \"float radius\" \"one\"", "scene.pbrt:2:31", "not a number"},
        {"WorldBegin\nShape \"sphere\" \"rgb radius\" [ 1 1 1 ]", "scene.pbrt:2:16", "wrong type: float expected"},
        {"WorldBegin\nShape \"sphere\" \"float radius\" [ 1 [ 2 ] ]", "scene.pbrt:2:35", "'[' inside"},
        {"WorldBegin\nColorSpace \"cmyk\"", "scene.pbrt:2:1", "ColorSpace"},
        {"WorldBegin\nShape \"sphere\" \"string a\" \"x\\q\"", "scene.pbrt:2:27", "unknown escape"},
        {"Translate 1 2", "scene.pbrt:1", "the file ends where Translate was expected"},
        {"WorldBegin\nShape \"trianglemesh\" \"point3 P\" [ 0 0 0 1 0 ]", "scene.pbrt:2:22", "not a multiple of 3"},
        {"LookAt 0 0 5 0 0 0 0 1 0\nShape \"sphere\"", "scene.pbrt:2:1", "WorldBegin"},
        {"", "scene.pbrt:1:1", "the file ends before WorldBegin"},
    };
    for (const Case& c : cases) {
        const std::string message = inputErrorOf([&] { loadText(dir, c.text); });
        INFO(c.text << "\n  -> " << message);
        CHECK_THAT(message, Contains(c.where) && Contains(c.what));
        CHECK(message.find('\n') == std::string::npos);
    }
    // Control characters, UTF-16 and over-long tokens.
    CHECK_THAT(inputErrorOf([&] { loadText(dir, std::string("WorldBegin\nShape\x01")); }),
               Contains("scene.pbrt:2:6") && Contains("control character 0x01"));
    CHECK_THAT(inputErrorOf([&] { loadText(dir, std::string("\xff\xfeW\0o", 5)); }), Contains("UTF-16"));
    CHECK_THAT(inputErrorOf([&] { loadText(dir, "WorldBegin\nShape \"" + std::string(70000, 'a') + "\""); }),
               Contains("scene.pbrt:2:7") && Contains("string longer than 65536"));
    CHECK_THAT(inputErrorOf([&] { loadText(dir, "Translate 1 2 " + std::string(5000, '3')); }),
               Contains("scene.pbrt:1:15") && Contains("word longer than 4096"));
}

TEST_CASE("pbrt: unknown directives, parameters and parameter types are warnings", "[pbrt]") {
    TempDir dir;
    const Scene scene = loadText(dir, kHeader + "FancyDirective \"x\" [ 1 2 3 ] 4 5\n" + kTriangle +
                                          "Shape \"sphere\" \"float radius\" 0.5 \"float wobble\" 3 \"quaternion q\" [ 1 2 3 4 ]\n" +
                                          kLight);
    CHECK(hasWarning(scene, "scene.pbrt:4:1: unknown directive 'FancyDirective': skipped up to the next directive"));
    CHECK(hasWarning(scene, "scene.pbrt:6:35: Shape \"sphere\": parameter \"float wobble\" is not known or not used"));
    CHECK(hasWarning(scene, "parameter \"quaternion q\" has an unknown type"));
    CHECK(scene.triangles().size() == 1);
    CHECK(scene.spheres().size() == 2);
    // Attribute defaults, for the shapes of their block only; pbrt-v3's WorldEnd is named.
    const Scene defaults = loadText(dir, kHeader + "AttributeBegin\nAttribute \"shape\" \"float radius\" 0.25 \"float unused\" 1\n"
                                                   "Shape \"sphere\"\nShape \"sphere\" \"float radius\" 2\nAttributeEnd\nShape \"sphere\"\n"
                                                   "WorldEnd\n" + kLight);
    REQUIRE(defaults.spheres().size() == 4);
    CHECK(defaults.spheres()[0].radius == Approx(0.25f));
    CHECK(defaults.spheres()[1].radius == Approx(2.0f));
    CHECK(defaults.spheres()[2].radius == Approx(1.0f));
    CHECK(hasWarning(defaults, "WorldEnd is pbrt-v3's"));
    CHECK(!hasWarning(defaults, "\"float unused\""));  // Attribute defaults may go unused, as in pbrt
}

// ---- Files ---------------------------------------------------------------------------------------

TEST_CASE("pbrt: Include and Import are read relative to the scene's folder, and confined to it", "[pbrt][io]") {
    TempDir dir;
    fs::create_directories(dir.path() / "geometry");
    // pbrt-v4's rule: names relative to the main file's folder, also from included files.
    dir.write("geometry/walls.pbrt", "Include \"geometry/triangle.pbrt\"\nInclude \"light.pbrt\"\n");
    dir.write("geometry/triangle.pbrt", kTriangle);
    // Not next to the main file: found next to the file that names it.
    dir.write("geometry/light.pbrt", kLight);
    const Scene scene = loadText(dir, kHeader + "Include \"geometry/walls.pbrt\"\n");
    CHECK(scene.triangles().size() == 1);
    CHECK(scene.spheres().size() == 1);

    // Import: what the file changes ends with it; its named materials stay.
    dir.write("materials.pbrt", "Material \"conductor\"\nMakeNamedMaterial \"glass\" \"string type\" \"dielectric\"\nTranslate 10 0 0\n");
    const Scene imported = loadText(dir, kHeader + "Import \"materials.pbrt\"\n" + kTriangle +
                                             "NamedMaterial \"glass\"\nShape \"sphere\"\n" + kLight);
    CHECK(near(imported.positions()[1], mirrored(glm::vec3(1, 0, 0))));
    CHECK(imported.materials()[std::size_t(imported.triangleMaterials()[0])].type == MaterialType::Lambertian);
    CHECK(imported.materials()[std::size_t(imported.spheres()[0].material)].type == MaterialType::Dielectric);

    // Out of the folder: refused, unless allowed.
    fs::create_directories(dir.path() / "scene");
    dir.write("outside.pbrt", kTriangle + kLight);
    const std::string main = dir.write("scene/main.pbrt", kHeader + "Include \"../outside.pbrt\"\n");
    CHECK_THAT(inputErrorOf([&] { Scene::loadPbrt(main); }),
               Contains("main.pbrt:4:1: Include '../outside.pbrt': resolves to") && Contains("outside"));
    SceneLoadOptions allow;
    allow.allowExternalFiles = true;
    CHECK(Scene::loadPbrt(main, allow).triangles().size() == 1);
    CHECK_THAT(inputErrorOf([&] { loadText(dir, kHeader + "Include \"/etc/hostname\"\n"); }), Contains("absolute path"));
    CHECK_THAT(inputErrorOf([&] { loadText(dir, kHeader + "Include \"missing.pbrt\"\n"); }),
               Contains("scene.pbrt:4:1: Include") && Contains("missing.pbrt"));
    CHECK_THAT(inputErrorOf([&] { loadText(dir, kHeader + "Include \"geometry\"\n"); }), Contains("a directory"));
    CHECK_THAT(inputErrorOf([&] { loadText(dir, kHeader + "Include \"x.pbrt.gz\"\n"); }), Contains("gzip"));

    // A file that includes itself stops at the depth cap, with the place.
    dir.write("loop.pbrt", "Include \"loop.pbrt\"\n");
    const std::string selfInclude = dir.write("main.pbrt", kHeader + "Include \"loop.pbrt\"\n");
    const auto start = std::chrono::steady_clock::now();
    CHECK_THAT(inputErrorOf([&] { Scene::loadPbrt(selfInclude); }), Contains("loop.pbrt:1:1") && Contains("deeper than 32"));
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 1.0 * wftest::timeScale());
    // An Import whose file leaves an attribute block open.
    dir.write("open.pbrt", "AttributeBegin\n");
    CHECK_THAT(inputErrorOf([&] { loadText(dir, kHeader + "Import \"open.pbrt\"\n"); }),
               Contains("the end of an imported file while the AttributeBegin of") && Contains("open.pbrt:1:1"));
}

// ---- Transforms and structure --------------------------------------------------------------------

TEST_CASE("pbrt: transforms, attribute blocks and named coordinate systems", "[pbrt]") {
    TempDir dir;
    struct Case {
        const char* transform;
        glm::vec3 p1;  ///< where pbrt puts the triangle's corner (1, 0, 0)
    };
    const Case cases[] = {
        {"Translate 1 2 3", {2, 2, 3}},
        {"Scale 2 3 4", {2, 0, 0}},
        {"Rotate 90 0 0 1", {0, 1, 0}},
        {"Rotate 90 0 1 0", {0, 0, -1}},
        {"Translate 1 0 0 Rotate 90 0 0 1", {1, 1, 0}},
        {"Transform [ 1 0 0 0  0 1 0 0  0 0 1 0  5 6 7 1 ]", {6, 6, 7}},
        {"Translate 9 9 9 Transform [ 2 0 0 0  0 1 0 0  0 0 1 0  0 0 0 1 ]", {2, 0, 0}},
        {"Translate 1 0 0 ConcatTransform [ 2 0 0 0  0 1 0 0  0 0 1 0  0 0 0 1 ]", {3, 0, 0}},
        {"Translate 4 4 4 Identity", {1, 0, 0}},
        {"Translate 1 0 0 CoordinateSystem \"moved\" Identity Scale 3 3 3 CoordSysTransform \"moved\"", {2, 0, 0}},
        {"Translate 1 0 0 AttributeBegin Translate 5 0 0 AttributeEnd", {2, 0, 0}},
        {"Translate 1 0 0 TransformBegin Translate 5 0 0 TransformEnd", {2, 0, 0}},
        {"CoordSysTransform \"world\"", {1, 0, 0}},
        // The camera's frame: world from camera; LookAt from +5 z looking down -z, camera +x = world -x.
        {"CoordSysTransform \"camera\"", {-1, 0, 5}},
        {"ActiveTransform EndTime Translate 3 0 0 ActiveTransform All", {1, 0, 0}},
    };
    for (const Case& c : cases) {
        INFO(c.transform);
        const Scene scene = loadText(dir, kHeader + kLight + c.transform + "\n" + kTriangle);
        REQUIRE(scene.triangles().size() == 1);
        CHECK(near(scene.positions()[1], mirrored(c.p1)));
    }
    // Motion blur is named.
    CHECK(hasWarning(loadText(dir, kHeader + "ActiveTransform EndTime\n" + kTriangle + kLight), "motion blur"));
    CHECK(hasWarning(loadText(dir, kHeader + "CoordSysTransform \"nowhere\"\n" + kTriangle + kLight),
                     "no such coordinate system"));
    CHECK(hasWarning(loadText(dir, kHeader + "AttributeEnd\n" + kTriangle + kLight), "AttributeEnd without AttributeBegin"));
}

TEST_CASE("pbrt: surfaces face where pbrt's normals point: winding, ReverseOrientation, mirrors, shading normals",
          "[pbrt]") {
    TempDir dir;
    struct Case {
        const char* before;
        const char* shape;
        float facingZ;  ///< pbrt's normal's z (the mirror in x leaves z alone)
    };
    const char* triangle = "Shape \"trianglemesh\" \"point3 P\" [ 0 0 0 1 0 0 0 1 0 ] \"integer indices\" [ 0 1 2 ]";
    const char* withNormals =
        "Shape \"trianglemesh\" \"point3 P\" [ 0 0 0 1 0 0 0 1 0 ] \"integer indices\" [ 0 1 2 ] \"normal N\" [ 0 0 -1 0 0 -1 0 0 -1 ]";
    const char* disk = "Shape \"disk\"";
    const Case cases[] = {
        {"", triangle, 1.0f},
        {"ReverseOrientation", triangle, -1.0f},
        {"Scale -1 1 1", triangle, 1.0f},  // the normal is transformed, not flipped
        {"Scale -1 1 1 ReverseOrientation", triangle, -1.0f},
        {"", withNormals, -1.0f},  // turned to the shading normals' side
        {"ReverseOrientation", withNormals, -1.0f},  // which ReverseOrientation does not change
        {"", disk, 1.0f},
        {"ReverseOrientation", disk, -1.0f},
        {"Scale 1 -1 1", disk, -1.0f},  // pbrt-v4 flips quadrics under a transform that swaps handedness
    };
    for (const Case& c : cases) {
        INFO(c.before << " " << c.shape);
        const Scene scene = loadText(dir, kHeader + "AttributeBegin\nAreaLightSource \"diffuse\"\n" + c.before + "\n" +
                                              c.shape + "\nAttributeEnd\n");
        REQUIRE(scene.triangles().size() >= 1);
        for (std::size_t t = 0; t < scene.triangles().size(); ++t) CHECK(faceNormal(scene, t).z == Approx(c.facingZ).margin(1e-3));
    }
}

namespace {

// An object of a triangle and a sphere, placed three times: as it is, moved, and mirrored.
std::string pairInstances(const std::string& objectPrefix) {
    return kHeader + "ObjectBegin \"pair\"\n" + objectPrefix + R"(
  Translate 0 0 1
  Shape "trianglemesh" "point3 P" [ 0 0 0 1 0 0 0 1 0 ] "integer indices" [ 0 1 2 ]
  Shape "sphere" "float radius" 0.1
ObjectEnd
ObjectInstance "pair"
AttributeBegin
  Translate 10 0 0
  ObjectInstance "pair"
AttributeEnd
AttributeBegin
  Scale -1 1 1
  ObjectInstance "pair"
AttributeEnd
)" + kLight;
}

glm::vec3 placedPoint(const Instance& instance, glm::vec3 p) { return glm::vec3(instance.objectToWorld * glm::vec4(p, 1.0f)); }

}  // namespace

TEST_CASE("pbrt: object instances stay instances, each under its own transform", "[pbrt][instancing]") {
    TempDir dir;
    const Scene scene = loadText(dir, pairInstances(""));
    REQUIRE(scene.objects().size() == 1);
    REQUIRE(scene.instances().size() == 3);
    CHECK(scene.triangles().empty());
    CHECK(scene.spheres().size() == 1);  // the light's
    // The object in its own space: the triangle, then the sphere tessellated (objects hold triangles).
    const ObjectGeometry& object = scene.objects()[0];
    REQUIRE(object.triangles.size() > 1000);
    CHECK(near(object.positions[1], glm::vec3(1, 0, 1)));
    const glm::vec3 a = object.positions[object.triangles[0].x], b = object.positions[object.triangles[0].y],
                    c = object.positions[object.triangles[0].z];
    CHECK(glm::normalize(glm::cross(b - a, c - a)).z == Approx(1.0f).margin(1e-4));  // facing +z, as pbrt's normal
    // Placed where pbrt places them, in the loader's mirrored world.
    CHECK(near(placedPoint(scene.instances()[0], glm::vec3(1, 0, 1)), mirrored(glm::vec3(1, 0, 1))));
    CHECK(near(placedPoint(scene.instances()[1], glm::vec3(1, 0, 1)), mirrored(glm::vec3(11, 0, 1))));
    CHECK(near(placedPoint(scene.instances()[2], glm::vec3(1, 0, 1)), mirrored(glm::vec3(-1, 0, 1))));
    CHECK(scene.warnings().empty());
    CHECK_THAT(inputErrorOf([&] { loadText(dir, kHeader + "ObjectBegin \"a\"\nObjectEnd\nObjectBegin \"a\"\nObjectEnd\n"); }),
               Contains("scene.pbrt:6:1") && Contains("an object of that name exists"));
    // A file of instances and a point light alone.
    const Scene alone = loadText(dir, kHeader + "ObjectBegin \"t\"\n" + kTriangle +
                                          "ObjectEnd\nObjectInstance \"t\"\nLightSource \"point\" \"point3 from\" [ 0 0 3 ]\n");
    CHECK(alone.instances().size() == 1);
}

TEST_CASE("pbrt: an area light inside an object does not emit, as in pbrt-v4", "[pbrt][instancing]") {
    TempDir dir;
    const Scene scene = loadText(dir, pairInstances("AreaLightSource \"diffuse\" \"rgb L\" [ 2 2 2 ]"));
    CHECK(scene.instances().size() == 3);
    REQUIRE(scene.objects().size() == 1);
    CHECK(hasWarning(scene, "area lights in object definitions are not supported"));
    for (int m : scene.objects()[0].triangleMaterials) CHECK_FALSE(scene.materials()[std::size_t(m)].isEmissive());
}

TEST_CASE("pbrt: instances that cannot be placed and objects that draw nothing are warnings", "[pbrt][instancing]") {
    TempDir dir;
    const Scene scene = loadText(dir, kHeader + "ObjectBegin \"pair\"\n" + kTriangle + R"(ObjectEnd
ObjectBegin "flat"
  Shape "trianglemesh" "point3 P" [ 0 0 0  1 0 0  2 0 0 ] "integer indices" [ 0 1 2 ]
ObjectEnd
ObjectBegin "boundary"
  Material "interface"
)" + kTriangle + R"(ObjectEnd
ObjectInstance "pair"
AttributeBegin
  Scale 0 0 0
  ObjectInstance "pair"
AttributeEnd
ObjectInstance "flat"
ObjectInstance "boundary"
)" + kLight);
    INFO(allWarnings(scene));
    CHECK(scene.objects().size() == 1);
    CHECK(scene.instances().size() == 1);
    CHECK(hasWarning(scene, "scene.pbrt:17:3: ObjectInstance \"pair\": instance 1: its transform is singular"));
    CHECK(hasWarning(scene, "scene.pbrt:7:1: ObjectBegin \"flat\": every triangle is degenerate"));
    CHECK(hasWarning(scene, "1 shape with the \"interface\" material"));
}

TEST_CASE("pbrt: instanced objects render as the same shapes written out under the same transforms",
          "[pbrt][instancing][statistical]") {
    TempDir dir;
    const std::string world = R"(LookAt 0 0 5  0 0 0  0 1 0
Camera "perspective" "float fov" [ 40 ]
WorldBegin
AttributeBegin
  AreaLightSource "diffuse" "rgb L" [ 6 6 6 ]
  Translate 0 3 3
  Shape "sphere" "float radius" 0.7
AttributeEnd
Material "diffuse" "rgb reflectance" [ 0.6 0.6 0.6 ]
Shape "trianglemesh" "point3 P" [ -4 -4 -1.5  4 -4 -1.5  4 4 -1.5  -4 4 -1.5 ] "integer indices" [ 0 1 2  0 2 3 ]
)";
    // A pyramid and a sphere of their own materials, the pyramid's point off the object's origin.
    const std::string object = R"(
  Material "diffuse" "rgb reflectance" [ 0.8 0.2 0.1 ]
  Shape "trianglemesh" "point3 P" [ -0.5 -0.5 0  0.5 -0.5 0  0.5 0.5 0  -0.5 0.5 0  0.1 0.2 0.6 ]
    "integer indices" [ 0 1 4  1 2 4  2 3 4  3 0 4 ]
  Material "coateddiffuse" "rgb reflectance" [ 0.1 0.3 0.8 ] "float roughness" 0.05
  Translate 0.6 0 0.2
  Shape "sphere" "float radius" 0.3
)";
    const char* placements[] = {
        "Translate -1.1 0.6 0  Rotate 30 0 1 0  Scale 0.8 0.8 0.8",
        "Translate 1.0 0.5 -0.3  Rotate -40 1 0 1  Scale 0.6 1.0 0.8",
        "Translate 0 -0.8 0.5  Scale -1 1 1  Rotate 20 0 0 1",  // a mirror
    };
    std::string instanced = world + "ObjectBegin \"thing\"" + object + "ObjectEnd\n", flat = world;
    for (const char* placement : placements) {
        instanced += std::string("AttributeBegin\n  ") + placement + "\n  ObjectInstance \"thing\"\nAttributeEnd\n";
        flat += std::string("AttributeBegin\n  ") + placement + object + "AttributeEnd\n";
    }
    const Scene a = loadText(dir, instanced, "instanced.pbrt"), b = loadText(dir, flat, "flat.pbrt");
    CHECK(a.instances().size() == 3);
    CHECK(a.objects().size() == 1);
    CHECK(b.instances().empty());
    const RenderOptions options = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 32, 16);
    const int seeds = 8;
    wftest::checkSameImage("instanced vs written out", wftest::renderSeedStats(a, options, seeds, 4, 100),
                           wftest::renderSeedStats(b, options, seeds, 4, 200));
}

// ---- Camera, film, options -----------------------------------------------------------------------

TEST_CASE("pbrt: the camera: pbrt's fov spans the shorter image side, and lens, film and integrator settings", "[pbrt]") {
    TempDir dir;
    const std::string world = "WorldBegin\n" + kTriangle + kLight;
    auto camera = [&](const std::string& options) { return loadText(dir, "LookAt 0 0 5 0 0 0 0 1 0\n" + options + world); };
    // Wide film: the vertical side is the shorter one.
    Scene wide = camera("Camera \"perspective\" \"float fov\" 30\nFilm \"rgb\" \"integer xresolution\" 200 \"integer yresolution\" 100\n");
    CHECK(wide.camera().verticalFovDegrees == Approx(30.0f));
    CHECK(near(wide.camera().position, glm::vec3(0, 0, 5)));
    CHECK(near(glm::normalize(wide.camera().target - wide.camera().position), glm::vec3(0, 0, -1)));
    CHECK(near(wide.camera().up, glm::vec3(0, 1, 0)));
    CHECK(wide.fileSettings().width == 200);
    CHECK(wide.fileSettings().height == 100);
    // Tall film: fov spans the horizontal side.
    Scene tall = camera("Camera \"perspective\" \"float fov\" 30\nFilm \"rgb\" \"integer xresolution\" 100 \"integer yresolution\" 200\n");
    CHECK(tall.camera().verticalFovDegrees == Approx(2.0 * std::atan(2.0 * std::tan(15.0 * M_PI / 180.0)) * 180.0 / M_PI));
    // pbrt's defaults: fov 90 on a 1280 x 720 film, maxdepth 5 (6 segments), no file name.
    Scene plain = loadText(dir, world);
    CHECK(plain.camera().verticalFovDegrees == Approx(90.0f));
    CHECK(plain.fileSettings().width == 1280);
    CHECK(plain.fileSettings().height == 720);
    CHECK(plain.fileSettings().maxDepth == 6);
    CHECK(plain.fileSettings().outputFile.empty());
    CHECK(!plain.cameraIsDefault());
    // The screen window scales the field of view; an off-centre one is warned.
    Scene window = camera("Camera \"perspective\" \"float fov\" 90 \"float screenwindow\" [ -0.5 0.5 -0.5 0.5 ]\n"
                          "Film \"rgb\" \"integer xresolution\" 64 \"integer yresolution\" 64\n");
    CHECK(window.camera().verticalFovDegrees == Approx(2.0 * std::atan(0.5) * 180.0 / M_PI));
    CHECK(hasWarning(camera("Camera \"perspective\" \"float screenwindow\" [ 0 1 -1 1 ]\n"), "off-centre screen window"));
    // The thin lens, the file name and maxdepth + 1 segments.
    Scene lens = camera("Camera \"perspective\" \"float lensradius\" 0.1 \"float focaldistance\" 4\n"
                        "Film \"rgb\" \"string filename\" \"out.png\"\nIntegrator \"bdpt\" \"integer maxdepth\" 9\n");
    CHECK(lens.camera().lensRadius == Approx(0.1f));
    CHECK(lens.camera().focusDistance == Approx(4.0f));
    CHECK(fs::path(lens.fileSettings().outputFile) == dir.path() / "out.png");  // in the scene's folder
    CHECK(lens.fileSettings().maxDepth == 10);
    CHECK(hasWarning(lens, "Integrator \"bdpt\""));
    // Read and reported, not fatal.
    Scene reported = camera("Camera \"orthographic\"\nSampler \"zsobol\" \"integer pixelsamples\" 1024\nPixelFilter \"gaussian\"\n"
                            "ColorSpace \"aces2065-1\"\nFilm \"spectral\" \"string filename\" \"out.tga\" \"float iso\" 400\n"
                            "Accelerator \"kdtree\"\nOption \"disablepixeljitter\" true\nTransformTimes 0 0.5\n");
    for (const char* w : {"Camera \"orthographic\" is not supported", "Sampler \"zsobol\"", "PixelFilter \"gaussian\"",
                          "ColorSpace \"aces2065-1\"", "wavefront writes .png, .exr or .pfm", "drawn as an RGB film",
                          "Option \"disablepixeljitter\""})
        CHECK(hasWarning(reported, w));
    CHECK(reported.fileSettings().outputFile.empty());
    // The exporters' convention: Scale -1 1 1 before LookAt mirrors the camera itself; the world
    // then stays as written.
    Scene mirroredCamera = loadText(dir, "Scale -1 1 1\nLookAt 0 0 5 0 0 0 0 1 0\nCamera \"perspective\"\n" + world);
    CHECK(near(mirroredCamera.positions()[1], glm::vec3(1, 0, 0)));
}

// ---- Shapes --------------------------------------------------------------------------------------

namespace {

void writeBinaryPly(const std::string& path) {
    std::ofstream out(path, std::ios::binary);
    out << "ply\nformat binary_little_endian 1.0\ncomment a quad and a triangle\nelement vertex 5\n"
           "property float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\nproperty float nz\n"
           "property float u\nproperty float v\nelement face 3\nproperty list uchar int vertex_indices\n"
           "property uchar flags\nend_header\n";
    const float v[5][8] = {{0, 0, 0, 0, 0, 1, 0, 0}, {1, 0, 0, 0, 0, 1, 1, 0}, {1, 1, 0, 0, 0, 1, 1, 1},
                           {0, 1, 0, 0, 0, 1, 0, 1}, {2, 0, 0, 0, 0, 1, 1, 0}};
    out.write(reinterpret_cast<const char*>(v), sizeof v);
    const auto face = [&](std::initializer_list<int> corners) {
        const unsigned char n = static_cast<unsigned char>(corners.size());
        out.write(reinterpret_cast<const char*>(&n), 1);
        for (int c : corners) out.write(reinterpret_cast<const char*>(&c), 4);
        const unsigned char flags = 7;
        out.write(reinterpret_cast<const char*>(&flags), 1);
    };
    face({0, 1, 2, 3});
    face({1, 4, 2});
    face({0, 1});  // a line: skipped, as pbrt skips it
}

}  // namespace

TEST_CASE("pbrt: shapes: meshes, PLY files, bilinear patches, subdivision surfaces and quadrics", "[pbrt]") {
    TempDir dir;
    auto triangles = [&](const std::string& shape) { return loadText(dir, kHeader + shape + "\n" + kLight).triangles().size(); };
    CHECK(triangles("Shape \"trianglemesh\" \"point3 P\" [ 0 0 0 1 0 0 0 1 0 ]") == 1);  // indices implied for 3 points
    CHECK(triangles("Shape \"bilinearmesh\" \"point3 P\" [ 0 0 0 1 0 0 0 1 0 1 1 0 ]") == 2);
    CHECK(triangles("Shape \"bilinearmesh\" \"point3 P\" [ 0 0 0 1 0 0 0 1 0 1 1 0 2 0 0 2 1 0 ] "
                    "\"integer indices\" [ 0 1 2 3 1 4 3 5 ]") == 4);
    // Loop subdivision: four times the triangles per level.
    const std::string tetrahedron = "Shape \"loopsubdiv\" \"point3 P\" [ 1 1 1  -1 -1 1  -1 1 -1  1 -1 -1 ] "
                                    "\"integer indices\" [ 0 1 2  0 3 1  0 2 3  1 3 2 ] \"integer levels\" ";
    CHECK(triangles(tetrahedron + "0") == 4);
    CHECK(triangles(tetrahedron + "2") == 64);
    // Quadrics: full spheres stay spheres; disks, cylinders and partial spheres become triangles.
    const Scene quadrics = loadText(dir, kHeader + R"(Shape "sphere" "float radius" 2
Shape "sphere" "float radius" 1 "float zmin" 0
Shape "disk" "float radius" 1 "float innerradius" 0.5 "float phimax" 180
Shape "cylinder" "float radius" 1 "float zmin" 0 "float zmax" 2
AttributeBegin
  Scale 1 2 1
  Shape "sphere"
AttributeEnd
)" + kLight);
    CHECK(quadrics.spheres().size() == 2);  // the radius-2 sphere and the light
    CHECK(quadrics.spheres()[0].radius == Approx(2.0f));
    CHECK(quadrics.triangles().size() > 1000);
    // PLY: binary, normals and texture coordinates kept, quads split, other faces skipped with a warning.
    writeBinaryPly(dir.file("mesh.ply"));
    const Scene ply = loadText(dir, kHeader + "Shape \"plymesh\" \"string filename\" \"mesh.ply\"\n" + kLight);
    CHECK(ply.triangles().size() == 3);
    CHECK(ply.normals().size() == ply.positions().size());
    CHECK(hasWarning(ply, "1 faces with other than 3 or 4 corners skipped"));
    dir.write("ascii.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                           "element face 1\nproperty list uchar int vertex_index\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
    CHECK(triangles("Shape \"plymesh\" \"string filename\" \"ascii.ply\"") == 1);
    dir.write("bad.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
                         "element face 1\nproperty list uchar int vertex_index\nend_header\n0 0 0\n3 0 1 2\n");
    CHECK_THAT(inputErrorOf([&] { triangles("Shape \"plymesh\" \"string filename\" \"bad.ply\""); }),
               Contains("scene.pbrt:4:1: Shape \"plymesh\"") && Contains("uses vertex 1 of 1"));
    CHECK_THAT(inputErrorOf([&] { triangles("Shape \"plymesh\" \"string filename\" \"missing.ply\""); }),
               Contains("scene.pbrt:4:1") && Contains("missing.ply"));
    // What cannot be drawn is named; pbrt's malformed meshes are discarded, as pbrt discards them.
    const Scene skipped = loadText(dir, kHeader + R"(Shape "curve" "point3 P" [ 0 0 0 1 0 0 1 1 0 0 1 0 ]
Shape "trianglemesh" "point3 P" [ 0 0 0 1 0 0 0 1 0 ] "integer indices" [ 0 1 5 ]
Shape "trianglemesh" "point3 P" [ 0 0 0 1 0 0 0 1 0 ] "integer indices" [ 0 1 2 ] "normal N" [ 0 0 1 ]
Shape "trianglemesh" "point3 P" [ 0 0 0 1 0 0 0 1 0 ] "float alpha" 0.5
Shape "trianglemesh" "point3 P" [ 0 0 0 1 0 0 0 1 0 ] "float alpha" 0
)" + kLight);
    CHECK(skipped.triangles().size() == 2);
    for (const char* w : {"Shape \"curve\" is not supported: skipped", "vertex index 5 is out of range",
                          "1 \"N\" values for 3 positions: discarded", "\"alpha\" (cut-outs) is not supported",
                          "\"alpha\" 0: not drawn"})
        CHECK(hasWarning(skipped, w));
}

TEST_CASE("pbrt: shapes are bounded: triangles, subdivision levels, nesting, text", "[pbrt][hardening]") {
    TempDir dir;
    const auto start = std::chrono::steady_clock::now();
    // A subdivision surface asking for 30 levels gets as many as the triangle cap allows.
    const Scene loop = loadText(dir, kHeader + "Shape \"loopsubdiv\" \"point3 P\" [ 0 0 0 1 0 0 0 1 0 ] "
                                             "\"integer indices\" [ 0 1 2 ] \"integer levels\" 30\n" + kLight);
    CHECK(hasWarning(loop, "30 levels would give over"));
    // Attribute blocks nested past the cap, instances past the triangle cap.
    CHECK_THAT(inputErrorOf([&] {
                   std::string deep = kHeader;
                   for (int i = 0; i < 5000; ++i) deep += "AttributeBegin\n";
                   loadText(dir, deep);
               }),
               Contains("scene.pbrt:4100:1") && Contains("nested deeper than 4096"));
    // A sphere counts as the triangles it may be drawn with (9216): 30,000 of them in objects pass
    // the 2^28 triangles of one file (an object's counted once, however often it is placed).
    CHECK_THAT(inputErrorOf([&] {
                   std::string many = kHeader;
                   for (int k = 0; k < 30; ++k) {
                       many += "ObjectBegin \"big" + std::to_string(k) + "\"\n";
                       for (int i = 0; i < 1000; ++i) many += "Shape \"sphere\"\n";
                       many += "ObjectEnd\n";
                   }
                   loadText(dir, many);
               }),
               Contains("past 268435456 triangles"));
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 20.0 * wftest::timeScale());
}

// ---- Issue 58: stray writes, amplification, quadratic parsing, wraps ----------------------------

TEST_CASE("pbrt: the Film's file name is written only inside the scene's folder", "[pbrt][hardening]") {
    TempDir dir;
    fs::create_directories(dir.path() / "scene");
    fs::create_symlink(dir.path(), dir.path() / "scene" / "up");
    auto output = [&](const std::string& name, SceneLoadOptions options = {}) {
        const std::string main = dir.write("scene/main.pbrt", "Film \"rgb\" \"string filename\" \"" + name + "\"\n" +
                                                                  "WorldBegin\n" + kTriangle + kLight);
        return Scene::loadPbrt(main, options);
    };
    CHECK(fs::path(output("out.png").fileSettings().outputFile) == dir.path() / "scene" / "out.png");
    // Absolute, .. out of the folder, through a link out of it: the default output, with a warning.
    for (const std::string& name : {(dir.path() / "abs.png").string(), std::string("../up.png"), std::string("up/link.png")}) {
        const Scene scene = output(name);
        CHECK(scene.fileSettings().outputFile.empty());
        CHECK(hasWarning(scene, "main.pbrt:1:") );
        CHECK(hasWarning(scene, "the default output is used"));
    }
    // --allow-external-files lets it write there.
    SceneLoadOptions allow;
    allow.allowExternalFiles = true;
    CHECK(fs::path(output("../up.png", allow).fileSettings().outputFile) == dir.path() / "scene" / ".." / "up.png");
}

TEST_CASE("pbrt: amplification is bounded before memory is taken: includes, tessellation, textures", "[pbrt][hardening]") {
    TempDir dir;
    const auto start = std::chrono::steady_clock::now();
    // An Include DAG: each file includes the next one four times (4^8 inclusions).
    for (int i = 0; i < 8; ++i) {
        std::string text;
        for (int k = 0; k < 4; ++k) text += "Include \"dag" + std::to_string(i + 1) + ".pbrt\"\n";
        dir.write("dag" + std::to_string(i) + ".pbrt", text);
    }
    dir.write("dag8.pbrt", "# the leaf\n");
    CHECK_THAT(inputErrorOf([&] { loadText(dir, kHeader + "Include \"dag0.pbrt\"\n" + kTriangle); }),
               Contains("dag7.pbrt:4:1: Include \"dag8.pbrt\": more than 16384 files included in all"));
    // Tessellation and subdivision make at most 2^22 triangles per file, charged before they are
    // made: 21845 cylinders (192 triangles each, not drawn: the "interface" material) leave 64.
    std::string cylinders = kHeader + kLight + "AttributeBegin\nMaterial \"interface\"\n";
    for (int i = 0; i < 21845; ++i) cylinders += "Shape \"cylinder\"\n";
    cylinders += "AttributeEnd\n";
    const int next = 4 + 5 + 2 + 21845 + 1;  // the line after them
    CHECK_THAT(inputErrorOf([&] { loadText(dir, cylinders + "Shape \"disk\"\n"); }),
               Contains("scene.pbrt:" + std::to_string(next) + ":1: Shape \"disk\": its 192 triangles take the scene past "
                        "4194304 triangles made by tessellation and subdivision"));
    // A subdivision surface gets the levels that fit in what is left: 3 of 8 (4^3 of 64).
    const Scene loop = loadText(dir, cylinders + "Shape \"loopsubdiv\" \"point3 P\" [ 0 0 0 1 0 0 0 1 0 ] "
                                                 "\"integer indices\" [ 0 1 2 ] \"integer levels\" 8\n");
    CHECK(hasWarning(loop, "8 levels would give over 64 triangles: subdivided 3 times"));
    CHECK(loop.triangles().size() == 64);
    // A sphere that cannot stay one (a non-uniform scale) is tessellated as the scene is made:
    // charged then, and refused there.
    CHECK_THAT(inputErrorOf([&] { loadText(dir, cylinders + "Scale 1 2 1\nShape \"sphere\"\n"); }),
               Contains("scene.pbrt:" + std::to_string(next + 1) + ":1: Shape \"sphere\" (tessellated): its 9216 triangles"));
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 20.0 * wftest::timeScale());

    // Textures: every image read, baked or tabulated is counted, a float texel as four RGBA8 ones.
    Image image(64, 64);
    writeImage(dir.file("small.png"), image);
    SceneLoadOptions options;
    options.maxTextureTexels = 64 * 64 * (1 + 2 * 4);  // the PNG and two baked copies
    const std::string quad = "Shape \"trianglemesh\" \"point3 P\" [ 0 0 0 1 0 0 1 1 0 ] \"integer indices\" [ 0 1 2 ] "
                             "\"point2 uv\" [ 0 0 1 0 1 1 ]\n";
    std::string bakes = kHeader + "Texture \"img\" \"spectrum\" \"imagemap\" \"string filename\" \"small.png\"\n";
    for (int i = 0; i < 3; ++i)
        bakes += "Texture \"s" + std::to_string(i) + "\" \"spectrum\" \"scale\" \"texture tex\" \"img\" \"texture scale\" \"f\"\n"
                 "Material \"diffuse\" \"texture reflectance\" \"s" + std::to_string(i) + "\"\n" + quad;
    bakes = bakes.replace(bakes.find("Texture \"s0\""), 0, "Texture \"f\" \"float\" \"imagemap\" \"string filename\" \"small.png\"\n");
    options.maxTextureTexels += 64 * 64;  // the float operand, read once
    CHECK_THAT(inputErrorOf([&] { loadText(dir, bakes + kLight, "scene.pbrt", options); }),
               Contains("Texture \"s2\" \"scale\": baked as float texels: image size 64x64 (float) is over what is left of "
                        "the scene's texture budget"));
    options.maxTextureTexels += 64 * 64 * 4;
    CHECK(loadText(dir, bakes + kLight, "scene.pbrt", options).textures().size() == 3);
    // A float image is refused on its header, before it is decoded: this one holds no texels at all.
    std::ofstream(dir.file("big.hdr"), std::ios::binary) << "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 16384 +X 16384\n";
    std::ofstream(dir.file("big.pfm"), std::ios::binary) << "PF\n16384 16384\n-1.0\n";
    for (const char* name : {"big.hdr", "big.pfm"})
        CHECK_THAT(inputErrorOf([&] {
                       loadText(dir, kHeader + "Texture \"t\" \"spectrum\" \"imagemap\" \"string filename\" \"" + name +
                                         "\"\nMaterial \"diffuse\" \"texture reflectance\" \"t\"\n" + quad + kLight);
                   }),
                   Contains("image size 16384x16384 is over what is left of the scene's texture budget"));
}

TEST_CASE("pbrt: parsing stays linear: Attribute defaults and warnings", "[pbrt][hardening]") {
    TempDir dir;
    const auto start = std::chrono::steady_clock::now();
    // 50,000 Attribute lines (took over 120 s): a name given again keeps its first value.
    std::string attributes = kHeader;
    for (int i = 0; i < 50000; ++i) attributes += "Attribute \"shape\" \"float radius\" " + std::to_string(2 + i % 7) + "\n";
    const Scene sphere = loadText(dir, attributes + "Shape \"sphere\"\n" + kLight);
    CHECK(sphere.spheres()[0].radius == Approx(2.0f));
    // Attribute defaults are shared, not copied into every directive, and do not warn when unused.
    std::string shared = kHeader;
    for (int i = 0; i < 200; ++i) shared += "Attribute \"material\" \"float p" + std::to_string(i) + "\" 1\n";
    for (int i = 0; i < 5000; ++i) shared += "Material \"diffuse\"\n" + kTriangle;
    CHECK(!hasWarning(loadText(dir, shared + kLight), "\"float p"));
    // More different names than any type reads: refused.
    std::string names = kHeader;
    for (int i = 0; i < 300; ++i) names += "Attribute \"shape\" \"float r" + std::to_string(i) + "\" 1\n";
    CHECK_THAT(inputErrorOf([&] { loadText(dir, names + kTriangle + kLight); }),
               Contains("scene.pbrt:260:19: Attribute \"shape\": more than 256 different parameters in force"));
    // 100,000 unsupported shapes of different names: a hundred warnings listed, the rest counted.
    std::string shapes = kHeader + kTriangle;
    for (int i = 0; i < 100000; ++i) shapes += "Shape \"x" + std::to_string(i) + "\"\n";
    const Scene warned = loadText(dir, shapes + kLight);
    CHECK(warned.warnings().size() == 101);
    CHECK(hasWarning(warned, "... and 99900 more warnings of other kinds, not listed"));
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 10.0 * wftest::timeScale());
}

TEST_CASE("pbrt: values out of range name file and line", "[pbrt][hardening]") {
    TempDir dir;
    const std::string world = "WorldBegin\n" + kTriangle + kLight;
    // Floats read as integers: 2147483648 is not an int (it wrapped to INT_MIN).
    CHECK_THAT(inputErrorOf([&] { loadText(dir, "Film \"rgb\" \"float xresolution\" 2147483648\n" + world); }),
               Contains("scene.pbrt:1:12: parameter \"float xresolution\": 2147483648 is beyond the 32-bit integer range"));
    CHECK_THAT(inputErrorOf([&] {
                   loadText(dir, kHeader + "Shape \"loopsubdiv\" \"point3 P\" [ 0 0 0 1 0 0 0 1 0 ] \"integer indices\" [ 0 1 2 ] "
                                           "\"float levels\" -2147483904\n" + kLight);
               }),
               Contains("scene.pbrt:4:") && Contains("beyond the 32-bit integer range"));
    CHECK_THAT(inputErrorOf([&] { loadText(dir, "Film \"rgb\" \"float xresolution\" 2.5\n" + world); }),
               Contains("2.5 is not an integer"));
    // Values the renderer or the scene would refuse later, without a place.
    CHECK_THAT(inputErrorOf([&] { loadText(dir, "Integrator \"path\" \"integer maxdepth\" 255\n" + world); }),
               Contains("scene.pbrt:1:1: Integrator: \"maxdepth\" 255 is out of range (0..254"));
    CHECK(loadText(dir, "Integrator \"path\" \"integer maxdepth\" 254\n" + world).fileSettings().maxDepth == 255);
    CHECK_THAT(inputErrorOf([&] {
                   loadText(dir, "Camera \"perspective\" \"float lensradius\" 0.1 \"float focaldistance\" 0\n" + world);
               }),
               Contains("scene.pbrt:1:") && Contains("\"focaldistance\" must be above 0"));
    CHECK_THAT(inputErrorOf([&] { loadText(dir, "LookAt 0 0 1e38 0 0 0 0 1 0\nCamera \"perspective\"\n" + world); }),
               Contains("scene.pbrt:2:1: Camera: "));
    CHECK_THAT(inputErrorOf([&] {
                   loadText(dir, kHeader + "LightSource \"infinite\" \"rgb L\" [ 10 10 10 ] \"float scale\" 1e38\n" + kTriangle);
               }),
               Contains("scene.pbrt:4:1: LightSource \"infinite\": sky gradient colour"));
}

// ---- Materials and textures ----------------------------------------------------------------------

TEST_CASE("pbrt: materials map onto wavefront's as docs/pbrt.md's table says", "[pbrt][materials]") {
    TempDir dir;
    auto material = [&](const std::string& m, Scene* keep = nullptr) {
        Scene scene = loadText(dir, kHeader + m + "\n" + kTriangle + kLight);
        const Material out = scene.materials()[std::size_t(scene.triangleMaterials()[0])];
        if (keep) *keep = std::move(scene);
        return out;
    };
    const Material fallback = material("");
    CHECK(fallback.type == MaterialType::Lambertian);
    CHECK(fallback.diffuse == glm::vec3(0.5f));

    const Material diffuse = material("Material \"diffuse\" \"rgb reflectance\" [ 0.2 0.4 0.6 ]");
    CHECK(diffuse.type == MaterialType::Lambertian);
    CHECK(near(diffuse.diffuse, glm::vec3(0.2f, 0.4f, 0.6f)));

    // pbrt's roughness r is the GGX alpha sqrt(r); the layered walk's parameters as pbrt names them.
    Scene coatedScene;
    const Material coated = material("Material \"coateddiffuse\" \"rgb reflectance\" [ 0.3 0.3 0.3 ] \"float roughness\" 0.0625 "
                                     "\"float thickness\" 0.2 \"rgb albedo\" [ 0.5 0.5 0.5 ] \"float g\" 0.3 "
                                     "\"integer maxdepth\" 12 \"integer nsamples\" 2 \"float eta\" 1.4",
                                     &coatedScene);
    CHECK(coated.type == MaterialType::CoatedDiffuse);
    CHECK(coated.roughness == Approx(0.25f));
    CHECK(near(coated.diffuse, glm::vec3(0.3f)));
    CHECK(coated.ior == Approx(1.4f));
    CHECK(coated.thickness == Approx(0.2f));
    CHECK(near(coated.mediumAlbedo, glm::vec3(0.5f)));
    CHECK(coated.mediumG == Approx(0.3f));
    CHECK(coated.layerDepth == 12);
    CHECK(coated.layerSamples == 2);
    CHECK(coatedScene.warnings().empty());

    const Material copper = material("Material \"conductor\" \"float roughness\" 0.01");
    CHECK(copper.type == MaterialType::Conductor);
    CHECK(copper.complexIor);
    CHECK(copper.roughness == Approx(0.1f));
    CHECK(copper.k.x > 2.0f);  // pbrt's default: metal-Cu
    const Material unremapped = material("Material \"conductor\" \"float roughness\" 0.01 \"bool remaproughness\" false");
    CHECK(unremapped.roughness == Approx(0.01f));
    const Material gold = material("Material \"conductor\" \"spectrum eta\" \"metal-Au-eta\" \"spectrum k\" \"metal-Au-k\"");
    CHECK(gold.eta.x < gold.eta.z);  // gold is red: low eta at long wavelengths
    CHECK(gold.roughness == 0.0f);
    const Material schlick = material("Material \"conductor\" \"rgb reflectance\" [ 0.9 0.6 0.3 ]");
    CHECK(!schlick.complexIor);
    CHECK(near(schlick.specular, glm::vec3(0.9f, 0.6f, 0.3f)));
    Scene anisotropicScene;
    const Material anisotropic =
        material("Material \"conductor\" \"float uroughness\" 0.04 \"float vroughness\" 0.16", &anisotropicScene);
    CHECK(anisotropic.roughness == Approx(0.3f));  // the mean of the alphas 0.2 and 0.4
    CHECK(hasWarning(anisotropicScene, "anisotropic roughness"));

    Scene coatedMetalScene;
    const Material coatedMetal =
        material("Material \"coatedconductor\" \"float conductor.roughness\" 0.04 \"spectrum conductor.eta\" \"metal-Ag-eta\" "
                 "\"spectrum conductor.k\" \"metal-Ag-k\" \"float interface.roughness\" 0.1",
                 &coatedMetalScene);
    CHECK(coatedMetal.type == MaterialType::CoatedConductor);
    CHECK(coatedMetal.baseRoughness == Approx(0.2f));
    CHECK(coatedMetal.roughness == Approx(std::sqrt(0.1f)));
    CHECK(coatedMetal.k.x > 2.0f);  // silver, relative to vacuum (the packing divides by the coat's index)
    CHECK(coatedMetalScene.warnings().empty());
    // pbrt's "reflectance" form: eta 1, k from the reflectance, as pbrt's CoatedConductorMaterial.
    const Material coatedTint = material("Material \"coatedconductor\" \"rgb reflectance\" [ 0.64 0.64 0.64 ]");
    CHECK(coatedTint.type == MaterialType::CoatedConductor);
    CHECK(near(coatedTint.eta, glm::vec3(1.0f)));
    CHECK(coatedTint.k.x == Approx(2.0f * 0.8f / 0.6f).epsilon(1e-3));

    const Material glass = material("Material \"dielectric\" \"float eta\" 1.33");
    CHECK(glass.type == MaterialType::Dielectric);
    CHECK(glass.ior == Approx(1.33f));
    const Material rough = material("Material \"dielectric\" \"float roughness\" 0.04");
    CHECK(rough.type == MaterialType::RoughDielectric);
    CHECK(rough.roughness == Approx(0.2f));
    CHECK(rough.ior == Approx(1.5f));
    Scene bk7Scene;
    const Material bk7 = material("Material \"dielectric\" \"spectrum eta\" \"glass-BK7\"", &bk7Scene);
    CHECK(bk7.ior == Approx(1.519f).margin(0.005));
    CHECK(hasWarning(bk7Scene, "dispersion"));
    Scene thinScene;
    CHECK(material("Material \"thindielectric\"", &thinScene).type == MaterialType::Dielectric);
    CHECK(hasWarning(thinScene, "no thin sheet"));

    Scene transmissionScene;
    const Material transmission = material("Material \"diffusetransmission\" \"rgb reflectance\" [ 0.4 0.4 0.4 ]", &transmissionScene);
    CHECK(transmission.type == MaterialType::Lambertian);
    CHECK(near(transmission.diffuse, glm::vec3(0.4f)));
    CHECK(hasWarning(transmissionScene, "transmission is left out"));

    for (const char* type : {"measured", "subsurface", "hair"}) {
        Scene scene;
        CHECK(material(std::string("Material \"") + type + "\"", &scene).type == MaterialType::Lambertian);
        CHECK(hasWarning(scene, std::string("Material \"") + type + "\" is not supported"));
    }

    // Named materials (also before their definition), mixes, and the interface material.
    Scene mixScene;
    const Material mixed = material(R"(MakeNamedMaterial "red" "string type" "diffuse" "rgb reflectance" [ 0.8 0 0 ]
MakeNamedMaterial "metal" "string type" "conductor"
MakeNamedMaterial "mix" "string type" "mix" "string materials" [ "red" "metal" ] "float amount" 0.25
NamedMaterial "mix")",
                                    &mixScene);
    CHECK(near(mixed.diffuse, glm::vec3(0.8f, 0.0f, 0.0f)));
    CHECK(hasWarning(mixScene, "drawn as the more likely of the two, \"red\""));
    const Scene forward = loadText(dir, kHeader + "NamedMaterial \"later\"\n" + kTriangle +
                                            "MakeNamedMaterial \"later\" \"string type\" \"dielectric\"\n" + kLight);
    CHECK(forward.materials()[std::size_t(forward.triangleMaterials()[0])].type == MaterialType::Dielectric);
    const Scene interfaces = loadText(dir, kHeader + "Material \"interface\"\n" + kTriangle + "Material \"diffuse\"\n" + kLight);
    CHECK(interfaces.triangles().empty());
    CHECK(hasWarning(interfaces, "1 shape with the \"interface\" material"));
    CHECK(hasWarning(loadText(dir, kHeader + "Material \"diffuse\" \"float displacement\" 0.1\n" + kTriangle + kLight),
                     "\"displacement\" is not supported"));

    // Area lights: L times scale on the material that follows; two-sided ones twice, facing apart.
    Scene lamp = loadText(dir, kHeader + "AreaLightSource \"diffuse\" \"rgb L\" [ 1 2 3 ] \"float scale\" 2\n" + kTriangle);
    CHECK(near(lamp.materials()[std::size_t(lamp.triangleMaterials()[0])].emission, glm::vec3(2, 4, 6)));
    Scene twoSided = loadText(dir, kHeader + "AreaLightSource \"diffuse\" \"bool twosided\" true\n" + kTriangle);
    REQUIRE(twoSided.triangles().size() == 2);
    CHECK(glm::dot(faceNormal(twoSided, 0), faceNormal(twoSided, 1)) == Approx(-1.0f));
    // The copies lie apart by a hair, each on its own side.
    const float gap = twoSided.positions()[twoSided.triangles()[1].x].z - twoSided.positions()[twoSided.triangles()[0].x].z;
    CHECK(std::fabs(gap) > 0.0f);
    CHECK(std::fabs(gap) < 1e-3f);
    CHECK(gap * faceNormal(twoSided, 1).z > 0.0f);
}

TEST_CASE("pbrt: textures: images, scale, mix, checkerboard, bilerp and float textures", "[pbrt][textures]") {
    TempDir dir;
    // A 2 x 2 image: red, green / blue, white (rows from the top).
    Image image(2, 2);
    const float texels[4][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
    for (int i = 0; i < 4; ++i) std::memcpy(image.pixel(i % 2, i / 2), texels[i], sizeof texels[i]);
    writeImage(dir.file("colours.png"), image);
    writeImage(dir.file("colours.exr"), image);
    const std::string quad = "Shape \"trianglemesh\" \"point3 P\" [ 0 0 0 1 0 0 1 1 0 0 1 0 ] \"integer indices\" [ 0 1 2 0 2 3 ] "
                             "\"point2 uv\" [ 0 0 1 0 1 1 0 1 ]\n";
    auto textured = [&](const std::string& textures, const std::string& reflectance = "\"texture reflectance\" \"t\"") {
        return loadText(dir, kHeader + textures + "\nMaterial \"diffuse\" " + reflectance + "\n" + quad + kLight);
    };
    // An imagemap: PNG read as sRGB bytes, its scale on the material, pbrt's v up turned into
    // wavefront's v down (pbrt looks images up at (u, 1 - v)).
    const Scene png = textured("Texture \"t\" \"spectrum\" \"imagemap\" \"string filename\" \"colours.png\" \"float scale\" 0.5");
    REQUIRE(png.textures().size() == 1);
    CHECK(png.textures()[0].srgb);
    CHECK(png.textures()[0].rgba8.size() == 16);
    const Material& m = png.materials()[std::size_t(png.triangleMaterials()[0])];
    CHECK(m.baseColorTexture == 0);
    CHECK(near(m.diffuse, glm::vec3(0.5f)));
    REQUIRE(png.uvs().size() == png.positions().size());
    CHECK(near(glm::vec3(png.uvs()[0], 0.0f), glm::vec3(0, 1, 0)));  // pbrt's (0, 0): the image's bottom-left
    // The uv mapping's scale and offset reach the mesh's texture coordinates.
    const Scene mapped = textured("Texture \"t\" \"spectrum\" \"imagemap\" \"string filename\" \"colours.exr\" "
                                  "\"float uscale\" 2 \"float vscale\" 3 \"float udelta\" 0.5");
    CHECK(!mapped.textures()[0].rgbaFloat.empty());
    CHECK(near(glm::vec3(mapped.uvs()[2], 0.0f), glm::vec3(2.5f, 1.0f - 3.0f, 0.0f)));
    // Linear, gamma, inverted.
    CHECK(!textured("Texture \"t\" \"spectrum\" \"imagemap\" \"string filename\" \"colours.png\" \"string encoding\" \"linear\"")
               .textures()[0].srgb);
    const Scene gamma = textured("Texture \"t\" \"spectrum\" \"imagemap\" \"string filename\" \"colours.png\" \"string encoding\" \"gamma 2.2\"");
    CHECK(gamma.textures()[0].rgbaFloat.size() == 16);
    const Scene inverted = textured("Texture \"t\" \"spectrum\" \"imagemap\" \"string filename\" \"colours.exr\" \"bool invert\" true");
    CHECK(inverted.textures()[0].rgbaFloat[0] == Approx(0.0f));   // red -> cyan
    CHECK(inverted.textures()[0].rgbaFloat[1] == Approx(1.0f));
    // Scale by a constant folds into the material; a mix of two images is baked.
    const Scene scaled = textured("Texture \"i\" \"spectrum\" \"imagemap\" \"string filename\" \"colours.png\"\n"
                                  "Texture \"t\" \"spectrum\" \"scale\" \"texture tex\" \"i\" \"float scale\" 0.25");
    CHECK(near(scaled.materials()[std::size_t(scaled.triangleMaterials()[0])].diffuse, glm::vec3(0.25f)));
    CHECK(scaled.textures()[0].srgb);
    const Scene mix = textured("Texture \"i\" \"spectrum\" \"imagemap\" \"string filename\" \"colours.exr\"\n"
                               "Texture \"t\" \"spectrum\" \"mix\" \"texture tex1\" \"i\" \"rgb tex2\" [ 0 0 0 ] \"float amount\" 0.5");
    REQUIRE(mix.textures().size() == 1);
    CHECK(mix.textures()[0].rgbaFloat[0] == Approx(0.5f).margin(0.02));  // half of the red texel
    const Scene constantMix = textured("Texture \"t\" \"spectrum\" \"mix\" \"rgb tex1\" [ 1 0 0 ] \"rgb tex2\" [ 0 0 1 ] \"float amount\" 0.25");
    CHECK(constantMix.textures().empty());
    CHECK(near(constantMix.materials()[std::size_t(constantMix.triangleMaterials()[0])].diffuse, glm::vec3(0.75f, 0, 0.25f)));
    // A checkerboard: two by two checks, tex1 where floor(s) + floor(t) is even.
    const Scene checks = textured("Texture \"t\" \"spectrum\" \"checkerboard\" \"rgb tex1\" [ 1 1 1 ] \"rgb tex2\" [ 0 0 0 ] "
                                  "\"float uscale\" 4 \"float vscale\" 4");
    REQUIRE(checks.textures().size() == 1);
    const Texture& board = checks.textures()[0];
    CHECK(board.width == 64);
    CHECK(board.rgbaFloat[(std::size_t(63) * 64 + 0) * 4] == 1.0f);   // bottom-left: s, t in [0, 1)
    CHECK(board.rgbaFloat[(std::size_t(63) * 64 + 40) * 4] == 0.0f);  // s in [1, 2)
    CHECK(near(glm::vec3(checks.uvs()[1], 0.0f), glm::vec3(2.0f, 1.0f, 0.0f)));  // (u, v) = (1, 0): s = 4, halved
    CHECK(textured("Texture \"t\" \"spectrum\" \"bilerp\" \"rgb v00\" [ 1 0 0 ] \"rgb v11\" [ 0 0 1 ]").textures().size() == 1);
    CHECK(hasWarning(textured("Texture \"t\" \"spectrum\" \"fbm\""), "Texture \"t\" \"fbm\" is not supported"));
    CHECK(hasWarning(textured("Texture \"t\" \"spectrum\" \"imagemap\" \"string filename\" \"colours.png\" \"string mapping\" \"spherical\""),
                     "\"mapping\" \"spherical\" is not supported"));
    // Float textures for roughness: a constant is exact, an image gives its mean.
    const Scene roughness = loadText(dir, kHeader + "Texture \"r\" \"float\" \"constant\" \"float value\" 0.25\n"
                                                    "Material \"conductor\" \"texture roughness\" \"r\"\n" + quad + kLight);
    CHECK(roughness.materials()[std::size_t(roughness.triangleMaterials()[0])].roughness == Approx(0.5f));
    const Scene imageRoughness = loadText(dir, kHeader + "Texture \"r\" \"float\" \"imagemap\" \"string filename\" \"colours.exr\"\n"
                                                         "Material \"conductor\" \"texture roughness\" \"r\"\n" + quad + kLight);
    CHECK(hasWarning(imageRoughness, "a textured \"roughness\" is not supported: the texture's mean is used"));
    // Textures that name themselves end at the depth cap; a missing image names its place.
    CHECK_THAT(inputErrorOf([&] { textured("Texture \"t\" \"spectrum\" \"scale\" \"texture tex\" \"t\""); }),
               Contains("nested deeper than 64"));
    CHECK_THAT(inputErrorOf([&] { textured("Texture \"t\" \"spectrum\" \"imagemap\" \"string filename\" \"nope.png\""); }),
               Contains("scene.pbrt:4:1: Texture \"t\" \"imagemap\"") && Contains("nope.png"));
    // A textured sphere is tessellated, to carry pbrt's (u, v).
    const Scene sphere = loadText(dir, kHeader + kLight + "Texture \"t\" \"spectrum\" \"checkerboard\"\n"
                                                 "Material \"diffuse\" \"texture reflectance\" \"t\"\nShape \"sphere\"\n");
    CHECK(sphere.spheres().size() == 1);  // the light only
    CHECK(sphere.triangles().size() > 1000);
}

// ---- Lights and spectra --------------------------------------------------------------------------

TEST_CASE("pbrt: spectra become linear sRGB the same way everywhere", "[pbrt][spectra]") {
    TempDir dir;
    auto emission = [&](const std::string& L) {
        const Scene scene = loadText(dir, kHeader + "AreaLightSource \"diffuse\" " + L + "\n" + kTriangle);
        return scene.materials()[std::size_t(scene.triangleMaterials()[0])].emission;
    };
    auto luminance = [](glm::vec3 c) { return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z; };
    // pbrt-v4 normalises light spectra to one nit; "rgb L" stays as written.
    CHECK(near(emission("\"rgb L\" [ 3 2 1 ]"), glm::vec3(3, 2, 1)));
    CHECK(near(emission("\"spectrum L\" \"stdillum-D65\""), glm::vec3(1.0f), 2e-3f));
    const glm::vec3 warm = emission("\"blackbody L\" 2700"), daylight = emission("\"blackbody L\" 6504");
    CHECK(luminance(warm) == Approx(1.0f).margin(0.02));
    CHECK(warm.x > warm.y);
    CHECK(warm.y > warm.z);
    CHECK(near(daylight, glm::vec3(1.0f), 0.1f));
    // An equal-energy spectrum, inline and from an .spd file.
    const glm::vec3 flat = emission("\"spectrum L\" [ 300 5 900 5 ]");
    CHECK(luminance(flat) == Approx(1.0f).margin(0.02));
    dir.write("flat.spd", "# wavelength value\n300 5\n900 5\n");
    CHECK(near(emission("\"spectrum L\" \"flat.spd\""), flat, 1e-5f));
    // Reflectances: a constant spectrum gives that grey.
    const Scene grey = loadText(dir, kHeader + "Material \"diffuse\" \"spectrum reflectance\" [ 400 0.5 700 0.5 ]\n" + kTriangle + kLight);
    CHECK(near(grey.materials()[std::size_t(grey.triangleMaterials()[0])].diffuse, glm::vec3(0.5f), 0.01f));
    CHECK_THAT(inputErrorOf([&] { emission("\"spectrum L\" [ 500 1 400 1 ]"); }), Contains("rising"));
    CHECK_THAT(inputErrorOf([&] { emission("\"spectrum L\" \"no-such-spectrum\""); }), Contains("no-such-spectrum"));
    CHECK_THAT(inputErrorOf([&] { emission("\"blackbody L\" -5"); }), Contains("temperature"));
}

TEST_CASE("pbrt: lights: infinite lights become the environment, point, spot and distant lights wavefront's", "[pbrt][lights]") {
    TempDir dir;
    const Scene constant = loadText(dir, kHeader + "LightSource \"infinite\" \"rgb L\" [ 0.5 0.6 0.7 ] \"float scale\" 2\n" + kTriangle);
    CHECK(constant.hasSkyGradient());
    CHECK(near(constant.skyGradient().zenith, glm::vec3(1.0f, 1.2f, 1.4f)));
    CHECK(near(constant.skyGradient().nadir, glm::vec3(1.0f, 1.2f, 1.4f)));
    const Scene delta = loadText(dir, kHeader + R"(AttributeBegin
Translate 0 0 2
LightSource "point" "rgb I" [ 1 2 3 ] "float scale" 2 "point3 from" [ 0 1 0 ]
AttributeEnd
LightSource "spot" "point3 from" [ 0 0 0 ] "point3 to" [ 0 0 -1 ] "rgb I" [ 4 4 4 ] "float coneangle" 40 "float conedeltaangle" 10
LightSource "distant" "rgb L" [ 1 1 1 ] "point3 from" [ 0 1 0 ] "point3 to" [ 0 0 0 ] "float illuminance" 3
LightSource "goniometric"
LightSource "projection"
)" + kTriangle + kLight);
    for (const char* type : {"goniometric", "projection"})
        CHECK(hasWarning(delta, std::string("LightSource \"") + type + "\" is not supported: skipped"));
    REQUIRE(delta.lights().size() == 3);
    const Light& point = delta.lights()[0];
    CHECK(point.type == LightType::Point);
    CHECK(near(point.intensity, glm::vec3(2.0f, 4.0f, 6.0f)));
    CHECK(std::fabs(point.position.y - 1.0f) < 1e-5f);
    CHECK(std::fabs(std::fabs(point.position.z) - 2.0f) < 1e-5f);
    const Light& spot = delta.lights()[1];
    CHECK(spot.type == LightType::Spot);
    CHECK(spot.outerConeDegrees == Approx(40.0f));
    CHECK(spot.innerConeDegrees == Approx(30.0f));
    CHECK(std::fabs(std::fabs(spot.direction.z) - 1.0f) < 1e-5f);
    const Light& sun = delta.lights()[2];
    CHECK(sun.type == LightType::Directional);
    CHECK(near(sun.direction, glm::vec3(0.0f, -1.0f, 0.0f)));
    CHECK(near(sun.intensity, glm::vec3(3.0f)));  // "illuminance": the irradiance of a surface facing it
    // An equal-area octahedral map: pbrt's +z (the square's centre) bright, the rest dark. With
    // `Rotate -90 1 0 0` the map's +z is pbrt's +y: up, as wavefront's environment has it.
    const int n = 64;
    Image octahedral(n, n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const float u = 2.0f * (x + 0.5f) / n - 1.0f, v = 2.0f * (y + 0.5f) / n - 1.0f;
            const float value = std::fabs(u) + std::fabs(v) < 0.3f ? 10.0f : 0.1f;
            for (int c = 0; c < 3; ++c) octahedral.pixel(x, y)[c] = value;
        }
    writeImage(dir.file("sky.exr"), octahedral);
    const Scene sky = loadText(dir, kHeader + "AttributeBegin\nRotate -90 1 0 0\nLightSource \"infinite\" \"string filename\" \"sky.exr\"\nAttributeEnd\n" + kTriangle);
    const Image& env = sky.environment();
    REQUIRE(env.width == 2 * n);
    REQUIRE(env.height == n);
    CHECK(env.pixel(0, 0)[0] == Approx(10.0f));           // straight up
    CHECK(env.pixel(env.width / 3, env.height - 1)[0] == Approx(0.1f));  // straight down
    CHECK(env.pixel(env.width / 4, env.height / 2)[0] == Approx(0.1f));  // the horizon
    CHECK_THAT(inputErrorOf([&] {
                   writeImage(dir.file("odd.exr"), Image(30, 20));
                   loadText(dir, kHeader + "LightSource \"infinite\" \"string filename\" \"odd.exr\"\n" + kTriangle);
               }),
               Contains("scene.pbrt:4:1: LightSource \"infinite\"") && Contains("is 30x20"));
}

// ---- Media ---------------------------------------------------------------------------------------

namespace {

bool mentionsMedia(const Scene& scene) {
    for (const char* word : {"medium", "media", "Medium"})
        if (hasWarning(scene, word)) return true;
    return false;
}

// The sphere drawn with the interface material, or null.
const Sphere* interfaceSphere(const Scene& scene) {
    for (const Sphere& s : scene.spheres())
        if (scene.materials()[std::size_t(s.material)].type == MaterialType::Interface) return &s;
    return nullptr;
}

}  // namespace

TEST_CASE("pbrt: media: a homogeneous medium bounded by an interface, its coefficients and the shapes' media", "[pbrt][media]") {
    TempDir dir;
    const Scene scene = loadText(dir, kHeader + R"(MakeNamedMedium "fog" "string type" "homogeneous" "rgb sigma_a" [ 0.1 0.2 0.3 ]
  "rgb sigma_s" [ 0.5 0.6 0.7 ] "float scale" 2 "float g" 0.3
MakeNamedMedium "milk" "string type" "homogeneous" "string preset" "Wholemilk"
AttributeBegin
  MediumInterface "fog" ""
  Material "interface"
  Shape "sphere" "float radius" 1
  Material "dielectric"
  Shape "trianglemesh" "point3 P" [ 0 0 2  1 0 2  0 1 2 ] "integer indices" [ 0 1 2 ]
  AttributeBegin
    MediumInterface "milk" "fog"
    Material "interface"
    Translate 0 0 0.5
    Shape "sphere" "float radius" 0.25
  AttributeEnd
AttributeEnd
)" + kTriangle + kLight);
    INFO(allWarnings(scene));
    CHECK(!mentionsMedia(scene));
    REQUIRE(scene.media().size() == 2);
    const Medium& fog = scene.media()[0];
    CHECK(fog.type == MediumType::Homogeneous);
    CHECK(near(fog.sigmaA, glm::vec3(0.1f, 0.2f, 0.3f)));
    CHECK(near(fog.sigmaS, glm::vec3(0.5f, 0.6f, 0.7f)));
    CHECK(fog.scale == Approx(2.0f));
    CHECK(fog.g == Approx(0.3f));
    // pbrt-v4's preset: Jensen et al.'s whole milk, in mm^-1.
    CHECK(near(scene.media()[1].sigmaS, glm::vec3(2.55f, 3.21f, 3.77f)));
    CHECK(near(scene.media()[1].sigmaA, glm::vec3(0.0011f, 0.0024f, 0.014f)));
    // The interface spheres bound the media; the glass triangle is inside fog, the last one (after
    // AttributeEnd) and the light in vacuum.
    int interfaces = 0;
    for (const Sphere& s : scene.spheres()) {
        if (scene.materials()[std::size_t(s.material)].type != MaterialType::Interface) {
            CHECK(s.mediumInside == kVacuum);
            CHECK(s.mediumOutside == kVacuum);
            continue;
        }
        ++interfaces;
        if (s.radius > 0.5f) {
            CHECK(s.mediumInside == 0);
            CHECK(s.mediumOutside == kVacuum);
        } else {
            CHECK(s.mediumInside == 1);
            CHECK(s.mediumOutside == 0);
        }
    }
    CHECK(interfaces == 2);
    REQUIRE(scene.meshes().size() == 2);
    CHECK(scene.meshes()[0].mediumInside == 0);
    CHECK(scene.meshes()[0].mediumOutside == kVacuum);
    CHECK(scene.meshes()[1].mediumInside == kVacuum);
    CHECK(scene.meshes()[1].mediumOutside == kVacuum);
    CHECK(scene.camera().medium == kVacuum);
}

TEST_CASE("pbrt: media: a uniformgrid's size, box and transform (mirrored as the world is)", "[pbrt][media]") {
    TempDir dir;
    const Scene scene = loadText(dir, kHeader + R"(AttributeBegin
  Translate 1 2 3
  Scale 2 2 2
  MakeNamedMedium "smoke" "string type" "uniformgrid" "integer nx" 2 "integer ny" 1 "integer nz" 3
    "float density" [ 0 1 2 3 4 5 ] "point3 p0" [ 1 1 1 ] "point3 p1" [ 0 -1 0 ] "rgb sigma_a" [ 0 0 0 ] "rgb sigma_s" [ 4 4 4 ]
AttributeEnd
MediumInterface "smoke" ""
Material "interface"
Shape "sphere" "float radius" 3
)" + kLight);
    INFO(allWarnings(scene));
    CHECK(!mentionsMedia(scene));
    REQUIRE(scene.media().size() == 1);
    const Medium& smoke = scene.media()[0];
    CHECK(smoke.type == MediumType::Grid);
    CHECK(smoke.nx == 2);
    CHECK(smoke.ny == 1);
    CHECK(smoke.nz == 3);
    CHECK(smoke.density == std::vector<float>{0, 1, 2, 3, 4, 5});
    CHECK(near(smoke.boundsMin, glm::vec3(0.0f, -1.0f, 0.0f)));
    CHECK(near(smoke.boundsMax, glm::vec3(1.0f, 1.0f, 1.0f)));
    CHECK(near(smoke.sigmaS, glm::vec3(4.0f)));
    CHECK(near(smoke.sigmaA, glm::vec3(0.0f)));
    // The CTM where it was made, in the loader's mirrored world.
    CHECK(near(glm::vec3(smoke.mediumToWorld * glm::vec4(0, 0, 0, 1)), mirrored(glm::vec3(1, 2, 3))));
    CHECK(near(glm::vec3(smoke.mediumToWorld * glm::vec4(1, 1, 1, 1)), mirrored(glm::vec3(3, 4, 5))));
    const Sphere* bound = interfaceSphere(scene);
    REQUIRE(bound);
    CHECK(bound->mediumInside == 0);
}

TEST_CASE("pbrt: media: the camera and the lights take the outside medium, scoped by attribute blocks", "[pbrt][media]") {
    TempDir dir;
    const Scene scene = loadText(dir, R"(MakeNamedMedium "fog" "string type" "homogeneous" "rgb sigma_s" [ 0.1 0.1 0.1 ]
MediumInterface "fog"
LookAt 0 0 5  0 0 0  0 1 0
Camera "perspective" "float fov" [ 40 ]
WorldBegin
LightSource "point" "point3 from" [ 0 0 2 ]
AttributeBegin
  MediumInterface ""
  LightSource "spot" "point3 from" [ 0 0 2 ] "point3 to" [ 0 0 0 ]
AttributeEnd
LightSource "distant" "point3 from" [ 0 0 2 ] "point3 to" [ 0 0 0 ]
)" + kTriangle);
    INFO(allWarnings(scene));
    CHECK(!mentionsMedia(scene));
    REQUIRE(scene.media().size() == 1);
    CHECK(scene.camera().medium == 0);
    REQUIRE(scene.lights().size() == 3);
    CHECK(scene.lights()[0].medium == 0);
    CHECK(scene.lights()[1].medium == kVacuum);
    CHECK(scene.lights()[2].medium == 0);
    // The triangle sits in fog on both sides: no boundary.
    REQUIRE(scene.meshes().size() == 1);
    CHECK(scene.meshes()[0].mediumInside == scene.meshes()[0].mediumOutside);
}

TEST_CASE("pbrt: media: interface shapes, instances, media wavefront cannot draw and unknown names", "[pbrt][media]") {
    TempDir dir;
    // An interface between equal media changes nothing: not drawn, counted; no medium enters the scene.
    const Scene same = loadText(dir, kHeader + "Material \"interface\"\n" + kTriangle + "Material \"diffuse\"\n" + kLight);
    CHECK(same.triangles().empty());
    CHECK(same.media().empty());
    CHECK(hasWarning(same, "1 shape with the \"interface\" material between equal media"));
    CHECK(!same.hasMedia());
    // An area light on an interface is ignored, as pbrt-v4 does.
    const Scene lit = loadText(dir, kHeader + R"(MakeNamedMedium "fog" "string type" "homogeneous"
AttributeBegin
  MediumInterface "fog" ""
  AreaLightSource "diffuse" "rgb L" [ 1 1 1 ]
  Material "interface"
  Shape "sphere"
AttributeEnd
)" + kLight);
    CHECK(hasWarning(lit, "\"interface\" material do not emit"));
    REQUIRE(interfaceSphere(lit));
    CHECK(interfaceSphere(lit)->mediumInside == 0);

    // Instances: the shapes that bound a medium are placed as plain meshes at each instance.
    const Scene instanced = loadText(dir, kHeader + R"(MakeNamedMedium "fog" "string type" "homogeneous"
ObjectBegin "drop"
  MediumInterface "fog" ""
  Material "interface"
  Shape "sphere" "float radius" 0.25
  MediumInterface ""
  Material "diffuse"
)" + kTriangle + R"(ObjectEnd
ObjectInstance "drop"
Translate 1 0 0
ObjectInstance "drop"
)" + kLight);
    CHECK(hasWarning(instanced, "ObjectBegin \"drop\": 1 of its shapes bound media"));
    CHECK(instanced.instances().size() == 2);
    std::size_t bounding = 0;
    for (const MeshRange& m : instanced.meshes())
        if (m.mediumInside == 0 && m.mediumOutside == kVacuum) ++bounding;
    CHECK(bounding == 2);

    // rgbgrid: one density times two colours is imported; anything else is skipped.
    const std::string factored = kHeader + R"(MakeNamedMedium "rgb" "string type" "rgbgrid" "integer nx" 4
  "rgb sigma_a" [ 0 0 0  0.05 0.1 0.15  0.1 0.2 0.3  0.2 0.4 0.6 ] "rgb sigma_s" [ 0 0 0  0.5 0.5 1  1 1 2  2 2 4 ]
AttributeBegin
  MediumInterface "rgb" ""
  Material "interface"
  Shape "sphere"
AttributeEnd
)" + kLight;
    const Scene rgb = loadText(dir, factored);
    INFO(allWarnings(rgb));
    CHECK(!mentionsMedia(rgb));
    REQUIRE(rgb.media().size() == 1);
    const Medium& m = rgb.media()[0];
    CHECK(m.nx == 4);
    REQUIRE(m.density.size() == 4);
    const float expected[4] = {0.0f, 0.25f, 0.5f, 1.0f};
    for (int i = 0; i < 4; ++i) {
        CHECK(near(m.sigmaA * m.density[std::size_t(i)], glm::vec3(0.2f, 0.4f, 0.6f) * expected[i]));
        CHECK(near(m.sigmaS * m.density[std::size_t(i)], glm::vec3(2.0f, 2.0f, 4.0f) * expected[i]));
    }
    std::string unfactored = factored;
    unfactored.replace(unfactored.find("0.5 0.5 1"), 9, "0.5 0.7 1");
    const Scene skipped = loadText(dir, unfactored);
    CHECK(hasWarning(skipped, "not one density grid times two colours"));
    CHECK(skipped.media().empty());
    CHECK(!interfaceSphere(skipped));  // vacuum on both sides: nothing to bound
    for (const char* type : {"cloud", "nanovdb"}) {
        const Scene s = loadText(dir, kHeader + "MakeNamedMedium \"c\" \"string type\" \"" + type +
                                          "\" \"string filename\" \"c.nvdb\"\nMediumInterface \"c\" \"\"\n" + kTriangle + kLight);
        CHECK(hasWarning(s, std::string("scene.pbrt:4:1: MakeNamedMedium \"c\" (\"") + type + "\") is not supported: skipped"));
        CHECK(s.media().empty());
    }
    const Scene unknown = loadText(dir, kHeader + "MediumInterface \"nope\" \"\"\n" + kTriangle + kLight);
    CHECK(hasWarning(unknown, "scene.pbrt:4:1: MediumInterface: no medium \"nope\" was made"));
    CHECK(unknown.media().empty());
    const Scene emits = loadText(dir, kHeader + "MakeNamedMedium \"f\" \"string type\" \"homogeneous\" \"rgb Le\" [ 1 1 1 ]\n"
                                                "MediumInterface \"f\"\n" + kTriangle + kLight);
    CHECK(hasWarning(emits, "emission (\"Le\", \"temperature\") is not supported"));
    const Scene named = loadText(dir, kHeader + "MakeNamedMedium \"f\" \"string type\" \"homogeneous\" \"spectrum Le\" \"stdillum-A\"\n"
                                                "MediumInterface \"f\"\n" + kTriangle + kLight);
    CHECK(hasWarning(named, "emission (\"Le\", \"temperature\") is not supported"));
    const Scene dark = loadText(dir, kHeader + "MakeNamedMedium \"f\" \"string type\" \"homogeneous\" \"rgb Le\" [ 0 0 0 ]\n"
                                               "MediumInterface \"f\"\n" + kTriangle + kLight);
    CHECK(!mentionsMedia(dark));
}

TEST_CASE("pbrt: media: malformed media are one line naming file:line:column", "[pbrt][media][hardening]") {
    TempDir dir;
    struct Case {
        const char* medium;
        const char* where;
        const char* what;
    };
    const Case cases[] = {
        {R"("string type" "homogeneous" "rgb sigma_a" [ -1 0 0 ])", "scene.pbrt:4:49", "not a finite, non-negative coefficient"},
        {R"("string type" "homogeneous" "spectrum sigma_s" [ 400 1 700 -2 ])", "scene.pbrt:4:49", "-2 is not a finite"},
        {R"("string type" "homogeneous" "float g" 1)", "scene.pbrt:4:49", "\"g\" 1 must lie in (-1, 1)"},
        {R"("string type" "homogeneous" "float scale" -1)", "scene.pbrt:4:49", "\"scale\" -1 must be finite"},
        {R"("string type" "uniformgrid" "integer nx" 2 "float density" [ 1 nan ])", "scene.pbrt:4:", "nan"},
        {R"("string type" "uniformgrid" "integer nx" 2 "float density" [ 1 -1 ])", "scene.pbrt:4:64", "density value 1 (-1)"},
        {R"("string type" "uniformgrid" "integer nx" 2 "float density" [ 1 2 3 ])", "scene.pbrt:4:64",
         "has 3 values; the grid of 2x1x1 needs 2"},
        {R"("string type" "uniformgrid" "float density" [ 1 ] "integer nx" 100000 "integer ny" 100000 "integer nz" 100000)",
         "scene.pbrt:4:1", "more than 134217728 values"},
        {R"("string type" "uniformgrid" "integer nx" 2147483647 "integer ny" 2147483647 "integer nz" 2147483647 "float density" 1)",
         "scene.pbrt:4:1", "more than 134217728 values"},
        {R"("string type" "uniformgrid" "integer nx" 0 "float density" [ 1 ])", "scene.pbrt:4:1", "must be at least 1"},
        {R"("string type" "uniformgrid")", "scene.pbrt:4:1", "has no \"float density\""},
        {R"("string type" "uniformgrid" "float density" [ 1 ] "point3 p0" [ 0 0 0 ] "point3 p1" [ 1 0 1 ])", "scene.pbrt:4:1",
         "must be finite and not empty"},
        {R"("string type" "rgbgrid" "integer nx" 2 "rgb sigma_a" [ 1 1 1 ])", "scene.pbrt:4:60", "has 3 values; the grid of 2x1x1 needs 6"},
        {R"("string type" "rgbgrid")", "scene.pbrt:4:1", "needs \"rgb sigma_a\" or \"rgb sigma_s\""},
        {R"("rgb sigma_a" [ 1 1 1 ])", "scene.pbrt:4:1", "has no \"string type\""},
    };
    for (const Case& c : cases) {
        INFO(c.medium);
        CHECK_THAT(inputErrorOf([&] {
                       loadText(dir, kHeader + "MakeNamedMedium \"m\" " + c.medium +
                                         "\nMediumInterface \"m\" \"\"\nMaterial \"interface\"\nShape \"sphere\"\n" + kLight);
                   }),
                   Contains(c.where) && Contains(c.what));
    }
    CHECK_THAT(inputErrorOf([&] {
                   loadText(dir, kHeader + "MakeNamedMedium \"m\" \"string type\" \"homogeneous\"\n"
                                           "MakeNamedMedium \"m\" \"string type\" \"homogeneous\"\n" + kTriangle + kLight);
               }),
               Contains("scene.pbrt:5:1: MakeNamedMedium \"m\": a medium of that name was made at ") && Contains("scene.pbrt:4:1"));
}

TEST_CASE("pbrt: media: a scene in fog renders finite and not black on the CPU, darker than without the fog", "[pbrt][media]") {
    TempDir dir;
    const std::string room = R"(LookAt 0 0 5  0 0 0  0 1 0
Camera "perspective" "float fov" [ 40 ]
WorldBegin
MakeNamedMedium "fog" "string type" "homogeneous" "rgb sigma_a" [ 0.3 0.3 0.3 ] "rgb sigma_s" [ 0.3 0.3 0.3 ] "float g" 0.5
AttributeBegin
  MEDIUM
  Material "interface"
  Shape "sphere" "float radius" 1.5
AttributeEnd
Shape "trianglemesh" "point3 P" [ -3 -3 -1  3 -3 -1  3 3 -1  -3 3 -1 ] "integer indices" [ 0 1 2 0 2 3 ]
AttributeBegin
  AreaLightSource "diffuse" "rgb L" [ 4 4 4 ]
  Translate 0 0 3
  Shape "sphere" "float radius" 0.5
AttributeEnd
)";
    auto render = [&](const std::string& medium) {
        std::string text = room;
        text.replace(text.find("MEDIUM"), 6, medium);
        const Scene scene = loadText(dir, text);
        RenderStats stats;
        const Image image = wftest::renderImage(scene, wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 16, 8), &stats);
        CHECK(stats.nonFiniteSamples == 0);
        return wftest::imageMean(image);
    };
    const double fog = render("MediumInterface \"fog\" \"\""), clear = render("MediumInterface \"\" \"\"");
    CHECK(fog > 0.0);
    CHECK(fog < clear);
}

// ---- Images as pbrt draws them -------------------------------------------------------------------

namespace {

// How much of the red box's colour each half of the image holds.
std::pair<double, double> redHalves(const Image& image) {
    double left = 0.0, right = 0.0;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            const float* p = image.pixel(x, y);
            const double red = std::max(0.0, double(p[0]) - double(p[1]));
            (x < image.width / 2 ? left : right) += red;
        }
    return {left, right};
}

}  // namespace

TEST_CASE("pbrt: images come out as pbrt draws them, not mirrored", "[pbrt][handedness]") {
    // pbrt-v4's LookAt makes the camera's +x (the image's right, pbrt's raster x grows with it)
    // cross(up, dir): looking from +5 z to the origin with +y up, that is world -x. A red box at
    // x = +1 is therefore on the LEFT of pbrt's image. Exporters put `Scale -1 1 1` before LookAt
    // to flip this: then the box is on the right.
    TempDir dir;
    const std::string world = R"(Film "rgb" "integer xresolution" 32 "integer yresolution" 32
WorldBegin
LightSource "infinite" "rgb L" [ 1 1 1 ]
AttributeBegin
  Material "diffuse" "rgb reflectance" [ 0.9 0.05 0.05 ]
  Translate 1 0 0
  Shape "trianglemesh" "point3 P" [ -0.4 -0.4 0  0.4 -0.4 0  0.4 0.4 0  -0.4 0.4 0 ] "integer indices" [ 0 1 2 0 2 3 ]
AttributeEnd
)";
    RenderOptions options = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 32, 4);
    const auto plain = redHalves(wftest::renderImage(
        loadText(dir, "LookAt 0 0 5  0 0 0  0 1 0\nCamera \"perspective\" \"float fov\" 40\n" + world), options));
    CHECK(plain.first > 20.0 * plain.second);
    const auto flipped = redHalves(wftest::renderImage(
        loadText(dir, "Scale -1 1 1\nLookAt 0 0 5  0 0 0  0 1 0\nCamera \"perspective\" \"float fov\" 40\n" + world), options));
    CHECK(flipped.second > 20.0 * flipped.first);
    // The same holds under any camera: looking down -y with +z up, pbrt's right is cross(z, -y) = +x.
    const auto above = redHalves(wftest::renderImage(
        loadText(dir, "LookAt 0 5 0  0 0 0  0 0 1\nCamera \"perspective\" \"float fov\" 40\n" +
                          std::string(world).replace(world.find("Translate 1 0 0"), 15, "Translate 1 0 0 Rotate -90 1 0 0")),
        options));
    CHECK(above.second > 20.0 * above.first);
}

TEST_CASE("pbrt: a pbrt-v4 Cornell box renders as the built-in cornell-box", "[pbrt][statistical]") {
    const Scene imported = Scene::loadPbrt(pbrtDataDir() + "/cornell-box.pbrt");
    CHECK(imported.warnings().size() == 2);  // the Sampler and the Integrator, reported
    CHECK(imported.fileSettings().maxDepth == 8);
    const Scene builtin = Scene::builtin("cornell-box");
    RenderOptions options = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 32, 16);
    options.maxDepth = 8;
    const int seeds = 8;
    const wftest::SeedStats a = wftest::renderSeedStats(imported, options, seeds, 4, 100);
    const wftest::SeedStats b = wftest::renderSeedStats(builtin, options, seeds, 4, 200);
    const wftest::PixelTest pixels = wftest::pixelTest(a.pixels, b.pixels);
    const double blocks = wftest::maxZScore(a.blocks, b.blocks), global = wftest::globalZScore(a.blocks, b.blocks);
    INFO("per-pixel pass " << pixels.passFraction() << " of " << pixels.tested << ", worst block z " << blocks
                           << ", global z " << global);
    CHECK(pixels.passFraction() >= 0.99);
    CHECK(blocks < 6.0);
    CHECK(global < 4.5);
}

namespace {

// PT, BDPT and MLT over 8 independent renders each, compared pairwise as integrators_test.cpp
// compares them; `spp` are BDPT's samples per pixel, PT takes 4x, MLT 2x.
void checkIntegratorsAgree(const Scene& scene, int size, int spp) {
    auto options = [&](IntegratorType integrator, int samples) {
        RenderOptions o = wftest::smallRender(integrator, Backend::Cpu, size, samples);
        o.maxDepth = 8;
        if (integrator == IntegratorType::Mlt) o.streamCapacity = size * size * samples / 16;
        return o;
    };
    const int seeds = 8;
    const wftest::SeedStats pt = wftest::renderSeedStats(scene, options(IntegratorType::PathTracer, 4 * spp), seeds, 8, 100);
    const wftest::SeedStats bdpt = wftest::renderSeedStats(scene, options(IntegratorType::Bdpt, spp), seeds, 8, 200);
    const wftest::SeedStats mlt = wftest::renderSeedStats(scene, options(IntegratorType::Mlt, 2 * spp), seeds, 8, 300);
    wftest::checkSameImage("BDPT vs PT", bdpt, pt);
    wftest::checkSameImage("MLT vs PT", mlt, pt);
    wftest::checkSameImage("MLT vs BDPT", mlt, bdpt);
}

}  // namespace

TEST_CASE("pbrt: PT, BDPT and MLT agree on imported scenes", "[pbrt][bdpt][mlt][statistical]") {
    SECTION("the Cornell box") { checkIntegratorsAgree(Scene::loadPbrt(pbrtDataDir() + "/cornell-box.pbrt"), 24, 16); }
    SECTION("metals, a coated surface, glass, a two-sided light and a constant sky") {
        checkIntegratorsAgree(Scene::loadPbrt(pbrtDataDir() + "/materials.pbrt"), 24, 16);
    }
}

TEST_CASE("pbrt: the example scenes render in PT, BDPT and MLT", "[pbrt][examples]") {
    const fs::path dir = fs::path(WAVEFRONT_EXAMPLE_SCENES_DIR) / "pbrt";
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().extension() == ".pbrt") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    CHECK(files.size() >= 10);
    for (const fs::path& file : files) {
        INFO(file.filename().string());
        const Scene scene = Scene::loadPbrt(file.string());
        INFO(allWarnings(scene));
        CHECK(scene.fileSettings().width > 0);
        for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt, IntegratorType::Mlt}) {
            RenderOptions options = wftest::smallRender(integrator, Backend::Cpu, 16, 2);
            options.maxDepth = scene.fileSettings().maxDepth;
            RenderStats stats;
            const Image image = wftest::renderImage(scene, options, &stats);
            CHECK(stats.nonFiniteSamples == 0);
            CHECK(wftest::imageMean(image) > 0.0);
        }
    }
}

namespace {

/// `text` as a gzip stream (zlib's deflate with a gzip header).
std::string gzipped(const std::string& text) {
    z_stream z{};
    REQUIRE(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    std::string out(deflateBound(&z, uLong(text.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = uInt(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

}  // namespace

TEST_CASE("pbrt: compressed meshes (.ply.gz) load, within the cap of a referenced file", "[pbrt][io]") {
    TempDir dir;
    const std::string ply = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                            "element face 1\nproperty list uchar int vertex_index\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    {
        std::ofstream out(dir.file("mesh.ply.gz"), std::ios::binary);
        const std::string packed = gzipped(ply);
        out.write(packed.data(), std::streamsize(packed.size()));
    }
    const Scene scene = loadText(dir, kHeader + "Shape \"plymesh\" \"string filename\" \"mesh.ply.gz\"\n" + kLight);
    CHECK(scene.triangles().size() == 1);
    CHECK(scene.warnings().empty());
    // The unpacking is bounded: a stream that would unpack past the cap stops there, with one line.
    const std::string zeros = gzipped(std::string(1 << 20, '\0'));
    CHECK(gunzip(zeros, 1 << 20, "x").size() == std::size_t(1) << 20);
    CHECK_THAT(inputErrorOf([&] { gunzip(zeros, 1 << 16, "bomb.ply.gz"); }), Contains("bomb.ply.gz") && Contains("unpacks to more than"));
    CHECK_THAT(inputErrorOf([&] { gunzip(zeros.substr(0, zeros.size() / 2), 1 << 30, "cut.ply.gz"); }),
               Contains("cut.ply.gz") && Contains("truncated"));
    std::string corrupt = zeros;
    corrupt[12] = char(corrupt[12] ^ 0x5a);
    CHECK_THAT(inputErrorOf([&] { gunzip(corrupt, 1 << 30, "bad.ply.gz"); }), Contains("bad.ply.gz"));
    {
        std::ofstream out(dir.file("broken.ply.gz"), std::ios::binary);
        out.write(zeros.data(), std::streamsize(zeros.size() / 2));
    }
    CHECK_THAT(inputErrorOf([&] { loadText(dir, kHeader + "Shape \"plymesh\" \"string filename\" \"broken.ply.gz\"\n" + kLight); }),
               Contains("scene.pbrt:4:1") && Contains("broken.ply.gz"));
}

TEST_CASE("pbrt: the film's exposure: ISO and the shutter scale every emitter, as pbrt-v4's sensor does", "[pbrt]") {
    TempDir dir;
    const std::string world = "WorldBegin\n" + kTriangle + kLight +
                              "LightSource \"point\" \"rgb I\" [ 2 2 2 ]\nLightSource \"infinite\" \"rgb L\" [ 0.5 0.5 0.5 ]\n";
    auto load = [&](const std::string& options) { return loadText(dir, "LookAt 0 0 5 0 0 0 0 1 0\n" + options + world); };
    const Scene plain = load("Camera \"perspective\"\nFilm \"rgb\"\n");
    const Scene iso = load("Camera \"perspective\"\nFilm \"rgb\" \"float iso\" [ 150 ]\n");
    const Scene shutter = load("Camera \"perspective\" \"float shutteropen\" 0 \"float shutterclose\" 0.5\nFilm \"rgb\" \"float iso\" 400\n");
    CHECK(iso.warnings().empty());
    auto emitted = [](const Scene& s) {
        for (const Material& m : s.materials())
            if (m.isEmissive()) return m.emission.x;
        return 0.0f;
    };
    CHECK(emitted(iso) == Approx(1.5f * emitted(plain)));
    CHECK(iso.lights()[0].intensity.x == Approx(1.5f * plain.lights()[0].intensity.x));
    CHECK(emitted(shutter) == Approx(2.0f * emitted(plain)));
    // Rendered: the image scales by 1.5 (the same seed: the same paths, every emitter scaled).
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 16, 4);
    Renderer a(plain, o), b(iso, o);
    a.render();
    b.render();
    double sumA = 0.0, sumB = 0.0;
    for (float v : a.image().rgb) sumA += v;
    for (float v : b.image().rgb) sumB += v;
    CHECK(sumA > 0.0);
    CHECK(sumB == Approx(1.5 * sumA).epsilon(1e-4));
    // Another sensor's response is not modelled: a warning names the factor drawn.
    const Scene sensor = load("Camera \"perspective\"\nFilm \"rgb\" \"string sensor\" \"canon_eos_100d\" \"float iso\" 200\n");
    CHECK(hasWarning(sensor, "exposure x ISO / 100 = 2"));
    CHECK_THAT(inputErrorOf([&] { load("Camera \"perspective\"\nFilm \"rgb\" \"float iso\" -1\n"); }), Contains("\"iso\""));
    // The pixel filter named by the file is not read; the warning says what filters instead.
    const Scene filtered = load("Camera \"perspective\"\nPixelFilter \"gaussian\"\n");
    CHECK(hasWarning(filtered, "--filter"));
    CHECK(!hasWarning(filtered, "box filter"));
}
