// Scene construction, validation and the built-in scenes.
#include <catch2/catch.hpp>

#include "test_support.h"

#include <wavefront/error.h>
#include <wavefront/scene.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>

using namespace wavefront;
using Catch::Matchers::Contains;

namespace {

using wftest::inputErrorOf;


glm::vec3 faceNormal(const Scene& scene, std::size_t t) {
    const glm::uvec3& tri = scene.triangles()[t];
    const auto& p = scene.positions();
    return glm::normalize(glm::cross(p[tri.y] - p[tri.x], p[tri.z] - p[tri.x]));
}

glm::vec3 centroid(const Scene& scene, std::size_t t) {
    const glm::uvec3& tri = scene.triangles()[t];
    const auto& p = scene.positions();
    return (p[tri.x] + p[tri.y] + p[tri.z]) / 3.0f;
}

// A unit right triangle in the z = 0 plane, facing +z.
TriangleMesh triangle(int material) {
    TriangleMesh mesh;
    mesh.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    mesh.indices = {0, 1, 2};
    mesh.material = material;
    return mesh;
}

Scene litScene() {
    Scene scene;
    int light = scene.addMaterial(Material::lambertian(glm::vec3(0.5f), glm::vec3(1.0f)));
    scene.addMesh(triangle(light));
    return scene;
}

}  // namespace

TEST_CASE("every built-in scene validates and has an emitter, a light or an environment", "[scene]") {
    const auto names = Scene::builtinSceneNames();
    REQUIRE(names.size() >= 11);
    for (const std::string& name : names) {
        INFO("scene " << name);
        Scene scene = Scene::builtin(name);
        REQUIRE_NOTHROW(scene.validate());
        CHECK(scene.primitiveCount() > 0);
        CHECK(scene.skippedDegenerateTriangles() == 0);
        bool emitter = false;
        for (int m : scene.triangleMaterials())
            emitter = emitter || scene.materials()[m].isEmissive();
        for (const Sphere& s : scene.spheres())
            emitter = emitter || scene.materials()[s.material].isEmissive();
        CHECK((emitter || !scene.lights().empty() || scene.hasEnvironment()));
        CHECK(scene.triangleMaterials().size() == scene.triangles().size());
        CHECK(scene.triangleHasNormals().size() == scene.triangles().size());
        CHECK((scene.normals().empty() || scene.normals().size() == scene.positions().size()));
    }
}

TEST_CASE("built-in scenes have the expected sizes", "[scene]") {
    CHECK(Scene::builtin("cornell-box").triangles().size() > 30);
    CHECK(Scene::builtin("cornell-spheres").spheres().size() == 2);
    CHECK(Scene::builtin("many-lights").triangles().size() >= 100000);
    CHECK(Scene::builtin("furnace").triangles().size() == 12);

    Scene rtiow = Scene::builtin("rtiow-final");
    CHECK(rtiow.spheres().size() == 488);
    CHECK(rtiow.camera().verticalFovDegrees == Approx(20.0f));

    Scene mesh = Scene::builtin("mesh-1m");
    CHECK(mesh.triangles().size() >= 900000);
    CHECK(mesh.normals().size() == mesh.positions().size());

    Scene caustic = Scene::builtin("glass-caustic");
    REQUIRE(caustic.spheres().size() == 1);
    CHECK(caustic.materials()[caustic.spheres()[0].material].type == MaterialType::Dielectric);
    CHECK(Scene::builtin("door-ajar").triangles().size() < 200);
}

TEST_CASE("built-in scenes are deterministic", "[scene]") {
    Scene a = Scene::builtin("rtiow-final");
    Scene b = Scene::builtin("rtiow-final");
    REQUIRE(a.spheres().size() == b.spheres().size());
    for (std::size_t i = 0; i < a.spheres().size(); ++i) {
        CHECK(a.spheres()[i].center == b.spheres()[i].center);
        CHECK(a.materials()[a.spheres()[i].material].diffuse == b.materials()[b.spheres()[i].material].diffuse);
    }
}

