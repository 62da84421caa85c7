// LBVH structure and traversal against brute force, on the CPU backend and (with a GPU) on CUDA.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>
#include <utility>

#include <catch2/catch.hpp>

#include "bvh_oracle.h"
#include "test_support.h"

using namespace wavefront;

namespace {

PrimitiveArrays randomTriangles(int count, std::uint32_t seed, float spread = 10.0f, float size = 0.5f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> pos(-spread, spread), off(-size, size);
    PrimitiveArrays p;
    for (int i = 0; i < count; ++i) {
        vec3 c(pos(rng), pos(rng), pos(rng));
        for (int k = 0; k < 3; ++k) p.positions.push_back(c + vec3(off(rng), off(rng), off(rng)));
        p.triangles.push_back(uvec3(3 * i, 3 * i + 1, 3 * i + 2));
    }
    return p;
}

void addRandomSpheres(PrimitiveArrays& p, int count, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> pos(-10.0f, 10.0f), rad(0.05f, 0.8f);
    for (int i = 0; i < count; ++i) p.spheres.push_back(Float4(vec3(pos(rng), pos(rng), pos(rng)), rad(rng)));
}

std::vector<Ray> randomRays(int count, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> pos(-12.0f, 12.0f);
    std::normal_distribution<float> dir;
    std::vector<Ray> rays;
    for (int i = 0; i < count; ++i) {
        vec3 d(dir(rng), dir(rng), dir(rng));
        rays.push_back(Ray{vec3(pos(rng), pos(rng), pos(rng)), glm::normalize(d), FLT_MAX});
    }
    return rays;
}

/// The cube [-1, 1]^3 with each face cut into k x k quads of two triangles (a closed mesh).
PrimitiveArrays tessellatedCube(int k) {
    PrimitiveArrays p;
    for (int face = 0; face < 6; ++face) {
        int axis = face / 2;
        float side = face % 2 ? 1.0f : -1.0f;
        int base = int(p.positions.size());
        for (int j = 0; j <= k; ++j)
            for (int i = 0; i <= k; ++i) {
                vec3 v;
                v[axis] = side;
                v[(axis + 1) % 3] = -1.0f + 2.0f * i / k;
                v[(axis + 2) % 3] = -1.0f + 2.0f * j / k;
                p.positions.push_back(v);
            }
        for (int j = 0; j < k; ++j)
            for (int i = 0; i < k; ++i) {
                std::uint32_t a = base + j * (k + 1) + i, b = a + 1, c = a + k + 1, d = c + 1;
                p.triangles.push_back(uvec3(a, b, d));
                p.triangles.push_back(uvec3(a, d, c));
            }
    }
    return p;
}

/// Closest hit by testing every primitive, with the same ray/primitive tests traversal uses.
Hit bruteForce(const BvhSnapshot& bvh, const Ray& ray) {
    Hit hit{ray.tMax, -1};
    WatertightRay wr(ray.direction);
    for (int leaf = 0; leaf < bvh.numPrims; ++leaf) intersectLeaf(bvh.view().primData, leaf, wr, ray.origin, ray.direction, hit);
    return hit;
}

void checkAgainstBruteForce(Backend backend, const PrimitiveArrays& prims, const std::vector<Ray>& rays,
                            BvhBuilder builder = BvhBuilder::Lbvh, bool wide = false) {
    BvhSnapshot reference = buildBvhSnapshot(Backend::Cpu, prims);
    TraceResult closest = traceRays(backend, prims, rays, false, builder, wide);
    TraceResult any = traceRays(backend, prims, rays, true, builder, wide);
    // Persistent threads with ray replacement run the same steps per ray: the same answers.
    TraceResult closestReplacing = traceRays(backend, prims, rays, false, builder, wide, TraceSchedule::RayReplacement);
    TraceResult anyReplacing = traceRays(backend, prims, rays, true, builder, wide, TraceSchedule::RayReplacement);
    int mismatches = 0, hits = 0, replacingMismatches = 0;
    for (std::size_t i = 0; i < rays.size(); ++i) {
        const Hit& a = closest.hits[i];
        const Hit& b = closestReplacing.hits[i];
        if (a.prim != b.prim || (a.prim >= 0 && a.t != b.t) || (any.hits[i].prim >= 0) != (anyReplacing.hits[i].prim >= 0))
            ++replacingMismatches;
        Hit expect = bruteForce(reference, rays[i]);
        Hit got = closest.hits[i];
        hits += expect.prim >= 0;
        bool same = got.prim == expect.prim &&
                    (expect.prim < 0 || std::fabs(got.t - expect.t) <= 1e-5f * std::max(1.0f, std::fabs(expect.t)));
        if (!same && mismatches++ < 5)
            UNSCOPED_INFO("ray " << i << ": expected prim " << expect.prim << " t " << expect.t << ", got " << got.prim
                                 << " t " << got.t);
        // Any-hit must agree on whether something is hit.
        if ((any.hits[i].prim >= 0) != (expect.prim >= 0)) ++mismatches;
    }
    CHECK(hits > int(rays.size()) / 10);  // the test is meaningless if rays mostly miss
    CHECK(mismatches == 0);
    CHECK(replacingMismatches == 0);
}

/// The slab test in double precision on the ray's float values: exact up to 1e-16 relative, far
/// below float's roundoff. Returns (tNear, tFar); a zero direction component is exact too.
std::pair<double, double> exactSlab(const Aabb& box, const Ray& ray) {
    double tNear = 0.0, tFar = double(FLT_MAX);
    for (int k = 0; k < 3; ++k) {
        double o = ray.origin[k], d = ray.direction[k], lo = box.lo[k], hi = box.hi[k];
        if (d == 0.0) {
            if (o < lo || o > hi) return {1.0, 0.0};
            continue;
        }
        double a = (lo - o) / d, b = (hi - o) / d;
        tNear = std::max(tNear, std::min(a, b));
        tFar = std::min(tFar, std::max(a, b));
    }
    return {tNear, tFar};
}

}  // namespace

