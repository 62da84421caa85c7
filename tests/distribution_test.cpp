// Discrete distributions: every sampler draws its distribution (chi-square), the three monotonic
// ones agree index for index, the radix forest and the guide table are structurally valid, a
// batched build equals separate builds, tiny lights keep their probability, CPU equals CUDA.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "distribution_oracle.h"
#include "test_support.h"

using namespace wavefront;

namespace {

const LightSampler kAllSamplers[] = {LightSampler::BinarySearch, LightSampler::GuideTable, LightSampler::RadixForest,
                                     LightSampler::Alias};
const LightSampler kMonotonic[] = {LightSampler::BinarySearch, LightSampler::GuideTable, LightSampler::RadixForest};

/// Numbers on the renderer's 24-bit grid, from a fixed seed.
std::vector<float> uniformNumbers(int count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<float> u(count);
    for (float& x : u) x = float(rng() >> 40) * (1.0f / 16777216.0f);
    return u;
}

struct NamedWeights {
    std::string name;
    std::vector<double> w;
};

/// The paper's four plus shapes that stress the edges: zero runs, leading and trailing zeros,
/// one huge entry, tiny n, all zero.
std::vector<NamedWeights> testDistributions() {
    std::vector<NamedWeights> d;
    for (int p = 0; p < 4; ++p) d.push_back({paperDistributionName(p), paperDistribution(p, 1024)});
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> r(0.0, 1.0);
    std::vector<double> random(1000);
    for (double& x : random) x = std::exp(12.0 * r(rng));  // five orders of magnitude
    d.push_back({"random (5 decades)", random});
    std::vector<double> zeros(777);
    for (int i = 0; i < 777; ++i) zeros[i] = (i < 20 || i > 760 || (i / 37) % 3 == 1) ? 0.0 : 1.0 + (i % 5);
    d.push_back({"zero runs, leading and trailing zeros", zeros});
    std::vector<double> huge(500, 1e-6);
    huge[250] = 1e6;
    d.push_back({"one entry with almost everything", huge});
    d.push_back({"n = 1", {3.0}});
    d.push_back({"n = 2", {1.0, 3.0}});
    d.push_back({"n = 5", {0.0, 2.0, 0.0, 1.0, 5.0}});
    d.push_back({"all zero", std::vector<double>(64, 0.0)});
    return d;
}

std::vector<double> normalised(const std::vector<double>& w) {
    double s = 0.0;
    for (double x : w) s += x;
    std::vector<double> p(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) p[i] = s > 0.0 ? w[i] / s : 1.0 / w.size();
    return p;
}

/// Pearson's statistic with consecutive bins merged until each expects at least 5 (the remainder
/// joins the last bin); returns false when it exceeds dof + 6 sqrt(2 dof) (+ 10 for small dof,
/// whose tail is heavier): far beyond chance with fixed seeds, far below a wrong sampler.
bool chiSquarePasses(const std::vector<int>& counts, const std::vector<double>& p, std::string& report) {
    double total = 0.0;
    for (int c : counts) total += c;
    std::vector<double> observed, expected;
    double o = 0.0, e = 0.0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        o += counts[i];
        e += p[i] * total;
        if (e >= 5.0) {
            observed.push_back(o);
            expected.push_back(e);
            o = e = 0.0;
        }
    }
    if (!expected.empty()) {
        observed.back() += o;
        expected.back() += e;
    } else {
        observed.push_back(o);
        expected.push_back(e);
    }
    double chi2 = 0.0;
    for (std::size_t b = 0; b < expected.size(); ++b) chi2 += (observed[b] - expected[b]) * (observed[b] - expected[b]) / expected[b];
    int dof = std::max(1, int(expected.size()) - 1);
    double bound = dof + 6.0 * std::sqrt(2.0 * dof) + 10.0;
    report = "chi2 " + std::to_string(chi2) + " with " + std::to_string(dof) + " dof, bound " + std::to_string(bound);
    return chi2 <= bound;
}

std::vector<int> histogram(const DistributionSamples& s, int n) {
    std::vector<int> counts(n, 0);
    for (const DistributionSample& x : s.samples) counts[x.index]++;
    return counts;
}

/// The index cdf[i - 1] <= u < cdf[i] by brute force (u clamped to [0, 1) like the samplers).
int referenceIndex(const std::vector<float>& cdf, std::size_t first, int n, float u) {
    u = std::min(std::max(u, 0.0f), distribution::kOneMinusEpsilon);
    auto begin = cdf.begin() + first;
    return int(std::min<std::ptrdiff_t>(std::upper_bound(begin, begin + n, u) - begin, n - 1));
}

