// What both backends share: owning buffers, per-kernel statistics and the SIMD probe.
// The backends themselves are CpuExec (cpu_exec.h) and CudaExec (cuda_exec.cuh); drivers are
// templates over the exec type and are instantiated once for each.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "wavefront/config.h"
#include "wavefront/renderer.h"

namespace wavefront {

/// Owning, move-only array in one exec's memory space (host memory for CpuExec, device memory
/// for CudaExec). Kernels never see it: they get its raw pointer inside a view struct.
template <class T>
class Buffer {
public:
    /// Frees `ptr`; `owner` is the exec that allocated it (CUDA frees stream-ordered on its stream).
    using Deleter = void (*)(void* owner, void* ptr);
    Buffer() = default;
    Buffer(T* ptr, std::size_t count, Deleter deleter, void* owner = nullptr)
        : ptr_(ptr), count_(count), deleter_(deleter), owner_(owner) {}
    Buffer(Buffer&& o) noexcept { swap(o); }
    Buffer& operator=(Buffer&& o) noexcept { Buffer tmp(std::move(o)); swap(tmp); return *this; }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { if (ptr_) deleter_(owner_, ptr_); }
    T* data() const { return ptr_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

private:
    void swap(Buffer& o) {
        std::swap(ptr_, o.ptr_);
        std::swap(count_, o.count_);
        std::swap(deleter_, o.deleter_);
        std::swap(owner_, o.owner_);
    }
    T* ptr_ = nullptr;
    std::size_t count_ = 0;
    Deleter deleter_ = nullptr;
    void* owner_ = nullptr;
};

/// Accumulates time and launch counts per label, in first-seen order.
class KernelTimings {
public:
    int slot(const char* label) {
        for (std::size_t i = 0; i < entries_.size(); ++i)
            if (entries_[i].label == label) return int(i);
        entries_.push_back(KernelStats{label});
        return int(entries_.size() - 1);
    }
    void add(int slot, double ms) { entries_[slot].milliseconds += ms; entries_[slot].launches++; }
    std::vector<KernelStats>& entries() { return entries_; }
    void clear() { entries_.clear(); }

private:
    std::vector<KernelStats> entries_;
};

/// Number of SIMD-efficiency counter slots (one per kernel that samples its active lanes).
constexpr int kSimdSlots = 16;

/// Samples the fraction of active lanes of the calling warp into one counter slot. Compiled to
/// nothing unless WAVEFRONT_STATS is on and the code runs on the GPU.
struct SimdProbe {
    unsigned long long* counters = nullptr;  ///< kSimdSlots pairs (active lanes, warp samples)
    int slot = 0;
    WF_CPU_GPU WF_INLINE void sample() const {
#if defined(WAVEFRONT_STATS) && defined(WF_IS_GPU_CODE)
        unsigned mask = __activemask();
        int leader = __ffs(mask) - 1;
        if (counters && (threadIdx.x & 31) == unsigned(leader)) {
            atomicAdd(&counters[2 * slot], (unsigned long long)__popc(mask));
            atomicAdd(&counters[2 * slot + 1], 1ull);
        }
#endif
    }
};

/// A driver's SIMD counters as kernels see them: two slots per kernel, occupancy when the kernel
/// starts on a warp and activity at every traversal step.
struct SimdCounters {
    unsigned long long* counters = nullptr;
    WF_CPU_GPU SimdProbe entry(int kernel) const { return SimdProbe{counters, 2 * kernel}; }
    WF_CPU_GPU SimdProbe steps(int kernel) const { return SimdProbe{counters, 2 * kernel + 1}; }
};

/// Active-lane fraction pooled over counter slots of the raw (lanes, warps) pairs read back from
/// the device; negative when none was sampled.
inline double simdFraction(const std::vector<unsigned long long>& raw, std::initializer_list<int> slots) {
    double lanes = 0.0, warps = 0.0;
    for (int s : slots) {
        lanes += double(raw[2 * s]);
        warps += double(raw[2 * s + 1]);
    }
    return warps > 0.0 ? lanes / (32.0 * warps) : -1.0;
}

/// Stages of compactingFor may also scatter one item of kScatterWords 16-byte words per input to
/// an arbitrary address (BDPT path vertices): they declare kScatterWords and scatterTarget(out, i)
/// (nullptr: nothing to write) and scatterSource(out). This trait reads kScatterWords, 0 if absent.
template <class Stage, class = void>
struct ScatterWords { static constexpr int value = 0; };
template <class Stage>
struct ScatterWords<Stage, std::void_t<decltype(Stage::kScatterWords)>> { static constexpr int value = Stage::kScatterWords; };

/// Stages may ask for at least kMinBlocksPerSm resident blocks of 256 threads per multiprocessor
/// (a register cap of 65536 / (256 * k), through __launch_bounds__) where the compiler's own choice
/// lands just past an occupancy step. This trait reads it, 1 (no cap) if absent.
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
