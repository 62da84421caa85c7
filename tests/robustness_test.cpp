// Ray/primitive robustness: the image must not depend on the unit of length or on where the scene
// sits, so the Cornell box scaled from 1e-4 to 1e6 and moved away from the origin renders the
// same as at scale 1 (PT, BDPT, MLT).
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <random>
#include <vector>

#include "host/backends/cpu/thread_pool.h"
#include "kernels/pt/path_tracer.h"
#include "test_support.h"

using namespace wavefront;

namespace {

struct Placement {
    float scale;
    glm::vec3 offset;
    const char* name;
};

const Placement kPlacements[] = {
    {1.0f, glm::vec3(0.0f), "scale 1 (rebuilt copy)"},
    {1e-4f, glm::vec3(0.0f), "scale 1e-4"},
    {1e-2f, glm::vec3(0.0f), "scale 1e-2"},
    {1e3f, glm::vec3(0.0f), "scale 1e3"},
    {1e6f, glm::vec3(0.0f), "scale 1e6"},
    {1e-2f, glm::vec3(10.0f, 0.0f, 0.0f), "scale 1e-2 at x = +10"},
    {1.0f, glm::vec3(1000.0f, 0.0f, 0.0f), "scale 1 at x = +1000"},
};

const char* nameOf(IntegratorType t) {
    return t == IntegratorType::PathTracer ? "PT" : t == IntegratorType::Bdpt ? "BDPT" : "MLT";
}

/// Renders the Cornell box at scale 1 (2 x `seeds` renders, so that the one reference adds little
/// noise to every comparison) and at each placement (`seeds` renders; independent seeds on every
/// side), then compares the image means (z-score of their difference, with the variance taken
/// from the renders' image means) and the 8 x 8 block means (largest z-score over blocks and
/// channels). The mean's bound is tight: 4.5 standard errors stay below `maxRelativeBand`.
void checkPlacements(const RenderOptions& o, int seeds, const std::vector<Placement>& placements, double maxRelativeBand) {
    Scene box = Scene::builtin("cornell-box");
    wftest::BlockStats ref = wftest::renderBlockStats(box, o, 2 * seeds, 8, 100);
    double refMean = wftest::imageMeanAndVariance(ref).first;
    unsigned seedBase = 1000;
    for (const Placement& p : placements) {
        wftest::BlockStats other = wftest::renderBlockStats(wftest::transformedScene(box, p.scale, p.offset), o, seeds, 8,
                                                           seedBase += 100);
        auto [mean, variance] = wftest::imageMeanAndVariance(other);
        double relative = mean / refMean - 1.0;
        double se = std::sqrt(wftest::imageMeanAndVariance(ref).second + variance) / refMean;
        double z = wftest::imageMeanZScore(ref, other), blockZ = wftest::maxZScore(ref, other);
        INFO(nameOf(o.integrator) << ", " << p.name << ": image mean " << mean << " vs " << refMean << " at scale 1 ("
                                  << 100.0 * relative << "% +- " << 100.0 * se << "%), z " << z << ", block z " << blockZ);
        CHECK(z < 4.5);
        CHECK(blockZ < 6.0);
        CHECK(4.5 * se < maxRelativeBand);  // the bound is tight: the means agree to within this
    }
}

const std::vector<Placement> kAll(std::begin(kPlacements), std::end(kPlacements));

}  // namespace

// On the code before the scale-invariant offsets (absolute offsets near the origin, PT's shadow ray
// aimed from the un-offset point) these failed: PT at scale 1e-2 (image mean -12.4%, z 15, block
// z 121), 1e-2 at x = +10 (-13.5%) and 1e-4 (-18.6%, block z 273); BDPT at 1e-4 (+4.9%, z 5.1,
// block z 34); MLT at 1e-4 (+5.4%, block z 7.6).
// The GPU affords 64 x 64 pixels (and for BDPT twice the samples), so its bound on the image means
// is tighter.
TEST_CASE("PT renders the Cornell box the same at every scale and position", "[robustness][pt][statistical][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    bool cpu = backend == Backend::Cpu;
    checkPlacements(wftest::smallRender(IntegratorType::PathTracer, backend, cpu ? 32 : 64, 16), 16, kAll, cpu ? 0.07 : 0.05);
}