/// Random numbers plus the edges: 0, the largest float below 1, every cdf value, the floats just
/// below and above it, and every guide cell's first float and its predecessor.
std::vector<float> edgeNumbers(const std::vector<float>& cdf, int m, int random, std::uint64_t seed) {
    std::vector<float> u = uniformNumbers(random, seed);
    u.push_back(0.0f);
    u.push_back(distribution::kOneMinusEpsilon);
    for (float c : cdf) {
        u.push_back(c);
        if (c > 0.0f) u.push_back(distribution::nextFloatDown(c));
        if (c < 1.0f) u.push_back(distribution::nextFloatUp(c));
    }
    for (int c = 1; c < m; ++c) {
        float t = distribution::cellStart(c, m);
        u.push_back(t);
        u.push_back(distribution::nextFloatDown(t));
    }
    return u;
}

void checkChiSquare(Backend backend) {
    const int kSamples = 1000000;
    std::vector<float> us = uniformNumbers(kSamples, 42);
    for (const NamedWeights& d : testDistributions()) {
        int n = int(d.w.size());
        std::vector<double> p = normalised(d.w);
        for (LightSampler s : kAllSamplers) {
            DistributionSamples r = sampleDistribution(backend, d.w, n, 1, s, 0, us);
            std::string report;
            bool ok = chiSquarePasses(histogram(r, n), p, report);
            INFO(d.name << ", " << toString(s) << ": " << report);
            CHECK(ok);
            bool remapOk = true;
            for (const DistributionSample& x : r.samples) remapOk &= x.remapped >= 0.0f && x.remapped < 1.0f;
            CHECK(remapOk);
        }
    }
}

}  // namespace

TEST_CASE("the chi-square check rejects a wrong distribution", "[distribution]") {
    std::vector<double> w = paperDistribution(3, 1024);
    DistributionSamples r = sampleDistribution(Backend::Cpu, w, 1024, 1, LightSampler::BinarySearch, 0,
                                               uniformNumbers(1000000, 42));
    std::vector<double> p = normalised(w);
    std::string report;
    CHECK(chiSquarePasses(histogram(r, 1024), p, report));
    // Move 2% of one spike's probability to its neighbour: the test must notice.
    int spike = 1024 / 8;
    double moved = 0.02 * p[spike];
    p[spike] -= moved;
    p[spike + 1] += moved;
    CHECK_FALSE(chiSquarePasses(histogram(r, 1024), p, report));
}

TEST_CASE("every sampler draws its distribution (chi-square on 1e6 samples)", "[distribution][gpu]") {
    Backend backend = GENERATE(from_range(wftest::testBackends()));
    INFO(toString(backend));
    checkChiSquare(backend);
}

TEST_CASE("the monotonic samplers return the same index for the same number", "[distribution]") {
    for (const NamedWeights& d : testDistributions()) {
        int n = int(d.w.size());
        for (int m : {0, 1, 3, n / 4 + 1, 4 * n + 3}) {
            DistributionSnapshot snap = buildDistribution(Backend::Cpu, d.w, n, 1, LightSampler::GuideTable, m);
            std::vector<float> us = edgeNumbers(snap.cdf, snap.guideSize, 100000, 9);
            std::vector<DistributionSamples> results;
            for (LightSampler s : kMonotonic) results.push_back(sampleDistribution(Backend::Cpu, d.w, n, 1, s, m, us));
            int mismatches = 0, wrong = 0;
            for (std::size_t i = 0; i < us.size(); ++i) {
                const DistributionSample& b = results[0].samples[i];
                wrong += b.index != referenceIndex(snap.cdf, 0, n, us[i]);
                for (int k = 1; k < 3; ++k) {
                    const DistributionSample& x = results[k].samples[i];
                    mismatches += x.index != b.index || x.pmf != b.pmf || x.remapped != b.remapped;
                }
            }
            INFO(d.name << ", guide size " << snap.guideSize);
            CHECK(wrong == 0);
            CHECK(mismatches == 0);
        }
    }
}