TEST_CASE("the slab test never culls a box the ray meets, and still culls for nearly parallel rays", "[bvh]") {
    // Rays aimed at points on a box's faces from far and near, at magnitudes 1e-3 .. 1e5 and
    // offsets up to 1e5, with some direction components 0, 1e-9 or 1e-5 (nearly parallel axes
    // have a huge origin * invDir: the FMA form's error must stay on that axis).
    std::mt19937 rng(20261123);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f), sym(-1.0f, 1.0f);
    const float scales[] = {1e-3f, 1.0f, 1e3f, 1e5f};
    int hits = 0, misses = 0, culledWrongly = 0, keptWrongly = 0;
    for (int i = 0; i < 200000; ++i) {
        float s = scales[i % 4];
        vec3 centre = vec3(sym(rng), sym(rng), sym(rng)) * (s * 100.0f * unit(rng));
        vec3 half = vec3(0.01f + unit(rng), 0.01f + unit(rng), 0.01f + unit(rng)) * s;
        Aabb box{centre - half, centre + half};
        vec3 d(sym(rng), sym(rng), sym(rng));
        int flat = int(unit(rng) * 8.0f);  // sometimes one axis nearly or exactly parallel
        const float tiny[] = {0.0f, 1e-25f, 1e-9f, 1e-5f};  // 1e-25: below SlabRay's 1e-20 stand-in
        if (flat < 3) d[flat] = tiny[i % 4 == 0 ? 0 : (i % 3) + 1] * (d[flat] < 0.0f ? -1.0f : 1.0f);
        d = glm::normalize(d);
        // Aim at a point on the surface, or beside the box by up to a fifth of its size.
        vec3 target = centre + half * vec3(sym(rng), sym(rng), sym(rng)) * 1.2f;
        target[i % 3] = centre[i % 3] + (unit(rng) < 0.5f ? -1.0f : 1.0f) * half[i % 3];
        Ray ray{target - d * (s * (0.001f + 1000.0f * unit(rng))), d, FLT_MAX};
        SlabRay slabs(ray.origin, ray.direction);
        float entry;
        bool cpu = slabTest(box.lo, box.hi, slabs, FLT_MAX, entry);
        bool gpu = slabTest<true>(box.lo, box.hi, slabs, FLT_MAX, entry);  // the GPU's fused form
        auto [tNear, tFar] = exactSlab(box, ray);
        // The test may keep boxes the ray passes within 1e-5 of the magnitudes involved (the
        // widening is 8 roundoffs of the origin, the relative factor 6 of the distance); a box
        // the ray misses by more must be culled (a shared slack once let such boxes through).
        float margin = 1e-5f * (maxComponent(glm::abs(ray.origin)) + maxComponent(glm::abs(centre) + half) +
                                glm::length(target - ray.origin));
        auto [gNear, gFar] = exactSlab(Aabb{box.lo - vec3(margin), box.hi + vec3(margin)}, ray);
        if (tNear <= tFar) {
            ++hits;
            culledWrongly += !cpu + !gpu;
        } else if (gNear > gFar) {
            ++misses;
            keptWrongly += cpu + gpu;
        }
    }
    CHECK(hits > 40000);
    CHECK(misses > 20000);
    CHECK(culledWrongly == 0);
    CHECK(keptWrongly == 0);
}