TEST_CASE("BDPT renders the Cornell box the same at every scale and position", "[robustness][bdpt][statistical][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    bool cpu = backend == Backend::Cpu;
    checkPlacements(wftest::smallRender(IntegratorType::Bdpt, backend, cpu ? 32 : 64, cpu ? 8 : 16), 16, kAll,
                    cpu ? 0.07 : 0.05);
}

TEST_CASE("MLT renders the Cornell box the same at a small and a large scale", "[robustness][mlt][statistical][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    bool cpu = backend == Backend::Cpu;
    // 128 mutations per pixel on the CPU: at 64 the image mean's standard error was 2.6%, above
    // the 10% band's 4.5 standard errors (relative importance and the pool policy came after the
    // bound was set, while ctest did not run this case).
    RenderOptions o = wftest::smallRender(IntegratorType::Mlt, backend, cpu ? 16 : 64, cpu ? 128 : 64);
    o.streamCapacity = cpu ? 256 : 4096;  // chains
    checkPlacements(o, 8, {kPlacements[1], kPlacements[4]}, 0.1);  // scales 1e-4 and 1e6
}

// Not part of the suite (hidden tag): the image means quoted in docs and commit messages, one
// seed for every row (so rows differ by bias, not noise), 64 x 64 pixels, 64 spp, CPU:
//   ./build/tests/wavefront_tests "[.scale-table]"
TEST_CASE("table of Cornell box image means by scale", "[.scale-table]") {
    Scene box = Scene::builtin("cornell-box");
    struct Row {
        const char* box;
        float scale;
        float x;  ///< where the box's centre moves along x (the 2-unit box) or its corner (the unit box)
    };
    // The built-in box spans [0, s]^3; the "2-unit" box is it scaled to [-s, s]^3 (centred).
    const Row rows[] = {{"unit", 1e-5f, 0}, {"unit", 1e-4f, 0}, {"unit", 1e-3f, 0},     {"unit", 1e-2f, 0},
                        {"unit", 1.0f, 0},  {"unit", 1e3f, 0},  {"unit", 1e6f, 0},      {"unit", 1e-2f, 10},
                        {"unit", 1.0f, 1000}, {"2-unit", 1.0f, 0}, {"2-unit", 1e-2f, 0}, {"2-unit", 1e-3f, 0},
                        {"2-unit", 1e-4f, 0}, {"2-unit", 1e-5f, 0}, {"2-unit", 1e-2f, 10}};
    for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt}) {
        RenderOptions o = wftest::smallRender(integrator, Backend::Cpu, 64, 64);
        for (const Row& r : rows) {
            bool centred = r.box[0] == '2';
            Scene s = centred ? wftest::transformedScene(box, 2.0f * r.scale, glm::vec3(r.x - r.scale, -r.scale, -r.scale))
                              : wftest::transformedScene(box, r.scale, glm::vec3(r.x, 0.0f, 0.0f));
            std::printf("%-4s %-6s box, scale %-6g at x = %-4g: mean %.4f\n", nameOf(integrator), r.box, r.scale, r.x,
                        wftest::imageMean(wftest::renderImage(s, o)));
        }
    }
}

// ---- The offsets themselves -------------------------------------------------------------------