TEST_CASE("the radix forest and the guide table are structurally valid", "[distribution]") {
    for (const NamedWeights& d : testDistributions()) {
        int n = int(d.w.size());
        for (int m : {0, 1, 2, 7, n / 3 + 1, 2 * n, 16 * n}) {
            DistributionSnapshot forest = buildDistribution(Backend::Cpu, d.w, n, 1, LightSampler::RadixForest, m);
            DistributionSnapshot guide = buildDistribution(Backend::Cpu, d.w, n, 1, LightSampler::GuideTable, m);
            INFO(d.name << ", guide size " << forest.guideSize);
            CHECK(validateForest(forest) == "");
            CHECK(validateGuideTable(guide) == "");
            CHECK(forestDepth(forest) <= 64);
        }
    }
    // Rebuilding into the same arrays (the merge slots are not re-initialised) stays valid.
    std::vector<double> three;
    for (int p = 0; p < 3; ++p) {
        std::vector<double> w = paperDistribution(p, 1000);
        three.insert(three.end(), w.begin(), w.end());
    }
    DistributionSnapshot rebuilt = buildDistribution(Backend::Cpu, three, 1000, 3, LightSampler::RadixForest, 0, 3);
    CHECK(validateForest(rebuilt) == "");
    // The validator notices a broken forest.
    DistributionSnapshot forest = buildDistribution(Backend::Cpu, paperDistribution(0, 1024), 1024, 1, LightSampler::RadixForest);
    REQUIRE(validateForest(forest) == "");
    for (ForestNode& node : forest.nodes)
        if (node.child[0] >= 0 && node.child[1] >= 0) {
            std::swap(node.child[0], node.child[1]);
            break;
        }
    CHECK(validateForest(forest) != "");
}

TEST_CASE("large builds (guide cells in a second launch) are valid and agree with bisection", "[distribution]") {
    // 150 rows x 1200 entries plus as many cells is above kOneLaunch: the cells read the stored CDF.
    const int n = 1200, count = 150;
    REQUIRE(std::size_t(2) * n * count > distribution::kOneLaunch);
    std::mt19937_64 rng(31);
    std::vector<double> w(std::size_t(n) * count);
    for (double& x : w) x = std::pow(10.0, 3.0 * double(rng() >> 11) / 9007199254740992.0) * double((rng() & 15) != 0);
    std::vector<float> us = uniformNumbers(200000, 37);
    std::vector<int> ds(us.size());
    for (std::size_t i = 0; i < us.size(); ++i) ds[i] = int(i * 7 % count);
    DistributionSnapshot forest = buildDistribution(Backend::Cpu, w, n, count, LightSampler::RadixForest);
    DistributionSnapshot guide = buildDistribution(Backend::Cpu, w, n, count, LightSampler::GuideTable);
    CHECK(validateForest(forest) == "");
    CHECK(validateGuideTable(guide) == "");
    DistributionSamples reference = sampleDistribution(Backend::Cpu, w, n, count, LightSampler::BinarySearch, 0, us, ds);
    for (LightSampler s : {LightSampler::GuideTable, LightSampler::RadixForest}) {
        DistributionSamples r = sampleDistribution(Backend::Cpu, w, n, count, s, 0, us, ds);
        int mismatches = 0;
        for (std::size_t i = 0; i < us.size(); ++i) mismatches += r.samples[i].index != reference.samples[i].index;
        INFO(toString(s));
        CHECK(mismatches == 0);
    }
}

