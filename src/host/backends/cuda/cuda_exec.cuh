// The CUDA backend: launches the same stage bodies as CpuExec from generic kernels.
// Included only by .cu files.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cuda_runtime.h>

#include "host/backends/cuda/cuda_check.h"
#include "host/backends/exec_contract.h"
#include "kernels/core/math.h"

namespace wavefront {

namespace detail {

template <class F>
__global__ void forEachKernel(F f, ItemCount count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count.get()) f(i);
}

/// forEachKernel with the register cap a stage asks for (MinBlocksPerSm); only such stages get
/// launch bounds, since bounds change how the compiler allocates registers for every kernel.
template <int kBlock, int kMinBlocks, class F>
__global__ void __launch_bounds__(kBlock, kMinBlocks) forEachKernelCapped(F f, ItemCount count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count.get()) f(i);
}

/// Every lane of the warp holds one item of kWords 16-byte words for its own address `dst`
/// (nullptr: none). Lanes write through a shared-memory tile, transposed so that each store
/// instruction writes whole items with consecutive lanes on consecutive 4-byte words (van Antwerpen
/// 2011, 5.3.1, after Ruetsch and Micikevicius): full sectors instead of kWarpSize scattered
/// 16-byte pieces. Every lane of the warp must call it.
template <int kBlock, int kWords>
__device__ void warpScatter(Float4* dst, const Float4* src) {
    constexpr int kFloats = 4 * kWords;
    static_assert(kWarpSize % kFloats == 0, "items must tile a warp");
    __shared__ float tile[kBlock / kWarpSize][kWarpSize][kFloats + 1];  // +1: conflict-free rows and columns
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    const unsigned pending = __ballot_sync(~0u, dst != nullptr);
    if (!pending) return;
    if (dst) {
        const float* f = reinterpret_cast<const float*>(src);
#pragma unroll
        for (int k = 0; k < kFloats; ++k) tile[warp][lane][k] = f[k];
    }
    __syncwarp();
    const int word = lane % kFloats;
#pragma unroll 4
    for (int first = 0; first < kWarpSize; first += kWarpSize / kFloats) {
        int owner = first + lane / kFloats;
        float* target = reinterpret_cast<float*>(__shfl_sync(~0u, reinterpret_cast<unsigned long long>(dst), owner));
        if (pending >> owner & 1u) target[word] = tile[warp][owner][word];
    }
    __syncwarp();
}

/// Write-time compaction (van Antwerpen 2011, 4.3): a block-wide exclusive scan of each output
/// stream's active flags, one atomicAdd per block and stream to reserve space, then every active
/// thread writes at base + offset. No separate scan or scatter pass.
template <int kBlock, class Stage>
__global__ void __launch_bounds__(kBlock, MinBlocksPerSm<Stage>::value) compactingKernel(Stage stage, ItemCount count) {
    using Scan = cub::BlockScan<int, kBlock>;
    __shared__ typename Scan::TempStorage scanStorage;
    __shared__ int base[Stage::kStreams];
    int i = blockIdx.x * kBlock + threadIdx.x;
    bool valid = i < count.get();
    typename Stage::Output out{};
    if (valid) out = stage.evaluate(i);
    int offset[Stage::kStreams];
#pragma unroll
    for (int s = 0; s < Stage::kStreams; ++s) {
        int total;
        Scan(scanStorage).ExclusiveSum(valid && out.active(s) ? 1 : 0, offset[s], total);
        if (threadIdx.x == 0) base[s] = total ? atomicAdd(stage.outCounter[s], total) : 0;
        __syncthreads();  // scanStorage is reused by the next stream's scan; base[] is published
    }
#pragma unroll
    for (int s = 0; s < Stage::kStreams; ++s)
        if (valid && out.active(s)) stage.emit(s, base[s] + offset[s], out, i);
    if constexpr (ScatterWords<Stage>::value > 0) {
        Float4* dst = valid ? stage.scatterTarget(out, i) : nullptr;
        if (stage.coalescedScatter) warpScatter<kBlock, ScatterWords<Stage>::value>(dst, stage.scatterSource(out));
        else if (dst) for (int k = 0; k < ScatterWords<Stage>::value; ++k) dst[k] = stage.scatterSource(out)[k];
    }
}

template <class T, class Map>
struct IndexMap {
    Map map;
    __host__ __device__ T operator()(int i) const { return map(i); }
};

}  // namespace detail

void cudaFreeDeleter(void* exec, void* p, std::size_t bytes);

