// Instancing (issue 38): objects placed by transforms render as the same geometry flattened into
// the scene (placed on the host, mirrored placements with their winding turned so the outside
// stays outside), for every integrator; memory grows with the objects, not the instances; bad
// objects and transforms are refused with one line.
#include <catch2/catch.hpp>

#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

#include "estimator_checks.h"
#include "test_support.h"

using namespace wavefront;
using namespace wftest;

namespace {

/// A unit-radius sphere tessellated from an octahedron (smooth normals: the instance's normal
/// transform is tested through them), centred at the origin.
TriangleMesh ballMesh(int material, int subdivisions) {
    TriangleMesh m;
    m.material = material;
    m.positions = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    m.indices = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
    for (int s = 0; s < subdivisions; ++s) {
        std::vector<std::uint32_t> next;
        for (std::size_t f = 0; f < m.indices.size(); f += 3) {
            std::uint32_t v[3] = {m.indices[f], m.indices[f + 1], m.indices[f + 2]}, mid[3];
            for (int k = 0; k < 3; ++k) {
                mid[k] = std::uint32_t(m.positions.size());
                m.positions.push_back(glm::normalize(m.positions[v[k]] + m.positions[v[(k + 1) % 3]]));
            }
            std::uint32_t tris[12] = {v[0], mid[0], mid[2], mid[0], v[1], mid[1], mid[2], mid[1], v[2], mid[0], mid[1], mid[2]};
            next.insert(next.end(), tris, tris + 12);
        }
        m.indices = next;
    }
    m.normals = m.positions;
    return m;
}

/// An axis-aligned box [-1, 1]^3 with flat faces, counter-clockwise seen from outside.
TriangleMesh cubeMesh(int material) {
    TriangleMesh m;
    m.material = material;
    for (int corner = 0; corner < 8; ++corner)
        m.positions.push_back(glm::vec3(corner & 1 ? 1 : -1, corner & 2 ? 1 : -1, corner & 4 ? 1 : -1));
    m.indices = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    return m;
}

/// The mesh placed by `m` as Scene::addMesh takes it: positions moved, normals by the inverse
/// transpose, the winding turned where `m` mirrors.
TriangleMesh placed(TriangleMesh mesh, const glm::mat4& m) {
    const glm::mat3 normalMatrix = glm::transpose(glm::inverse(glm::mat3(m)));
    for (glm::vec3& p : mesh.positions) p = glm::vec3(m * glm::vec4(p, 1.0f));
    for (glm::vec3& n : mesh.normals) n = glm::normalize(normalMatrix * n);
    if (glm::determinant(glm::mat3(m)) < 0.0f)
        for (std::size_t f = 0; f < mesh.indices.size(); f += 3) std::swap(mesh.indices[f + 1], mesh.indices[f + 2]);
    return mesh;
}

/// The Cornell box with a smooth diffuse ball, a glossy ball and a glass cube placed by rotations,
/// non-uniform scales and a mirror: as instances, or flattened into the scene.
Scene placedObjects(bool instanced) {
    Scene scene = Scene::builtin("cornell-box");
    const int diffuse = scene.addMaterial(Material::lambertian(glm::vec3(0.2f, 0.5f, 0.8f)));
    const int glossy = scene.addMaterial(Material::glossy(glm::vec3(0.6f, 0.4f, 0.2f), glm::vec3(0.3f), 40.0f));
    const int glass = scene.addMaterial(Material::dielectric(1.5f));
    const std::vector<TriangleMesh> ball = {ballMesh(diffuse, 3)}, shiny = {ballMesh(glossy, 2)}, cube = {cubeMesh(glass)};
    auto at = [](glm::vec3 t, float degrees, glm::vec3 axis, glm::vec3 scale) {
        return glm::scale(glm::rotate(glm::translate(glm::mat4(1.0f), t), glm::radians(degrees), axis), scale);
    };
    const std::vector<std::pair<int, glm::mat4>> placements = {
        {0, at({0.25f, 0.12f, 0.75f}, 30.0f, {0, 1, 0}, {0.1f, 0.12f, 0.08f})},
        {0, at({0.8f, 0.55f, 0.3f}, -50.0f, {1, 0, 1}, {0.08f, 0.15f, 0.08f})},
        {1, at({0.5f, 0.75f, 0.55f}, 10.0f, {0, 0, 1}, {0.09f, 0.09f, 0.09f})},
        // A mirror image (negative determinant): the glass cube's outside must stay outside.
        {2, at({0.55f, 0.2f, 0.7f}, 20.0f, {0, 1, 0}, {-0.1f, 0.08f, 0.06f})},
    };
    const std::vector<std::vector<TriangleMesh>> objects = {ball, shiny, cube};
    if (instanced) {
        for (const auto& o : objects) scene.addObject(o);
        for (const auto& [object, m] : placements) scene.addInstance(object, m);
    } else {
        for (const auto& [object, m] : placements) scene.addMesh(placed(objects[std::size_t(object)][0], m));
    }
    return scene;
}

}  // namespace

