// Huge radiance: no Inf or NaN reaches a film, an image or a file. Emitters of 1e38 (a tenth of
// FLT_MAX) make float sums overflow after a few samples and, with interreflection, estimates above
// FLT_MAX; the film sums in double, resolve clamps to FLT_MAX and says how often, writeImage
// replaces what is not finite and says how often, and EXR keeps 32-bit floats.
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>

#include "test_support.h"

using namespace wavefront;

namespace {

constexpr float kHuge = 1e38f;

/// The Cornell box with its light at 1e38 in every channel: pixels on the light hold up to 1e38
/// (their float sum over 16 samples would be infinite), the walls about 1e36.
Scene hugeLightBox() {
    Scene box = Scene::builtin("cornell-box");
    std::vector<Material> materials = box.materials();
    for (Material& m : materials)
        if (m.isEmissive()) m.emission = glm::vec3(kHuge);
    return wftest::transformedScene(box, 1.0f, glm::vec3(0.0f), materials);
}

/// The white furnace with every wall emitting 1e38 at albedo 0.8: the radiance everywhere is
/// 1e38 / (1 - 0.8) = 5e38, beyond FLT_MAX, while each single contribution stays finite.
Scene hugeFurnace() {
    Scene furnace = Scene::builtin("furnace");
    std::vector<Material> materials = furnace.materials();
    for (Material& m : materials) m = Material::lambertian(glm::vec3(0.8f), glm::vec3(kHuge));
    return wftest::transformedScene(furnace, 1.0f, glm::vec3(0.0f), materials);
}

RenderOptions options(IntegratorType integrator, Backend backend) {
    RenderOptions o = wftest::smallRender(integrator, backend, 16, 16);
    o.maxDepth = 64;
    if (integrator == IntegratorType::Mlt) o.streamCapacity = 256;
    return o;
}

const char* nameOf(IntegratorType t) {
    return t == IntegratorType::PathTracer ? "PT" : t == IntegratorType::Bdpt ? "BDPT" : "MLT";
}

bool allFinite(const std::vector<double>& v) {
    for (double x : v)
        if (!std::isfinite(x)) return false;
    return true;
}

float maxValue(const Image& img) {
    float m = 0.0f;
    for (float v : img.rgb) m = std::max(m, v);
    return m;
}

/// Writes `img` as PFM and EXR, reads both back: nothing replaced, nothing lost, nothing infinite.
void checkFiles(const Image& img, const wftest::TempDir& dir, const std::string& stem) {
    for (const char* ext : {".pfm", ".exr"}) {
        std::string path = dir.file(stem + ext);
        INFO(path);
        CHECK(writeImage(path, img) == 0);  // a resolved image is finite already
        Image back = readImage(path);
        CHECK(wftest::allFinite(back));
        CHECK(back.rgb == img.rgb);  // both formats are 32-bit float
    }
}

void checkHugeLight(Backend backend) {
    wftest::TempDir dir;
    Scene box = hugeLightBox();
    for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt, IntegratorType::Mlt}) {
        INFO(nameOf(integrator));
        Renderer r(box, options(integrator, backend));
        r.render();
        CHECK(allFinite(r.film().sum));
        std::uint64_t clamped = 99;
        Image img = r.film().resolve(&clamped);
        CHECK(clamped == 0);  // no estimate here exceeds FLT_MAX: nothing to clamp
        CHECK(wftest::allFinite(img));
        // The light itself is in view: its pixels keep their 1e38 (float sums reached infinity).
        CHECK(maxValue(img) > 0.1f * kHuge);
        // PT and BDPT contributions are all finite here. MLT may drop a few: its float records
        // sum a whole sample (and a deposit is the record times a weight up to 1 / p_large).
        if (integrator != IntegratorType::Mlt) CHECK(r.stats().nonFiniteSamples == 0);
        checkFiles(img, dir, std::string("box-") + nameOf(integrator));
    }
}

void checkHugeFurnace(Backend backend) {
    wftest::TempDir dir;
    Scene furnace = hugeFurnace();
    for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt, IntegratorType::Mlt}) {
        INFO(nameOf(integrator));
        Renderer r(furnace, options(integrator, backend));
        r.render();
        const RenderStats& st = r.stats();
        CHECK(allFinite(r.film().sum));
        std::uint64_t clamped = 0;
        Image img = r.film().resolve(&clamped);
        CHECK(wftest::allFinite(img));
        std::uint64_t atMax = 0;
        for (float v : img.rgb) atMax += v == FLT_MAX;
        INFO(clamped << " values clamped, " << atMax << " at FLT_MAX, " << st.nonFiniteSamples
                     << " non-finite contributions dropped");
        CHECK(atMax == clamped);
        // PT: every estimate is about 5e38, every contribution finite: all clamped, none dropped.
        // BDPT: the light subpaths start with throughput Le pi A / pmf, beyond FLT_MAX, so their
        // contributions are dropped and counted; what the eye subpaths find is still clamped.
        // MLT: a sample's float record overflows, and the sample is dropped and counted.
        if (integrator == IntegratorType::PathTracer) {
            CHECK(clamped == img.rgb.size());
            CHECK(st.nonFiniteSamples == 0);
        } else if (integrator == IntegratorType::Bdpt) {
            CHECK(clamped > 0);
            CHECK(st.nonFiniteSamples > 0);
        } else {
            CHECK(st.nonFiniteSamples > 0);
            CHECK(st.mlt.normalization < double(FLT_MAX));  // b stayed finite: no infinite I reached it
        }
        checkFiles(img, dir, std::string("furnace-") + nameOf(integrator));
    }
}

}  // namespace

TEST_CASE("an emitter of 1e38 leaves films, images and files finite", "[overflow][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    checkHugeLight(backend);
}

TEST_CASE("estimates above FLT_MAX are clamped and counted, never infinite", "[overflow][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    checkHugeFurnace(backend);
}