TEST_CASE("closed built-in enclosures face their inside", "[scene]") {
    for (const char* name : {"furnace", "sphere-inside"}) {
        INFO("scene " << name);
        Scene scene = Scene::builtin(name);
        for (std::size_t t = 0; t < scene.triangles().size(); ++t)
            REQUIRE(glm::dot(faceNormal(scene, t), centroid(scene, t)) < 0.0f);
    }
}

TEST_CASE("cornell box walls face into the box and the light faces down", "[scene]") {
    Scene scene = Scene::builtin("cornell-box");
    const glm::vec3 middle(0.5f);
    int lights = 0;
    for (std::size_t t = 0; t < scene.triangles().size(); ++t) {
        const Material& m = scene.materials()[scene.triangleMaterials()[t]];
        glm::vec3 n = faceNormal(scene, t);
        if (m.isEmissive()) {
            ++lights;
            CHECK(n.y == Approx(-1.0f));
        }
    }
    CHECK(lights == 2);
    // The first five quads are the walls.
    for (std::size_t t = 0; t < 10; ++t)
        CHECK(glm::dot(faceNormal(scene, t), middle - centroid(scene, t)) > 0.0f);
}

TEST_CASE("the mesh-1m ball faces outwards with matching vertex normals", "[scene]") {
    Scene scene = Scene::builtin("mesh-1m");
    const glm::vec3 center(0.5f, 0.36f, 0.5f);
    std::size_t start = 12;  // after the box walls and the light
    for (std::size_t t = start; t < scene.triangles().size(); t += 997) {
        glm::vec3 n = faceNormal(scene, t);
        CHECK(glm::dot(n, centroid(scene, t) - center) > 0.0f);
        CHECK(scene.triangleHasNormals()[t] == 1);
        CHECK(glm::dot(n, scene.normals()[scene.triangles()[t].x]) > 0.0f);
    }
}

TEST_CASE("unknown scene names are rejected with the list of built-ins", "[scene]") {
    std::string message = inputErrorOf([] { Scene::builtin("no-such-scene"); });
    CHECK_THAT(message, Contains("unknown scene 'no-such-scene'") && Contains("cornell-box") &&
                            Contains("sphere-inside") && Contains(".obj"));
    CHECK_NOTHROW(Scene::fromNameOrPath("furnace"));
    CHECK_THAT(inputErrorOf([] { Scene::fromNameOrPath("/no/such/dir/model.obj"); }),
               Contains("/no/such/dir/model.obj"));
}

TEST_CASE("addMesh rejects malformed meshes", "[scene]") {
    Scene scene;
    int white = scene.addMaterial(Material::lambertian(glm::vec3(0.5f)));

    SECTION("index out of range names the face and the index") {
        TriangleMesh mesh = triangle(white);
        mesh.indices = {0, 1, 2, 2, 1, 5};
        CHECK_THAT(inputErrorOf([&] { scene.addMesh(mesh); }),
                   Contains("face 1") && Contains("5") && Contains("out of range"));
    }
    SECTION("a non-finite position names the face that uses it") {
        TriangleMesh mesh = triangle(white);
        mesh.positions.push_back(glm::vec3(std::numeric_limits<float>::quiet_NaN(), 0.0f, 1.0f));
        mesh.indices = {0, 1, 2, 1, 2, 3};
        CHECK_THAT(inputErrorOf([&] { scene.addMesh(mesh); }),
                   Contains("face 1 uses vertex 3") && Contains("non-finite") && Contains("nan"));
        mesh.positions[3] = glm::vec3(0.0f, std::numeric_limits<float>::infinity(), 0.0f);
        CHECK_THAT(inputErrorOf([&] { scene.addMesh(mesh); }), Contains("face 1 uses vertex 3"));
    }
    SECTION("material out of range") {
        CHECK_THAT(inputErrorOf([&] { scene.addMesh(triangle(3)); }),
                   Contains("material") && Contains("3") && Contains("out of range"));
        CHECK_THAT(inputErrorOf([&] { scene.addMesh(triangle(-1)); }), Contains("out of range"));
    }
    SECTION("index count not a multiple of three") {
        TriangleMesh mesh = triangle(white);
        mesh.indices.push_back(0);
        CHECK_THAT(inputErrorOf([&] { scene.addMesh(mesh); }), Contains("multiple of 3"));
    }
    SECTION("normal count mismatch") {
        TriangleMesh mesh = triangle(white);
        mesh.normals = {{0, 0, 1}, {0, 0, 1}};
        CHECK_THAT(inputErrorOf([&] { scene.addMesh(mesh); }), Contains("2 normals") && Contains("3 positions"));
    }
    // A rejected mesh leaves the scene untouched.
    CHECK(scene.positions().empty());
    CHECK(scene.triangles().empty());
}