TEST_CASE("instances render as the same geometry flattened, for every integrator", "[instancing]") {
    const Scene instanced = placedObjects(true), flat = placedObjects(false);
    const struct {
        IntegratorType type;
        const char* name;
        int spp;
    } cases[] = {{IntegratorType::PathTracer, "pt", 16}, {IntegratorType::Bdpt, "bdpt", 8},
                 {IntegratorType::Mlt, "mlt", 16},       {IntegratorType::Mmlt, "mmlt", 16},
                 {IntegratorType::Vcm, "vcm", 8}};
    for (Backend backend : testBackends()) {
        for (const auto& c : cases) {
            RenderOptions o = smallRender(c.type, backend, 32, c.spp);
            if (c.type == IntegratorType::Vcm) o.vcm.radius = 0.2f;
            const SeedStats a = renderSeedStats(instanced, o, 8, 8, 11);
            const SeedStats b = renderSeedStats(flat, o, 8, 8, 9001);
            checkSameImage(std::string(c.name) + (backend == Backend::Cuda ? " cuda" : " cpu"), a, b);
        }
    }
}

TEST_CASE("an instance hit is the flattened hit: same image from the same seed", "[instancing]") {
    // Paths that meet the same surfaces draw the same numbers: the images agree closely, which a
    // wrong normal, point or material on one side would break at once.
    for (Backend backend : testBackends()) {
        RenderOptions o = smallRender(IntegratorType::PathTracer, backend, 48, 8);
        RenderStats st;
        const Image a = renderImage(placedObjects(true), o, &st), b = renderImage(placedObjects(false), o);
        CHECK(st.instances == 4);
        const double ma = imageMean(a), mb = imageMean(b);
        INFO("means " << ma << " and " << mb);
        CHECK(std::fabs(ma / mb - 1.0) < 0.01);
        std::size_t close = 0;
        for (std::size_t i = 0; i < a.rgb.size(); ++i)
            close += std::fabs(a.rgb[i] - b.rgb[i]) <= 1e-3f * std::max(1.0f, std::fabs(b.rgb[i]));
        CHECK(double(close) / double(a.rgb.size()) > 0.9);
    }
}

TEST_CASE("Scene::flattenInstances gives the image of the instances", "[instancing]") {
    Scene flat = placedObjects(true);
    const std::size_t before = flat.triangles().size();
    flat.flattenInstances();
    CHECK(flat.objects().empty());
    CHECK(flat.instances().empty());
    CHECK(flat.triangles().size() == placedObjects(false).triangles().size());
    CHECK(flat.triangles().size() > before);
    RenderOptions o = smallRender(IntegratorType::PathTracer, Backend::Cpu, 48, 8);
    const Image a = renderImage(flat, o), b = renderImage(placedObjects(false), o);
    // The same triangles placed the same way, in another order: the same image up to the paths
    // that rounding sends elsewhere.
    INFO("means " << imageMean(a) << " and " << imageMean(b));
    CHECK(std::fabs(imageMean(a) / imageMean(b) - 1.0) < 0.01);
}