TEST_CASE("the slab test's three-way combines on float bits equal float min and max", "[bvh]") {
    // maxOfThreeAndZero is max(a, b, c, 0) exactly; minOfThreeSignExact is min(a, b, c) when that
    // is >= 0 and some negative value otherwise (slabTest needs only its sign then).
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> mag(-30.0f, 30.0f);
    std::uniform_int_distribution<int> kind(0, 5);
    auto value = [&] {
        switch (kind(rng)) {
        case 0: return 0.0f;
        case 1: return -0.0f;
        case 2: return -std::exp2(mag(rng));
        case 3: return FLT_MAX;
        default: return std::exp2(mag(rng));
        }
    };
    int wrong = 0;
    for (int i = 0; i < 100000; ++i) {
        float a = value(), b = value(), c = value();
        float mx = std::max(std::max(a, b), std::max(c, 0.0f)), mn = std::min(std::min(a, b), c);
        float gotMax = maxOfThreeAndZero(a, b, c), gotMin = minOfThreeSignExact(a, b, c);
        wrong += !(gotMax == mx && !std::signbit(gotMax));
        wrong += mn >= 0.0f ? !(gotMin == mn) : !(gotMin < 0.0f || (gotMin == 0.0f && std::signbit(gotMin)));
    }
    CHECK(wrong == 0);
}

TEST_CASE("LBVH is structurally valid for random and degenerate inputs", "[bvh]") {
    for (int n : {1, 2, 3, 5, 17, 1000, 50000}) {
        PrimitiveArrays p = randomTriangles(n, 42 + n);
        BvhSnapshot bvh = buildBvhSnapshot(Backend::Cpu, p);
        INFO("n = " << n);
        CHECK(validateBvh(bvh) == "");
    }
    SECTION("all centroids equal: index tie-breaking keeps the tree balanced") {
        PrimitiveArrays p;
        for (int i = 0; i < 4096; ++i) {
            p.positions.insert(p.positions.end(), {vec3(-1, 0, 0), vec3(1, 0, 0), vec3(0, 1, 0)});
            p.triangles.push_back(uvec3(3 * i, 3 * i + 1, 3 * i + 2));
        }
        BvhSnapshot bvh = buildBvhSnapshot(Backend::Cpu, p);
        CHECK(validateBvh(bvh) == "");
        CHECK(bvhDepth(bvh) <= 14);  // log2(4096) + 2
    }
    SECTION("triangles and spheres in one tree") {
        PrimitiveArrays p = randomTriangles(300, 7);
        addRandomSpheres(p, 200, 8);
        BvhSnapshot bvh = buildBvhSnapshot(Backend::Cpu, p);
        CHECK(validateBvh(bvh) == "");
    }
    SECTION("a single sphere") {
        PrimitiveArrays p;
        addRandomSpheres(p, 1, 3);
        CHECK(validateBvh(buildBvhSnapshot(Backend::Cpu, p)) == "");
    }
}

TEST_CASE("LBVH over one million triangles is valid", "[bvh][large]") {
    PrimitiveArrays p = randomTriangles(1000000, 1, 100.0f, 0.2f);
    BvhSnapshot bvh = buildBvhSnapshot(Backend::Cpu, p);
    CHECK(validateBvh(bvh) == "");
    CHECK(bvhDepth(bvh) <= kTraversalStackSize);
}

TEST_CASE("traversal equals brute force on 100k random rays", "[bvh][traversal][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    PrimitiveArrays p = randomTriangles(1500, 11, 10.0f, 1.5f);
    addRandomSpheres(p, 100, 12);
    std::vector<Ray> rays = randomRays(100000, 13);
    checkAgainstBruteForce(backend, p, rays);
    if (backend == Backend::Cuda) {
        // CUDA finds the same primitives as the CPU, ray for ray.
        TraceResult gpu = traceRays(Backend::Cuda, p, rays, false), cpu = traceRays(Backend::Cpu, p, rays, false);
        int differ = 0;
        for (std::size_t i = 0; i < rays.size(); ++i) differ += gpu.hits[i].prim != cpu.hits[i].prim;
        CHECK(differ == 0);
    }
}