TEST_CASE("addSphere and addMaterial reject invalid input", "[scene]") {
    Scene scene;
    int white = scene.addMaterial(Material::lambertian(glm::vec3(0.5f)));
    CHECK_THROWS_AS(scene.addSphere(Sphere{glm::vec3(0.0f), 0.0f, white}), InputError);
    CHECK_THROWS_AS(scene.addSphere(Sphere{glm::vec3(0.0f), -1.0f, white}), InputError);
    CHECK_THROWS_AS(scene.addSphere(Sphere{glm::vec3(INFINITY, 0, 0), 1.0f, white}), InputError);
    CHECK_THROWS_AS(scene.addSphere(Sphere{glm::vec3(0.0f), 1.0f, 1}), InputError);
    CHECK_NOTHROW(scene.addSphere(Sphere{glm::vec3(0.0f), 1.0f, white}));

    CHECK_THROWS_AS(scene.addMaterial(Material::lambertian(glm::vec3(-0.1f))), InputError);
    CHECK_THROWS_AS(scene.addMaterial(Material::lambertian(glm::vec3(0.5f), glm::vec3(NAN))), InputError);
    CHECK_THROWS_AS(scene.addMaterial(Material::dielectric(0.0f)), InputError);
    CHECK_THROWS_AS(scene.addMaterial(Material::glossy(glm::vec3(0.5f), glm::vec3(0.5f), -1.0f)), InputError);
    CHECK_THAT(inputErrorOf([&] { scene.addMaterial(Material::glossy(glm::vec3(0.7f), glm::vec3(0.5f), 10.0f)); }),
               Contains("diffuse + specular") && Contains("[0, 1]"));
    CHECK_NOTHROW(scene.addMaterial(Material::glossy(glm::vec3(0.5f), glm::vec3(0.5f), 10.0f)));
    CHECK(scene.materials().size() == 2);
}

TEST_CASE("every material type refuses reflectances above 1 with the same message", "[scene][hardening]") {
    // Lambertian albedo 1.5 or 1e30 and mirror tint 2 were accepted; glossy above 1 was refused.
    Scene scene;
    const std::string rule = "must have components in [0, 1]";
    CHECK_THAT(inputErrorOf([&] { scene.addMaterial(Material::lambertian(glm::vec3(1.5f, 0.5f, 0.5f))); }),
               Contains("lambertian material 0: albedo (1.5, 0.5, 0.5) " + rule));
    CHECK_THAT(inputErrorOf([&] { scene.addMaterial(Material::lambertian(glm::vec3(1e30f))); }), Contains("albedo"));
    CHECK_THAT(inputErrorOf([&] { scene.addMaterial(Material::lambertian(glm::vec3(INFINITY))); }), Contains("finite"));
    CHECK_THAT(inputErrorOf([&] { scene.addMaterial(Material::mirror(glm::vec3(2.0f))); }),
               Contains("mirror material 0: tint (2, 2, 2) " + rule));
    CHECK_THAT(inputErrorOf([&] { scene.addMaterial(Material::glossy(glm::vec3(0.5f), glm::vec3(0.6f), 8.0f)); }),
               Contains("glossy material 0: diffuse + specular") && Contains(rule));
    CHECK_THAT(inputErrorOf([&] { scene.addMaterial(Material::conductor(glm::vec3(1.2f), 0.1f)); }),
               Contains("conductor material 0: tint") && Contains(rule));
    CHECK_THAT(inputErrorOf([&] { scene.addMaterial(Material::metallicRoughness(glm::vec3(3.0f), 0.5f, 0.5f)); }),
               Contains("metallic-roughness material 0: base colour") && Contains(rule));
    CHECK(scene.materials().empty());
    // 1 itself is allowed (the white furnace); emission is not a reflectance.
    CHECK_NOTHROW(scene.addMaterial(Material::lambertian(glm::vec3(1.0f), glm::vec3(1e30f))));
    CHECK_NOTHROW(scene.addMaterial(Material::mirror(glm::vec3(1.0f))));
}