class CudaExec {
public:
    static constexpr bool kIsGpu = true;
    static constexpr int kBlock = 256;

    /// `external`: a host's stream to work on (RenderOptions::cudaStream), which the exec never
    /// destroys; null: a stream of its own.
    explicit CudaExec(cudaStream_t external = nullptr);
    ~CudaExec();
    /// Path-state slots per stream: eight times the threads the GPU keeps resident (2.16 M slots,
    /// 330 MB on an H200). The sweep in benchmarks/results/h200.md: 4x -> 8x gains 4% on
    /// cornell-box and 15% on mesh-1m; 16x loses 2% on cornell-box.
    int defaultStreamCapacity() const;
    CudaExec(const CudaExec&) = delete;
    CudaExec& operator=(const CudaExec&) = delete;

    /// Device memory; throws InputError naming the request and the free memory when it cannot fit.
    template <class T>
    Buffer<T> allocate(std::size_t count) {
        if (count == 0) return Buffer<T>();
        void* p = allocateBytes(count * sizeof(T));
        return Buffer<T>(static_cast<T*>(p), count, &cudaFreeDeleter, this);
    }
    template <class T> void upload(T* dst, const T* src, std::size_t n) {
        if (n) WF_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyHostToDevice, stream_));
        WF_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host source may die right after
    }
    template <class T> void download(T* dst, const T* src, std::size_t n) {
        if (n) WF_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyDeviceToHost, stream_));
        WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    template <class T> void copy(T* dst, const T* src, std::size_t n) {
        if (n) WF_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyDeviceToDevice, stream_));
    }
    template <class T> void fill(T* dst, const T& value, std::size_t n) {
        parallelFor("fill", int(n), FillOp<T>{dst, value});
    }
    void synchronize() {
        WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
        throwDeferred();
    }

    /// Asynchronous read-back of a small value into pinned memory, for progress and termination
    /// checks that must not stall the GPU: the copy is queued behind the work already launched.
    template <class T>
    void postRead(const T* src) {
        static_assert(sizeof(T) <= kMailboxBytes, "mailbox is small");
        WF_CUDA_CHECK(cudaMemcpyAsync(mailbox_, src, sizeof(T), cudaMemcpyDeviceToHost, stream_));
        WF_CUDA_CHECK(cudaEventRecord(mailboxEvent_, stream_));
        posted_ = true;
    }
    /// True (and `out` filled) when the last posted read has arrived; `wait` blocks for it.
    template <class T>
    bool tryRead(T& out, bool wait) {
        if (!posted_) return false;
        if (wait) {
            WF_CUDA_CHECK(cudaEventSynchronize(mailboxEvent_));
        } else {
            cudaError_t e = cudaEventQuery(mailboxEvent_);
            if (e == cudaErrorNotReady) return false;
            WF_CUDA_CHECK(e);
        }
        std::memcpy(&out, mailbox_, sizeof(T));
        return true;
    }
    cudaStream_t stream() const { return stream_; }

    template <class F>
    void parallelFor(const char* label, ItemCount count, const F& f) {
        if (count.capacity <= 0) return;
        constexpr int kStageBlock = BlockSizeOf<F>::value;
        int grid = (count.capacity + kStageBlock - 1) / kStageBlock;
        throwDeferred();
        Timed t(*this, label);
        if constexpr (MinBlocksPerSm<F>::value > 1)
            detail::forEachKernelCapped<kStageBlock, MinBlocksPerSm<F>::value><<<grid, kStageBlock, 0, stream_>>>(f, count);
        else
            detail::forEachKernel<<<grid, kStageBlock, 0, stream_>>>(f, count);
        WF_CUDA_CHECK_LAUNCH(label);
    }
    template <class F>
    void parallelFor(const char* label, int n, const F& f) { parallelFor(label, ItemCount{n, nullptr}, f); }

    /// Threads of parallelFor(F) that the GPU keeps resident at once (the occupancy API, over
    /// every multiprocessor): the launch size of a persistent-threads stage.
    template <class F>
    int residentThreads() const {
        constexpr int kStageBlock = BlockSizeOf<F>::value;
        int blocksPerSm = 0, sms = 0;
        if constexpr (MinBlocksPerSm<F>::value > 1)
            WF_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &blocksPerSm, detail::forEachKernelCapped<kStageBlock, MinBlocksPerSm<F>::value, F>, kStageBlock, 0));
        else
            WF_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSm, detail::forEachKernel<F>, kStageBlock, 0));
        WF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_));
        return std::max(1, blocksPerSm) * sms * kStageBlock;
    }

    template <class Stage>
    void compactingFor(const char* label, ItemCount count, const Stage& stage) {
        if (count.capacity <= 0) return;
        int grid = (count.capacity + kBlock - 1) / kBlock;
        throwDeferred();
        Timed t(*this, label);
        detail::compactingKernel<kBlock><<<grid, kBlock, 0, stream_>>>(stage, count);
        WF_CUDA_CHECK_LAUNCH(label);
    }

    /// Reduces map(i) over [0, n) into *dResult (device memory) without a host sync.
    template <class T, class Map, class Op>
    void transformReduceDevice(int n, T init, const Map& map, const Op& op, T* dResult) {
        // CCCL 3 removed CUB's fancy iterators; Thrust's work with every CUB release.
        auto in = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), detail::IndexMap<T, Map>{map});
        std::size_t bytes = 0;
        WF_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, in, dResult, n, op, init, stream_));
        void* scratch = scratchSpace(bytes);
        Timed t(*this, "reduce");
        WF_CUDA_CHECK(cub::DeviceReduce::Reduce(scratch, bytes, in, dResult, n, op, init, stream_));
    }

    /// cub::DeviceSelect::Flagged: the two-pass baseline that write-time compaction replaces.
    template <class T>
    void selectFlagged(const T* in, const char* flags, T* out, int* numSelected, int n) {
        std::size_t bytes = 0;
        WF_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, out, numSelected, n, stream_));
        void* scratch = scratchSpace(bytes);
        Timed t(*this, "cub select flagged");
        WF_CUDA_CHECK(cub::DeviceSelect::Flagged(scratch, bytes, in, flags, out, numSelected, n, stream_));
    }

    /// CUB radix sort of (key, value) pairs in place (through a double buffer), over the low
    /// `keyBits` bits of the keys.
    void sortPairs(std::uint64_t* keys, std::uint32_t* values, int n, int keyBits = 64);
    void inclusiveScan(const double* in, double* out, int n);
    void inclusiveScan(const int* in, int* out, int n);

    std::vector<KernelStats> kernelStats();  ///< synchronises and resolves pending events
    /// Device memory held by this exec (buffers and scratch space).
    const MemoryCounter& memory() const { return memory_; }
    void freeBytes(void* p, std::size_t bytes);  ///< stream-ordered
    void clearStats();
    std::string name() const;
    std::size_t freeMemoryBytes() const;
    /// InputError unless `p` points into CUDA device (or managed) memory, of any device: a host
    /// pointer there would fault a kernel. `what` names the data in the message.
    static void checkDeviceMemory(const void* p, const char* what);

    template <class T>
    struct FillOp {  // public: kernel template arguments may not be private types
        T* dst;
        T value;
        __device__ void operator()(int i) const { dst[i] = value; }
    };

