// What an exec provides: the contract between the drivers, builders and uploads (templates over
// an exec type) and a backend. CpuExec (cpu/cpu_exec.h) and CudaExec (cuda/cuda_exec.cuh) each
// static_assert isExec; a new backend writes an exec with these members and the device
// primitives of kernels/core/device.h, and is instantiated like the two (host/render/
// render_backend_{cpu.cpp,cuda.cu}, host/device_scene/builders_cuda.cu).
//
//   kIsGpu                          whether its memory is device memory (tests pick their path)
//   defaultStreamCapacity()         path-state slots that fill the device
//   residentThreads<F>()            items of a parallelFor of F that run at once (persistent threads)
//   allocate<T>(count) -> Buffer<T> memory in its space, counted in memory()
//   memory() -> MemoryCounter       bytes held now and at most
//   freeMemoryBytes()               what more it could allocate (capacity policies)
//   upload, download, copy, fill    ordered with its launches; download waits
//   synchronize()                   waits for everything launched
//   postRead<T>(src), tryRead<T>(out, wait)
//                                   one small asynchronous read-back (the control block) at a time
//   parallelFor(label, count, f)    f(i) for i in [0, count), count an int or an ItemCount (device count)
//   compactingFor(label, count, stage)
//                                   write-time compaction: evaluate, one atomic per block (chunk)
//                                   and stream, emit; and the coalesced scatter (ScatterWords)
//   transformReduceDevice(n, init, map, op, result)
//                                   reduction into its memory
//   sortPairs(keys, values, n, keyBits), inclusiveScan(in, out, n) (double, int)
//   kernelStats(), clearStats()     per-label times and launches (RenderStats::kernels)
//   name()                          "cpu (N threads)", "cuda (device name)"
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "host/backends/buffer.h"

namespace wavefront {

namespace contract {

/// A stand-in stage body and compacting stage, to ask an exec whether it launches them.
struct Body {
    WF_CPU_GPU void operator()(int) const {}
};
struct NoOutput {
    WF_CPU_GPU bool active(int) const { return false; }
};
struct CompactingBody {
    static constexpr int kStreams = 1;
    using Output = NoOutput;
    int* outCounter[1] = {nullptr};
    WF_CPU_GPU NoOutput evaluate(int) const { return {}; }
    WF_CPU_GPU void emit(int, int, const NoOutput&, int) const {}
};

template <class E, class = void>
struct Provides : std::false_type {};

template <class E>
struct Provides<E, std::void_t<
    decltype(bool(E::kIsGpu)),
    decltype(int(std::declval<const E&>().defaultStreamCapacity())),
    decltype(int(std::declval<const E&>().template residentThreads<Body>())),
    decltype(Buffer<int>(std::declval<E&>().template allocate<int>(std::size_t(1)))),
    decltype(std::declval<const E&>().memory().live),
    decltype(std::size_t(std::declval<const E&>().freeMemoryBytes())),
    decltype(std::declval<E&>().upload(std::declval<int*>(), std::declval<const int*>(), std::size_t(1))),
    decltype(std::declval<E&>().download(std::declval<int*>(), std::declval<const int*>(), std::size_t(1))),
    decltype(std::declval<E&>().copy(std::declval<int*>(), std::declval<const int*>(), std::size_t(1))),
    decltype(std::declval<E&>().fill(std::declval<int*>(), 0, std::size_t(1))),
    decltype(std::declval<E&>().synchronize()),
    decltype(std::declval<E&>().postRead(std::declval<const int*>())),
    decltype(bool(std::declval<E&>().tryRead(std::declval<int&>(), true))),
    decltype(std::declval<E&>().parallelFor("", 1, Body{})),
    decltype(std::declval<E&>().parallelFor("", ItemCount{1, nullptr}, Body{})),
    decltype(std::declval<E&>().compactingFor("", ItemCount{1, nullptr}, CompactingBody{})),
    decltype(std::declval<E&>().sortPairs(std::declval<std::uint64_t*>(), std::declval<std::uint32_t*>(), 1, 64)),
    decltype(std::declval<E&>().inclusiveScan(std::declval<const double*>(), std::declval<double*>(), 1)),
    decltype(std::declval<E&>().inclusiveScan(std::declval<const int*>(), std::declval<int*>(), 1)),
    decltype(std::vector<KernelStats>(std::declval<E&>().kernelStats())),
    decltype(std::declval<E&>().clearStats()),
    decltype(std::string(std::declval<const E&>().name()))>> : std::true_type {};

}  // namespace contract

/// Whether E provides the exec contract above (transformReduceDevice, a template over the map and
/// operation, is checked where it is instantiated).
template <class E>
constexpr bool isExec = contract::Provides<E>::value;

}  // namespace wavefront
