// Edits of a Renderer's scene between renders (issue 38): each gives the image a fresh Renderer
// gives on the edited scene with the same seed, costs only what it names, and bad edits change
// nothing. PT and BDPT are deterministic per seed on the CPU, so images are compared to float
// rounding (threads add a pixel's deposits in another order).
#include <catch2/catch.hpp>

#include <cmath>

#include <glm/gtc/matrix_transform.hpp>
#include <limits>

#include "test_support.h"

using namespace wavefront;

namespace {

TriangleMesh quad(glm::vec3 a, glm::vec3 b, glm::vec3 c, glm::vec3 d, int material) {
    TriangleMesh m;
    m.positions = {a, b, c, d};
    m.uvs = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    m.indices = {0, 1, 2, 0, 2, 3};
    m.material = material;
    return m;
}

Texture checker(int size, std::uint8_t dark) {
    Texture t;
    t.width = t.height = size;
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) {
            std::uint8_t v = (x + y) % 2 ? 230 : dark;
            t.rgba8.insert(t.rgba8.end(), {v, v, std::uint8_t(v / 2), 255});
        }
    return t;
}

/// Where editScene's box instance stands, moved by `offset`.
glm::mat4 boxPlacement(glm::vec3 offset) {
    glm::mat4 m(0.15f);
    m[3] = glm::vec4(glm::vec3(0.0f, 0.15f, 0.8f) + offset, 1.0f);
    return m;
}

/// A textured floor (mesh 0), an emissive ceiling quad (mesh 1), a box-like tent to move (mesh
/// 2), a glossy sphere and a point light: every kind of edit has something to change.
Scene editScene(bool pointLight = true) {
    Scene s;
    int tex = s.addTexture(checker(4, 40));
    Material floor = Material::lambertian(glm::vec3(0.9f));
    floor.baseColorTexture = tex;
    int mFloor = s.addMaterial(floor);
    int mLamp = s.addMaterial(Material::lambertian(glm::vec3(0.0f), glm::vec3(6.0f)));
    int mTent = s.addMaterial(Material::lambertian(glm::vec3(0.7f, 0.3f, 0.2f)));
    int mBall = s.addMaterial(Material::glossy(glm::vec3(0.3f), glm::vec3(0.4f), 40.0f));
    s.addMesh(quad({-2, 0, -2}, {-2, 0, 2}, {2, 0, 2}, {2, 0, -2}, mFloor));
    s.addMesh(quad({-0.5f, 2, -0.5f}, {0.5f, 2, -0.5f}, {0.5f, 2, 0.5f}, {-0.5f, 2, 0.5f}, mLamp));
    TriangleMesh tent;
    tent.positions = {{-0.8f, 0, 0.2f}, {-0.2f, 0, 0.2f}, {-0.5f, 0.7f, 0.0f}, {-0.5f, 0, -0.4f}};
    tent.indices = {0, 1, 2, 1, 3, 2, 3, 0, 2};
    tent.material = mTent;
    s.addMesh(tent);
    s.addSphere(Sphere{glm::vec3(0.6f, 0.35f, 0.0f), 0.35f, mBall});
    // A small box placed by an instance (instance 0), to move.
    TriangleMesh box;
    for (int corner = 0; corner < 8; ++corner)
        box.positions.push_back(glm::vec3(corner & 1 ? 1 : -1, corner & 2 ? 1 : -1, corner & 4 ? 1 : -1));
    box.indices = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    box.material = mTent;
    s.addInstance(s.addObject({box}), boxPlacement(glm::vec3(0.0f)));
    if (pointLight) s.addLight(Light::point(glm::vec3(1.2f, 1.5f, 1.0f), glm::vec3(1.5f)));
    Camera c;
    c.position = glm::vec3(0.0f, 1.2f, 3.5f);
    c.target = glm::vec3(0.0f, 0.4f, 0.0f);
    c.verticalFovDegrees = 45.0f;
    s.setCamera(c);
    return s;
}

RenderOptions editOptions(IntegratorType integrator) {
    RenderOptions o = wftest::smallRender(integrator, Backend::Cpu, 20, 2);
    o.cpuThreads = 2;
    o.seed = 7;
    return o;
}

double largestDifference(const Image& a, const Image& b) {
    double worst = 0.0, scale = std::max(wftest::imageMean(b), 1e-6);
    for (std::size_t i = 0; i < a.rgb.size(); ++i) worst = std::max(worst, std::fabs(double(a.rgb[i]) - b.rgb[i]) / scale);
    return worst;
}

