// Non-template parts of the CUDA backend: device setup, memory, events, CUB wrappers.
// CUB's entry points are called only here and in cuda_exec.cuh, so API drift between CCCL
// releases is absorbed in one place.
#include <cstdio>
#include <string>

#include <nvtx3/nvToolsExt.h>

#include "host/backends/cuda/cuda_exec.cuh"
#include "wavefront/types.h"  // cudaDeviceCount, exported: its WAVEFRONT_API declaration must be seen here

namespace wavefront {

void throwCudaError(cudaError_t code, const char* file, int line, const char* expression) {
    std::string message = std::string("CUDA error ") + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) +
                          ") at " + file + ":" + std::to_string(line) + " in " + expression;
    throw CudaError(message, file, line, expression, int(code));
}

void throwLaunchError(cudaError_t code, const char* label, const char* file, int line) {
    std::string expression = std::string("launch of '") + label + "'";
    std::string message = std::string("CUDA error ") + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) +
                          ") in the " + expression + " (" + file + ":" + std::to_string(line) + ")";
    throw CudaError(message, file, line, expression.c_str(), int(code));
}

int cudaDeviceCount() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky "no device" error
        return 0;
    }
    return n;
}

// Destructor path: nothing sensible to do on failure. Stream-ordered, so a buffer may be released
// while kernels that use it are still queued on the exec's stream.
void cudaFreeDeleter(void* exec, void* p, std::size_t bytes) { static_cast<CudaExec*>(exec)->freeBytes(p, bytes); }

void CudaExec::freeBytes(void* p, std::size_t bytes) {
    memory_.freed(bytes);
    cudaFreeAsync(p, stream_);  // from destructors: not thrown
}

CudaExec::CudaExec(cudaStream_t external) : stream_(external), ownsStream_(external == nullptr) {
    if (cudaDeviceCount() == 0) throw InputError("the CUDA backend was requested but no CUDA device is available");
    WF_CUDA_CHECK(cudaGetDevice(&device_));
    if (ownsStream_) WF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    WF_CUDA_CHECK(cudaMallocHost(&mailbox_, kMailboxBytes));
    // Stream-ordered allocations from the device's pool, which keeps freed memory for reuse:
    // a build's temporaries then cost no cudaMalloc/cudaFree round trips after the first.
    cudaMemPool_t pool;
    WF_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device_));
    std::uint64_t keep = UINT64_MAX;
    WF_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    WF_CUDA_CHECK(cudaEventCreateWithFlags(&mailboxEvent_, cudaEventDisableTiming));
}

CudaExec::~CudaExec() {
    cudaStreamSynchronize(stream_);
    for (auto& p : pending_) { cudaEventDestroy(p.start); cudaEventDestroy(p.stop); }
    for (auto e : eventPool_) cudaEventDestroy(e);
    if (scratch_) cudaFreeAsync(scratch_, stream_);
    cudaStreamSynchronize(stream_);
    if (mailbox_) cudaFreeHost(mailbox_);
    if (mailboxEvent_) cudaEventDestroy(mailboxEvent_);
    if (ownsStream_) cudaStreamDestroy(stream_);
}

std::string CudaExec::name() const {
    cudaDeviceProp prop;
    WF_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    return std::string("cuda (") + prop.name + ")";
}

int CudaExec::defaultStreamCapacity() const {
    int sms = 0, threadsPerSm = 0;
    WF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_));
    WF_CUDA_CHECK(cudaDeviceGetAttribute(&threadsPerSm, cudaDevAttrMaxThreadsPerMultiProcessor, device_));
    return 8 * sms * threadsPerSm;
}

std::size_t CudaExec::freeMemoryBytes() const {
    std::size_t freeBytes = 0, total = 0;
    WF_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &total));
    // The pool keeps what earlier renders freed (release threshold: never); the driver counts it
    // as used, but our next allocations take it first. Without this, every renderer after a large
    // one in the same process sized itself to the little the pool had not kept.
    cudaMemPool_t pool;
    WF_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device_));
    std::uint64_t reserved = 0, used = 0;
    WF_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    WF_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    return freeBytes + std::size_t(reserved > used ? reserved - used : 0);
}

void CudaExec::checkDeviceMemory(const void* p, const char* what) {
    cudaPointerAttributes a{};
    const cudaError_t status = cudaPointerGetAttributes(&a, p);
    if (status == cudaErrorInvalidValue) {
        cudaGetLastError();  // not a pointer CUDA knows: host memory
        a.type = cudaMemoryTypeUnregistered;
    } else {
        WF_CUDA_CHECK(status);
    }
    if (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) return;
    char msg[256];
    std::snprintf(msg, sizeof msg, "%s at %p are in %s, not in CUDA device memory", what, p,
                  a.type == cudaMemoryTypeHost ? "pinned host memory" : "host memory");
    throw InputError(msg);
}