namespace {

/// Deterministic uniform numbers in [0, 1) on every standard library.
struct Uniform {
    std::mt19937 rng;
    explicit Uniform(unsigned seed) : rng(seed) {}
    float operator()() { return float(rng() >> 8) * (1.0f / 16777216.0f); }
    vec3 direction() {
        for (;;) {
            vec3 v(2.0f * (*this)() - 1.0f, 2.0f * (*this)() - 1.0f, 2.0f * (*this)() - 1.0f);
            float l2 = glm::dot(v, v);
            if (l2 > 1e-4f && l2 <= 1.0f) return v / std::sqrt(l2);
        }
    }
    /// A magnitude spread evenly in log over [1e-4, 1e6].
    float magnitude() { return std::pow(10.0f, -4.0f + 10.0f * (*this)()); }
};

/// A random triangle: around a point of magnitude `mag` with extent from 1e-3 to 10 times it
/// (kind 0), of extent `mag` around a point of that magnitude (1), or with a vertex at the origin
/// (2: the case where the error bound of points near that vertex is smallest).
void randomTriangle(Uniform& u, int kind, float mag, vec3 v[3]) {
    vec3 c = kind == 2 ? vec3(0.0f) : mag * u.direction();
    float extent = kind == 0 ? mag * std::pow(10.0f, -3.0f + 4.0f * u()) : mag;
    for (int k = 0; k < 3; ++k) v[k] = c + extent * u.direction();
    if (kind == 2) v[0] = vec3(0.0f);
}

/// A one-triangle scene view over `v` (surfaceAt reads positions, triangles, materials, normals).
struct OneTriangle {
    vec3 v[3];
    uvec3 tri{0, 1, 2};
    int material = 0;
    std::uint8_t hasNormals = 0;
    SceneView view() const {
        SceneView s;
        s.positions = v;
        s.triangles = &tri;
        s.triangleMaterial = &material;
        s.hasNormals = &hasNormals;
        s.numTriangles = 1;
        return s;
    }
};

bool hitsTriangle(const vec3 v[3], vec3 origin, vec3 dir, float tMax) {
    TriangleHit h;
    return intersectTriangle(WatertightRay(dir), origin, tMax, v[0], v[1], v[2], h);
}

}  // namespace