TEST_CASE("a batched build of several distributions equals building each alone", "[distribution]") {
    // Integer weights: every double partial sum is exact, so the batched scan (sums carried
    // across rows) and separate scans give the same bits. For general weights the batched sums
    // carry the earlier rows' rounding (relative 1e-16 x prefix / row total), checked below to
    // stay within an ulp of the float CDF.
    const int n = 300, count = 7;
    std::mt19937_64 rng(3);
    std::vector<double> w(std::size_t(n) * count), general(w.size());
    for (int d = 0; d < count; ++d)
        for (int i = 0; i < n; ++i) {
            std::size_t k = std::size_t(d) * n + i;
            std::uint64_t r = rng();
            double scale = d == 2 ? 0.0 : (d == 4 ? 1 << 20 : 1 + d);  // row 2 all zero, row 4 much brighter
            w[k] = (d == 5 && i % 3) ? 0.0 : double(r % 1000) * scale;
            general[k] = double(r % 100000) / 997.0 * (1 + d);
        }
    std::vector<int> ds;
    std::vector<float> us = uniformNumbers(20000, 5);
    for (std::size_t i = 0; i < us.size(); ++i) ds.push_back(int(i % count));
    for (LightSampler s : kAllSamplers) {
        INFO(toString(s));
        DistributionSnapshot batched = buildDistribution(Backend::Cpu, w, n, count, s, 0);
        if (s == LightSampler::RadixForest) CHECK(validateForest(batched) == "");
        if (s == LightSampler::GuideTable) CHECK(validateGuideTable(batched) == "");
        DistributionSamples batchedSamples = sampleDistribution(Backend::Cpu, w, n, count, s, 0, us, ds);
        for (int d = 0; d < count; ++d) {
            std::vector<double> row(w.begin() + std::size_t(d) * n, w.begin() + std::size_t(d + 1) * n);
            DistributionSnapshot alone = buildDistribution(Backend::Cpu, row, n, 1, s, 0);
            INFO("row " << d);
            auto slice = [&](const auto& v, std::size_t per) {
                using T = typename std::decay_t<decltype(v)>::value_type;
                if (v.empty()) return std::vector<T>();
                return std::vector<T>(v.begin() + std::size_t(d) * per, v.begin() + std::size_t(d + 1) * per);
            };
            CHECK(slice(batched.cdf, n) == alone.cdf);
            CHECK(slice(batched.pmf, n) == alone.pmf);
            CHECK(slice(batched.guide, batched.guideSize + 1) == alone.guide);
            bool sameNodes = alone.nodes.size() == (batched.nodes.empty() ? 0 : std::size_t(n));
            for (std::size_t j = 0; sameNodes && j < alone.nodes.size(); ++j) {
                const ForestNode &a = alone.nodes[j], &b = batched.nodes[std::size_t(d) * n + j];
                sameNodes = floatAsUint(a.split) == floatAsUint(b.split) && a.child[0] == b.child[0] && a.child[1] == b.child[1];
            }
            CHECK(sameNodes);
            bool sameAlias = alone.alias.size() == (batched.alias.empty() ? 0 : std::size_t(n));
            for (std::size_t j = 0; sameAlias && j < alone.alias.size(); ++j) {
                const AliasEntry &a = alone.alias[j], &b = batched.alias[std::size_t(d) * n + j];
                sameAlias = a.threshold == b.threshold && a.alias == b.alias;
            }
            CHECK(sameAlias);
            // Sampling row d of the batch equals sampling the row alone.
            std::vector<float> rowUs;
            for (std::size_t i = d; i < us.size(); i += count) rowUs.push_back(us[i]);
            DistributionSamples aloneSamples = sampleDistribution(Backend::Cpu, row, n, 1, s, 0, rowUs);
            int mismatches = 0;
            for (std::size_t i = d, j = 0; i < us.size(); i += count, ++j)
                mismatches += batchedSamples.samples[i].index != aloneSamples.samples[j].index;
            CHECK(mismatches == 0);
        }
    }
    DistributionSnapshot batched = buildDistribution(Backend::Cpu, general, n, count, LightSampler::BinarySearch);
    int worstUlps = 0;
    for (int d = 0; d < count; ++d) {
        std::vector<double> row(general.begin() + std::size_t(d) * n, general.begin() + std::size_t(d + 1) * n);
        DistributionSnapshot alone = buildDistribution(Backend::Cpu, row, n, 1, LightSampler::BinarySearch);
        for (int i = 0; i < n; ++i)
            worstUlps = std::max(worstUlps, std::abs(floatAsInt(batched.cdf[std::size_t(d) * n + i]) - floatAsInt(alone.cdf[i])));
    }
    CHECK(worstUlps <= 1);
}