void* CudaExec::allocateBytes(std::size_t bytes) {
    void* p = nullptr;
    cudaError_t status = cudaMallocAsync(&p, bytes, stream_);
    if (status == cudaErrorMemoryAllocation) {
        // Only a failed request pays for the free-memory query (it costs more than the allocation).
        cudaGetLastError();
        std::size_t freeBytes = freeMemoryBytes();
        char msg[256];
        std::snprintf(msg, sizeof msg, "request of %.1f MiB of device memory exceeds the %.1f MiB free on the GPU",
                      bytes / 1048576.0, freeBytes / 1048576.0);
        throw InputError(msg);
    }
    WF_CUDA_CHECK(status);
    memory_.allocated(bytes);
    return p;
}

void* CudaExec::scratchSpace(std::size_t bytes) {
    if (bytes > scratchBytes_) {
        if (scratch_) WF_CUDA_CHECK(cudaFreeAsync(scratch_, stream_));  // stream-ordered: queued users finish first
        memory_.freed(scratchBytes_);
        scratch_ = nullptr;
        scratch_ = allocateBytes(bytes);
        scratchBytes_ = bytes;
    }
    return scratch_;
}

CudaExec::Timed::Timed(CudaExec& e, const char* label) : exec(e), slot(e.timings_.slot(label)) {
    auto take = [&]() {
        if (exec.eventPool_.empty()) {
            cudaEvent_t ev;
            WF_CUDA_CHECK(cudaEventCreate(&ev));
            return ev;
        }
        cudaEvent_t ev = exec.eventPool_.back();
        exec.eventPool_.pop_back();
        return ev;
    };
    start = take();
    stop = take();
    WF_CUDA_CHECK(cudaEventRecord(start, exec.stream_));
    nvtxRangePushA(label);  // the stage's name in Nsight Systems and Compute (--nvtx)
}

CudaExec::Timed::~Timed() {
    nvtxRangePop();
    // A destructor must not throw (it may run while an exception unwinds): a failure to record
    // the stop event is kept and thrown by the next call that checks (kernelStats, synchronize).
    cudaError_t status = cudaEventRecord(stop, exec.stream_);
    if (status != cudaSuccess) {
        if (exec.deferred_ == cudaSuccess) exec.deferred_ = status;
        exec.eventPool_.push_back(start);
        exec.eventPool_.push_back(stop);
        return;
    }
    exec.pending_.push_back({slot, start, stop});
    // Bound the number of outstanding event pairs: the next launch resolves them (which waits for
    // the oldest ones only).
    if (exec.pending_.size() >= 4096) exec.resolveDue_ = true;
}

void CudaExec::throwDeferred() {
    if (resolveDue_) {
        resolveDue_ = false;
        resolvePendingEvents();
    }
    cudaError_t status = deferred_;
    deferred_ = cudaSuccess;
    WF_CUDA_CHECK(status);
}

void CudaExec::resolvePendingEvents() {
    for (auto& p : pending_) {
        WF_CUDA_CHECK(cudaEventSynchronize(p.stop));
        float ms = 0.0f;
        WF_CUDA_CHECK(cudaEventElapsedTime(&ms, p.start, p.stop));
        timings_.add(p.slot, ms);
        eventPool_.push_back(p.start);
        eventPool_.push_back(p.stop);
    }
    pending_.clear();
}

std::vector<KernelStats> CudaExec::kernelStats() {
    throwDeferred();
    resolvePendingEvents();
    return timings_.entries();
}

void CudaExec::clearStats() {
    resolvePendingEvents();
    timings_.clear();
}

void CudaExec::sortPairs(std::uint64_t* keys, std::uint32_t* values, int n, int keyBits) {
    if (n <= 1) return;
    Buffer<std::uint64_t> keysAlt = allocate<std::uint64_t>(n);
    Buffer<std::uint32_t> valuesAlt = allocate<std::uint32_t>(n);
    cub::DoubleBuffer<std::uint64_t> k(keys, keysAlt.data());
    cub::DoubleBuffer<std::uint32_t> v(values, valuesAlt.data());
    std::size_t bytes = 0;
    WF_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, n, 0, keyBits, stream_));
    void* scratch = scratchSpace(bytes);
    {
        Timed t(*this, "radix sort");
        WF_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch, bytes, k, v, n, 0, keyBits, stream_));
    }
    if (k.Current() != keys) copy(keys, k.Current(), n);
    if (v.Current() != values) copy(values, v.Current(), n);
    // The alternate buffers are freed stream-ordered on return: no sync needed.
}

template <class T>
void CudaExec::scan(const T* in, T* out, int n) {
    if (n <= 0) return;
    std::size_t bytes = 0;
    WF_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n, stream_));
    void* scratch = scratchSpace(bytes);
    Timed t(*this, "inclusive scan");
    WF_CUDA_CHECK(cub::DeviceScan::InclusiveSum(scratch, bytes, in, out, n, stream_));
}
void CudaExec::inclusiveScan(const double* in, double* out, int n) { scan(in, out, n); }
void CudaExec::inclusiveScan(const int* in, int* out, int n) { scan(in, out, n); }

}  // namespace wavefront
