// What both backends share on the host: owning buffers in an exec's memory, per-kernel
// statistics, and the readout of the SIMD counters. The backends themselves are CpuExec
// (cpu/cpu_exec.h) and CudaExec (cuda/cuda_exec.cuh), both held to exec_contract.h; drivers are
// templates over the exec type and are instantiated once for each (host/render/render_backend_*).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "kernels/core/launch.h"
#include "wavefront/types.h"

namespace wavefront {

/// Owning, move-only array in one exec's memory space (host memory for CpuExec, device memory
/// for CudaExec). Kernels never see it: they get its raw pointer inside a view struct.
template <class T>
class Buffer {
public:
    /// Frees `ptr` of `bytes`; `owner` is the exec that allocated it (it counts its memory; CUDA
    /// frees stream-ordered on its stream). Buffers die before their exec.
    using Deleter = void (*)(void* owner, void* ptr, std::size_t bytes);
    Buffer() = default;
    Buffer(T* ptr, std::size_t count, Deleter deleter, void* owner = nullptr)
        : ptr_(ptr), count_(count), deleter_(deleter), owner_(owner) {}
    Buffer(Buffer&& o) noexcept { swap(o); }
    Buffer& operator=(Buffer&& o) noexcept { Buffer tmp(std::move(o)); swap(tmp); return *this; }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { if (ptr_) deleter_(owner_, ptr_, bytes()); }
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

/// The memory an exec holds, counted at every allocation and free: now and the most at once.
struct MemoryCounter {
    std::size_t live = 0, peak = 0;
    void allocated(std::size_t bytes) {
        live += bytes;
        if (live > peak) peak = live;
    }
    void freed(std::size_t bytes) { live -= bytes; }
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

/// Active-lane fraction pooled over counter slots of the raw (lanes, warps) pairs read back from
/// the device; negative when none was sampled.
inline double simdFraction(const std::vector<unsigned long long>& raw, std::initializer_list<int> slots) {
    double lanes = 0.0, warps = 0.0;
    for (int s : slots) {
        lanes += double(raw[2 * s]);
        warps += double(raw[2 * s + 1]);
    }
    return warps > 0.0 ? lanes / (double(kWarpSize) * warps) : -1.0;
}

}  // namespace wavefront
