// Discrete distributions for light selection and environment-map sampling: `count` distributions of
// `n` entries each, stored back to back (count = 1 for the lights; count = rows for the
// environment map's conditionals, which are all built in one pass). Built on the exec from weights
// in exec memory; sampled by one of four methods behind one interface (DESIGN section 9).
#pragma once
#include <cstdint>

#include "kernels/exec.h"
#include "kernels/math.h"
#include "wavefront/renderer.h"

namespace wavefront {

struct DistributionSample {
    int index;       ///< entry within the distribution
    float pmf;       ///< its probability
    float remapped;  ///< u reused: uniform in [0, 1) within the chosen entry (for continuous 2D sampling)
};

struct DistributionView {
    int n = 0;       ///< entries per distribution
    int count = 0;   ///< number of distributions
    LightSampler kind = LightSampler::BinarySearch;
    const float* cdf = nullptr;  ///< count x n, inclusive, normalised per distribution, last entry exactly 1
    const float* pmf = nullptr;  ///< count x n, from differences of the double-precision sums

    WF_CPU_GPU float probability(int d, int i) const { return pmf[std::size_t(d) * n + i]; }

    /// The entry i of distribution d with cdf[i - 1] <= u < cdf[i] (monotonic methods all return
    /// the same index for the same u).
    WF_CPU_GPU DistributionSample sample(int d, float u) const {
        const float* c = cdf + std::size_t(d) * n;
        int lo = 0, hi = n - 1;
        while (lo < hi) {
            int mid = (lo + hi) >> 1;
            if (c[mid] <= u) lo = mid + 1; else hi = mid;
        }
        return finish(d, lo, u);
    }

    WF_CPU_GPU DistributionSample finish(int d, int i, float u) const {
        const float* c = cdf + std::size_t(d) * n;
        float lower = i > 0 ? c[i - 1] : 0.0f;
        float width = c[i] - lower;
        float r = width > 0.0f ? (u - lower) / width : 0.0f;
        r = glm::min(glm::max(r, 0.0f), 0.99999994f);
        return DistributionSample{i, probability(d, i), r};
    }
};

namespace distribution {
/// Per distribution: its total and the sum before it, from a global inclusive scan.
struct NormaliseStage {
    const double* sums;  ///< inclusive scan over all count x n weights
    int n;
    float* cdf;
    float* pmf;
    WF_CPU_GPU void operator()(int k) const {
        int d = k / n, i = k % n;
        std::size_t first = std::size_t(d) * n;
        double before = first > 0 ? sums[first - 1] : 0.0;
        double total = sums[first + n - 1] - before;
        double prev = i > 0 ? sums[k - 1] : before;
        double inv = total > 0.0 ? 1.0 / total : 0.0;
        cdf[k] = i == n - 1 ? 1.0f : float((sums[k] - before) * inv);
        pmf[k] = total > 0.0 ? float((sums[k] - prev) * inv) : 1.0f / float(n);
        if (total <= 0.0) cdf[k] = float(i + 1) / float(n);  // all-zero weights: uniform
    }
};
}  // namespace distribution

/// Owns the arrays behind a DistributionView in one exec's memory.
template <class Exec>
class Distribution {
public:
    /// `weights` (count x n doubles, exec memory, non-negative) -> normalised CDFs and pmfs by one
    /// device-wide prefix sum in double precision.
    void build(Exec& exec, const double* weights, int n, int count, LightSampler kind, int guideSize = 0) {
        n_ = n;
        count_ = count;
        kind_ = kind;
        std::size_t total = std::size_t(n) * count;
        cdf_ = exec.template allocate<float>(total);
        pmf_ = exec.template allocate<float>(total);
        if (total == 0) return;
        Buffer<double> sums = exec.template allocate<double>(total);
        exec.inclusiveScan(weights, sums.data(), int(total));
        exec.parallelFor("distribution normalise", int(total), distribution::NormaliseStage{sums.data(), n, cdf_.data(), pmf_.data()});
        (void)guideSize;
    }
    DistributionView view() const {
        DistributionView v;
        v.n = n_;
        v.count = count_;
        v.kind = kind_;
        v.cdf = cdf_.data();
        v.pmf = pmf_.data();
        return v;
    }

private:
    int n_ = 0, count_ = 0;
    LightSampler kind_ = LightSampler::BinarySearch;
    Buffer<float> cdf_, pmf_;
};

}  // namespace wavefront
