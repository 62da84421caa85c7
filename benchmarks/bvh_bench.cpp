// BVH build time, SAH and ray throughput: the binary LBVH and PLOC trees and the 8-wide
// compressed tree collapsed from each (issues 2 and 15).
//   bvh_bench [--backend cuda|cpu] [--quick] [--scenes a,b,...] [--no-builds]
// Build: 100k, 1M, 10M random triangles, best of several builds after a warm-up (data already
// on the device; Morton codes, CUB radix sort, Karras split, bottom-up refit).
// Rays: primary, diffuse bounce (cosine directions from the primary hits, unsorted) and shadow
// rays (hit point to a random point on a light) on built-in scenes, closest-hit or any-hit, each
// with a thread per ray and with persistent threads that replace finished rays.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>

#include "bench_args.h"
#include "bvh_oracle.h"
#include "host/device_scene/scene_upload.h"
#include "kernels/pt/path_tracer.h"
#include "wavefront/wavefront.h"

using namespace wavefront;

static PrimitiveArrays randomTriangles(int count, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> pos(-100.0f, 100.0f), off(-0.3f, 0.3f);
    PrimitiveArrays p;
    p.positions.reserve(std::size_t(3) * count);
    p.triangles.reserve(count);
    for (int i = 0; i < count; ++i) {
        vec3 c(pos(rng), pos(rng), pos(rng));
        for (int k = 0; k < 3; ++k) p.positions.push_back(c + vec3(off(rng), off(rng), off(rng)));
        p.triangles.push_back(uvec3(3 * i, 3 * i + 1, 3 * i + 2));
    }
    return p;
}