TEST_CASE("validate requires geometry, an emitter and a sound camera", "[scene]") {
    SECTION("empty scene") {
        Scene scene;
        CHECK_THAT(inputErrorOf([&] { scene.validate(); }), Contains("no primitives"));
    }
    SECTION("no emitter") {
        Scene scene;
        int white = scene.addMaterial(Material::lambertian(glm::vec3(0.5f)));
        // An emissive material that no primitive uses does not count.
        scene.addMaterial(Material::lambertian(glm::vec3(0.5f), glm::vec3(1.0f)));
        scene.addMesh(triangle(white));
        CHECK_THAT(inputErrorOf([&] { scene.validate(); }), Contains("no emitter"));
    }
    SECTION("camera position equals target") {
        Scene scene = litScene();
        Camera camera;
        camera.position = camera.target = glm::vec3(1.0f);
        scene.setCamera(camera);
        CHECK_THAT(inputErrorOf([&] { scene.validate(); }), Contains("camera"));
    }
    SECTION("field of view out of range") {
        Scene scene = litScene();
        Camera camera;
        camera.verticalFovDegrees = 180.0f;
        scene.setCamera(camera);
        CHECK_THAT(inputErrorOf([&] { scene.validate(); }), Contains("field of view"));
        camera.verticalFovDegrees = 0.0f;
        scene.setCamera(camera);
        CHECK_THROWS_AS(scene.validate(), InputError);
    }
    SECTION("a lit scene with the default camera passes") {
        Scene scene = litScene();
        CHECK_NOTHROW(scene.validate());
    }
}

