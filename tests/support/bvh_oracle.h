// Internal entry points for tests and benchmarks: build the LBVH or trace rays on a chosen
// backend with the library's own code, and copy the results back.
#pragma once
#include <vector>

#include "wide_bvh_builder.h"
#include "wavefront/renderer.h"

namespace wavefront {

struct PrimitiveArrays {
    std::vector<vec3> positions;
    std::vector<uvec3> triangles;
    std::vector<Float4> spheres;  ///< centre, radius
};

/// A scene's primitives as the BVH builders see them.
inline PrimitiveArrays sceneArrays(const Scene& s) {
    PrimitiveArrays p;
    p.positions = s.positions();
    p.triangles = s.triangles();
    for (const Sphere& sp : s.spheres()) p.spheres.push_back(Float4(sp.center, sp.radius));
    return p;
}

struct BvhSnapshot {
    std::vector<BvhNode> nodes;
    std::vector<Float4> primData;
    int numPrims = 0;
    int numTriangles = 0;
    double buildMilliseconds = 0.0;  ///< build only (data already on the backend), wall clock
    std::vector<KernelStats> stages; ///< per-stage kernel times of the build
    BvhView view() const { return BvhView{nodes.data(), primData.data(), numPrims, numTriangles}; }
    /// With `wide`: the 8-wide tree collapsed from `nodes` (empty if it would be too deep).
    std::vector<WideNode> wideNodes;
    std::vector<Float4> widePrimData;
    int wideDepth = 0;
};

struct TraceResult {
    std::vector<Hit> hits;
    double milliseconds = 0.0;  ///< tracing only
};

/// `wide`: the binary tree also collapsed into the 8-wide one (collapseToWide); the build time
/// then includes the collapse, and traceRays traverses the wide tree.
BvhSnapshot buildBvhSnapshot(Backend backend, const PrimitiveArrays& prims, BvhBuilder builder = BvhBuilder::Lbvh,
                             bool wide = false);
/// How traceRays launches the traversal: a thread per ray, or persistent threads that take the
/// next ray as soon as one is done (traceReplacing).
enum class TraceSchedule { ThreadPerRay, RayReplacement };
TraceResult traceRays(Backend backend, const PrimitiveArrays& prims, const std::vector<Ray>& rays, bool anyHit,
                      BvhBuilder builder = BvhBuilder::Lbvh, bool wide = false,
                      TraceSchedule schedule = TraceSchedule::ThreadPerRay);

struct CompactionTimes;
/// Write-time compaction of n 32-byte items (a hash keeps `keepFraction` of them) against a plain
/// copy and, on CUDA, flags + cub::DeviceSelect::Flagged (flaggedMs < 0 on the CPU).
CompactionTimes measureCompaction(Backend backend, int n, float keepFraction, int repetitions);

/// `data` uploaded into the backend's memory and downloaded again.
std::vector<unsigned char> uploadRoundTrip(Backend backend, const std::vector<unsigned char>& data);

/// Structural check: every primitive in exactly one leaf, every child box inside its parent's,
/// the root covering all primitives. Returns an empty string when valid, else the first problem.
std::string validateBvh(const BvhSnapshot& bvh);
/// Depth of the deepest leaf (root = 1).
int bvhDepth(const BvhSnapshot& bvh);
/// Structural check of the 8-wide tree: every primitive in exactly one leaf, every node reached
/// once, meta bytes well formed, every child box holding its primitives, depth within the stack.
std::string validateWideBvh(const BvhSnapshot& bvh);
/// SAH cost of the 8-wide tree, the same way: wide nodes cost 1 each, leaf primitives 1 each, both
/// weighted by their box's area (the dequantised child boxes) over the root's.
double wideBvhSahCost(const BvhSnapshot& bvh);
/// SAH cost relative to the root's surface area, node and primitive costs 1: the sum over internal
/// nodes and over leaves (one primitive each) of their box's area over the root's.
double bvhSahCost(const BvhSnapshot& bvh);

}  // namespace wavefront
