// Discrete distributions for light selection and environment-map sampling: `count` distributions of
// `n` entries each, stored back to back (count = 1 for the lights; count = rows for the
// environment map's conditionals, which are all built in one pass). Built on the exec from weights
// in exec memory; sampled by one of four methods behind one interface:
//   BinarySearch  bisection over the float CDF;
//   GuideTable    cutpoint method (Chen and Asau 1974): m cells per distribution, each storing the
//                 first entry its numbers can map to, then bisection inside the cell;
//   RadixForest   the same cells, each the root of a radix tree over the entries' lower bounds
//                 (Binder and Keller, "Massively Parallel Construction of Radix Tree Forests",
//                 Algorithms 1 and 2);
//   Alias         Vose's alias table (not monotonic; the baseline the paper compares against).
// The three monotonic methods read the same float CDF with the same comparison
// (cdf[i - 1] <= u < cdf[i]) and return bit-identical indices.
#pragma once
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/core/device.h"
#include "kernels/core/math.h"

namespace wavefront {

/// How a distribution is sampled (the four methods above); the values of the public
/// wavefront::LightSampler (distribution_builder.h static_asserts every pair).
enum class SamplingMethod : int { BinarySearch, GuideTable, RadixForest, Alias };

struct DistributionSample {
    int index;       ///< entry within the distribution
    float pmf;       ///< its probability
    float remapped;  ///< u reused: uniform in [0, 1) within the chosen entry (for continuous 2D sampling)
};

/// Radix-forest node j of one distribution: separates the entries < j from those >= j at the lower
/// bound of interval j (cdf[j - 1], 0 for j = 0). The split is a copy of that float, so comparisons
/// are bit-identical to bisection, and it sits next to the children so one tree step is one 16-byte
/// load (the interleaving the paper recommends). Children >= 0 are nodes, < 0 are entries ~i.
struct alignas(16) ForestNode {
    float split;
    int child[2];
    int pending;  ///< Algorithm 1's merge slot (otherBounds) for this parent, kept here to save an array
};
static_assert(sizeof(ForestNode) == 16, "one vector load per tree step");

/// One alias-table cell: keep the cell's own entry below `threshold`, else take `alias`.
struct AliasEntry {
    float threshold;
    int alias;
};

namespace distribution {

constexpr float kOneMinusEpsilon = 0.99999994f;  ///< the largest float below 1
constexpr int kMaxGuideSize = 1 << 24;           ///< cell indices must stay exact in float
/// Up to this many entries + cells the whole build after the scan is one launch; beyond, the guide
/// cells get their own (measured on an H200: one launch wins at 100k, two at 1M).
constexpr std::size_t kOneLaunch = std::size_t(1) << 18;

/// The guide-table cell holding u: floor(u m) in float arithmetic, clamped (the build uses this
/// very function, so cells are consistent with sampling to the last bit).
WF_CPU_GPU WF_INLINE int cellOf(float u, int m) {
    int c = int(u * float(m));
    return c < m - 1 ? c : m - 1;
}

WF_CPU_GPU WF_INLINE float nextFloatUp(float x) { return intAsFloat(floatAsInt(x) + 1); }    // x >= 0
WF_CPU_GPU WF_INLINE float nextFloatDown(float x) { return intAsFloat(floatAsInt(x) - 1); }  // x > 0

/// The smallest float t with cellOf(t, m) >= c, for 0 <= c < m: where cell c starts, exactly.
/// c / m rounded is at most an ulp or two away; stepping fixes it.
WF_CPU_GPU WF_INLINE float cellStart(int c, int m) {
    if (c <= 0) return 0.0f;
    float t = float(c) / float(m);
    while (cellOf(t, m) < c) t = nextFloatUp(t);
    while (t > 0.0f && cellOf(nextFloatDown(t), m) >= c) t = nextFloatDown(t);
    return t;
}

/// First i in [lo, hi] with u < c[i], hi when there is none: the inverse CDF restricted to a
/// range known to hold the answer. Counts one load per probe when kCount.
template <bool kCount, class Cdf>
WF_CPU_GPU WF_INLINE int searchCdf(const Cdf& c, int lo, int hi, float u, int& loads) {
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (kCount) ++loads;
        if (c[mid] <= u) lo = mid + 1; else hi = mid;
    }
    return lo;
}

}  // namespace distribution

