// The CPU backend: the same stage bodies run on a thread pool over all cores.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <numeric>
#include <vector>

#include "host/backends/cpu/thread_pool.h"
#include "kernels/core/device.h"
#include "host/backends/exec_contract.h"
#include "kernels/core/math.h"
#include "wavefront/error.h"

namespace wavefront {

class CpuExec {
public:
    explicit CpuExec(int threads = 0) : ownedPool_(new ThreadPool(threads)), pool_(*ownedPool_) {}
    static constexpr bool kIsGpu = false;
    static constexpr int kItemsPerChunk = 1024;  ///< parallelFor's work unit
    /// Path-state slots per stream: enough items per chunk for every thread, small enough to stay in cache.
    int defaultStreamCapacity() const { return 1 << 16; }

    template <class T>
    Buffer<T> allocate(std::size_t count) {
        if (count == 0) return Buffer<T>();
        void* p = ::operator new(count * sizeof(T), std::align_val_t(64), std::nothrow);
        if (!p) throw InputError("cannot allocate " + std::to_string(count * sizeof(T) >> 20) + " MiB of host memory");
        memory_.allocated(count * sizeof(T));
        return Buffer<T>(
            static_cast<T*>(p), count,
            [](void* exec, void* q, std::size_t bytes) {
                static_cast<CpuExec*>(exec)->memory_.freed(bytes);
                ::operator delete(q, std::align_val_t(64));
            },
            this);
    }
    /// Host memory held by this exec's buffers.
    const MemoryCounter& memory() const { return memory_; }
    template <class T> void upload(T* dst, const T* src, std::size_t n) { if (n) std::memcpy(dst, src, n * sizeof(T)); }
    template <class T> void download(T* dst, const T* src, std::size_t n) { if (n) std::memcpy(dst, src, n * sizeof(T)); }
    template <class T> void copy(T* dst, const T* src, std::size_t n) { if (n) std::memcpy(dst, src, n * sizeof(T)); }
    template <class T> void fill(T* dst, const T& value, std::size_t n) { std::fill(dst, dst + n, value); }
    void synchronize() {}

    /// Asynchronous read-back of a small value for progress and termination checks (the CPU
    /// backend is synchronous, so the value is there at once).
    template <class T>
    void postRead(const T* src) {
        static_assert(sizeof(T) <= sizeof(mailbox_), "mailbox is small");
        std::memcpy(mailbox_, src, sizeof(T));
        posted_ = true;
    }
    /// True (and `out` filled) when the last posted read has arrived; `wait` blocks for it.
    template <class T>
    bool tryRead(T& out, bool wait) {
        if (!posted_) return false;
        std::memcpy(&out, mailbox_, sizeof(T));
        return true;
    }

    /// Runs f(i) for i in [0, count.get()).
    template <class F>
    void parallelFor(const char* label, ItemCount count, const F& f) {
        Scope s(*this, label);
        int n = count.get();
        pool_.parallelFor(n, kItemsPerChunk, [&](int begin, int end) {
            for (int i = begin; i < end; ++i) f(i);
        });
    }
    template <class F>
    void parallelFor(const char* label, int n, const F& f) { parallelFor(label, ItemCount{n, nullptr}, f); }

    /// Items of parallelFor that run at once: one chunk per pool thread, whose items run in turn.
    /// A persistent-threads stage launched with this many items keeps every thread busy.
    template <class F>
    int residentThreads() const { return kItemsPerChunk * pool_.size(); }

    /// Write-time compaction: each chunk evaluates its items, counts the active outputs of each
    /// stream, reserves space with one atomic per chunk and stream, then writes.
    template <class Stage>
    void compactingFor(const char* label, ItemCount count, const Stage& stage) {
        Scope s(*this, label);
        constexpr int kChunk = 256;
        int n = count.get();
        pool_.parallelFor(n, kChunk, [&](int begin, int end) {
            typename Stage::Output outputs[kChunk];
            for (int i = begin; i < end; ++i) outputs[i - begin] = stage.evaluate(i);
            if constexpr (ScatterWords<Stage>::value > 0) {
                for (int i = begin; i < end; ++i)
                    if (Float4* dst = stage.scatterTarget(outputs[i - begin], i))
                        std::memcpy(dst, stage.scatterSource(outputs[i - begin]), ScatterWords<Stage>::value * sizeof(Float4));
            }
            for (int stream = 0; stream < Stage::kStreams; ++stream) {
                int active = 0;
                for (int i = begin; i < end; ++i) active += outputs[i - begin].active(stream);
                if (!active) continue;
                int slot = atomicFetchAdd(stage.outCounter[stream], active);
                for (int i = begin; i < end; ++i)
                    if (outputs[i - begin].active(stream)) stage.emit(stream, slot++, outputs[i - begin], i);
            }
        });
    }

    /// Reduces map(i) over [0, n) into *result (host memory for this exec).
    template <class T, class Map, class Op>
    void transformReduceDevice(int n, T init, const Map& map, const Op& op, T* result) {
        int chunks = std::max(1, std::min(n / 4096 + 1, 4 * pool_.size()));
        std::vector<T> partial(chunks, init);
        int per = (n + chunks - 1) / chunks;
        pool_.parallelFor(chunks, 1, [&](int b, int e) {
            for (int c = b; c < e; ++c)
                for (int i = c * per; i < std::min(n, (c + 1) * per); ++i) partial[c] = op(partial[c], map(i));
        });
        T r = init;
        for (const T& p : partial) r = op(r, p);
        *result = r;
    }

    /// Sorts (key, value) pairs by key; stable, so equal keys keep index order.
    void sortPairs(std::uint64_t* keys, std::uint32_t* values, int n, int /*keyBits*/ = 64) {
        Scope s(*this, "sort pairs");
        std::vector<std::pair<std::uint64_t, std::uint32_t>> kv(n);
        for (int i = 0; i < n; ++i) kv[i] = {keys[i], values[i]};
        std::stable_sort(kv.begin(), kv.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (int i = 0; i < n; ++i) { keys[i] = kv[i].first; values[i] = kv[i].second; }
    }

    void inclusiveScan(const double* in, double* out, int n) { scan(in, out, n); }
    void inclusiveScan(const int* in, int* out, int n) { scan(in, out, n); }

    std::vector<KernelStats> kernelStats() { return timings_.entries(); }
    void clearStats() { timings_.clear(); }
    std::string name() const { return "cpu (" + std::to_string(pool_.size()) + " threads)"; }
    std::size_t freeMemoryBytes() const { return std::size_t(-1); }

private:
    MemoryCounter memory_;
    template <class T>
    void scan(const T* in, T* out, int n) {
        Scope s(*this, "inclusive scan");
        T acc = 0;
        for (int i = 0; i < n; ++i) { acc += in[i]; out[i] = acc; }
    }
    struct Scope {
        CpuExec& exec;
        int slot;
        std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
        Scope(CpuExec& e, const char* label) : exec(e), slot(e.timings_.slot(label)) {}
        ~Scope() {
            auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            exec.timings_.add(slot, ms);
        }
    };
    std::unique_ptr<ThreadPool> ownedPool_;
    ThreadPool& pool_;
    KernelTimings timings_;
    alignas(16) unsigned char mailbox_[256];
    bool posted_ = false;
};

static_assert(isExec<CpuExec>, "CpuExec provides the exec contract (exec_contract.h)");

}  // namespace wavefront