private:
    /// Records a start/stop event pair around a launch (resolved lazily in kernelStats()) and an
    /// NVTX range named after the stage. Never throws from its destructor.
    struct Timed {
        CudaExec& exec;
        int slot;
        cudaEvent_t start, stop;
        Timed(CudaExec& e, const char* label);
        ~Timed();
    };
    /// Throws an error a destructor had to keep (Timed), and resolves the event pairs it marked due.
    void throwDeferred();
    template <class T>
    void scan(const T* in, T* out, int n);
    void* allocateBytes(std::size_t bytes);
    void* scratchSpace(std::size_t bytes);
    void resolvePendingEvents();

    cudaStream_t stream_ = nullptr;
    bool ownsStream_ = true;
    KernelTimings timings_;
    struct Pending { int slot; cudaEvent_t start, stop; };
    std::vector<Pending> pending_;
    std::vector<cudaEvent_t> eventPool_;
    static constexpr std::size_t kMailboxBytes = 256;
    void* mailbox_ = nullptr;  // pinned host memory
    cudaEvent_t mailboxEvent_ = nullptr;
    bool posted_ = false;
    cudaError_t deferred_ = cudaSuccess;  ///< a failure recorded where it could not be thrown
    bool resolveDue_ = false;
    void* scratch_ = nullptr;
    MemoryCounter memory_;
    std::size_t scratchBytes_ = 0;
    int device_ = 0;
};

static_assert(isExec<CudaExec>, "CudaExec provides the exec contract (exec_contract.h)");

}  // namespace wavefront