TEST_CASE("a light with 1e-7 of the power among 10M keeps its probability and is sampled", "[distribution]") {
    // Ten million lights, random powers over three decades; light n - 2 gets 1e-7 of the total and
    // sits where the CDF is near 1, where a float's spacing (6e-8) is coarsest. A float prefix sum
    // would round its share to whole ulps of the running total; the double scan keeps it.
    const int n = 10000000, tiny = n - 2;
    std::vector<double> w(n);
    std::mt19937_64 rng(11);
    double rest = 0.0;
    for (int i = 0; i < n; ++i) {
        w[i] = i == tiny ? 0.0 : std::pow(10.0, 3.0 * double(rng() >> 11) / 9007199254740992.0);
        rest += w[i];
    }
    const double share = 1e-7;
    w[tiny] = rest * share / (1.0 - share);
    const double ulp = 1.0 / 16777216.0;  // spacing of the renderer's numbers and of the CDF near 1
    for (LightSampler s : kAllSamplers) {
        INFO(toString(s));
        DistributionSnapshot snap = buildDistribution(Backend::Cpu, w, n, 1, s);
        DistributionView v = snap.view();
        CHECK(std::fabs(snap.pmf[tiny] / share - 1.0) < 1e-5);
        if (s == LightSampler::Alias) {
            double p = aliasProbabilities(snap, 0)[tiny];
            CHECK(std::fabs(p / share - 1.0) < 1e-3);
            // Every one of the 2^24 numbers the renderer can draw: the exact sampling frequency.
            long long hits = 0;
            for (std::uint32_t k = 0; k < (1u << 24); ++k) hits += v.sample(0, float(k) * float(ulp)).index == tiny;
            double frequency = double(hits) * ulp;
            CHECK(frequency > 0.3 * share);
            CHECK(frequency < 3.0 * share);
        } else {
            // Monotonic: the light is drawn for exactly the grid numbers in [cdf[tiny - 1], cdf[tiny]);
            // count them by sampling every grid number around the interval.
            float lo = snap.cdf[tiny - 1];
            long long hits = 0;
            for (int k = -64; k <= 64; ++k) {
                float u = float(double(lo) + k * ulp);
                hits += v.sample(0, u).index == tiny;
            }
            double frequency = double(hits) * ulp;
            double width = double(snap.cdf[tiny]) - double(snap.cdf[tiny - 1]);
            CHECK(frequency == Approx(width));
            CHECK(frequency > 0.3 * share);
            CHECK(frequency < 3.0 * share);
        }
    }
}

TEST_CASE("remapped numbers are uniform inside the chosen entry", "[distribution]") {
    std::vector<double> w = {1.0, 7.0, 0.0, 2.5, 0.25, 12.0, 3.0, 0.5};
    int n = int(w.size());
    std::vector<float> us = uniformNumbers(1000000, 77);
    std::vector<double> p = normalised(w);
    const int kBins = 16;
    for (LightSampler s : kAllSamplers) {
        DistributionSamples r = sampleDistribution(Backend::Cpu, w, n, 1, s, 0, us);
        std::vector<int> counts(std::size_t(n) * kBins, 0);
        bool inRange = true;
        for (const DistributionSample& x : r.samples) {
            inRange &= x.remapped >= 0.0f && x.remapped < 1.0f;
            counts[std::size_t(x.index) * kBins + std::min(kBins - 1, int(x.remapped * kBins))]++;
        }
        std::vector<double> expected(counts.size());
        for (std::size_t k = 0; k < counts.size(); ++k) expected[k] = p[k / kBins] / kBins;
        std::string report;
        bool ok = chiSquarePasses(counts, expected, report);
        INFO(toString(s) << ": " << report);
        CHECK(inRange);
        CHECK(ok);
    }
}

// ---- CUDA only: the CPU against CUDA, and builds too large for the CPU suite ----------------

