// Builds Distributions (kernels/lights/distribution.h) on an exec: the owner of their arrays,
// the build over the exec's scan and stages, and the alias tables (on the host).
#pragma once
#include <string>
#include <vector>

#include "host/backends/buffer.h"
#include "kernels/lights/distribution.h"
#include "wavefront/error.h"
#include "wavefront/types.h"

namespace wavefront {

namespace distribution {

/// Vose's alias method for each of `count` distributions of `n` probabilities. Runs sequentially
/// on the host: the construction pairs small and large entries one at a time, and the alias
/// table is only the non-monotonic baseline (the other methods build on the exec).
inline void buildAliasTables(const float* pmf, int n, int count, AliasEntry* out) {
    std::vector<double> q(n);
    std::vector<int> small, large;
    for (int d = 0; d < count; ++d) {
        const float* p = pmf + std::size_t(d) * n;
        AliasEntry* a = out + std::size_t(d) * n;
        double sum = 0.0;
        for (int i = 0; i < n; ++i) sum += p[i];
        small.clear();
        large.clear();
        for (int i = 0; i < n; ++i) {
            q[i] = sum > 0.0 ? double(p[i]) * n / sum : 1.0;
            (q[i] < 1.0 ? small : large).push_back(i);
        }
        while (!small.empty() && !large.empty()) {
            int s = small.back(), l = large.back();
            small.pop_back();
            large.pop_back();
            a[s] = AliasEntry{float(q[s]), l};
            q[l] = (q[l] + q[s]) - 1.0;
            (q[l] < 1.0 ? small : large).push_back(l);
        }
        // Left over only through rounding: they keep their whole cell.
        for (int i : large) a[i] = AliasEntry{1.0f, i};
        for (int i : small) a[i] = AliasEntry{1.0f, i};
    }
}

}  // namespace distribution

/// Owns the arrays behind a DistributionView in one exec's memory.
template <class Exec>
class Distribution {
public:
    /// `weights` (count x n doubles, exec memory, non-negative) -> normalised CDFs and pmfs by one
    /// device-wide prefix sum in double precision, then the tables `kind` needs. `guideSize`:
    /// cells per distribution for GuideTable and RadixForest, 0 = n.
    void build(Exec& exec, const double* weights, int n, int count, LightSampler kind, int guideSize = 0);
    DistributionView view() const {
        return DistributionView{n_, count_, SamplingMethod(int(kind_)), cdf_.data(), pmf_.data(), m_, guide_.data(), nodes_.data(), alias_.data()};
    }
    int guideSize() const { return m_; }

private:
    /// True when it allocated.
    template <class T>
    static bool resize(Exec& exec, Buffer<T>& b, std::size_t size) {
        if (b.size() == size) return false;
        b = exec.template allocate<T>(size);
        return true;
    }

    int n_ = 0, count_ = 0, m_ = 0;
    LightSampler kind_ = LightSampler::BinarySearch;
    Buffer<float> cdf_, pmf_;
    Buffer<int> guide_;
    Buffer<ForestNode> nodes_;
    Buffer<AliasEntry> alias_;
};

static_assert(int(SamplingMethod::BinarySearch) == int(LightSampler::BinarySearch) &&
                  int(SamplingMethod::GuideTable) == int(LightSampler::GuideTable) &&
                  int(SamplingMethod::RadixForest) == int(LightSampler::RadixForest) &&
                  int(SamplingMethod::Alias) == int(LightSampler::Alias),
              "the kernels' SamplingMethod and the public LightSampler must agree");

// Out of the class body, so not inline: an explicit instantiation declaration (extern template,
// host/device_scene/builders_cuda.cuh) then keeps other translation units from compiling it.
template <class Exec>
void Distribution<Exec>::build(Exec& exec, const double* weights, int n, int count, LightSampler kind, int guideSize) {
    n_ = n;
    count_ = count;
    kind_ = kind;
    std::size_t total = std::size_t(n) * count;
    if (total > std::size_t(INT_MAX)) throw InputError("distribution of " + std::to_string(total) + " entries is too large");
    bool guided = kind == LightSampler::GuideTable || kind == LightSampler::RadixForest;
    m_ = guided ? (guideSize > 0 ? guideSize : n) : 0;
    if (m_ > distribution::kMaxGuideSize) m_ = distribution::kMaxGuideSize;
    if (guided && total + std::size_t(m_ + 1) * count > std::size_t(INT_MAX)) throw InputError("guide table is too large");
    int cells = guided ? (m_ + 1) * count : 0;
    // A rebuild of the same size keeps its arrays (no allocator calls: per-frame rebuilds).
    resize(exec, cdf_, total);
    resize(exec, pmf_, total);
    resize(exec, guide_, std::size_t(cells));
    // The forest's merge slots start at -1 once; every build leaves them at -1.
    if (resize(exec, nodes_, kind == LightSampler::RadixForest ? total : 0) && nodes_.size())
        exec.fill(nodes_.data(), ForestNode{0.0f, {0, 0}, -1}, total);
    resize(exec, alias_, kind == LightSampler::Alias ? total : 0);
    if (total == 0) return;
    Buffer<double> sums = exec.template allocate<double>(total);
    exec.inclusiveScan(weights, sums.data(), int(total));
    distribution::GuideKind guideKind = kind == LightSampler::GuideTable    ? distribution::GuideKind::Cutpoint
                                        : kind == LightSampler::RadixForest ? distribution::GuideKind::Forest
                                                                            : distribution::GuideKind::None;
    distribution::BuildStage stage{sums.data(), n, cdf_.data(), pmf_.data(), guideKind, m_, guide_.data(),
                                   nodes_.data(), int(total), cells, false};
    const char* label = kind == LightSampler::RadixForest ? "distribution build (cdf, radix forest, guide)"
                        : guided                          ? "distribution build (cdf, guide)"
                                                          : "distribution build (cdf)";
    if (total + cells <= distribution::kOneLaunch) {
        exec.parallelFor(label, int(total) + cells, stage);
    } else {
        // Large: the cells' bisections read the stored floats (half the bytes of the sums, and
        // they fit the cache longer), worth a second launch.
        stage.cells = 0;
        exec.parallelFor(kind == LightSampler::RadixForest ? "distribution build (cdf, radix forest)" : "distribution build (cdf)",
                         int(total), stage);
        if (cells > 0) {
            stage.entries = 0;
            stage.cells = cells;
            stage.storedCdf = true;
            exec.parallelFor("distribution build (guide)", cells, stage);
        }
    }
    if (kind == LightSampler::Alias) {
        std::vector<float> pmf(total);
        std::vector<AliasEntry> table(total);
        exec.download(pmf.data(), pmf_.data(), total);
        distribution::buildAliasTables(pmf.data(), n, count, table.data());
        exec.upload(alias_.data(), table.data(), total);
    }
}

}  // namespace wavefront
