// The test and benchmark entry points of tests/support on a chosen backend: the CPU ones here,
// the CUDA ones in the *_cuda.cu files beside this one. Also the structural checks of the BVH and
// of the distributions' tables.
#include <algorithm>
#include <sstream>

#include "compaction.h"
#include "bvh_oracle_impl.h"
#include "distribution_oracle_impl.h"
#include "mlt_replay_impl.h"
#include "host/backends/cpu/cpu_exec.h"

namespace wavefront {

// The CUDA translation units' entry points (bvh_oracle_cuda.cu, distribution_oracle_cuda.cu,
// mlt_replay_cuda.cu).
CompactionTimes measureCompactionCuda(int n, float keepFraction, int repetitions);
std::vector<unsigned char> uploadRoundTripCuda(const std::vector<unsigned char>& data);
BvhSnapshot buildBvhSnapshotCuda(const PrimitiveArrays& prims, BvhBuilder builder, bool wide);
TraceResult traceRaysCuda(const PrimitiveArrays& prims, const std::vector<Ray>& rays, bool anyHit, BvhBuilder builder,
                          bool wide, TraceSchedule schedule);
DistributionSnapshot buildDistributionCuda(const std::vector<double>& weights, int n, int count, LightSampler kind,
                                           int guideSize, int repetitions);
DistributionSamples sampleDistributionCuda(const std::vector<double>& weights, int n, int count, LightSampler kind,
                                           int guideSize, const std::vector<float>& us,
                                           const std::vector<int>& distributions, bool countLoads);
double samplingRateCuda(const std::vector<double>& weights, int n, LightSampler kind, int guideSize, int samples,
                        int repetitions);
MltReplay renderMltAndReplayCuda(const Scene& scene, const RenderOptions& options);

/// Runs `onCpu` with a fresh CpuExec, or `onCuda`, which calls a CUDA entry point; a build
/// without the CUDA backend refuses the latter with an InputError.
template <class OnCpu, class OnCuda>
static auto onBackend(Backend backend, const OnCpu& onCpu, const OnCuda& onCuda) {
    if (backend == Backend::Cpu) {
        CpuExec exec;
        return onCpu(exec);
    }
#if defined(WAVEFRONT_HAS_CUDA)
    return onCuda();
#else
    (void)onCuda;  // never called, so the CUDA entry points it names are not needed at link time
    throw InputError("this build of wavefront has no CUDA backend (configure with WAVEFRONT_ENABLE_CUDA)");
#endif
}

MltReplay renderMltAndReplay(Backend backend, const Scene& scene, const RenderOptions& options) {
    return onBackend(
        backend, [&](CpuExec& exec) { return renderMltAndReplayOn(exec, scene, options); },
        [&] { return renderMltAndReplayCuda(scene, options); });
}

BvhSnapshot buildBvhSnapshot(Backend backend, const PrimitiveArrays& prims, BvhBuilder builder, bool wide) {
    return onBackend(
        backend, [&](CpuExec& exec) { return buildBvhSnapshotOn(exec, prims, builder, wide); },
        [&] { return buildBvhSnapshotCuda(prims, builder, wide); });
}

TraceResult traceRays(Backend backend, const PrimitiveArrays& prims, const std::vector<Ray>& rays, bool anyHit,
                      BvhBuilder builder, bool wide, TraceSchedule schedule) {
    return onBackend(
        backend, [&](CpuExec& exec) { return traceRaysOn(exec, prims, rays, anyHit, builder, wide, schedule); },
        [&] { return traceRaysCuda(prims, rays, anyHit, builder, wide, schedule); });
}

std::vector<unsigned char> uploadRoundTrip(Backend backend, const std::vector<unsigned char>& data) {
    return onBackend(
        backend, [&](CpuExec& exec) { return uploadRoundTripOn(exec, data); }, [&] { return uploadRoundTripCuda(data); });
}

CompactionTimes measureCompaction(Backend backend, int n, float keepFraction, int repetitions) {
    return onBackend(
        backend, [&](CpuExec& exec) { auto noFlagged = [](const CompactionItem*, const char*, CompactionItem*, int*, int) {};
            CompactionTimes t = measureCompaction(exec, n, keepFraction, repetitions, noFlagged);
            t.flaggedMs = -1;
            return t; },
        [&] { return measureCompactionCuda(n, keepFraction, repetitions); });
}

std::string validateBvh(const BvhSnapshot& bvh) {
    std::ostringstream problem;
    int n = bvh.numPrims;
    if (n == 0) return bvh.nodes.empty() ? "" : "nodes without primitives";
    std::vector<int> leafSeen(n, 0), idSeen(n, 0);
    Aabb all;
    for (int leaf = 0; leaf < n; ++leaf) {
        const Float4* p = &bvh.primData[kPrimWords * leaf];
        bool sphere = isSphereLeaf(p);
        int id = sphere ? floatAsInt(p[1].x) : floatAsInt(p[0].w);
        if (id < 0 || id >= n) return "leaf " + std::to_string(leaf) + " holds invalid primitive id " + std::to_string(id);
        if (sphere != (id >= bvh.numTriangles)) return "leaf " + std::to_string(leaf) + " has the wrong primitive type";
        if (idSeen[id]++) return "primitive " + std::to_string(id) + " is in more than one leaf";
        all.extend(primDataBounds(p, !sphere));
    }
    // Walk from the root: every internal node reached once, every leaf reached once.
    std::vector<int> nodeSeen(bvh.nodes.size(), 0);
    std::vector<std::pair<int, Aabb>> stack;  // (child index, box stored for it in the parent)
    const BvhNode& root = bvh.nodes[0];
    Aabb rootBox = Aabb::unite(root.box(0), root.box(1));
    if (!rootBox.contains(all)) return "root box does not cover the scene";
    if (n == 1) {
        // A single primitive's root names its leaf in both slots (buildLbvh, host/device_scene/bvh_builder.h).
        if (root.child(0) != ~0 || root.child(1) != ~0 || root.subtreeSize(0) != 1 || root.subtreeSize(1) != 1) return "single-primitive root is malformed";
        if (!root.box(0).contains(primDataBounds(&bvh.primData[0], bvh.numTriangles == 1))) return "leaf box too small";
        return "";
    }
    stack.push_back({0, rootBox});
    while (!stack.empty()) {
        auto [index, parentBox] = stack.back();
        stack.pop_back();
        if (index < 0) {
            int leaf = ~index;
            if (leaf >= n) return "child names leaf " + std::to_string(leaf) + " out of range";
            if (leafSeen[leaf]++) return "leaf " + std::to_string(leaf) + " is reached twice";
            const Float4* p = &bvh.primData[kPrimWords * leaf];
            bool sphere = isSphereLeaf(p);
            if (!parentBox.contains(primDataBounds(p, !sphere))) return "leaf " + std::to_string(leaf) + " sticks out of its box";
            continue;
        }
        if (index >= int(bvh.nodes.size())) return "child names node " + std::to_string(index) + " out of range";
        if (nodeSeen[index]++) return "node " + std::to_string(index) + " is reached twice";
        const BvhNode& node = bvh.nodes[index];
        for (int c = 0; c < 2; ++c) {
            if (!parentBox.contains(node.box(c))) return "node " + std::to_string(index) + " child box not inside its parent box";
            stack.push_back({node.child(c), node.box(c)});
        }
    }
    for (int leaf = 0; leaf < n; ++leaf)
        if (!leafSeen[leaf]) return "leaf " + std::to_string(leaf) + " is unreachable";
    // Each child's primitive count, which the 8-wide collapse reads: children before parents
    // (breadth-first order of the tree the walk above checked, reversed).
    std::vector<int> breadthFirst{0}, size(bvh.nodes.size(), 0);
    for (std::size_t k = 0; k < breadthFirst.size(); ++k)
        for (int c = 0; c < 2; ++c)
            if (bvh.nodes[breadthFirst[k]].child(c) >= 0) breadthFirst.push_back(bvh.nodes[breadthFirst[k]].child(c));
    for (auto it = breadthFirst.rbegin(); it != breadthFirst.rend(); ++it) {
        const BvhNode& node = bvh.nodes[*it];
        for (int c = 0; c < 2; ++c) {
            int expected = node.child(c) < 0 ? 1 : size[node.child(c)];
            if (node.subtreeSize(c) != expected)
                return "node " + std::to_string(*it) + " child " + std::to_string(c) + " records " +
                       std::to_string(node.subtreeSize(c)) + " primitives, not " + std::to_string(expected);
            size[*it] += expected;
        }
    }
    return "";
}

int bvhDepth(const BvhSnapshot& bvh) {
    if (bvh.numPrims == 0) return 0;
    int deepest = 0;
    std::vector<std::pair<int, int>> stack{{0, 1}};
    while (!stack.empty()) {
        auto [index, depth] = stack.back();
        stack.pop_back();
        if (index < 0) {
            deepest = std::max(deepest, depth);
            continue;
        }
        for (int c = 0; c < 2; ++c) stack.push_back({bvh.nodes[index].child(c), depth + 1});
    }
    return deepest;
}

double bvhSahCost(const BvhSnapshot& bvh) {
    if (bvh.numPrims == 0) return 0.0;
    auto area = [](const Aabb& b) {
        double x = double(b.hi.x) - b.lo.x, y = double(b.hi.y) - b.lo.y, z = double(b.hi.z) - b.lo.z;
        return x * y + y * z + z * x;
    };
    if (bvh.numPrims == 1) return 2.0;  // the root and its one leaf, both the primitive's box
    const BvhNode& root = bvh.nodes[0];
    double rootArea = area(Aabb::unite(root.box(0), root.box(1)));
    if (!(rootArea > 0.0)) return 0.0;
    double cost = rootArea;  // the root, an internal node
    std::vector<int> stack{0};
    while (!stack.empty()) {
        const BvhNode& n = bvh.nodes[stack.back()];
        stack.pop_back();
        for (int c = 0; c < 2; ++c) {
            cost += area(n.box(c));  // an internal node or a one-primitive leaf, each cost 1
            if (n.child(c) >= 0) stack.push_back(n.child(c));
        }
    }
    return cost / rootArea;
}

namespace {
/// Child `slot`'s box as the grid stores it (exact in double).
Aabb wideChildBox(const WideNode& n, int slot) {
    Aabb b;
    for (int k = 0; k < 3; ++k) {
        double step = std::ldexp(1.0, int(n.e[k]) - 127);
        b.lo[k] = float(n.p[k] + n.qlo[k][slot] * step);
        b.hi[k] = float(n.p[k] + n.qhi[k][slot] * step);
    }
    return b;
}
/// Leaf primitives of `slot` (meta's unary count), 0 for internal and empty slots.
int wideLeafCount(const WideNode& n, int slot) {
    if (n.imask >> slot & 1) return 0;
    return bitCount(n.meta[slot] >> 5u);
}
}  // namespace

namespace {
/// Checks wide node `index` and below; `bounds` receives the exact box of its primitives.
std::string validateWideNode(const BvhSnapshot& bvh, int index, int depth, std::vector<int>& idSeen,
                             std::vector<int>& nodeSeen, Aabb& bounds) {
    int n = bvh.numPrims;
    if (index < 0 || index >= int(bvh.wideNodes.size())) return "node index out of range";
    if (nodeSeen[index]++) return "node " + std::to_string(index) + " reached twice";
    if (depth > kMaxWideDepth) return "deeper than kMaxWideDepth";
    const WideNode& w = bvh.wideNodes[index];
    int rank = 0, offsetExpected = 0;
    for (int s = 0; s < 8; ++s) {
        Aabb box = wideChildBox(w, s), content;
        if (w.imask >> s & 1) {
            if (w.meta[s] != (1u << 5 | (24u + s))) return "internal slot with a wrong meta byte";
            std::string e = validateWideNode(bvh, int(w.childBase) + rank++, depth + 1, idSeen, nodeSeen, content);
            if (!e.empty()) return e;
        } else {
            if (w.meta[s] == 0) continue;
            int count = wideLeafCount(w, s), offset = w.meta[s] & 31;
            if ((w.meta[s] >> 5) != (1u << count) - 1u || count > kWideLeafSize) return "leaf meta is not a unary count";
            if (offset != offsetExpected) return "leaf primitives are not packed in slot order";
            offsetExpected += count;
            for (int k = 0; k < count; ++k) {
                int prim = int(w.primBase) + offset + k;
                if (prim >= n) return "primitive index out of range";
                const Float4* p = &bvh.widePrimData[kPrimWords * prim];
                bool sphere = isSphereLeaf(p);
                int id = sphere ? floatAsInt(p[1].x) : floatAsInt(p[0].w);
                if (id < 0 || id >= n) return "bad primitive id";
                if (idSeen[id]++) return "primitive " + std::to_string(id) + " in two leaves";
                content.extend(primDataBounds(p, !sphere));
            }
        }
        // The quantised box must hold everything below it (nested boxes need not nest: each is
        // rounded outward on its own grid).
        if (!box.contains(content)) return "a child box does not contain its primitives";
        bounds.extend(content);
    }
    return "";
}
}  // namespace

std::string validateWideBvh(const BvhSnapshot& bvh) {
    int n = bvh.numPrims;
    if (n == 0) return bvh.wideNodes.empty() ? "" : "nodes without primitives";
    if (bvh.wideNodes.empty()) return "no wide nodes";
    std::vector<int> idSeen(n, 0), nodeSeen(bvh.wideNodes.size(), 0);
    Aabb bounds;
    std::string e = validateWideNode(bvh, 0, 1, idSeen, nodeSeen, bounds);
    if (!e.empty()) return e;
    for (int id = 0; id < n; ++id)
        if (!idSeen[id]) return "primitive " + std::to_string(id) + " is unreachable";
    for (std::size_t i = 0; i < nodeSeen.size(); ++i)
        if (!nodeSeen[i]) return "node " + std::to_string(i) + " is unreachable";
    return "";
}

double wideBvhSahCost(const BvhSnapshot& bvh) {
    if (bvh.numPrims == 0 || bvh.wideNodes.empty()) return 0.0;
    auto area = [](const Aabb& b) {
        double x = double(b.hi.x) - b.lo.x, y = double(b.hi.y) - b.lo.y, z = double(b.hi.z) - b.lo.z;
        return x * y + y * z + z * x;
    };
    auto nodeBox = [](const WideNode& w) {
        Aabb b;
        for (int s = 0; s < 8; ++s)
            if (w.imask >> s & 1 || w.meta[s]) b.extend(wideChildBox(w, s));
        return b;
    };
    double rootArea = area(nodeBox(bvh.wideNodes[0]));
    if (!(rootArea > 0.0)) return 0.0;
    double cost = 0.0;
    for (const WideNode& w : bvh.wideNodes) {
        cost += area(nodeBox(w));  // every wide node costs 1
        for (int s = 0; s < 8; ++s) cost += wideLeafCount(w, s) * area(wideChildBox(w, s));
    }
    return cost / rootArea;
}

// ---- Distributions ---------------------------------------------------------------------------

DistributionSnapshot buildDistribution(Backend backend, const std::vector<double>& weights, int n, int count,
                                       LightSampler kind, int guideSize, int repetitions) {
    if (weights.size() != std::size_t(n) * count) throw InputError("distribution weights must be n x count");
    return onBackend(
        backend, [&](CpuExec& exec) { return buildDistributionOn(exec, weights, n, count, kind, guideSize, repetitions); },
        [&] { return buildDistributionCuda(weights, n, count, kind, guideSize, repetitions); });
}

DistributionSamples sampleDistribution(Backend backend, const std::vector<double>& weights, int n, int count,
                                       LightSampler kind, int guideSize, const std::vector<float>& us,
                                       const std::vector<int>& distributions, bool countLoads) {
    if (weights.size() != std::size_t(n) * count) throw InputError("distribution weights must be n x count");
    if (!distributions.empty() && distributions.size() != us.size()) throw InputError("one distribution per sample");
    return onBackend(
        backend, [&](CpuExec& exec) { return sampleDistributionOn(exec, weights, n, count, kind, guideSize, us, distributions, countLoads); },
        [&] { return sampleDistributionCuda(weights, n, count, kind, guideSize, us, distributions, countLoads); });
}

double samplingRate(Backend backend, const std::vector<double>& weights, int n, LightSampler kind, int guideSize,
                    int samples, int repetitions) {
    return onBackend(
        backend, [&](CpuExec& exec) { return samplingRateOn(exec, weights, n, kind, guideSize, samples, repetitions); },
        [&] { return samplingRateCuda(weights, n, kind, guideSize, samples, repetitions); });
}

namespace {
float lowerBound(const float* cdf, int i) { return i > 0 ? cdf[i - 1] : 0.0f; }
}  // namespace

std::string validateForest(const DistributionSnapshot& s) {
    if (s.kind != LightSampler::RadixForest) return "not a radix forest";
    int n = s.n, m = s.guideSize;
    if (s.nodes.size() != std::size_t(n) * s.count || s.guide.size() != std::size_t(m + 1) * s.count) return "wrong array sizes";
    for (int d = 0; d < s.count; ++d) {
        std::string where = "distribution " + std::to_string(d) + ": ";
        const float* cdf = &s.cdf[std::size_t(d) * n];
        const ForestNode* tree = &s.nodes[std::size_t(d) * n];
        const int* guide = &s.guide[std::size_t(d) * (m + 1)];
        for (int j = 0; j < n; ++j) {
            if (floatAsUint(tree[j].split) != floatAsUint(lowerBound(cdf, j)))
                return where + "node " + std::to_string(j) + " does not split at its entry's lower bound";
            if (tree[j].pending != -1) return where + "node " + std::to_string(j) + " left its merge slot set";
        }
        std::vector<int> nodeSeen(n, 0), leafSeen(n, 0);
        struct Item { int id, lo, hi; };
        std::vector<Item> stack;
        int first = 0;  // first entry of the current cell, advanced incrementally
        for (int c = 0; c < m; ++c) {
            while (first < n && distribution::cellOf(lowerBound(cdf, first), m) < c) ++first;
            std::string cell = where + "cell " + std::to_string(c) + ": ";
            if (first == n || distribution::cellOf(lowerBound(cdf, first), m) != c) {
                if (guide[c] != ~(first - 1)) return cell + "no lower bound inside, but the guide is not ~" + std::to_string(first - 1);
                continue;
            }
            int last = first;
            while (last + 1 < n && distribution::cellOf(lowerBound(cdf, last + 1), m) == c) ++last;
            if (guide[c] != first) return cell + "guide does not name the tree root " + std::to_string(first);
            const ForestNode& root = tree[first];
            if (root.child[0] != ~(first > 0 ? first - 1 : 0)) return cell + "root's left child is not the entry overlapping from the left";
            if (nodeSeen[first]++) return cell + "root reached twice";
            stack.push_back({root.child[1], first, last});
            while (!stack.empty()) {
                Item it = stack.back();
                stack.pop_back();
                if (it.id < 0) {
                    int leaf = ~it.id;
                    if (leaf != it.lo || leaf != it.hi) return cell + "entry " + std::to_string(leaf) + " is outside its subtree's range";
                    if (leafSeen[leaf]++) return cell + "entry " + std::to_string(leaf) + " is reached twice";
                    continue;
                }
                int j = it.id;
                if (j <= it.lo || j > it.hi) return cell + "node " + std::to_string(j) + " does not split its range";
                if (nodeSeen[j]++) return cell + "node " + std::to_string(j) + " reached twice";
                stack.push_back({tree[j].child[0], it.lo, j - 1});
                stack.push_back({tree[j].child[1], j, it.hi});
            }
        }
        for (int i = 0; i < n; ++i) {
            if (!leafSeen[i]) return where + "entry " + std::to_string(i) + " is unreachable";
            if (!nodeSeen[i]) return where + "node " + std::to_string(i) + " is unused";
        }
    }
    return "";
}

std::string validateGuideTable(const DistributionSnapshot& s) {
    if (s.kind != LightSampler::GuideTable) return "not a guide table";
    int n = s.n, m = s.guideSize;
    if (s.guide.size() != std::size_t(m + 1) * s.count) return "wrong guide size";
    for (int d = 0; d < s.count; ++d) {
        const float* cdf = &s.cdf[std::size_t(d) * n];
        const int* guide = &s.guide[std::size_t(d) * (m + 1)];
        auto index = [&](float u) { return int(std::min<std::ptrdiff_t>(std::upper_bound(cdf, cdf + n, u) - cdf, n - 1)); };
        std::string where = "distribution " + std::to_string(d) + ": ";
        if (guide[m] != n - 1) return where + "last bound is not n - 1";
        for (int c = 0; c < m; ++c) {
            std::string cell = where + "cell " + std::to_string(c) + ": ";
            float t = distribution::cellStart(c, m);
            if (distribution::cellOf(t, m) != c || (t > 0.0f && distribution::cellOf(distribution::nextFloatDown(t), m) >= c))
                return cell + "start is not the cell's first float";
            int g = guide[c] < 0 ? ~guide[c] : guide[c];
            if (g != index(t)) return cell + "guide " + std::to_string(g) + " is not the index of the cell's first number " + std::to_string(index(t));
            float last = c + 1 < m ? distribution::nextFloatDown(distribution::cellStart(c + 1, m)) : distribution::kOneMinusEpsilon;
            if ((guide[c] < 0) != (index(last) == g)) return cell + "single-entry flag is wrong";
        }
    }
    return "";
}

int forestDepth(const DistributionSnapshot& s) {
    // Depth-first over every cell's tree, carrying the numbers [lo, hi) that reach each node:
    // subtrees no number can enter (chains of equal lower bounds from zero-weight entries, which
    // the ties build) do not count.
    int deepest = 0, n = s.n, m = s.guideSize;
    struct Item { int id, depth; float lo, hi; };
    std::vector<Item> stack;
    for (int d = 0; d < s.count; ++d) {
        const ForestNode* tree = &s.nodes[std::size_t(d) * n];
        for (int c = 0; c < m; ++c) {
            float lo = distribution::cellStart(c, m);
            float hi = c + 1 < m ? distribution::cellStart(c + 1, m) : 1.0f;
            stack.push_back({s.guide[std::size_t(d) * (m + 1) + c], 0, lo, hi});
            while (!stack.empty()) {
                Item it = stack.back();
                stack.pop_back();
                if (it.lo >= it.hi) continue;
                if (it.id < 0) {
                    deepest = std::max(deepest, it.depth);
                    continue;
                }
                float split = tree[it.id].split;
                stack.push_back({tree[it.id].child[0], it.depth + 1, it.lo, std::min(it.hi, split)});
                stack.push_back({tree[it.id].child[1], it.depth + 1, std::max(it.lo, split), it.hi});
            }
        }
    }
    return deepest;
}

std::vector<double> aliasProbabilities(const DistributionSnapshot& s, int d) {
    std::vector<double> p(s.n, 0.0);
    for (int i = 0; i < s.n; ++i) {
        const AliasEntry& e = s.alias[std::size_t(d) * s.n + i];
        p[i] += double(e.threshold) / s.n;
        p[e.alias] += (1.0 - double(e.threshold)) / s.n;
    }
    return p;
}

}  // namespace wavefront