TEST_CASE("CPU and CUDA builds agree and the monotonic samplers return the same indices", "[distribution][gpu]") {
    if (!wftest::haveGpu()) return;
    // Integer weights: both scans are exact, whatever order CUB adds in, so the tables must be
    // bit-identical and every number must map to the same entry.
    const int n = 100003, count = 3;
    std::mt19937_64 rng(21);
    std::vector<double> w(std::size_t(n) * count);
    for (double& x : w) {
        std::uint64_t r = rng();
        x = (r & 7) == 0 ? 0.0 : double((r >> 8) % (1u << 20));
    }
    std::vector<int> ds;
    std::vector<float> us;
    for (LightSampler s : kAllSamplers) {
        INFO(toString(s));
        DistributionSnapshot cpu = buildDistribution(Backend::Cpu, w, n, count, s);
        DistributionSnapshot gpu = buildDistribution(Backend::Cuda, w, n, count, s);
        CHECK(cpu.cdf == gpu.cdf);
        CHECK(cpu.pmf == gpu.pmf);
        CHECK(cpu.guide == gpu.guide);
        if (s == LightSampler::RadixForest) CHECK(validateForest(gpu) == "");
        if (s == LightSampler::GuideTable) CHECK(validateGuideTable(gpu) == "");
        bool sameNodes = cpu.nodes.size() == gpu.nodes.size();
        for (std::size_t j = 0; sameNodes && j < cpu.nodes.size(); ++j)
            sameNodes = cpu.nodes[j].child[0] == gpu.nodes[j].child[0] && cpu.nodes[j].child[1] == gpu.nodes[j].child[1] &&
                        floatAsUint(cpu.nodes[j].split) == floatAsUint(gpu.nodes[j].split);
        CHECK(sameNodes);
        if (us.empty()) {
            std::vector<float> edges = edgeNumbers(std::vector<float>(cpu.cdf.begin(), cpu.cdf.begin() + n), n, 200000, 13);
            us = edges;
            ds.assign(us.size(), 0);
            std::vector<float> more = uniformNumbers(300000, 17);
            for (std::size_t i = 0; i < more.size(); ++i) {
                us.push_back(more[i]);
                ds.push_back(int(i % count));
            }
        }
        DistributionSamples a = sampleDistribution(Backend::Cpu, w, n, count, s, 0, us, ds);
        DistributionSamples b = sampleDistribution(Backend::Cuda, w, n, count, s, 0, us, ds);
        int mismatches = 0;
        for (std::size_t i = 0; i < us.size(); ++i)
            mismatches += a.samples[i].index != b.samples[i].index || a.samples[i].remapped != b.samples[i].remapped ||
                          a.samples[i].pmf != b.samples[i].pmf;
        CHECK(mismatches == 0);
    }
    // The paper's distributions are not summed exactly: CUB and the CPU may round a partial sum
    // differently, which may move a float CDF value by an ulp; the samplers must still agree on
    // random numbers (hitting such an ulp has probability ~1e-7 per number).
    for (int p = 0; p < 4; ++p) {
        std::vector<double> pw = paperDistribution(p, 4096);
        std::vector<float> pu = uniformNumbers(100000, 19);
        DistributionSnapshot cpu = buildDistribution(Backend::Cpu, pw, 4096, 1, LightSampler::BinarySearch);
        DistributionSnapshot gpu = buildDistribution(Backend::Cuda, pw, 4096, 1, LightSampler::BinarySearch);
        int worstUlps = 0;
        for (int i = 0; i < 4096; ++i) worstUlps = std::max(worstUlps, std::abs(floatAsInt(cpu.cdf[i]) - floatAsInt(gpu.cdf[i])));
        CHECK(worstUlps <= 1);
        for (LightSampler s : kMonotonic) {
            DistributionSamples a = sampleDistribution(Backend::Cpu, pw, 4096, 1, s, 0, pu);
            DistributionSamples b = sampleDistribution(Backend::Cuda, pw, 4096, 1, s, 0, pu);
            int mismatches = 0;
            for (std::size_t i = 0; i < pu.size(); ++i) mismatches += a.samples[i].index != b.samples[i].index;
            INFO(paperDistributionName(p) << ", " << toString(s));
            CHECK(mismatches == 0);
        }
    }
}

TEST_CASE("CUDA: a 10M-entry radix forest is valid and a batched build equals separate builds", "[distribution][gpu]") {
    if (!wftest::haveGpu()) return;
    const int n = 10000000;
    std::vector<double> w(n);
    std::mt19937_64 rng(23);
    for (double& x : w) x = std::pow(10.0, 3.0 * double(rng() >> 11) / 9007199254740992.0);
    DistributionSnapshot forest = buildDistribution(Backend::Cuda, w, n, 1, LightSampler::RadixForest, 0, 2);  // rebuilt in place
    CHECK(validateForest(forest) == "");
    const int rows = 150, width = 1000;  // with the cells above kOneLaunch: two launches
    std::vector<double> img(std::size_t(rows) * width);
    for (std::size_t k = 0; k < img.size(); ++k) img[k] = double(rng() % 4096) * double(1 + k / width);
    for (LightSampler s : {LightSampler::GuideTable, LightSampler::RadixForest}) {
        DistributionSnapshot batched = buildDistribution(Backend::Cuda, img, width, rows, s);
        for (int d = 0; d < rows; d += 9) {
            std::vector<double> row(img.begin() + std::size_t(d) * width, img.begin() + std::size_t(d + 1) * width);
            DistributionSnapshot alone = buildDistribution(Backend::Cuda, row, width, 1, s);
            INFO(toString(s) << ", row " << d);
            CHECK(std::equal(alone.cdf.begin(), alone.cdf.end(), batched.cdf.begin() + std::size_t(d) * width));
            CHECK(std::equal(alone.guide.begin(), alone.guide.end(), batched.guide.begin() + std::size_t(d) * (alone.guideSize + 1)));
        }
    }
}