TEST_CASE("traversal of a closed mesh: no ray slips between triangles", "[bvh][traversal]") {
    // A finely tessellated closed cube seen from inside: every ray must hit (watertightness).
    PrimitiveArrays p = tessellatedCube(32);
    std::vector<Ray> rays = randomRays(20000, 5);
    for (auto& r : rays) r.origin *= 0.05f;  // start inside the cube
    TraceResult t = traceRays(Backend::Cpu, p, rays, false);
    int misses = 0;
    for (auto& h : t.hits) misses += h.prim < 0;
    CHECK(misses == 0);
}

TEST_CASE("CUDA LBVH is valid and identical to the CPU tree", "[bvh][gpu]") {
    if (!wftest::haveGpu()) return;
    for (int n : {1, 2, 3, 1000, 100000, 1000000}) {
        PrimitiveArrays p = randomTriangles(n, 99 + n);
        if (n == 1000) addRandomSpheres(p, 300, 4);
        BvhSnapshot gpu = buildBvhSnapshot(Backend::Cuda, p);
        BvhSnapshot cpu = buildBvhSnapshot(Backend::Cpu, p);
        INFO("n = " << n);
        CHECK(validateBvh(gpu) == "");
        REQUIRE(gpu.nodes.size() == cpu.nodes.size());
        int differing = 0;
        for (std::size_t i = 0; i < gpu.nodes.size(); ++i)
            differing += std::memcmp(&gpu.nodes[i], &cpu.nodes[i], sizeof(BvhNode)) != 0;
        CHECK(differing == 0);
    }
}

TEST_CASE("the SAH cost of a tree is its boxes' areas over the root's", "[bvh]") {
    // Two spheres of radius 1, ten apart: the root box is 12 x 2 x 2 (half-area 52), each leaf
    // 2 x 2 x 2 (12), so the cost is (52 + 12 + 12) / 52.
    PrimitiveArrays two;
    two.spheres = {Float4(vec3(0.0f), 1.0f), Float4(vec3(10.0f, 0.0f, 0.0f), 1.0f)};
    CHECK(bvhSahCost(buildBvhSnapshot(Backend::Cpu, two)) == Approx(76.0 / 52.0).epsilon(1e-9));
    PrimitiveArrays one;
    one.spheres = {Float4(vec3(3.0f), 0.5f)};
    CHECK(bvhSahCost(buildBvhSnapshot(Backend::Cpu, one)) == Approx(2.0));
}

// ---- PLOC ----------------------------------------------------------------------------------------

namespace {

bool sameNodes(const BvhSnapshot& a, const BvhSnapshot& b) {
    if (a.nodes.size() != b.nodes.size()) return false;
    for (std::size_t i = 0; i < a.nodes.size(); ++i)
        if (std::memcmp(&a.nodes[i], &b.nodes[i], sizeof(BvhNode)) != 0) return false;
    return true;
}

}  // namespace

TEST_CASE("PLOC tree is structurally valid for random and degenerate inputs", "[bvh][ploc]") {
    for (int n : {1, 2, 3, 5, 17, 100, 1000, 50000}) {
        PrimitiveArrays p = randomTriangles(n, 42 + n);
        BvhSnapshot bvh = buildBvhSnapshot(Backend::Cpu, p, BvhBuilder::Ploc);
        INFO("n = " << n);
        CHECK(validateBvh(bvh) == "");
        CHECK(bvhDepth(bvh) <= kTraversalStackSize);
    }
    SECTION("all centroids equal: equal areas pair off neighbours, so the tree stays balanced") {
        PrimitiveArrays p;
        for (int i = 0; i < 4096; ++i) {
            p.positions.insert(p.positions.end(), {vec3(-1, 0, 0), vec3(1, 0, 0), vec3(0, 1, 0)});
            p.triangles.push_back(uvec3(3 * i, 3 * i + 1, 3 * i + 2));
        }
        BvhSnapshot bvh = buildBvhSnapshot(Backend::Cpu, p, BvhBuilder::Ploc);
        CHECK(validateBvh(bvh) == "");
        CHECK(bvhDepth(bvh) <= 14);
    }
    SECTION("triangles and spheres in one tree; points; a flat scene") {
        PrimitiveArrays p = randomTriangles(300, 7);
        addRandomSpheres(p, 200, 8);
        CHECK(validateBvh(buildBvhSnapshot(Backend::Cpu, p, BvhBuilder::Ploc)) == "");
        PrimitiveArrays points = randomTriangles(500, 5, 10.0f, 0.0f);
        CHECK(validateBvh(buildBvhSnapshot(Backend::Cpu, points, BvhBuilder::Ploc)) == "");
        PrimitiveArrays flat = randomTriangles(500, 6);
        for (vec3& v : flat.positions) v.z = 0.0f;
        CHECK(validateBvh(buildBvhSnapshot(Backend::Cpu, flat, BvhBuilder::Ploc)) == "");
    }
}

