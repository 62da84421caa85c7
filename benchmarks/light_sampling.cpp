// Light-selection samplers: build time, memory loads per sample against
// Binder and Keller's Table 1, sampling throughput, and their Figure 9 experiment (quadratic
// deviation of Hammersley points warped to a 2D density; monotonic maps should beat the alias
// table).
//   light_sampling [--backend cuda|cpu] [--quick]
// Markdown tables on stdout.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_args.h"
#include "distribution_oracle.h"
#include "kernels/core/sampler.h"

using namespace wavefront;

namespace {

const LightSampler kSamplers[] = {LightSampler::BinarySearch, LightSampler::GuideTable, LightSampler::RadixForest,
                                  LightSampler::Alias};

const char* samplerLabel(LightSampler s) {
    switch (s) {
    case LightSampler::BinarySearch: return "binary search";
    case LightSampler::GuideTable: return "cutpoint + bisection";
    case LightSampler::RadixForest: return "cutpoint + radix forest";
    default: return "alias (Vose)";
    }
}

/// Light powers spread over three decades, from a hash (reproducible).
std::vector<double> lightPowers(int n) {
    std::vector<double> w(n);
    for (int i = 0; i < n; ++i) w[i] = std::pow(10.0, 3.0 * double(mix64(std::uint64_t(i) + 1) >> 11) / 9007199254740992.0);
    return w;
}

/// 24-bit numbers from the renderer's hash.
std::vector<float> hashedNumbers(int count, std::uint32_t seed) {
    HashSampler s(seed);
    std::vector<float> u(count);
    for (int i = 0; i < count; ++i) u[i] = s.get(std::uint64_t(i), 0);
    return u;
}

float radicalInverse2(std::uint32_t i) {
    std::uint32_t r = 0;
    for (int b = 0; b < 32; ++b) r |= ((i >> b) & 1u) << (31 - b);
    return float(r >> 8) * (1.0f / 16777216.0f);  // 24 bits, like the renderer's numbers
}

std::string formatTime(double ms) {
    char buf[32];
    if (ms < 1.0) std::snprintf(buf, sizeof buf, "%.1f us", ms * 1e3);
    else std::snprintf(buf, sizeof buf, "%.2f ms", ms);
    return buf;
}

void buildTimes(Backend backend, bool quick) {
    bool gpu = backend == Backend::Cuda;
    std::vector<int> sizes = {1000, 100000, 1000000};
    if (!quick) sizes.push_back(10000000);
    std::printf("## Build time (best of %d after a warm-up; weights already on the backend; exec synchronised)\n\n",
                gpu ? 20 : 3);
    std::printf("Goal: 100k lights in under 20 us on an H100/H200 (the CDF blog reports 54 us on an RTX 3080).\n");
    std::printf("The alias table is built on the host (Vose is sequential): download, build, upload.\n\n");
    if (gpu)
        std::printf("Each cell: wall clock of build + synchronise (host launches, allocator, sync included) / GPU time "
                    "(the same build enqueued behind a spinning kernel: its kernels back to back, the cost on the GPU "
                    "timeline when the host runs ahead as in the renderer).\n\n");
    std::printf("| lights |");
    for (LightSampler s : kSamplers) std::printf(" %s |", samplerLabel(s));
    std::printf("\n|---:|---:|---:|---:|---:|\n");
    std::vector<std::vector<KernelStats>> stages100k;
    for (int n : sizes) {
        std::vector<double> w = lightPowers(n);
        std::printf("| %d |", n);
        for (LightSampler s : kSamplers) {
            int reps = gpu ? 20 : (n >= 1000000 ? 2 : 3);
            if (s == LightSampler::Alias && n >= 1000000) reps = 2;
            DistributionSnapshot snap = buildDistribution(backend, w, n, 1, s, 0, reps);
            std::string cell = formatTime(snap.buildMilliseconds);
            if (gpu && s != LightSampler::Alias) cell += " / " + formatTime(snap.gpuMilliseconds);
            std::printf(" %s |", cell.c_str());
            std::fflush(stdout);
            if (n == 100000 && s != LightSampler::Alias) stages100k.push_back(snap.stages);
        }
        std::printf("\n");
    }
    std::printf("\nStages of the 100k builds (%s):\n\n", gpu ? "CUDA events, kernels back to back" : "wall clock");
    std::printf("| stage | binary search | cutpoint + bisection | cutpoint + radix forest |\n|---|---:|---:|---:|\n");
    std::vector<std::string> labels;
    for (const auto& st : stages100k)
        for (const KernelStats& k : st)
            if (std::find(labels.begin(), labels.end(), k.label) == labels.end()) labels.push_back(k.label);
    for (const std::string& label : labels) {
        std::printf("| %s |", label.c_str());
        for (const auto& st : stages100k) {
            auto it = std::find_if(st.begin(), st.end(), [&](const KernelStats& k) { return k.label == label; });
            std::printf(" %s |", it == st.end() ? "-" : formatTime(it->milliseconds).c_str());
        }
        std::printf("\n");
    }
    std::printf("\n");
}

void loadTable(Backend backend) {
    // Binder and Keller, "Massively Parallel Construction of Radix Tree Forests for the Efficient
    // Sampling of Discrete or Piecewise Constant Probability Distributions", Table 1:
    // {maximum, average, average_32} for cutpoint + binary search and cutpoint + radix forest.
    const double paper[4][2][3] = {{{8, 1.25, 3.66}, {16, 1.23, 3.46}},
                                   {{6, 1.30, 4.62}, {13, 1.22, 3.72}},
                                   {{7, 1.19, 4.33}, {13, 1.11, 2.46}},
                                   {{4, 1.60, 3.98}, {5, 1.67, 4.93}}};
    const int n = 1024, samples = 1 << 20;
    std::printf("## Memory loads per sample (paper Table 1)\n\n");
    std::printf("n = %d entries, guide table of m = n cells, 2^20 hashed 24-bit numbers, sampled on the %s backend. "
                "A load is one element of the cdf, guide, forest-node (split and children interleaved, 16 bytes) or "
                "alias array read to find the entry; the remap's two cdf reads are not counted. Cutpoint + "
                "bisection reads the cell's guide entry (a cell inside one entry is flagged there and costs 1), "
                "else also the next cell's entry as the upper bound, then bisects. average_32: mean over groups of 32 "
                "consecutive samples of the group's maximum (a warp waits for its slowest lane). Paper columns: "
                "Binder and Keller, Table 1 (their n and table size are not stated, their load counting may differ).\n\n",
                n, backend == Backend::Cuda ? "CUDA" : "CPU");
    std::vector<float> us = hashedNumbers(samples, 1);
    for (int p = 0; p < 4; ++p) {
        std::vector<double> w = paperDistribution(p, n);
        std::printf("**%s**\n\n| method | maximum | average | average_32 | tree depth | paper maximum | paper average | paper average_32 |\n"
                    "|---|---:|---:|---:|---:|---:|---:|---:|\n",
                    paperDistributionName(p));
        for (LightSampler s : kSamplers) {
            DistributionSamples r = sampleDistribution(backend, w, n, 1, s, 0, us, {}, true);
            LoadStats st = loadStatistics(r.loads);
            std::string depth = "-";
            if (s == LightSampler::RadixForest) depth = std::to_string(forestDepth(buildDistribution(backend, w, n, 1, s)));
            std::printf("| %s | %d | %.2f | %.2f | %s |", samplerLabel(s), st.maximum, st.average, st.average32, depth.c_str());
            int row = s == LightSampler::GuideTable ? 0 : (s == LightSampler::RadixForest ? 1 : -1);
            if (row >= 0) std::printf(" %.0f | %.2f | %.2f |\n", paper[p][row][0], paper[p][row][1], paper[p][row][2]);
            else std::printf(" - | - | - |\n");
        }
        std::printf("\n");
    }
}

void throughput(Backend backend, bool quick) {
    bool gpu = backend == Backend::Cuda;
    int samples = gpu ? (1 << 24) : (1 << 21);
    std::printf("## Sampling throughput (%d samples per launch, one hashed number per thread, best of %d)\n\n",
                samples, gpu ? 10 : 2);
    std::printf("| distribution | entries |");
    for (LightSampler s : kSamplers) std::printf(" %s |", samplerLabel(s));
    std::printf("\n|---|---:|---:|---:|---:|---:|\n");
    struct Case { std::string name; std::vector<double> w; };
    std::vector<Case> cases;
    for (int n : quick ? std::vector<int>{1000000} : std::vector<int>{100000, 1000000, 10000000})
        cases.push_back({"3 decades, random", lightPowers(n)});
    cases.push_back({paperDistributionName(0), paperDistribution(0, 1 << 20)});
    cases.push_back({paperDistributionName(3), paperDistribution(3, 1 << 20)});
    for (const Case& c : cases) {
        int n = int(c.w.size());
        std::printf("| %s | %d |", c.name.c_str(), n);
        for (LightSampler s : kSamplers) {
            double rate = samplingRate(backend, c.w, n, s, 0, samples, gpu ? 10 : 2);
            std::printf(" %.2f G/s |", rate * 1e-9);
            std::fflush(stdout);
        }
        std::printf("\n");
    }
    std::printf("\n");
}

/// Figure 9: quadratic deviation sum_i (c_i / N - p_i)^2 of N two-dimensional Hammersley points
/// (i / N, radical inverse of i) warped to a 2D density: the first number picks the row from the
/// marginal, the second the column from that row's conditional.
void figure9(Backend backend, bool quick) {
    const int width = 128, height = 64;
    std::vector<double> image(std::size_t(width) * height), rows(height, 0.0);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double sky = 0.2 + std::sin(3.14159265 * (y + 0.5) / height) * (1.0 + 0.5 * std::cos(6.2831853 * x / width));
            double dx = x - 90.5, dy = y - 20.5;
            double sun = 400.0 * std::exp(-(dx * dx + dy * dy) / 8.0);
            double texture = 0.3 * double(mix64(std::uint64_t(y) * width + x) >> 40) / 16777216.0;
            image[std::size_t(y) * width + x] = sky + sun + texture;
            rows[y] += image[std::size_t(y) * width + x];
        }
    double total = 0.0;
    for (double r : rows) total += r;
    std::printf("## Quadratic deviation of warped Hammersley points (paper Figure 9)\n\n");
    std::printf("A %d x %d density (sky gradient, a sun 400x brighter, texture): rows from the marginal, then "
                "columns from the row's conditional, both sampled on the %s backend. Deviation = sum over pixels of "
                "(c_i / N - p_i)^2. The three monotonic samplers map every point identically; the alias table does "
                "not preserve the points' stratification.\n\n",
                width, height, backend == Backend::Cuda ? "CUDA" : "CPU");
    std::printf("| N | binary search | cutpoint + bisection | cutpoint + radix forest | alias (Vose) | alias / monotonic |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|\n");
    int maxLog = quick ? 18 : 22;
    for (int logN = 10; logN <= maxLog; logN += 2) {
        int N = 1 << logN;
        std::vector<float> ux(N), uy(N);
        for (int i = 0; i < N; ++i) {
            ux[i] = float(i) / float(N);
            uy[i] = radicalInverse2(std::uint32_t(i));
        }
        double dev[4];
        for (int k = 0; k < 4; ++k) {
            LightSampler s = kSamplers[k];
            DistributionSamples r = sampleDistribution(backend, rows, height, 1, s, 0, ux);
            std::vector<int> rowOf(N);
            for (int i = 0; i < N; ++i) rowOf[i] = r.samples[i].index;
            DistributionSamples c = sampleDistribution(backend, image, width, height, s, 0, uy, rowOf);
            std::vector<double> counts(image.size(), 0.0);
            for (int i = 0; i < N; ++i) counts[std::size_t(rowOf[i]) * width + c.samples[i].index] += 1.0;
            double e = 0.0;
            for (std::size_t p = 0; p < image.size(); ++p) {
                double d = counts[p] / N - image[p] / total;
                e += d * d;
            }
            dev[k] = e;
        }
        std::printf("| 2^%d | %.3e | %.3e | %.3e | %.3e | %.2f |\n", logN, dev[0], dev[1], dev[2], dev[3], dev[3] / dev[0]);
    }
    std::printf("\n");
}

}  // namespace