TEST_CASE("degenerate triangles are counted and kept for edits", "[scene]") {
    Scene scene = litScene();
    int white = scene.addMaterial(Material::lambertian(glm::vec3(0.5f)));
    TriangleMesh mesh;
    mesh.positions = {{0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {2, 0, 1}, {0, 0, 1}};
    mesh.indices = {0, 1, 2,   // fine
                    0, 1, 3,   // collinear
                    0, 4, 2,   // two corners at the same place
                    2, 1, 0};  // fine, back facing
    mesh.material = white;
    scene.addMesh(mesh);
    REQUIRE(scene.triangles().size() == 5);

    // Kept (never hit), so that setMeshPositions can give them area (issue 58).
    REQUIRE_NOTHROW(scene.validate());
    CHECK(scene.triangles().size() == 5);
    CHECK(scene.triangleMaterials().size() == 5);
    CHECK(scene.triangleHasNormals().size() == 5);
    CHECK(scene.skippedDegenerateTriangles() == 2);
    CHECK(scene.triangleMaterials()[3] == white);

    REQUIRE_NOTHROW(scene.validate());  // a second call changes nothing
    CHECK(scene.triangles().size() == 5);
    CHECK(scene.skippedDegenerateTriangles() == 2);
}

TEST_CASE("a scene of only degenerate triangles fails validation", "[scene]") {
    Scene scene;
    int light = scene.addMaterial(Material::lambertian(glm::vec3(0.5f), glm::vec3(1.0f)));
    TriangleMesh mesh = triangle(light);
    mesh.positions[2] = glm::vec3(2, 0, 0);
    scene.addMesh(mesh);
    CHECK_THAT(inputErrorOf([&] { scene.validate(); }), Contains("no primitives") && Contains("degenerate"));
}

TEST_CASE("vertex normals stay aligned with positions across meshes", "[scene]") {
    Scene scene = litScene();  // no normals
    TriangleMesh smooth = triangle(0);
    smooth.normals = {{0, 0, 2}, {0, 0, 1}, {0, 0, 1}};
    scene.addMesh(smooth);
    scene.addMesh(triangle(0));  // no normals again
    REQUIRE(scene.normals().size() == scene.positions().size());
    CHECK(scene.positions().size() == 9);
    CHECK(scene.triangleHasNormals() == std::vector<std::uint8_t>{0, 1, 0});
    CHECK(scene.normals()[3] == glm::vec3(0, 0, 1));  // normalised
    CHECK(scene.normals()[0] == glm::vec3(0.0f));
    CHECK(scene.triangles()[1] == glm::uvec3(3, 4, 5));

    // A zero normal makes that triangle fall back to its geometric normal.
    TriangleMesh bad = triangle(0);
    bad.normals = {{0, 0, 1}, {0, 0, 0}, {0, 0, 1}};
    scene.addMesh(bad);
    CHECK(scene.triangleHasNormals().back() == 0);
}

namespace {

RenderOptions smallCpuRender(int size, int spp) {
    RenderOptions o;
    o.backend = Backend::Cpu;
    o.width = size;
    o.height = size;
    o.samplesPerPixel = spp;
    return o;
}

Image renderImage(const Scene& scene, const RenderOptions& options) {
    Renderer r(scene, options);
    r.render();
    return r.image();
}

}  // namespace

TEST_CASE("door-ajar hides its light from the camera: depth 1 is black, full paths are not", "[scene]") {
    Scene scene = Scene::builtin("door-ajar");
    RenderOptions direct = smallCpuRender(64, 4);
    direct.maxDepth = 1;  // camera ray only: nothing but directly visible emission
    Image seen = renderImage(scene, direct);
    REQUIRE(wftest::allFinite(seen));
    CHECK(wftest::imageMean(seen) == 0.0);

    Image lit = renderImage(scene, smallCpuRender(32, 16));
    REQUIRE(wftest::allFinite(lit));
    CHECK(wftest::imageMean(lit) > 0.0);
}

TEST_CASE("glass-caustic renders with a finite non-zero mean", "[scene]") {
    Image img = renderImage(Scene::builtin("glass-caustic"), smallCpuRender(32, 16));
    REQUIRE(wftest::allFinite(img));
    CHECK(wftest::imageMean(img) > 0.0);
}

TEST_CASE("coordinates beyond kMaxCoordinate are refused with a message about them", "[scene][hardening]") {
    // Vertices at 1e19 reported "camera position, target and up must be finite"; at 1e15 the edge
    // cross products overflowed and the scene rendered black.
    Scene scene;
    scene.addMaterial(Material::lambertian(glm::vec3(0.5f), glm::vec3(1.0f)));
    TriangleMesh mesh;
    mesh.positions = {{0, 0, 0}, {1e15f, 0, 0}, {0, 1, 0}};
    mesh.indices = {0, 1, 2};
    CHECK_THAT(inputErrorOf([&] { scene.addMesh(mesh); }), Contains("vertex 1") && Contains("coordinate range"));
    mesh.positions[1] = {Scene::kMaxCoordinate, 0, 0};
    CHECK_NOTHROW(scene.addMesh(mesh));
    CHECK_THAT(inputErrorOf([&] { scene.addSphere(Sphere{glm::vec3(0, 0, 2e8f), 1.0f, 0}); }), Contains("coordinate range"));
    CHECK_THAT(inputErrorOf([&] { scene.addSphere(Sphere{glm::vec3(0.0f), 1e30f, 0}); }), Contains("radius"));
}

TEST_CASE("a camera whose vectors overflow float is refused", "[scene][hardening]") {
    // An up vector of (0, 3e38, 3e38) made the camera basis NaN and the image black (issue 18).
    Scene scene = Scene::builtin("cornell-box");
    Camera camera = scene.camera();
    camera.up = glm::vec3(0.0f, 3e38f, 3e38f);
    scene.setCamera(camera);
    CHECK_THAT(inputErrorOf([&] { scene.validate(); }), Contains("camera") && Contains("overflow"));
}

TEST_CASE("a validated scene refuses a camera validate() would refuse and keeps its own", "[scene]") {
    Scene scene = Scene::builtin("cornell-box");
    scene.validate();
    const Camera before = scene.camera();
    Camera bad = before;
    bad.target = bad.position;  // no view direction
    CHECK_THROWS_AS(scene.setCamera(bad), InputError);
    CHECK(scene.camera().position == before.position);
    CHECK(scene.camera().target == before.target);
    Camera good = before;
    good.verticalFovDegrees = 50.0f;
    scene.setCamera(good);
    CHECK(scene.camera().verticalFovDegrees == 50.0f);
}