/// Aggregate: the owners (Distribution, DistributionSnapshot) fill it in declaration order.
struct DistributionView {
    int n = 0;       ///< entries per distribution
    int count = 0;   ///< number of distributions
    SamplingMethod kind = SamplingMethod::BinarySearch;
    const float* cdf = nullptr;  ///< count x n, inclusive, normalised per distribution, last entry exactly 1
    const float* pmf = nullptr;  ///< count x n, from differences of the double-precision sums
    int guideSize = 0;           ///< m, cells per distribution (GuideTable, RadixForest)
    /// count x (m + 1). GuideTable: first entry of each cell, ~i when the cell lies inside entry
    /// i alone; slot m is the upper bound of the last cell. RadixForest: the cell's tree root, or
    /// ~i when the cell lies inside entry i alone.
    const int* guide = nullptr;
    const ForestNode* nodes = nullptr;  ///< count x n (RadixForest)
    const AliasEntry* alias = nullptr;  ///< count x n (Alias)

    WF_CPU_GPU float probability(int d, int i) const { return pmf[std::size_t(d) * n + i]; }

    /// The entry i of distribution d with cdf[i - 1] <= u < cdf[i] (monotonic methods all return
    /// the same index for the same u; Alias returns an entry with the same probabilities).
    WF_CPU_GPU WF_INLINE DistributionSample sample(int d, float u) const {
        int unused = 0;
        return sampleImpl<false>(d, u, unused);
    }
    /// The same, adding the number of search loads (cdf, guide, forest or alias elements read to
    /// find the entry; the remap's two cdf reads are not counted) to *loads.
    WF_CPU_GPU DistributionSample sample(int d, float u, int* loads) const {
        return sampleImpl<true>(d, u, *loads);
    }

    WF_CPU_GPU DistributionSample finish(int d, int i, float u) const {
        const float* c = cdf + std::size_t(d) * n;
        float lower = i > 0 ? c[i - 1] : 0.0f;
        float width = c[i] - lower;
        float r = width > 0.0f ? (u - lower) / width : 0.0f;
        r = glm::min(glm::max(r, 0.0f), distribution::kOneMinusEpsilon);
        return DistributionSample{i, probability(d, i), r};
    }

    template <bool kCount>
    WF_CPU_GPU WF_INLINE DistributionSample sampleImpl(int d, float u, int& loads) const {
        // [0, 1): also maps NaN and 1 (which would pick a trailing zero-weight entry) inside.
        u = u < 1.0f ? u : distribution::kOneMinusEpsilon;
        u = u > 0.0f ? u : 0.0f;
        const float* c = cdf + std::size_t(d) * n;
        switch (kind) {
        case SamplingMethod::GuideTable: {
            const int* g = guide + std::size_t(d) * (guideSize + 1);
            int cell = distribution::cellOf(u, guideSize);
            int lo = g[cell];
            if (kCount) ++loads;
            if (lo < 0) return finish(d, ~lo, u);  // the cell lies inside one entry
            int hi = g[cell + 1];  // first entry of the next cell: a conservative upper bound
            if (kCount) ++loads;
            hi = hi < 0 ? ~hi : hi;
            return finish(d, distribution::searchCdf<kCount>(c, lo, hi, u, loads), u);
        }
        case SamplingMethod::RadixForest: {  // Algorithm 2
            const ForestNode* tree = nodes + std::size_t(d) * n;
            int j = guide[std::size_t(d) * (guideSize + 1) + distribution::cellOf(u, guideSize)];
            if (kCount) ++loads;
            while (j >= 0) {
                ForestNode node = tree[j];
                if (kCount) ++loads;
                j = u < node.split ? node.child[0] : node.child[1];
            }
            return finish(d, ~j, u);
        }
        case SamplingMethod::Alias: {
            // The renderer's u stands for [u, u + 2^-24); split at its midpoint. Taking u itself,
            // a cell's first number (fraction exactly 0) would always keep the cell's own entry,
            // giving every entry, however dim, at least 2^-24 (60x the pmf of the dim end of
            // p ~ i^20); the midpoint rounds each entry's share to the nearest number instead.
            // The shift is modulo 1, so a continuous u keeps its measure. In double the product is
            // exact (25 x 24 bits): float would leave no fraction bits for large n.
            double x = (double(u) + 0x1p-25) * double(n);
            if (x >= double(n)) x -= double(n);
            int i = int(x);
            i = i < n - 1 ? i : n - 1;
            float f = glm::min(float(x - double(i)), distribution::kOneMinusEpsilon);
            AliasEntry e = alias[std::size_t(d) * n + i];
            if (kCount) ++loads;
            int index;
            float r;
            if (f < e.threshold) {
                index = i;
                r = f / e.threshold;
            } else {
                index = e.alias;
                r = (f - e.threshold) / (1.0f - e.threshold);
            }
            r = glm::min(glm::max(r, 0.0f), distribution::kOneMinusEpsilon);
            return DistributionSample{index, probability(d, index), r};
        }
        default:
            return finish(d, distribution::searchCdf<kCount>(c, 0, n - 1, u, loads), u);
        }
    }
};