TEST_CASE("10,000 instances of a mesh: memory grows with the object, not the instances", "[instancing]") {
    auto forest = [](int rows, bool instanced) {
        Scene scene;
        const int light = scene.addMaterial(Material::lambertian(glm::vec3(0.0f), glm::vec3(4.0f)));
        const int white = scene.addMaterial(Material::lambertian(glm::vec3(0.7f)));
        TriangleMesh ground;
        ground.positions = {{-60, 0, -60}, {60, 0, -60}, {60, 0, 60}, {-60, 0, 60}};
        ground.indices = {0, 2, 1, 0, 3, 2};
        ground.material = white;
        scene.addMesh(ground);
        TriangleMesh sky = ground;
        for (glm::vec3& p : sky.positions) p.y = 40.0f;
        sky.indices = {0, 1, 2, 0, 2, 3};
        sky.material = light;
        scene.addMesh(sky);
        const TriangleMesh tree = ballMesh(white, 2);  // 128 triangles
        const int object = instanced ? scene.addObject({tree}) : -1;
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < rows; ++j) {
                glm::mat4 m = glm::translate(glm::mat4(1.0f), glm::vec3(-50.0f + 100.0f * (i + 0.5f) / rows, 0.5f,
                                                                        -50.0f + 100.0f * (j + 0.5f) / rows));
                m = glm::scale(glm::rotate(m, float(i * 7 + j), glm::vec3(0, 1, 0)), glm::vec3(0.3f, 0.5f + 0.02f * (i % 5), 0.3f));
                if (instanced) scene.addInstance(object, m);
                else scene.addMesh(placed(tree, m));
            }
        Camera c;
        c.position = {0, 30, 70};
        c.target = {0, 0, 0};
        c.verticalFovDegrees = 50.0f;
        scene.setCamera(c);
        return scene;
    };
    for (Backend backend : testBackends()) {
        RenderOptions o = smallRender(IntegratorType::PathTracer, backend, 64, 2);
        RenderStats one, many;
        renderImage(forest(1, true), o, &one);
        const Image image = renderImage(forest(100, true), o, &many);
        CHECK(many.instances == 10000);
        CHECK(many.triangles == one.triangles);  // the object once
        const double perInstance = double(many.memoryBytes - one.memoryBytes) / 9999.0;
        INFO("bytes per instance " << perInstance << " (the object's triangles: " << 128 * 48 << " bytes as leaves alone)");
        CHECK(perInstance < 512.0);
        // The same trees flattened: the same image up to noise.
        RenderStats flatStats;
        const Image flat = renderImage(forest(100, false), o, &flatStats);
        CHECK(flatStats.memoryBytes > 20 * many.memoryBytes / 10);
        const double a = imageMean(image), b = imageMean(flat);
        INFO("instanced mean " << a << ", flattened " << b);
        CHECK(a > 0.0);
        CHECK(std::fabs(a / b - 1.0) < 0.02);
    }
}

TEST_CASE("bad objects and instances are refused with one line and change nothing", "[instancing]") {
    Scene scene = Scene::builtin("cornell-box");
    const int glow = scene.addMaterial(Material::lambertian(glm::vec3(0.0f), glm::vec3(1.0f)));
    const int white = 0;
    CHECK(inputErrorOf([&] { scene.addObject({ballMesh(glow, 0)}); }).find("emissive") != std::string::npos);
    TriangleMesh bad = ballMesh(white, 0);
    bad.indices[4] = 99;
    CHECK(inputErrorOf([&] { scene.addObject({bad}); }).find("object 0 mesh 0") != std::string::npos);
    TriangleMesh flatMesh;
    flatMesh.positions = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
    flatMesh.indices = {0, 1, 2};
    CHECK(inputErrorOf([&] { scene.addObject({flatMesh}); }).find("degenerate") != std::string::npos);
    CHECK(scene.objects().empty());
    const int object = scene.addObject({ballMesh(white, 0)});
    CHECK(inputErrorOf([&] { scene.addInstance(object + 1, glm::mat4(1.0f)); }).find("out of range") != std::string::npos);
    glm::mat4 m(1.0f);
    m[3][0] = std::nanf("");
    CHECK(inputErrorOf([&] { scene.addInstance(object, m); }).find("not finite") != std::string::npos);
    m = glm::mat4(1.0f);
    m[0][3] = 0.5f;
    CHECK(inputErrorOf([&] { scene.addInstance(object, m); }).find("affine") != std::string::npos);
    CHECK(inputErrorOf([&] { scene.addInstance(object, glm::scale(glm::mat4(1.0f), glm::vec3(1, 0, 1))); })
              .find("singular") != std::string::npos);
    CHECK(inputErrorOf([&] { scene.addInstance(object, glm::translate(glm::mat4(1.0f), glm::vec3(2e8f, 0, 0))); })
              .find("coordinate range") != std::string::npos);
    CHECK(scene.instances().empty());
    // An object's material may not start to emit.
    CHECK(inputErrorOf([&] { scene.setMaterial(white, Material::lambertian(glm::vec3(0.0f), glm::vec3(1.0f))); }).find("object 0") !=
          std::string::npos);
    // A scene of instances alone (and a light) renders.
    Scene only;
    only.addMaterial(Material::lambertian(glm::vec3(0.5f)));
    only.addObject({cubeMesh(0)});
    only.addInstance(0, glm::mat4(1.0f));
    only.addLight(Light::point(glm::vec3(0, 3, 3), glm::vec3(10.0f)));
    only.frameCamera();
    const Image img = renderImage(only, smallRender(IntegratorType::PathTracer, Backend::Cpu, 16, 1));
    CHECK(imageMean(img) > 0.0);
}