static int run(int argc, char** argv) {
    bool quick = false;
    int profileLights = 0;
    BenchArgs args("light_sampling", "Light-selection samplers: build time, memory loads per sample (Binder and Keller, "
                                     "Table 1), sampling throughput, Figure 9; Markdown tables on stdout");
    args.addFlag("--quick", quick, "smaller sizes: no 10M-light build, one throughput size, N up to 2^18 in Figure 9");
    args.add("--profile-build", profileLights, "only build LIGHTS lights, 50 times per sampler, for a profiler (0: off)")
        ->type_name("LIGHTS");
    if (auto rc = args.parse(argc, argv)) return *rc;
    Backend backend = args.backend;
    if (profileLights > 0) {
        // Only builds, for a profiler's timeline: 50 of each sampler but the alias table.
        std::vector<double> w = lightPowers(profileLights);
        for (LightSampler s : {LightSampler::BinarySearch, LightSampler::GuideTable, LightSampler::RadixForest}) {
            DistributionSnapshot snap = buildDistribution(backend, w, profileLights, 1, s, 0, 50);
            std::printf("%s: %s wall, %s GPU\n", samplerLabel(s), formatTime(snap.buildMilliseconds).c_str(),
                        formatTime(snap.gpuMilliseconds).c_str());
        }
        return 0;
    }
    std::printf("# Light sampling (%s backend%s)\n\n", backend == Backend::Cuda ? "CUDA" : "CPU", quick ? ", quick" : "");
    buildTimes(backend, quick);
    loadTable(backend);
    throughput(backend, quick);
    figure9(backend, quick);
    return 0;
}

int main(int argc, char** argv) { return benchMain("light_sampling", argc, argv, run); }