namespace distribution {

/// The float CDF of distribution d computed from the global double-precision inclusive scan:
/// the total and the sum before the distribution normalise it. BuildStage stores exactly these
/// values, and its guide cells and tree climbs read them before they are stored (same launch).
struct ScanCdf {
    const double* sums;  ///< this distribution's part of the scan
    int n;
    double before, inv;
    bool uniform;        ///< all weights zero
    WF_CPU_GPU ScanCdf(const double* allSums, int n_, int d) : sums(allSums + std::size_t(d) * n_), n(n_) {
        before = d > 0 ? sums[-1] : 0.0;
        double total = sums[n - 1] - before;
        uniform = !(total > 0.0);
        inv = uniform ? 0.0 : 1.0 / total;
    }
    WF_CPU_GPU float operator[](int i) const {
        if (i == n - 1) return 1.0f;  // exactly 1, whatever the rounding
        return uniform ? float(i + 1) / float(n) : float((sums[i] - before) * inv);
    }
    WF_CPU_GPU float pmf(int i) const {
        return uniform ? 1.0f / float(n) : float((sums[i] - (i > 0 ? sums[i - 1] : before)) * inv);
    }
};

/// Which table the build launch also fills.
enum class GuideKind { None, Cutpoint, Forest };

/// The whole build after the scan, in one launch over count x n entries followed by count x (m + 1)
/// guide cells (separate threads, so a cell's bisection and an entry's tree climb run side by side).
/// Entry items store the normalised CDF (from the double sums) and pmf (from their differences, so
/// a light with a tiny share keeps a correct non-zero probability) and, for the radix forest, run
/// Algorithm 1; both read neighbouring CDF values as ScanCdf recomputes them, bit-identical to the
/// stored ones. Cell items search the CDF by bisection, one thread per cell rather than one per
/// entry writing the cells that start inside it: the work per cell is the same whatever the
/// distribution, while one entry of a spiky distribution covers a quarter of the cells ("4 spikes")
/// and would serialise them in one GPU thread; neighbouring cells bisect nearly the same path, so
/// the probes hit the cache.
struct BuildStage {
    const double* sums;  ///< inclusive scan over all count x n weights
    int n;
    float* cdf;
    float* pmf;
    GuideKind guideKind;
    int m;               ///< cells per distribution
    int* guide;          ///< count x (m + 1)
    ForestNode* nodes;   ///< radix forest; every `pending` slot is -1 on entry and on exit
    int entries, cells;  ///< items of this launch: entries first (all or none), then cells (all or none)
    bool storedCdf;      ///< cells read `cdf` (stored by an earlier launch) rather than recompute it

    static constexpr unsigned kBoundary = 0xffffffffu;

    WF_CPU_GPU void operator()(int k) const {
        if (k < entries) {
            int d = k / n, i = k % n;
            ScanCdf c(sums, n, d);
            cdf[k] = c[i];
            pmf[k] = c.pmf(i);
            if (guideKind == GuideKind::Forest) climb(c, nodes + std::size_t(d) * n, i);
            return;
        }
        k -= entries;
        int d = k / (m + 1), c = k % (m + 1);
        if (storedCdf) guide[k] = cell(cdf + std::size_t(d) * n, c);
        else guide[k] = cell(ScanCdf(sums, n, d), c);
    }

    template <class Cdf>
    WF_CPU_GPU int cell(const Cdf& cd, int c) const {
        return guideKind == GuideKind::Cutpoint ? cutpointCell(cd, c) : forestCell(cd, c);
    }

