// Issue 58, the API part: calls a host program can make against the public headers that crashed,
// overflowed or kept memory without bound are refused with one InputError or made to work.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "test_support.h"

using namespace wavefront;

TEST_CASE("filterImage and writeImageWithAovs refuse pixel buffers shorter than the image", "[hardening][film]") {
    Image shortBuffer(64, 48);
    shortBuffer.rgb.resize(shortBuffer.rgb.size() / 2);  // was read past its end (4096 x 4096: SIGSEGV)
    for (PixelFilter f : {PixelFilter::Box, PixelFilter::Gaussian, PixelFilter::Mitchell}) {
        INFO(toString(f));
        CHECK_THAT(wftest::inputErrorOf([&] { filterImage(shortBuffer, f); }), Catch::Contains("pixel buffer holds"));
    }
    Image negative;
    negative.width = -3;
    negative.height = 2;
    CHECK_THAT(wftest::inputErrorOf([&] { filterImage(negative, PixelFilter::Gaussian); }), Catch::Contains("negative"));
    CHECK(filterImage(Image(), PixelFilter::Gaussian).rgb.empty());  // an empty image stays empty

    wftest::TempDir dir;
    Image colour(64, 48);
    AovImages aovs;
    aovs.albedo = Image(64, 48);
    aovs.depth = shortBuffer;  // as large as the image by its fields, not by its buffer
    CHECK_THAT(wftest::inputErrorOf([&] { writeImageWithAovs(dir.file("a.exr"), colour, aovs); }),
               Catch::Contains("depth layer") && Catch::Contains("pixel buffer holds"));
    aovs.depth = Image(64, 48);
    aovs.depth.rgb.resize(aovs.depth.rgb.size() + 3);  // a longer one is refused too
    CHECK_THAT(wftest::inputErrorOf([&] { writeImageWithAovs(dir.file("a.exr"), colour, aovs); }),
               Catch::Contains("pixel buffer holds"));
    aovs.depth = Image(64, 48);
    CHECK(writeImageWithAovs(dir.file("a.exr"), colour, aovs) == 0u);
}

TEST_CASE("a BDPT strategy whose path length overflows int is refused by validate", "[hardening][bdpt]") {
    RenderOptions o = wftest::smallRender(IntegratorType::Bdpt, Backend::Cpu, 8, 1);
    for (auto [s, t] : {std::pair{INT_MAX, 2}, std::pair{2, INT_MAX}, std::pair{INT_MAX, INT_MAX}}) {
        INFO(s << "," << t);
        o.bdpt.strategyS = s;
        o.bdpt.strategyT = t;  // INT_MAX,2 passed (s + t - 1 wrapped negative) and rendered black
        CHECK_THAT(wftest::inputErrorOf([&] { o.validate(); }), Catch::Contains("more than the max depth"));
    }
    o.bdpt.strategyS = 1;
    o.bdpt.strategyT = 2;
    o.validate();
}

TEST_CASE("edits without a render are kept as one merged entry per thing edited", "[hardening][edit]") {
    Renderer r(Scene::builtin("cornell-box"), wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 8, 1));
    r.render();
    const Camera camera = r.scene().camera();
    const Material material = r.scene().materials()[0];
    // A record per edit grew without bound: 4 M edits without a render kept 425 MB.
    std::uint64_t bytes = 0;
    for (int i = 0; i < 20000; ++i) bytes += r.setCamera(camera).bytesUploaded;
    r.setMaterial(0, material, EditMode::Accumulate);
    r.setMaterial(0, material, EditMode::Accumulate);
    r.setCamera(camera, EditMode::Accumulate);
    r.render();
    const std::vector<EditStats>& edits = r.stats().edits;
    REQUIRE(edits.size() == 2);
    CHECK(edits[0].what == "camera");
    CHECK(edits[0].count == 20001u);
    CHECK(edits[0].bytesUploaded >= bytes);
    CHECK(edits[0].filmReset);  // any reset among the merged edits
    CHECK(edits[1].what == "material 0");
    CHECK(edits[1].count == 2u);
    CHECK_FALSE(edits[1].filmReset);
    r.render();
    CHECK(r.stats().edits.empty());
}

namespace {

double largestAbsoluteDifference(const Image& a, const Image& b) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.rgb.size(); ++i) worst = std::max(worst, double(std::fabs(a.rgb[i] - b.rgb[i])));
    return worst;
}

}  // namespace