static int run(int argc, char** argv) {
    bool quick = false, noBuilds = false;
    std::vector<std::string> scenes = {"cornell-box", "cornell-spheres", "rtiow-final", "mesh-1m"};
    BenchArgs args("bvh_bench", "LBVH and PLOC build times, SAH and ray throughput: random triangles, then primary, "
                                "diffuse-bounce and shadow rays on built-in scenes");
    args.addFlag("--quick", quick, "100k triangles only, rays at 256x256 instead of 1920x1080");
    args.addList("--scenes", scenes, "built-in scenes whose rays are traced", checkBuiltinScene);
    args.addFlag("--no-builds", noBuilds, "skip the build times of random triangles (for a profiler: rays only)");
    if (auto rc = args.parse(argc, argv)) return *rc;
    Backend backend = args.backend;
    std::printf("# bvh_bench on %s\n\n", toString(backend));
    std::printf("SAH: cost relative to the root's area, node and primitive cost 1 (bvhSahCost)\n\n");
    std::printf("| primitives | builder | build ms (best) | build ms (median) | Mprims/s | depth | SAH | last build's kernel "
                "times (ms) |\n|---:|---|---:|---:|---:|---:|---:|---|\n");
    for (int n : {100000, 1000000, 10000000})
    for (bool wide : {false, true})
    for (BvhBuilder builder : {BvhBuilder::Lbvh, BvhBuilder::Ploc}) {
        if (noBuilds || (quick && n > 100000)) break;
        PrimitiveArrays p = randomTriangles(n, 1);
        std::vector<double> ms;
        std::string stages;
        int depth = 0;
        double sah = 0.0;
        int runs = backend == Backend::Cuda ? 7 : 2;
        for (int r = 0; r < runs; ++r) {
            BvhSnapshot s = buildBvhSnapshot(backend, p, builder, wide);
            if (r == 0) {  // warm-up: allocations, module load
                depth = wide ? s.wideDepth : bvhDepth(s);
                sah = wide ? wideBvhSahCost(s) : bvhSahCost(s);
                continue;
            }
            ms.push_back(s.buildMilliseconds);
            if (r == runs - 1) {
                double kernels = 0.0;
                for (auto& k : s.stages) kernels += k.milliseconds;
                char buf[64];
                std::snprintf(buf, sizeof buf, "kernels %.3f ms: ", kernels);
                stages = buf;
                for (auto& k : s.stages) {
                    std::snprintf(buf, sizeof buf, "%s %.3f; ", k.label.c_str(), k.milliseconds);
                    stages += buf;
                }
            }
        }
        std::sort(ms.begin(), ms.end());
        std::printf("| %d | %s%s | %.3f | %.3f | %.1f | %d | %.1f | %s |\n", n, toString(builder), wide ? " + 8-wide" : "",
                    ms.front(), ms[ms.size() / 2],
                    n / ms.front() / 1e3, depth, sah, stages.c_str());
        std::fflush(stdout);
    }

    std::printf("\nMrays/s of each tree; the 8-wide trees are collapsed from the binary tree named\n\n");
    std::printf("Schedules: a thread per ray, or persistent threads with ray replacement (a lane takes the next ray\n"
                "as soon as its ray is done: traceReplacing)\n\n");
    std::printf("| scene | triangles | spheres | SAH LBVH / PLOC / 8-wide from each | ray kind | schedule | rays | LBVH | PLOC | "
                "8-wide (LBVH) | 8-wide (PLOC) | 8-wide (PLOC) / PLOC | 8-wide (LBVH) / LBVH | hit fraction |\n"
                "|---|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const std::string& name : scenes) {
        Scene scene = Scene::builtin(name);
        scene.validate();
        PrimitiveArrays prims = sceneArrays(scene);
        const double sah = bvhSahCost(buildBvhSnapshot(backend, prims));
        const double plocSah = bvhSahCost(buildBvhSnapshot(backend, prims, BvhBuilder::Ploc));
        const double wideSah = wideBvhSahCost(buildBvhSnapshot(backend, prims, BvhBuilder::Lbvh, true));
        const double widePlocSah = wideBvhSahCost(buildBvhSnapshot(backend, prims, BvhBuilder::Ploc, true));
        const int width = quick ? 256 : 1920, height = quick ? 256 : 1080;
        // Primary rays through pixel centres with jitter, from the library's own camera code.
        std::vector<Ray> primary;
        CameraData cam = makeCamera(scene.camera());
        cam.aspect = float(width) / height;
        SceneView view;
        view.camera = cam;
        view.width = width;
        view.height = height;
        PtParams params;
        params.numPixels = width * height;
        for (int i = 0; i < width * height; ++i) {
            PathState s = generateCameraPath(view, params, std::uint64_t(i));
            primary.push_back(Ray{s.origin.xyz(), s.direction.xyz(), FLT_MAX});
        }
        TraceResult hits = traceRays(backend, prims, primary, false);
        // Diffuse bounce and shadow rays from the primary hits.
        std::mt19937 rng(3);
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        std::vector<Ray> bounce, shadow;
        std::vector<int> lights;
        for (std::size_t t = 0; t < scene.triangles().size(); ++t)
            if (scene.materials()[scene.triangleMaterials()[t]].isEmissive()) lights.push_back(int(t));
        for (std::size_t i = 0; i < primary.size(); ++i) {
            Hit h = hits.hits[i];
            if (h.prim < 0) continue;
            vec3 p = primary[i].origin + h.t * primary[i].direction;
            vec3 n;
            if (h.prim < int(scene.triangles().size())) {
                uvec3 tri = scene.triangles()[h.prim];
                n = glm::normalize(glm::cross(scene.positions()[tri.y] - scene.positions()[tri.x],
                                              scene.positions()[tri.z] - scene.positions()[tri.x]));
            } else {
                n = glm::normalize(p - scene.spheres()[h.prim - scene.triangles().size()].center);
            }
            if (glm::dot(n, primary[i].direction) > 0) n = -n;
            Frame f(n);
            // p = origin + t d is not re-projected onto the surface: bound its error by the
            // magnitudes it is computed from (t itself is accurate to a few roundoffs of them).
            vec3 m = glm::abs(primary[i].origin) + glm::abs(h.t * primary[i].direction);
            vec3 o = offsetRayOrigin(p, kPointError * std::max({m.x, m.y, m.z}), n);
            bounce.push_back(Ray{o, glm::normalize(f.toWorld(sampleCosineHemisphere(vec2(u(rng), u(rng))))), FLT_MAX});
            if (!lights.empty()) {
                uvec3 lt = scene.triangles()[lights[std::size_t(u(rng) * lights.size()) % lights.size()]];
                vec2 b = sampleUniformTriangle(vec2(u(rng), u(rng)));
                vec3 q = (1 - b.x - b.y) * scene.positions()[lt.x] + b.x * scene.positions()[lt.y] + b.y * scene.positions()[lt.z];
                float d = glm::length(q - o);
                if (d > 0) shadow.push_back(Ray{o, (q - o) / d, d * 0.9999f});
            }
        }
        auto report = [&](const char* kind, const std::vector<Ray>& rays, bool anyHit) {
            if (rays.empty()) return;
            for (TraceSchedule schedule : {TraceSchedule::ThreadPerRay, TraceSchedule::RayReplacement}) {
                auto measure = [&](BvhBuilder builder, bool wide, std::size_t& hit) {
                    TraceResult warm = traceRays(backend, prims, rays, anyHit, builder, wide, schedule);
                    TraceResult r = traceRays(backend, prims, rays, anyHit, builder, wide, schedule);
                    hit = 0;
                    for (auto& x : r.hits) hit += x.prim >= 0;
                    return rays.size() / std::min(warm.milliseconds, r.milliseconds) / 1e3;
                };
                std::size_t hit = 0, plocHit = 0, wideHit = 0, widePlocHit = 0;
                double lbvh = measure(BvhBuilder::Lbvh, false, hit), ploc = measure(BvhBuilder::Ploc, false, plocHit);
                double wide = measure(BvhBuilder::Lbvh, true, wideHit), widePloc = measure(BvhBuilder::Ploc, true, widePlocHit);
                std::printf("| %s | %zu | %zu | %.2f / %.2f / %.2f / %.2f | %s | %s | %zu | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.3f |\n",
                            name.c_str(), scene.triangles().size(), scene.spheres().size(), sah, plocSah, wideSah, widePlocSah,
                            kind, schedule == TraceSchedule::ThreadPerRay ? "thread per ray" : "ray replacement",
                            rays.size(), lbvh, ploc, wide, widePloc, widePloc / ploc, wide / lbvh, double(hit) / rays.size());
                if (hit != plocHit || hit != wideHit || hit != widePlocHit)
                    std::printf("(hits: LBVH %zu, PLOC %zu, 8-wide %zu and %zu)\n", hit, plocHit, wideHit, widePlocHit);
                std::fflush(stdout);
            }
        };
        report("primary (closest)", primary, false);
        report("diffuse bounce (closest, incoherent)", bounce, false);
        report("shadow (any-hit)", shadow, true);
        std::fflush(stdout);
    }
    return 0;
}

int main(int argc, char** argv) { return benchMain("bvh_bench", argc, argv, run); }