/// Renders, edits, renders again; the image must equal a fresh Renderer's on r.scene() and
/// differ from the image before the edit.
template <class Edit>
EditStats checkEdit(IntegratorType integrator, Edit edit) {
    Renderer r(editScene(), editOptions(integrator));
    r.render();
    const Image before = r.image();
    EditStats st = edit(r);
    r.render();
    const Image after = r.image();
    CHECK(largestDifference(after, before) > 1e-3);  // the edit shows
    CHECK(largestDifference(after, wftest::renderImage(r.scene(), r.options())) < 1e-4);
    REQUIRE(r.stats().edits.size() == 1);
    CHECK(r.stats().edits[0].what == st.what);
    return st;
}

std::vector<glm::vec3> tentPositions(const Scene& s, glm::vec3 offset, float lean = 0.0f) {
    const MeshRange& m = s.meshes()[2];
    std::vector<glm::vec3> p(s.positions().begin() + m.firstVertex, s.positions().begin() + m.firstVertex + m.vertexCount);
    for (glm::vec3& v : p) v += offset + glm::vec3(lean * v.y, 0.0f, 0.0f);
    return p;
}

}  // namespace

TEST_CASE("each edit gives the image of a fresh Renderer on the edited scene", "[edits]") {
    for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt}) {
        INFO(toString(integrator));
        SECTION(std::string("camera ") + toString(integrator)) {
            EditStats st = checkEdit(integrator, [](Renderer& r) {
                Camera c = r.scene().camera();
                c.position += glm::vec3(0.7f, 0.3f, -0.5f);
                return r.setCamera(c);
            });
            // A camera edit uploads nothing and touches neither the BVH nor the lights.
            CHECK(st.what == "camera");
            CHECK(st.bytesUploaded == 0u);
            CHECK(st.bvh == "none");
            CHECK_FALSE(st.lightsRebuilt);
        }
        SECTION(std::string("material ") + toString(integrator)) {
            EditStats st = checkEdit(integrator, [](Renderer& r) {
                return r.setMaterial(2, Material::conductor(glm::vec3(0.9f, 0.8f, 0.3f), 0.2f));
            });
            CHECK(st.bytesUploaded > 0u);
            CHECK(st.bytesUploaded < 256u);  // one material, not the scene
            CHECK_FALSE(st.lightsRebuilt);
        }
        SECTION(std::string("emission ") + toString(integrator)) {
            EditStats st = checkEdit(integrator, [](Renderer& r) {
                return r.setMaterial(1, Material::lambertian(glm::vec3(0.0f), glm::vec3(2.0f, 6.0f, 9.0f)));
            });
            CHECK(st.lightsRebuilt);
        }
        SECTION(std::string("texture in place ") + toString(integrator)) {
            EditStats st = checkEdit(integrator, [](Renderer& r) { return r.setTexture(0, checker(4, 200)); });
            CHECK(st.bytesUploaded < 4 * 4 * 4 + 128u);
        }
        SECTION(std::string("texture of another size ") + toString(integrator)) {
            checkEdit(integrator, [](Renderer& r) { return r.setTexture(0, checker(8, 0)); });
        }
        SECTION(std::string("light ") + toString(integrator)) {
            EditStats st = checkEdit(integrator, [](Renderer& r) {
                return r.setLight(0, Light::spot(glm::vec3(-1, 1.8f, 1), glm::vec3(0.5f, -1, -0.5f), glm::vec3(8.0f), 10, 30));
            });
            CHECK(st.lightsRebuilt);
        }
        SECTION(std::string("environment ") + toString(integrator)) {
            checkEdit(integrator, [](Renderer& r) { return r.setEnvironment(skyEnvironment("gradient"), 0.5f); });
            checkEdit(integrator, [](Renderer& r) { return r.setSkyGradient(SkyGradient{}); });
        }
        SECTION(std::string("mesh positions, refit ") + toString(integrator)) {
            EditStats st = checkEdit(integrator, [](Renderer& r) {
                return r.setMeshPositions(2, tentPositions(r.scene(), glm::vec3(0.3f, 0.0f, 0.4f)), {},
                                          EditMode::ResetFilm, BvhUpdate::Refit);
            });
            CHECK(st.bvh == "refit");
            CHECK(st.bvhCostRatio == 0.0);  // a plain refit measures no cost (Auto does)
            CHECK(st.bytesUploaded == 4 * sizeof(glm::vec3));
        }
        SECTION(std::string("mesh positions, rebuild ") + toString(integrator)) {
            EditStats st = checkEdit(integrator, [](Renderer& r) {
                return r.setMeshPositions(2, tentPositions(r.scene(), glm::vec3(0.0f), 0.6f), {}, EditMode::ResetFilm,
                                          BvhUpdate::Rebuild);
            });
            CHECK(st.bvh == "rebuild");
        }
        SECTION(std::string("instance transform, rebuild ") + toString(integrator)) {
            EditStats st = checkEdit(integrator, [](Renderer& r) {
                return r.setInstanceTransform(0, boxPlacement(glm::vec3(-0.6f, 0.1f, -0.3f)));
            });
            CHECK(st.what == "instance 0");
            CHECK(st.bvh == "rebuild");
            CHECK(st.bytesUploaded < 256u);  // one instance's transforms and box
            CHECK_FALSE(st.lightsRebuilt);
        }
        SECTION(std::string("instance transform, refit ") + toString(integrator)) {
            EditStats st = checkEdit(integrator, [](Renderer& r) {
                return r.setInstanceTransform(0, boxPlacement(glm::vec3(0.3f, 0.0f, -0.2f)), EditMode::ResetFilm,
                                              BvhUpdate::Refit);
            });
            CHECK(st.bvh == "refit");
        }
        SECTION(std::string("emitter positions ") + toString(integrator)) {
            EditStats st = checkEdit(integrator, [](Renderer& r) {
                const MeshRange& m = r.scene().meshes()[1];
                std::vector<glm::vec3> p(r.scene().positions().begin() + m.firstVertex,
                                         r.scene().positions().begin() + m.firstVertex + m.vertexCount);
                for (glm::vec3& v : p) v = v * glm::vec3(2.0f, 1.0f, 1.5f) + glm::vec3(0.3f, -0.2f, 0.0f);
                return r.setMeshPositions(1, p);
            });
            CHECK(st.lightsRebuilt);  // its area changed: so did its weight
        }
    }
}