    /// Cutpoint method: the entry of the cell's first number t_c, flagged (~) when the cell's last
    /// number maps to it too. Slot m is the upper bound of the last cell.
    template <class Cdf>
    WF_CPU_GPU int cutpointCell(const Cdf& cd, int c) const {
        if (c == m) return n - 1;
        int unused = 0;
        int lo = searchCdf<false>(cd, 0, n - 1, cellStart(c, m), unused);
        float last = c + 1 < m ? nextFloatDown(cellStart(c + 1, m)) : kOneMinusEpsilon;
        return lo == n - 1 || last < cd[lo] ? ~lo : lo;
    }

    /// Radix forest: the root of the tree over the entries whose lower bound lies in the cell (the
    /// first such entry a: Algorithm 1 hangs the tree below node a), else ~ the one entry covering
    /// the cell. Slot m is unused.
    template <class Cdf>
    WF_CPU_GPU int forestCell(const Cdf& cd, int c) const {
        if (c == m) return 0;
        int a = 0;  // first entry with lower(a) = cdf[a - 1] >= t_c
        if (c > 0) {
            float t = cellStart(c, m);
            int lo = 0, hi = n - 1;  // first j in [0, n - 1) with cdf[j] >= t, n - 1 when none
            while (lo < hi) {
                int mid = (lo + hi) >> 1;
                if (cd[mid] >= t) hi = mid; else lo = mid + 1;
            }
            a = lo + 1;
        }
        return a < n && cellOf(a > 0 ? cd[a - 1] : 0.0f, m) == c ? a : ~(a - 1);
    }

    /// Radix-tree forest, Binder and Keller Algorithm 1, for entry i of one distribution (indices
    /// local to it: ranges never leave it): climb from leaf i while this thread is the second child
    /// to arrive at its parent. The leaves' keys are the entries' lower bounds; a tree covers the
    /// entries whose lower bound falls into one cell. Merges never cross a cell or distribution
    /// boundary: the distance there is the maximum (paper 3.2; the pseudo-code's "neighbour value
    /// := 1" is not a maximum xor distance across binades, so the distance itself is set). Equal
    /// distances merge to the left, so a cell's whole range ends as the right child of node "first
    /// entry of the cell", whose left child is the entry overlapping the cell from the left (paper
    /// Fig. 11). Parallel over all entries of all distributions: perfect load balance.
    WF_CPU_GPU void climb(const ScanCdf& c, ForestNode* tree, int i) const {
        auto lower = [&](int j) { return j == 0 ? 0.0f : c[j - 1]; };
        // Xor distance between the keys of entries j and j + 1, the maximum across boundaries.
        auto distance = [&](int j) {
            if (j < 0 || j + 1 >= n) return kBoundary;
            float a = lower(j), b = lower(j + 1);
            return cellOf(a, m) != cellOf(b, m) ? kBoundary : floatAsUint(a) ^ floatAsUint(b);
        };
        unsigned leftDistance = distance(i - 1);
        tree[i].split = lower(i);
        // A cell's first entry is its tree's root: left child = the entry overlapping from the left.
        if (leftDistance == kBoundary) tree[i].child[0] = ~(i > 0 ? i - 1 : 0);
        int nodeId = ~i;
        int lo = i, hi = i;  // the range below nodeId (Algorithm 1's range[0], range[1])
        while (true) {
            unsigned rightDistance = distance(hi);
            // Merge towards the nearer neighbour: a left child (child 0) when the right one is nearer.
            bool leftChild = leftDistance > rightDistance;
            int parent = leftChild ? hi + 1 : lo;
            tree[parent].child[leftChild ? 0 : 1] = nodeId;
            // The whole cell: its root hangs below node lo, where no sibling ever arrives.
            if (leftDistance == kBoundary && rightDistance == kBoundary) break;
            // The sibling's far bound arrives through the exchange itself: no other memory is
            // read, so no fence is needed.
            int otherBound = atomicExchInt(&tree[parent].pending, leftChild ? lo : hi);
            if (otherBound == -1) break;
            // Second to arrive: nobody touches this slot again, so reset it for the next build
            // (the slots need no initialising launch).
            tree[parent].pending = -1;
            if (leftChild) {
                hi = otherBound;
            } else {
                lo = otherBound;
                leftDistance = distance(lo - 1);
            }
            nodeId = parent;
        }
    }
};

}  // namespace distribution

}  // namespace wavefront
