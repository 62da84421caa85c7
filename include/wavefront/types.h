// The vocabulary the renderer shares with the layers below it: the light sampler and BVH builder
// a scene is uploaded with, the CUDA devices there are, what an edit of the uploaded scene costs, and per-kernel timings. It
// stays free of the renderer's own types, so that the backends and the scene's device side
// include this and not renderer.h (which includes it).
#pragma once
#include <cstdint>
#include <string>

#include "wavefront/config.h"

namespace wavefront {

/// Number of CUDA devices usable by this build (0 without the CUDA backend or without a GPU).
WAVEFRONT_API int cudaDeviceCount();

/// How a light (or an environment-map texel) is chosen in proportion to power: all four return
/// the same distribution; the three monotonic ones return the same index for the same number.
enum class LightSampler {
    BinarySearch,  ///< binary search over the CDF
    GuideTable,    ///< cutpoint guide table, then binary search inside the cell
    RadixForest,   ///< guide table + radix-tree forest (Binder and Keller)
    Alias,         ///< Vose's alias table (not monotonic)
};

/// Which tree the BVH is (built once per Renderer, on the backend; every integrator traverses it).
enum class BvhBuilder {
    /// PLOC for scenes with triangles, the LBVH for spheres only and for an edit's rebuild
    /// (Renderer::setMeshPositions: per-frame work; measured: benchmarks/results/h100.md)
    Auto,
    Lbvh,  ///< Karras 2012: radix-sorted Morton codes, the fastest build
    Ploc,  ///< Meister and Bittner 2018: surface-area clustering of Morton neighbours, a lower SAH cost
};

/// How Renderer::setMeshPositions updates the BVH.
enum class BvhUpdate {
    /// Refit; then rebuild if the refitted tree's surface-area cost exceeds kRefitCostLimit times
    /// the cost of the tree as last built (docs/decisions.md, "Edits": measured).
    Auto,
    /// Keep the topology, recompute the boxes bottom-up (O(n), no sort; after the first refit one
    /// launch: 0.28 ms for a million triangles on an H100); measures no cost.
    Refit,
    /// Build the tree again with the renderer's builder, the LBVH under BvhBuilder::Auto (0.63 ms
    /// for a million triangles on an H100, PLOC's 3.9 ms).
    Rebuild,
};

/// What one edit cost (Renderer::set* return it; RenderStats::edits lists those before a call).
struct EditStats {
    std::string what;                 ///< "camera", "material 3", "texture 0", "light 1", "environment", "mesh 2", "instance 5"
    std::uint64_t bytesUploaded = 0;  ///< host-to-device bytes (the CPU backend: bytes copied into its buffers)
    std::string bvh = "none";         ///< "none", "refit", "rebuild" or "refit, rebuild" (Auto over the limit)
    /// After an Auto refit: the tree's surface-area cost over the cost at its last build (1: as
    /// good); 0 when not measured (Refit and Rebuild skip the two passes over the tree it takes).
    double bvhCostRatio = 0.0;
    bool lightsRebuilt = false;       ///< the light distribution was built again
    bool filmReset = true;            ///< EditMode::ResetFilm
    double seconds = 0.0;             ///< wall time of the edit, device work included
    /// The part of `seconds` the BVH update took (refit and its cost measurements, or rebuild),
    /// device work included; 0 without one.
    double bvhSeconds = 0.0;
    /// How many edits this entry stands for: 1 from a set* call; in RenderStats::edits, the edits
    /// of one thing (same `what`) made between two render calls, merged into one entry.
    std::uint64_t count = 1;
};

/// The refit rule of BvhUpdate::Auto: rebuild once a refit tree costs this much more than a fresh
/// one would (docs/decisions.md, "Edits").
constexpr double kRefitCostLimit = 1.2;

/// Time and launch count of one labelled kernel (or CPU stage).
struct KernelStats {
    std::string label;
    double milliseconds = 0.0;
    std::uint64_t launches = 0;
    /// SIMD efficiency, 0..1, negative when not measured (built without WAVEFRONT_STATS, or the
    /// CPU backend). Occupancy: average fraction of a warp's lanes holding live work when the
    /// kernel starts on it (the paper's Table 1 measure; for the megakernel, at every bounce).
    double simdOccupancy = -1.0;
    /// Average fraction of active lanes at every traversal step (kernels that trace rays): the
    /// instruction-level figure, comparable to Nsight Compute's threads-per-instruction ratio / 32.
    double simdEfficiency = -1.0;
};

}  // namespace wavefront
