// Per-frame animation (issue 38, item 6): a deforming grid of about --triangles triangles whose
// vertices move every frame (Renderer::setMeshPositions with --update refit, rebuild or auto), then
// a 1-spp path-traced render and its resolve at --res. Every figure is measured per frame with a
// wall clock (the library's calls are synchronous): the edit's upload (its time less the BVH's),
// the BVH update (EditStats::bvhSeconds), render() (the film stays on the device), the resolve
// (--resolve host: image(), which copies the film out and resolves it on the host; device:
// deviceImage(), the image left on the GPU for a host that displays it from there), and the
// whole frame from the edit's start to the image; median and worst over the frames after the
// first (which pays for the first film's stream).
// --positions host (the default): the host computes the vertices (timed apart, not part of the
// frame) and setMeshPositions uploads them. --positions device (CUDA builds): a CUDA kernel
// computes them into device memory on the host's stream (RenderOptions::cudaStream), and
// setMeshPositionsOnDevice takes them from there; the kernel is part of the frame.
//   animation [--backend cpu|cuda] [--res WxH] [--triangles N] [--frames F] [--update refit|rebuild|auto]
//             [--resolve host|device] [--variant PT-SCHEDULE] [--builder auto|lbvh|ploc] [--kernels]
//             [--positions host|device]
// --kernels lists the last frame's kernels (RenderStats::kernels: the render's, timed on the device).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "../examples/animated_grid.h"
#include "bench_args.h"
#ifdef WAVEFRONT_ANIMATION_ON_DEVICE
#include "animated_grid_device.h"
#endif

using namespace wavefront;