TEST_CASE("PLOC gives up for the LBVH when its tree would be too deep for traversal", "[bvh][ploc]") {
    // Spheres doubling in size and distance along x: each one's cheapest union is with everything
    // before it, so every round merges one pair and the tree is a chain of 119 levels.
    PrimitiveArrays p;
    for (int k = 0; k < 120; ++k) p.spheres.push_back(Float4(vec3(std::ldexp(1.0f, k), 0.0f, 0.0f), std::ldexp(0.25f, k)));
    BvhSnapshot ploc = buildBvhSnapshot(Backend::Cpu, p, BvhBuilder::Ploc);
    CHECK(validateBvh(ploc) == "");
    CHECK(bvhDepth(ploc) <= kTraversalStackSize);
    CHECK(sameNodes(ploc, buildBvhSnapshot(Backend::Cpu, p, BvhBuilder::Lbvh)));
}

TEST_CASE("PLOC's tree has a lower SAH cost than the LBVH's where primitive sizes vary", "[bvh][ploc]") {
    for (const char* name : {"cornell-box", "cornell-spheres", "mesh-1m"}) {
        Scene scene = Scene::builtin(name);
        PrimitiveArrays p = sceneArrays(scene);
        double lbvh = bvhSahCost(buildBvhSnapshot(Backend::Cpu, p, BvhBuilder::Lbvh));
        double ploc = bvhSahCost(buildBvhSnapshot(Backend::Cpu, p, BvhBuilder::Ploc));
        INFO(name << ": LBVH " << lbvh << ", PLOC " << ploc);
        CHECK(ploc < lbvh);
    }
}

TEST_CASE("traversal of the PLOC tree equals brute force", "[bvh][ploc][traversal][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    PrimitiveArrays p = randomTriangles(1500, 11, 10.0f, 1.5f);
    addRandomSpheres(p, 100, 12);
    checkAgainstBruteForce(backend, p, randomRays(50000, 13), BvhBuilder::Ploc);
}

TEST_CASE("CUDA PLOC tree is identical to the CPU tree", "[bvh][ploc][gpu]") {
    if (!wftest::haveGpu()) return;
    for (int n : {2, 3, 1000, 100000, 1000000}) {
        PrimitiveArrays p = randomTriangles(n, 99 + n);
        if (n == 1000) addRandomSpheres(p, 300, 4);
        BvhSnapshot gpu = buildBvhSnapshot(Backend::Cuda, p, BvhBuilder::Ploc);
        BvhSnapshot cpu = buildBvhSnapshot(Backend::Cpu, p, BvhBuilder::Ploc);
        INFO("n = " << n);
        CHECK(validateBvh(gpu) == "");
        CHECK(sameNodes(gpu, cpu));
    }
}

// ---- The 8-wide compressed BVH ----------------------------------------------------------------

