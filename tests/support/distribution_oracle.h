// Internal entry points for tests and benchmarks: build a Distribution or sample it on a chosen
// backend with the library's own code, and copy the results back.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/lights/distribution.h"
#include "wavefront/renderer.h"

namespace wavefront {

/// Host copies of everything a Distribution built.
struct DistributionSnapshot {
    int n = 0, count = 0, guideSize = 0;
    LightSampler kind = LightSampler::BinarySearch;
    std::vector<float> cdf, pmf;
    std::vector<int> guide;          ///< count x (guideSize + 1), GuideTable and RadixForest
    std::vector<ForestNode> nodes;   ///< RadixForest
    std::vector<AliasEntry> alias;   ///< Alias
    double buildMilliseconds = 0.0;  ///< build only (weights already on the backend), exec synchronised; best of the timed runs
    /// CUDA: the build's kernels enqueued behind a spinning kernel, so their event times add up to
    /// GPU time without host launch gaps (the cost on the GPU timeline when the host runs ahead,
    /// as in the renderer); 0 on the CPU and for Alias (its host round trip synchronises).
    double gpuMilliseconds = 0.0;
    std::vector<KernelStats> stages; ///< per-stage times of the last build (back to back on CUDA)

    /// A view over the host copies: sampling it on the host runs the same code as the kernels.
    DistributionView view() const {
        auto ptr = [](const auto& v) { return v.empty() ? nullptr : v.data(); };
        return DistributionView{n, count, SamplingMethod(int(kind)), cdf.data(), pmf.data(), guideSize, ptr(guide), ptr(nodes), ptr(alias)};
    }
};

/// Builds `count` distributions of `n` entries from `weights` (count x n) on `backend`. With
/// repetitions > 1 the first build is a warm-up and buildMilliseconds is the best of the rest.
DistributionSnapshot buildDistribution(Backend backend, const std::vector<double>& weights, int n, int count,
                                       LightSampler kind, int guideSize = 0, int repetitions = 1);

struct DistributionSamples {
    std::vector<DistributionSample> samples;
    std::vector<int> loads;      ///< search loads per sample, when counted
    double milliseconds = 0.0;   ///< the sampling kernel alone, exec synchronised
};

/// Samples distribution distributions[i] (0 when empty) with us[i] on `backend`.
DistributionSamples sampleDistribution(Backend backend, const std::vector<double>& weights, int n, int count,
                                       LightSampler kind, int guideSize, const std::vector<float>& us,
                                       const std::vector<int>& distributions = {}, bool countLoads = false);

/// Samples per second of distribution 0 with one hashed 24-bit u per thread (as the renderer's
/// sampler makes them), best of `repetitions` launches of `samples` threads after a warm-up.
double samplingRate(Backend backend, const std::vector<double>& weights, int n, LightSampler kind, int guideSize,
                    int samples, int repetitions);

/// Loads per sample: the maximum, the average, and the average over groups of 32 consecutive
/// samples of each group's maximum (a warp waits for its slowest lane; paper Table 1 "average_32").
struct LoadStats {
    int maximum = 0;
    double average = 0.0, average32 = 0.0;
};
inline LoadStats loadStatistics(const std::vector<int>& loads) {
    LoadStats s;
    if (loads.empty()) return s;
    double sum = 0.0, groupSum = 0.0;
    int groups = 0;
    for (std::size_t i = 0; i < loads.size(); i += 32) {
        int worst = 0;
        for (std::size_t j = i; j < std::min(loads.size(), i + 32); ++j) {
            worst = std::max(worst, loads[j]);
            sum += loads[j];
        }
        groupSum += worst;
        ++groups;
        s.maximum = std::max(s.maximum, worst);
    }
    s.average = sum / double(loads.size());
    s.average32 = groupSum / groups;
    return s;
}

/// The four distributions of Binder and Keller's Table 1 (their Fig. 12), unnormalised, i = 1..n:
/// 0: p_i ~ i^20, 1: p_i ~ (i mod 32 + 1)^25, 2: p_i ~ (i mod 64 + 1)^35, 3: "4 spikes" (uniform
/// entries plus four spikes at n/8, 3n/8, 5n/8, 7n/8 that carry a third of the total).
inline std::vector<double> paperDistribution(int which, int n) {
    std::vector<double> w(n);
    for (int k = 0; k < n; ++k) {
        double i = k + 1;
        switch (which) {
        case 0: w[k] = std::pow(i / n, 20.0); break;
        case 1: w[k] = std::pow((k + 1) % 32 + 1, 25.0) / std::pow(32.0, 25.0); break;
        case 2: w[k] = std::pow((k + 1) % 64 + 1, 35.0) / std::pow(64.0, 35.0); break;
        default: w[k] = 1.0; break;
        }
    }
    if (which == 3)
        for (int s = 0; s < 4; ++s) w[std::min(n - 1, (2 * s + 1) * n / 8)] = 0.125 * n;
    return w;
}
inline const char* paperDistributionName(int which) {
    static const char* names[] = {"p_i ~ i^20", "p_i ~ (i mod 32 + 1)^25", "p_i ~ (i mod 64 + 1)^35", "4 spikes"};
    return names[which];
}

/// Structural check of a RadixForest snapshot: every split equals its entry's lower bound, every
/// subtree covers a contiguous range split at its node, every cell's guide names the tree over
/// exactly the entries whose lower bound lies in the cell (or the one entry covering the cell),
/// every entry is reachable. Empty when valid, else the first problem.
std::string validateForest(const DistributionSnapshot& s);
/// Guide-table check: every cell's entry is where its first number maps, flagged cells hold one entry.
std::string validateGuideTable(const DistributionSnapshot& s);
/// Most tree steps any number in [0, 1) takes below its guide entry (0: every cell is resolved by the table).
int forestDepth(const DistributionSnapshot& s);
/// The probabilities an Alias snapshot really samples distribution d with (u continuous).
std::vector<double> aliasProbabilities(const DistributionSnapshot& s, int d);

}  // namespace wavefront
