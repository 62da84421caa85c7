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

namespace {

/// The samples handed out by a timed render when its budget is first asked (the progress
/// callback's first report), and the render's stats.
std::uint64_t firstReport(RenderOptions o, RenderStats* stats = nullptr) {
    std::uint64_t first = 0;
    o.progress = [&](std::uint64_t done, std::uint64_t, double) {
        if (first == 0) first = done;
        return true;
    };
    Renderer r(Scene::builtin("cornell-box"), o);
    r.render();
    if (stats) *stats = r.stats();
    return first;
}

}  // namespace

TEST_CASE("a timed render hands out about a pass before it first looks at the clock", "[hardening][render]") {
    // 48 x 36 at 0.033 s took 0.31 s (2.3 s on a loaded 2-core machine): a 65536-slot stream is 38
    // passes, all handed out at once, and a whole-path launch took at least 4 streams.
    const std::uint64_t pass = 48 * 36;
    struct Case {
        IntegratorType integrator;
        PtVariant pt;
        BdptVariant bdpt;
        const char* name;
    };
    for (const Case& c : {Case{IntegratorType::PathTracer, PtVariant::SptR, BdptVariant::Streaming, "pt spt-r"},
                          Case{IntegratorType::PathTracer, PtVariant::Spt, BdptVariant::Streaming, "pt spt"},
                          Case{IntegratorType::PathTracer, PtVariant::Megakernel, BdptVariant::Streaming, "pt megakernel"},
                          Case{IntegratorType::PathTracer, PtVariant::PtR, BdptVariant::Streaming, "pt pt-r"},
                          Case{IntegratorType::Bdpt, PtVariant::SptR, BdptVariant::Streaming, "bdpt streaming"},
                          Case{IntegratorType::Bdpt, PtVariant::SptR, BdptVariant::Naive, "bdpt naive"}}) {
        INFO(c.name);
        RenderOptions o = wftest::smallRender(c.integrator, Backend::Cpu, 48, 1);
        o.height = 36;
        if (c.integrator == IntegratorType::PathTracer) o.pt.variant = c.pt;
        else o.bdpt.variant = c.bdpt;
        o.streamCapacity = 65536;
        o.timeLimitSeconds = 0.033;
        RenderStats st;
        const auto start = std::chrono::steady_clock::now();
        const std::uint64_t first = firstReport(o, &st);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        CHECK(first > 0u);
        CHECK(first <= 8 * pass);  // was 65536 (38 passes) and more
        CHECK(st.samples % pass == 0u);  // still whole passes
        CHECK(seconds < 10 * 0.033 * wftest::timeScale());
    }
}

TEST_CASE("a VCM pass with a huge radius and an MLT user pool keep the time limit", "[hardening][render][vcm][mlt]") {
    // vcm --radius 1000 merges every eye vertex with every light vertex: one pass ran past any limit.
    RenderOptions v = wftest::smallRender(IntegratorType::Vcm, Backend::Cpu, 48, 1);
    v.height = 36;
    v.vcm.radius = 1000.0f;  // a pass: 0.86 s on 2 loaded CPU threads (1728 eye x 1728 light subpaths)
    v.timeLimitSeconds = 0.001;
    Renderer vcm(Scene::builtin("cornell-box"), v);
    vcm.render();
    CHECK(vcm.stats().samples > 0u);
    CHECK(vcm.stats().samples < 48u * 36u);  // the first pass cut at twice the limit
    CHECK(wftest::allFinite(vcm.image()));

    // mlt --pool N evaluated the whole pool whatever the limit (a user's pool; the policy's ended).
    RenderOptions m = wftest::smallRender(IntegratorType::Mlt, Backend::Cpu, 32, 1);
    m.mlt.poolSize = 1 << 22;  // ~40 s of BDPT samples on a CPU
    m.timeLimitSeconds = 0.05;
    const auto start = std::chrono::steady_clock::now();
    Renderer mlt(Scene::builtin("cornell-box"), m);
    mlt.render();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(mlt.stats().mlt.poolSamples < std::uint64_t(1) << 22);
    CHECK(seconds < 10 * 0.05 * wftest::timeScale());
}