TEST_CASE("8-wide collapse is structurally valid for random and degenerate inputs", "[bvh][wide][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    for (BvhBuilder builder : {BvhBuilder::Lbvh, BvhBuilder::Ploc})
        for (int n : {1, 2, 3, 4, 5, 9, 17, 1000, 50000}) {
            PrimitiveArrays p = randomTriangles(n, 42 + n);
            if (n == 1000) addRandomSpheres(p, 300, 4);
            BvhSnapshot bvh = buildBvhSnapshot(backend, p, builder, true);
            INFO("n = " << n << ", " << toString(builder));
            CHECK(validateWideBvh(bvh) == "");
            CHECK(bvh.wideDepth >= 1);
        }
    SECTION("all centroids equal; a flat scene; spheres only") {
        PrimitiveArrays same, flat, spheres;
        for (int i = 0; i < 4096; ++i) {
            same.positions.insert(same.positions.end(), {vec3(-1, 0, 0), vec3(1, 0, 0), vec3(0, 1, 0)});
            same.triangles.push_back(uvec3(3 * i, 3 * i + 1, 3 * i + 2));
            float x = float(i % 64), y = float(i / 64);
            flat.positions.insert(flat.positions.end(), {vec3(x, y, 0), vec3(x + 1, y, 0), vec3(x, y + 1, 0)});
            flat.triangles.push_back(uvec3(3 * i, 3 * i + 1, 3 * i + 2));
        }
        addRandomSpheres(spheres, 777, 9);
        for (const PrimitiveArrays* p : {&same, &flat, &spheres}) CHECK(validateWideBvh(buildBvhSnapshot(backend, *p, BvhBuilder::Lbvh, true)) == "");
    }
}

TEST_CASE("8-wide traversal equals brute force", "[bvh][wide][traversal][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    PrimitiveArrays p = randomTriangles(1500, 11, 10.0f, 1.5f);
    addRandomSpheres(p, 100, 12);
    std::vector<Ray> rays = randomRays(100000, 13);
    SECTION("from the LBVH") { checkAgainstBruteForce(backend, p, rays, BvhBuilder::Lbvh, true); }
    SECTION("from PLOC") { checkAgainstBruteForce(backend, p, rays, BvhBuilder::Ploc, true); }
    SECTION("far from the origin, and tiny") {
        // The grid's margins are relative: the scene at 1e4 and at 1e-3 must trace as the binary
        // tree does on the same backend (whose leaf arithmetic it shares: CUDA contracts the
        // primitive tests differently from the CPU's brute force, which shows at 1e4), and on the
        // CPU as brute force does.
        for (float scale : {1e-3f, 1e4f}) {
            PrimitiveArrays q = p;
            for (vec3& v : q.positions) v = v * scale + vec3(scale * 3.0f);
            for (Float4& sp : q.spheres) sp = Float4(sp.xyz() * scale + vec3(scale * 3.0f), sp.w * scale);
            std::vector<Ray> r = rays;
            for (Ray& ray : r) ray.origin = ray.origin * scale + vec3(scale * 3.0f);
            INFO("scale " << scale);
            if (backend == Backend::Cpu) checkAgainstBruteForce(backend, q, r, BvhBuilder::Lbvh, true);
            for (bool anyHit : {false, true}) {
                TraceResult binary = traceRays(backend, q, r, anyHit), wide = traceRays(backend, q, r, anyHit, BvhBuilder::Lbvh, true);
                int differ = 0, hits = 0;
                for (std::size_t i = 0; i < r.size(); ++i) {
                    hits += binary.hits[i].prim >= 0;
                    differ += anyHit ? (binary.hits[i].prim >= 0) != (wide.hits[i].prim >= 0)
                                     : binary.hits[i].prim != wide.hits[i].prim || binary.hits[i].t != wide.hits[i].t;
                }
                INFO((anyHit ? "any hit" : "closest hit"));
                CHECK(hits > int(r.size()) / 10);
                CHECK(differ == 0);
            }
        }
    }
}

TEST_CASE("8-wide traversal of a closed mesh: no ray slips between triangles", "[bvh][wide][traversal][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    PrimitiveArrays p = tessellatedCube(32);
    std::vector<Ray> rays = randomRays(20000, 5);
    for (auto& r : rays) r.origin *= 0.05f;
    TraceResult t = traceRays(backend, p, rays, false, BvhBuilder::Lbvh, true);
    int misses = 0;
    for (auto& h : t.hits) misses += h.prim < 0;
    CHECK(misses == 0);
}

TEST_CASE("the 8-wide tree's SAH cost is below its binary tree's", "[bvh][wide]") {
    PrimitiveArrays p = randomTriangles(20000, 5, 10.0f, 0.3f);
    for (BvhBuilder builder : {BvhBuilder::Lbvh, BvhBuilder::Ploc}) {
        double binary = bvhSahCost(buildBvhSnapshot(Backend::Cpu, p, builder));
        double wide = wideBvhSahCost(buildBvhSnapshot(Backend::Cpu, p, builder, true));
        INFO(toString(builder) << ": binary " << binary << ", wide " << wide);
        CHECK(wide > 0.0);
        CHECK(wide < 0.6 * binary);
    }
}