TEST_CASE("BvhUpdate::Auto rebuilds once a refit tree costs too much more", "[edits]") {
    // Many small triangles scattered far from where the tree was built: the refit boxes overlap.
    Scene s;
    int m = s.addMaterial(Material::lambertian(glm::vec3(0.5f), glm::vec3(1.0f)));
    TriangleMesh grid;
    const int n = 40;
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            std::uint32_t base = std::uint32_t(grid.positions.size());
            glm::vec3 p(x * 0.1f, y * 0.1f, 0.0f);
            grid.positions.insert(grid.positions.end(), {p, p + glm::vec3(0.05f, 0, 0), p + glm::vec3(0, 0.05f, 0)});
            grid.indices.insert(grid.indices.end(), {base, base + 1, base + 2});
        }
    grid.material = m;
    s.addMesh(grid);
    Renderer r(s, editOptions(IntegratorType::PathTracer));
    // A small move keeps the refit.
    std::vector<glm::vec3> p = grid.positions;
    for (glm::vec3& v : p) v.z += 0.01f;
    EditStats small = r.setMeshPositions(0, p);
    CHECK(small.bvh == "refit");
    CHECK(small.bvhCostRatio < kRefitCostLimit);
    // Mirroring every other row's triangles across the grid scatters Morton neighbours apart.
    for (std::size_t t = 0; t < p.size() / 3; ++t) {
        float shift = (t / n) % 2 ? 0.0f : 3.0f * float(t % n) / n;
        for (int k = 0; k < 3; ++k) p[3 * t + k].x = 4.0f - p[3 * t + k].x + shift;
    }
    EditStats big = r.setMeshPositions(0, p);
    CHECK(big.bvhCostRatio > kRefitCostLimit);
    CHECK(big.bvh == "refit, rebuild");
    r.render();
    CHECK(largestDifference(r.image(), wftest::renderImage(r.scene(), r.options())) < 1e-4);
}