TEST_CASE("addMesh and setMeshPositions take zero and NaN normals by one rule", "[hardening][scene][edit]") {
    Scene scene = Scene::builtin("cornell-box");
    TriangleMesh mesh;
    mesh.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    mesh.normals = {{0, 0, 1}, {0, 0, 0}, {0, 0, 1}, {0, 0, 1}};  // addMesh took a zero normal...
    mesh.indices = {0, 1, 2, 2, 3, 0};
    mesh.material = 0;
    const int m = scene.addMesh(mesh);
    const std::size_t first = scene.meshes()[std::size_t(m)].firstTriangle;
    CHECK(scene.meshes()[std::size_t(m)].triangleCount == 2u);
    CHECK(scene.triangleHasNormals()[first] == 0);  // falls back to the geometric normal
    CHECK(scene.triangleHasNormals()[first + 1] == 1);
    // ... which setMeshPositions refused for the same mesh; now the same rule, both ways.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    scene.setMeshPositions(m, mesh.positions, {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {nan, 0, 1}});
    CHECK(scene.triangleHasNormals()[first] == 1);
    CHECK(scene.triangleHasNormals()[first + 1] == 0);
    CHECK(scene.normals()[scene.meshes()[std::size_t(m)].firstVertex + 3] == glm::vec3(0.0f));
    CHECK_THAT(wftest::inputErrorOf([&] { scene.setMeshPositions(m, mesh.positions, {{0, 0, 1}}); }),
               Catch::Contains("normals were given"));
}

TEST_CASE("a mesh added with zero area appears once an edit gives it area", "[hardening][scene][edit]") {
    Scene scene = Scene::builtin("cornell-box");
    glm::vec3 lo, hi;
    REQUIRE(scene.bounds(lo, hi));
    const glm::vec3 centre = 0.5f * (lo + hi), size = 0.25f * (hi - lo);
    const int red = scene.addMaterial(Material::lambertian(glm::vec3(0.9f, 0.1f, 0.1f)));
    // A tetrahedron scaled from zero: the first frame of an animation that grows it.
    const std::vector<glm::vec3> unit = {{-1, -1, -1}, {1, -1, -1}, {0, 1, -1}, {0, 0, 1}};
    TriangleMesh grown;
    grown.indices = {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3};
    grown.material = red;
    grown.positions.assign(4, centre);
    grown.normals = unit;
    const std::size_t trianglesBefore = scene.triangles().size();
    const int mesh = scene.addMesh(grown);
    Renderer r(scene, wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 16, 2));
    CHECK(r.scene().triangles().size() == trianglesBefore + 4);  // kept, not dropped for good
    r.render();
    CHECK(r.stats().skippedDegenerateTriangles == 4);
    const Image collapsed = r.image();
    CHECK(largestAbsoluteDifference(collapsed, wftest::renderImage(Scene::builtin("cornell-box"), r.options())) < 1e-4);

    std::vector<glm::vec3> positions, normals = unit;
    for (const glm::vec3& u : unit) positions.push_back(centre + u * size);
    normals[3] = glm::vec3(0.0f);  // and a zero normal in the edit, as addMesh would take it
    r.setMeshPositions(mesh, positions, normals);
    r.render();
    CHECK(largestAbsoluteDifference(r.image(), collapsed) > 1e-2);  // it shows
    CHECK(largestAbsoluteDifference(r.image(), wftest::renderImage(r.scene(), r.options())) < 1e-4);
}

TEST_CASE("a cancel made before the render thread has begun its call still stops it", "[hardening][render]") {
    Scene scene = Scene::builtin("cornell-box");
    RenderOptions o = wftest::smallRender(IntegratorType::PathTracer, Backend::Cpu, 32, 1);
    // Far longer than the test waits, but bounded: the lost cancel of before ran until here
    // (the film's sample count then says it was not cancelled).
    o.timeLimitSeconds = 30.0;
    for (int attempt = 0; attempt < 5; ++attempt) {  // was lost 5 times of 5
        INFO("attempt " << attempt);
        Renderer r(scene, o);
        std::thread worker([&] { r.render(); });
        r.cancel();  // at once: the thread has most likely not reached render() yet
        worker.join();
        CHECK(r.stats().cancelled);
    }
    // Made while no call runs, it stops the next call at its start; the call then clears it.
    Renderer r(scene, o);
    r.cancel();
    r.render();
    CHECK(r.stats().cancelled);
    o.timeLimitSeconds = 0.0;
    Renderer again(scene, o);
    again.cancel();
    again.render();
    CHECK(again.stats().cancelled);
    again.renderMore(1);
    CHECK_FALSE(again.stats().cancelled);
}