namespace {

double msSince(std::chrono::steady_clock::time_point t) {
    return 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

struct Column {
    const char* name;
    std::vector<double> ms;
    double median() const {
        std::vector<double> v = ms;
        std::sort(v.begin(), v.end());
        const std::size_t n = v.size();
        return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
    }
    double worst() const { return ms.empty() ? 0.0 : *std::max_element(ms.begin(), ms.end()); }
};

}  // namespace

static int run(int argc, char** argv) {
    std::string res = "1920x1080", update = "refit", resolveOn = "host", variant = toString(PtVariant::SptR),
                builder = toString(BvhBuilder::Auto), positionsOn = "host";
    bool kernels = false;
    long long triangles = 1000000;
    int frames = 60;
    BenchArgs args("animation", "Per-frame times of an animated mesh: vertex upload, BVH refit or rebuild, 1-spp PT "
                                "render and resolve");
    args.add("--res", res, "resolution WIDTHxHEIGHT")->check(BenchArgs::validator([](const std::string& r) { parseResolution(r); }));
    args.add("--triangles", triangles, "triangles of the grid (about)")->check(CLI::Range(2LL, 1LL << 28));
    args.addAtLeast("--frames", frames, 2, "frames rendered (the first is not counted)");
    args.add("--update", update, "BVH update per frame: refit, rebuild or auto")
        ->check(BenchArgs::validator([](const std::string& u) { parseBvhUpdate(u); }));
    args.add("--resolve", resolveOn, "where the image is resolved: host (image()) or device (deviceImage())")
        ->check(CLI::IsMember({"host", "device"}));
    args.add("--variant", variant, "the path tracer's schedule")
        ->check(BenchArgs::validator([](const std::string& v) { parsePtVariant(v); }));
    args.add("--builder", builder, "BVH builder of the upload and of every rebuild")
        ->check(BenchArgs::validator([](const std::string& b) { parseBvhBuilder(b); }));
    args.addFlag("--kernels", kernels, "list the last frame's kernels and their device times");
    args.add("--positions", positionsOn, "where each frame's vertices are computed: host (uploaded) or device (a CUDA "
                                         "kernel; setMeshPositionsOnDevice)")
        ->check(CLI::IsMember({"host", "device"}));
    if (auto rc = args.parse(argc, argv)) return *rc;
    const bool onDevice = positionsOn == "device";
#ifndef WAVEFRONT_ANIMATION_ON_DEVICE
    if (onDevice) {
        std::fprintf(stderr, "animation: --positions device needs a build with the CUDA backend\n");
        return 2;
    }
#endif
    const auto [width, height] = parseResolution(res);
    const BvhUpdate bvhUpdate = parseBvhUpdate(update);
    const animation::Grid grid = animation::Grid::withTriangles(triangles);
    RenderOptions o;
    o.backend = args.backend;
    o.width = width;
    o.height = height;
    o.samplesPerPixel = 1;
    o.pt.variant = parsePtVariant(variant);
    o.bvhBuilder = parseBvhBuilder(builder);
#ifdef WAVEFRONT_ANIMATION_ON_DEVICE
    std::unique_ptr<animation::DevicePositions> device;
    if (onDevice) {
        if (o.backend == Backend::Cpu) throw InputError("--positions device needs --backend cuda");
        device = std::make_unique<animation::DevicePositions>(grid);
        o.cudaStream = device->stream();
    }
#endif
    Renderer renderer(grid.scene(), o);
    std::printf("animation: %s, grid %dx%d (%lld triangles), %dx%d at 1 spp, --update %s, %d frames (the first "
                "not counted), resolve on the %s, PT %s, BVH builder %s, positions computed on the %s\n",
                toString(renderer.backend()), grid.columns, grid.rows, (long long)grid.triangles(), width, height,
                update.c_str(), frames, resolveOn.c_str(), variant.c_str(), builder.c_str(), positionsOn.c_str());
    Column host{"host positions", {}}, upload{onDevice ? "positions kernel, copy and check" : "upload", {}}, bvh{"bvh update", {}}, render{"render", {}},
        resolve{resolveOn == "device" ? "resolve (device image)" : "resolve (host image)", {}}, frame{"frame", {}};
    std::vector<glm::vec3> positions;
    int rebuilds = 0;
    for (int f = 1; f <= frames; ++f) {
        auto t = std::chrono::steady_clock::now();
        if (!onDevice) grid.positions(f, positions);
        const double hostMs = msSince(t);
        const auto frameStart = std::chrono::steady_clock::now();
        EditStats e;
#ifdef WAVEFRONT_ANIMATION_ON_DEVICE
        if (onDevice) {
            device->compute(f);
            e = renderer.setMeshPositionsOnDevice(0, device->positions(), grid.vertices(), EditMode::ResetFilm, bvhUpdate);
        }
#endif
        if (!onDevice) e = renderer.setMeshPositions(0, positions, {}, EditMode::ResetFilm, bvhUpdate);
        t = std::chrono::steady_clock::now();
        renderer.render();
        const double renderMs = msSince(t);
        t = std::chrono::steady_clock::now();
        int imageWidth = 0;
        if (resolveOn == "device") imageWidth = renderer.deviceImage().width;
        else imageWidth = renderer.image().width;
#ifdef WAVEFRONT_ANIMATION_ON_DEVICE
        if (device) device->finish();  // with the host's stream deviceImage() does not wait
#endif
        const double resolveMs = msSince(t), frameMs = msSince(frameStart);
        if (imageWidth != width) throw Error("the image has the wrong size");
        rebuilds += e.bvh.find("rebuild") != std::string::npos;
        if (f == 1) continue;
        if (!onDevice) host.ms.push_back(hostMs);
        upload.ms.push_back(1e3 * (e.seconds - e.bvhSeconds));
        bvh.ms.push_back(1e3 * e.bvhSeconds);
        render.ms.push_back(renderMs);
        resolve.ms.push_back(resolveMs);
        frame.ms.push_back(frameMs);
    }
    std::printf("device: %s; BVH rebuilt in %d of %d frames\n\n", renderer.stats().backend.c_str(), rebuilds, frames);
    std::printf("| per frame | median ms | worst ms |\n|---|---|---|\n");
    for (const Column* c : {&upload, &bvh, &render, &resolve, &frame, &host})
        if (!c->ms.empty()) std::printf("| %s | %.3f | %.3f |\n", c->name, c->median(), c->worst());
    if (kernels) {
        const RenderStats st = renderer.stats();
        std::printf("\nthe last frame's render (%s tree): %.3f M extension and %.3f M shadow rays; kernel, launches, "
                    "device ms\n",
                    st.bvhBuilder.c_str(), 1e-6 * double(st.extensionRays), 1e-6 * double(st.shadowRays));
        for (const KernelStats& k : st.kernels)
            std::printf("| %s | %llu | %.3f |\n", k.label.c_str(), (unsigned long long)k.launches, k.milliseconds);
    }
    return 0;
}

int main(int argc, char** argv) { return benchMain("animation", argc, argv, run); }