TEST_CASE("bad edits are refused with one line and change nothing", "[edits]") {
    Renderer r(editScene(), editOptions(IntegratorType::PathTracer));
    r.render();
    const Image before = r.image();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    Material badMaterial = Material::lambertian(glm::vec3(nan, 0.5f, 0.5f));
    CHECK_THAT(wftest::inputErrorOf([&] { r.setMaterial(9, Material{}); }), Catch::Contains("material 9 is out of range"));
    CHECK_THAT(wftest::inputErrorOf([&] { r.setMaterial(2, badMaterial); }), Catch::Contains("diffuse colour"));
    Renderer lampOnly(editScene(false), editOptions(IntegratorType::PathTracer));
    CHECK_THAT(wftest::inputErrorOf([&] { lampOnly.setMaterial(1, Material::lambertian(glm::vec3(0.5f))); }),
               Catch::Contains("no emitter"));
    CHECK(lampOnly.scene().materials()[1].isEmissive());
    CHECK_THAT(wftest::inputErrorOf([&] {
                   Material m = Material::lambertian(glm::vec3(0.5f));
                   m.baseColorTexture = 3;
                   r.setMaterial(0, m);
               }),
               Catch::Contains("texture 3 is out of range"));
    Texture wrongSize = checker(4, 10);
    wrongSize.rgba8.pop_back();
    CHECK_THAT(wftest::inputErrorOf([&] { r.setTexture(0, wrongSize); }), Catch::Contains("bytes for"));
    Texture hdr;
    hdr.width = hdr.height = 1;
    hdr.rgbaFloat = {4.0f, 4.0f, 4.0f, 1.0f};  // HDR texels as a base colour
    CHECK_THAT(wftest::inputErrorOf([&] { r.setTexture(0, hdr); }), Catch::Contains("only emission may be HDR"));
    CHECK_THAT(wftest::inputErrorOf([&] { r.setLight(1, Light::point(glm::vec3(0), glm::vec3(1))); }),
               Catch::Contains("light 1 is out of range"));
    CHECK_THAT(wftest::inputErrorOf([&] { r.setLight(0, Light::point(glm::vec3(0, nan, 0), glm::vec3(1))); }),
               Catch::Contains("position"));
    Camera badCamera = r.scene().camera();
    badCamera.target = badCamera.position;
    CHECK_THAT(wftest::inputErrorOf([&] { r.setCamera(badCamera); }), Catch::Contains("coincide"));
    Image badEnv(2, 1);
    badEnv.rgb[1] = nan;
    CHECK_THAT(wftest::inputErrorOf([&] { r.setEnvironment(badEnv); }), Catch::Contains("non-finite"));
    std::vector<glm::vec3> p = tentPositions(r.scene(), glm::vec3(0.2f));
    std::vector<glm::vec3> shorter(p.begin(), p.end() - 1);
    CHECK_THAT(wftest::inputErrorOf([&] { r.setMeshPositions(2, shorter); }), Catch::Contains("keeps the topology"));
    std::vector<glm::vec3> withNan = p;
    withNan[1].y = nan;
    CHECK_THAT(wftest::inputErrorOf([&] { r.setMeshPositions(2, withNan); }), Catch::Contains("vertex 1"));
    CHECK_THAT(wftest::inputErrorOf([&] { r.setMeshPositions(2, p, p); }), Catch::Contains("without normals"));
    CHECK_THAT(wftest::inputErrorOf([&] { r.setMeshPositions(5, p); }), Catch::Contains("mesh 5 is out of range"));
    CHECK_THAT(wftest::inputErrorOf([&] { r.setInstanceTransform(0, glm::mat4(0.0f)); }), Catch::Contains("not affine"));
    CHECK_THAT(wftest::inputErrorOf([&] { r.setInstanceTransform(0, glm::scale(glm::mat4(1.0f), glm::vec3(1, 0, 1))); }),
               Catch::Contains("singular"));
    CHECK_THAT(wftest::inputErrorOf([&] { r.setInstanceTransform(1, glm::mat4(1.0f)); }),
               Catch::Contains("instance 1 is out of range"));
    CHECK_THAT(wftest::inputErrorOf([&] { r.setCamera(r.scene().camera(), EditMode(7)); }), Catch::Contains("EditMode"));
    // Nothing was applied: renderMore still adds to the film (no edit reset it), and a render
    // gives the image it gave.
    r.renderMore(1);
    CHECK(r.stats().samples == 20u * 20u * 3u);
    CHECK(r.stats().edits.empty());
    r.render();
    CHECK(largestDifference(r.image(), before) < 1e-5);
}

TEST_CASE("an edit during a render throws Error and leaves the render alone", "[edits]") {
    RenderOptions o = editOptions(IntegratorType::PathTracer);
    std::string message;
    Renderer* self = nullptr;
    o.progress = [&](std::uint64_t, std::uint64_t, double) {
        try {
            Camera c = self->scene().camera();
            c.position.x += 1.0f;
            self->setCamera(c);
        } catch (const Error& e) {
            message = e.what();
        }
    };
    Renderer r(editScene(), o);
    self = &r;
    r.render();
    CHECK_THAT(message, Catch::Contains("already rendering"));
    CHECK(r.scene().camera().position == editScene().camera().position);
    CHECK(largestDifference(r.image(), wftest::renderImage(editScene(), editOptions(IntegratorType::PathTracer))) < 1e-4);
}

TEST_CASE("EditMode::Accumulate keeps the film, ResetFilm starts a fresh one", "[edits]") {
    Renderer r(editScene(), editOptions(IntegratorType::PathTracer));
    r.render();
    Camera c = r.scene().camera();
    c.position.x += 0.2f;
    EditStats st = r.setCamera(c, EditMode::Accumulate);
    CHECK_FALSE(st.filmReset);
    r.renderMore(2);
    CHECK(r.stats().samples == 20u * 20u * 4u);
    c.position.x += 0.2f;
    r.setCamera(c);
    r.renderMore(2);
    CHECK(r.stats().samples == 20u * 20u * 2u);
}
