// BDPT schedules (van Antwerpen 2011, Tables 3 to 6):
//   bdpt [--backend cuda|cpu] [--scenes a,b,...] [--res WxH] [--spp N] [--max-depth N]
//        [--capacity N] [--thresholds 1.0,0.6] [--naive 0|1] [--coalesced both|on|off] [--repeat N]
// Per scene: samples/s of the naive version and of the streaming version at each connect
// threshold (Table 5); SIMD occupancy of the random-walk and connect phases (Table 3: needs a
// WAVEFRONT_STATS build); the time split between the phases (Table 4); bytes per sample slot
// (Table 6). Each configuration renders --repeat times (default 3) after a warm-up; the row is the
// median run by samples/s. --coalesced both also runs the streaming version without the warp-transposed vertex
// writes, to measure them.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_args.h"
#include "wavefront/wavefront.h"

using namespace wavefront;

static std::string percent(double v) {
    char b[16] = "-";
    if (v >= 0) std::snprintf(b, sizeof b, "%.1f%%", 100.0 * v);
    return b;
}

/// Kernels of the connect phase; everything else (generation, walks, their shadow rays) is the
/// random-walk phase.
static bool connectPhaseKernel(const std::string& label) {
    return label == "bdpt count" || label == "inclusive scan" || label == "bdpt connect";
}

/// A connect threshold: a number in (0, 1].
static void checkThreshold(const std::string& t) {
    std::size_t end = 0;
    float v = -1.0f;
    try {
        v = std::stof(t, &end);
    } catch (const std::exception&) {
    }
    if (end != t.size() || !(v > 0.0f && v <= 1.0f))
        throw InputError("connect threshold '" + t + "' is not a number in (0, 1]");
}

static int run(int argc, char** argv) {
    std::vector<std::string> scenes = {"cornell-box", "cornell-spheres", "cornell-glossy", "glass-caustic"};
    std::vector<std::string> thresholds = {"1.0", "0.6"};
    int width = 1024, height = 1024, spp = 64, maxDepth = 16, capacity = 0, repeat = 3;
    bool naive = true;
    std::string coalesced = "on";
    BenchArgs args("bdpt", "BDPT schedules (van Antwerpen 2011, Tables 3 to 6): samples/s, SIMD occupancy, time "
                           "split, bytes per sample slot");
    args.addRenderOptions(scenes, width, height, spp, maxDepth);
    args.add("--capacity", capacity, "sample slots per stream (0: fill the device)");
    args.addList("--thresholds", thresholds, "streaming version's connect thresholds, each in (0, 1]", checkThreshold);
    args.addSwitch("--naive", naive, "also run the naive version");
    args.addChoice("--coalesced", coalesced, {"both", "on", "off"},
                   "streaming version with warp-transposed vertex writes (on), without (off), or both");
    args.addAtLeast("--repeat", repeat, 1, "renders per configuration after a warm-up; the row is the median");
    if (auto rc = args.parse(argc, argv)) return *rc;
    Backend backend = args.backend;
    struct Config {
        BdptVariant variant;
        float threshold;
        bool coalesced;
        std::string name;
    };
    std::vector<Config> configs;
    if (naive) configs.push_back({BdptVariant::Naive, 0.0f, true, "naive"});
    for (const std::string& t : thresholds) {
        if (coalesced != "off") configs.push_back({BdptVariant::Streaming, std::stof(t), true, "streaming " + t});
        if (coalesced != "on")
            configs.push_back({BdptVariant::Streaming, std::stof(t), false, "streaming " + t + " uncoalesced"});
    }
    std::printf("| scene | schedule | res | spp | depth | M samples/s (min-max) | s | SIMD walk | SIMD connect | walk / connect time | "
                "connections/sample | connect phases | slots | bytes/slot | kernels |\n");
    std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|\n");
    for (const std::string& name : scenes) {
        Scene scene = Scene::builtin(name);
        for (const Config& cfg : configs) {
            RenderOptions o;
            o.integrator = IntegratorType::Bdpt;
            o.backend = backend;
            o.bdpt.variant = cfg.variant;
            // The naive version has no connect phase: its threshold stays unset (validate refuses one).
            if (cfg.variant == BdptVariant::Streaming) o.bdpt.connectThreshold = cfg.threshold;
            o.bdpt.coalescedVertexWrites = cfg.coalesced;
            o.width = width;
            o.height = height;
            o.samplesPerPixel = spp;
            o.maxDepth = maxDepth;
            o.streamCapacity = capacity;
            {  // warm-up: module load, first-touch allocations
                RenderOptions w = o;
                w.samplesPerPixel = 1;
                Renderer warm(scene, w);
                warm.render();
            }
            std::vector<RenderStats> runs;
            for (int k = 0; k < repeat; ++k) {
                Renderer r(scene, o);
                r.render();
                runs.push_back(r.stats());
            }
            std::sort(runs.begin(), runs.end(),
                      [](const RenderStats& a, const RenderStats& b) { return a.samplesPerSecond() < b.samplesPerSecond(); });
            const RenderStats& st = runs[runs.size() / 2];
            std::string range;
            if (runs.size() > 1) {
                char b[64];
                std::snprintf(b, sizeof b, " (%.1f-%.1f)", runs.front().samplesPerSecond() * 1e-6,
                              runs.back().samplesPerSecond() * 1e-6);
                range = b;
            }
            double walk = 0.0, connect = 0.0;
            std::string kernels;
            for (auto& k : st.kernels) {
                (connectPhaseKernel(k.label) ? connect : walk) += k.milliseconds;
                char buf[160];
                std::snprintf(buf, sizeof buf, "%s %.1f ms%s%s; ", k.label.c_str(), k.milliseconds,
                              k.simdOccupancy >= 0 ? (" occ " + percent(k.simdOccupancy)).c_str() : "",
                              k.simdEfficiency >= 0 ? (" steps " + percent(k.simdEfficiency)).c_str() : "");
                kernels += buf;
            }
            double total = walk + connect;
            char split[64];
            std::snprintf(split, sizeof split, "%.1f%% / %.1f%%", 100 * walk / total, 100 * connect / total);
            std::printf("| %s | %s | %dx%d | %d | %d | %.2f%s | %.3f | %s | %s | %s | %.2f | %llu | %d | %llu | %s|\n",
                        name.c_str(), cfg.name.c_str(), o.width, o.height, o.samplesPerPixel, o.maxDepth,
                        st.samplesPerSecond() * 1e-6, range.c_str(), st.seconds, percent(st.bdpt.walkSimdEfficiency).c_str(),
                        percent(st.bdpt.connectSimdEfficiency).c_str(), split, double(st.bdpt.connections) / double(st.samples),
                        (unsigned long long)st.bdpt.connectPhases, st.streamCapacity,
                        (unsigned long long)st.bytesPerSampleSlot, kernels.c_str());
            std::fflush(stdout);
        }
    }
    return 0;
}

int main(int argc, char** argv) { return benchMain("bdpt", argc, argv, run); }
