// What a stage body sees of its launch, on both backends: the item count (fixed, or read from
// exec memory inside the kernel), the SIMD-efficiency probe, and the traits a stage declares to
// ask its launcher for something (a coalesced scatter, a register cap).
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/core/device.h"

namespace wavefront {

/// Number of SIMD-efficiency counter slots (one per kernel that samples its active lanes).
constexpr int kSimdSlots = 16;

/// Samples the fraction of active lanes of the calling warp into one counter slot. Compiled to
/// nothing unless WAVEFRONT_STATS is on and the code runs on the GPU.
struct SimdProbe {
    unsigned long long* counters = nullptr;  ///< kSimdSlots pairs (active lanes, warp samples)
    int slot = 0;
    WF_CPU_GPU WF_INLINE void sample() const {
        if constexpr (kCountSimd)
            if (counters) sampleActiveLanes(&counters[2 * slot]);
    }
};

/// A driver's SIMD counters as kernels see them: two slots per kernel, occupancy when the kernel
/// starts on a warp and activity at every traversal step.
struct SimdCounters {
    unsigned long long* counters = nullptr;
    WF_CPU_GPU SimdProbe entry(int kernel) const { return SimdProbe{counters, 2 * kernel}; }
    WF_CPU_GPU SimdProbe steps(int kernel) const { return SimdProbe{counters, 2 * kernel + 1}; }
};

/// Stages of compactingFor may also scatter one item of kScatterWords 16-byte words per input to
/// an arbitrary address (BDPT path vertices): they declare kScatterWords and scatterTarget(out, i)
/// (nullptr: nothing to write) and scatterSource(out). This trait reads kScatterWords, 0 if absent.
template <class Stage, class = void>
struct ScatterWords { static constexpr int value = 0; };
template <class Stage>
struct ScatterWords<Stage, std::void_t<decltype(Stage::kScatterWords)>> { static constexpr int value = Stage::kScatterWords; };

/// Stages of parallelFor may ask for a block size other than 256 threads (kBlockSize), and for at
/// least kMinBlocksPerSm resident blocks per multiprocessor (a register cap of
/// 65536 / (block size * k), through __launch_bounds__) where the compiler's own choice lands just
/// past an occupancy step. These traits read them: 256 and 1 (no cap) if absent.
template <class Stage, class = void>
struct BlockSizeOf { static constexpr int value = 256; };

/// Blocks of 64 threads for the stages that trace one ray per thread (PT's extend and connect,
/// BDPT's extend and shadow rays): a block's registers come back when its slowest ray ends.
/// Against 256: rtiow-final spt-r -1.5% time, mesh-1m +7%; BDPT mesh-1m +3%, hdr-spheres -1%.
constexpr int kTraversalBlock = 64;
template <class Stage>
struct BlockSizeOf<Stage, std::void_t<decltype(Stage::kBlockSize)>> { static constexpr int value = Stage::kBlockSize; };
template <class Stage, class = void>
struct MinBlocksPerSm { static constexpr int value = 1; };
template <class Stage>
struct MinBlocksPerSm<Stage, std::void_t<decltype(Stage::kMinBlocksPerSm)>> { static constexpr int value = Stage::kMinBlocksPerSm; };

/// Number of items a launch covers: a fixed count, or a count that lives in exec memory
/// (read inside the kernel, so stream sizes never travel to the host in the render loop).
struct ItemCount {
    int capacity = 0;
    const int* dynamicCount = nullptr;
    WF_CPU_GPU int get() const {
        if (!dynamicCount) return capacity;
        int n = *dynamicCount;
        return n < capacity ? n : capacity;
    }
};

}  // namespace wavefront