TEST_CASE("offsetRayOrigin is scale invariant and moves past the error bound", "[robustness]") {
    Uniform u(5);
    for (int i = 0; i < 1000; ++i) {
        vec3 p = u.magnitude() * u.direction(), n = u.direction();
        float error = kPointError * std::max({std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
        vec3 o = offsetRayOrigin(p, error, n);
        // Along n by the bound times |n|_1 (the box of half-width `error` around p is left), less
        // the rounding of p + d n: at most half an ULP per coordinate, under 1/64 of d.
        CHECK(glm::dot(glm::dvec3(o) - glm::dvec3(p), glm::dvec3(n)) >=
              (63.0 / 64.0) * double(error) * (std::fabs(n.x) + std::fabs(n.y) + std::fabs(n.z)));
        // Scaling everything by a power of two (exact in float) scales the offset point exactly.
        for (float s : {0x1p-40f, 0x1p-10f, 0x1p20f}) {
            vec3 os = offsetRayOrigin(p * s, error * s, n);
            CHECK(os == o * s);
        }
    }
    // A NaN normal gives a NaN point (the old integer conversion of 256 * NaN was undefined).
    vec3 bad = offsetRayOrigin(vec3(1.0f), 1e-6f, vec3(NAN));
    CHECK(std::isnan(bad.x));
}

TEST_CASE("rays leaving a triangle or sphere never hit it again, at any scale", "[robustness]") {
    // Points found by a ray (as surfaceAt computes them), at magnitudes 1e-4 .. 1e6, leaving at
    // angles down to 1e-5 from grazing. With the error bound shrunk to one roundoff per unit of
    // magnitude (64 times smaller) the same rays do re-hit: the test can fail.
    Uniform u(17);
    int trials = 0, selfHits = 0, selfHitsSmallBound = 0, sphereHits = 0;
    for (int i = 0; i < 200000; ++i) {
        int kind = i % 3;
        float mag = u.magnitude();
        OneTriangle t;
        randomTriangle(u, kind, mag, t.v);
        float b1 = u(), b2 = u();
        if (kind == 2) b1 *= 1e-3f * u(), b2 *= 1e-3f * u();  // near the vertex at the origin
        if (b1 + b2 > 1.0f) b1 = 1.0f - b1, b2 = 1.0f - b2;
        vec3 onTriangle = (1.0f - b1 - b2) * t.v[0] + b1 * t.v[1] + b2 * t.v[2];
        vec3 from = onTriangle + 2.0f * mag * u.direction();
        vec3 dir = glm::normalize(onTriangle - from);
        TriangleHit h;
        if (!intersectTriangle(WatertightRay(dir), from, FLT_MAX, t.v[0], t.v[1], t.v[2], h)) continue;
        SurfaceHit sh = surfaceAt(t.view(), Hit{h.t, 0}, from, dir);
        vec3 n = glm::dot(sh.ng, dir) < 0.0f ? sh.ng : -sh.ng;
        float cosOut = std::pow(10.0f, -5.0f * u()), phi = 2.0f * kPi * u();
        float sinOut = std::sqrt(std::max(0.0f, 1.0f - cosOut * cosOut));
        vec3 out = glm::normalize(Frame(n).toWorld(vec3(sinOut * std::cos(phi), sinOut * std::sin(phi), cosOut)));
        if (!(glm::dot(out, n) > 0.0f)) continue;
        ++trials;
        selfHits += hitsTriangle(t.v, offsetRayOrigin(sh.p, sh.error, n), out, FLT_MAX);
        selfHitsSmallBound += hitsTriangle(t.v, offsetRayOrigin(sh.p, sh.error / 64.0f, n), out, FLT_MAX);

        // A sphere of that magnitude, left outwards from a point a ray found.
        vec3 center = kind == 2 ? vec3(0.0f) : mag * u.direction();
        float radius = mag * std::pow(10.0f, -3.0f + 3.0f * u());
        vec3 start = center + 3.0f * radius * u.direction();
        vec3 towards = glm::normalize(center + 0.9f * radius * u.direction() - start);
        float ts;
        if (!intersectSphere(start, towards, FLT_MAX, center, radius, ts)) continue;
        SceneView sv;
        Float4 sphere(center, radius);
        int material = 0;
        sv.spheres = &sphere;
        sv.sphereMaterial = &material;
        sv.numSpheres = 1;
        SurfaceHit ss = surfaceAt(sv, Hit{ts, 0}, start, towards);
        vec3 away = glm::normalize(Frame(ss.ng).toWorld(vec3(sinOut * std::cos(phi), sinOut * std::sin(phi), cosOut)));
        float tAgain;
        sphereHits += glm::dot(away, ss.ng) > 0.0f &&
                      intersectSphere(offsetRayOrigin(ss.p, ss.error, ss.ng), away, FLT_MAX, center, radius, tAgain);
    }
    INFO(trials << " rays, " << selfHits << " re-hit their triangle (" << selfHitsSmallBound
                << " with a 64 times smaller bound), " << sphereHits << " their sphere");
    CHECK(trials > 150000);
    CHECK(selfHits == 0);
    CHECK(sphereHits == 0);
    CHECK(selfHitsSmallBound > 10);
}

TEST_CASE("a shadow ray between two surfaces is blocked by neither", "[robustness]") {
    // Two triangles sharing an edge (a wedge: floor and wall, box corners) at magnitudes
    // 1e-4 .. 1e6; one end found by a ray, the other sampled like a light point. The segment lies
    // on one side of each plane, so neither triangle may occlude the shadow ray between them. With
    // the target end left on its surface (the old shadowRayTo) the same rays are blocked.
    Uniform u(23);
    int rays = 0, blocked = 0, blockedAtTarget = 0;
    auto blocks = [](const ShadowRay& s, const vec3 a[3], const vec3 b[3]) {
        return hitsTriangle(a, s.origin.xyz(), s.direction.xyz(), s.direction.w) ||
               hitsTriangle(b, s.origin.xyz(), s.direction.xyz(), s.direction.w);
    };
    for (int i = 0; i < 100000; ++i) {
        float mag = u.magnitude();
        OneTriangle a;
        randomTriangle(u, i % 3, mag, a.v);
        vec3 b[3] = {a.v[0], a.v[1], a.v[0] + glm::length(a.v[1] - a.v[0]) * u.direction()};
        float b1 = u(), b2 = u();
        if (b1 + b2 > 1.0f) b1 = 1.0f - b1, b2 = 1.0f - b2;
        vec3 onA = (1.0f - b1 - b2) * a.v[0] + b1 * a.v[1] + b2 * a.v[2];
        vec3 from = onA + 2.0f * mag * u.direction();
        vec3 dir = glm::normalize(onA - from);
        TriangleHit h;
        if (!intersectTriangle(WatertightRay(dir), from, FLT_MAX, a.v[0], a.v[1], a.v[2], h)) continue;
        SurfaceHit sh = surfaceAt(a.view(), Hit{h.t, 0}, from, dir);
        float c1 = u(), c2 = u();
        if (c1 + c2 > 1.0f) c1 = 1.0f - c1, c2 = 1.0f - c2;
        float c0 = 1.0f - c1 - c2;
        vec3 onB = c0 * b[0] + c1 * b[1] + c2 * b[2];
        vec3 nb = glm::normalize(glm::cross(b[1] - b[0], b[2] - b[0]));
        float errB = trianglePointError(c0, c1, c2, b[0], b[1], b[2]);
        // An end closer to the other plane than its own offset (4 bounds here) can be moved across
        // it: features below the error bound are not resolved. Those (about 1%) are left out.
        double toPlaneA = std::fabs(glm::dot(glm::dvec3(onB) - glm::dvec3(a.v[0]), glm::dvec3(sh.ng)));
        double toPlaneB = std::fabs(glm::dot(glm::dvec3(sh.p) - glm::dvec3(b[0]), glm::dvec3(nb)));
        if (toPlaneA < 4.0 * errB || toPlaneB < 4.0 * sh.error) continue;
        RayEnd here = RayEnd::surface(sh.p, sh.ng, sh.error);
        ++rays;
        blocked += blocks(shadowRayBetween(here, RayEnd::surface(onB, nb, errB), 0, vec3(1.0f)), a.v, b);
        blockedAtTarget += blocks(shadowRayBetween(here, RayEnd::point(onB), 0, vec3(1.0f)), a.v, b);
    }
    INFO(rays << " shadow rays, " << blocked << " blocked by their own ends (" << blockedAtTarget
              << " with the target end not offset)");
    CHECK(rays > 90000);
    CHECK(blocked == 0);
    CHECK(blockedAtTarget > 100);
}

TEST_CASE("a one-thread pool still hands out work in chunks of the asked size", "[robustness]") {
    // A body may keep per-chunk state sized for the chunk (CpuExec::compactingFor); a pool with no
    // workers (one hardware thread, or a CPU worker of a multi-device render) once ran it over
    // the whole range at once.
    for (int threads : {1, 2}) {
        ThreadPool pool(threads);
        std::atomic<int> largest{0}, covered{0};
        pool.parallelFor(1000, 256, [&](int begin, int end) {
            int n = end - begin, seen = largest.load();
            while (n > seen && !largest.compare_exchange_weak(seen, n)) {}
            covered += n;
        });
        CHECK(largest.load() <= 256);
        CHECK(covered.load() == 1000);
    }
}

TEST_CASE("the power heuristic survives densities whose squares overflow float", "[robustness][pt]") {
    CHECK(powerHeuristic(1e20f, 1.0f) == 1.0f);
    CHECK(powerHeuristic(1.0f, 1e20f) < 1e-30f);
    CHECK(powerHeuristic(3e38f, 3e38f) == Approx(0.5f));
    CHECK(powerHeuristic(2.0f, 1.0f) == Approx(0.8f));
    CHECK(powerHeuristic(0.0f, 0.0f) == 0.0f);
    CHECK(powerHeuristic(1.0f, 0.0f) == 1.0f);
    // A fuzzed glTF (issue 37): an emitting quad whose second triangle is tilted by 1e-20. Next-event
    // estimation from one to the other sees the light edge-on, its density near 1e20, and the
    // weight was inf / inf: thousands of samples dropped as non-finite.
    Scene scene;
    const int lamp = scene.addMaterial(Material::lambertian(glm::vec3(0.5f), glm::vec3(1.0f)));
    TriangleMesh quad;
    quad.positions = {{0, 0, 0}, {1, 0, 1e-20f}, {1, 1, 0}, {0, 1, 0}};
    quad.indices = {0, 1, 2, 0, 2, 3};
    quad.material = lamp;
    scene.addMesh(quad);
    scene.setCamera(Camera{glm::vec3(0.5f, -1.0f, 1.0f), glm::vec3(0.5f, 0.5f, 0.0f), glm::vec3(0, 0, 1), 60.0f});
    scene.setEnvironment(skyEnvironment("uniform"));
    RenderOptions options;
    options.backend = Backend::Cpu;
    options.width = options.height = 32;
    options.samplesPerPixel = 4;
    Renderer renderer(scene, options);
    renderer.render();
    CHECK(renderer.stats().nonFiniteSamples == 0);
}
