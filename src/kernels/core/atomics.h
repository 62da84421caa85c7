// Atomic operations written once for both backends: CUDA atomics on the GPU, GCC/Clang
// __atomic builtins on the CPU (C++17 has no std::atomic_ref).
#pragma once
#include <cstdint>

#include "wavefront/config.h"

namespace wavefront {

/// Adds v and returns the old value, for the integer types CUDA's atomicAdd takes (int, unsigned,
/// unsigned long long). Relaxed on the GPU; ordering that matters goes through
/// arriveAcquireRelease.
template <class T>
WF_CPU_GPU WF_INLINE T atomicFetchAdd(T* p, T v) {
#if defined(WF_IS_GPU_CODE)
    return atomicAdd(p, v);
#else
    return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);
#endif
}

/// Swaps in v and returns the old value (radix-forest construction: the second of two siblings
/// to arrive at their parent receives the other's range bound through the exchange itself).
WF_CPU_GPU WF_INLINE int atomicExchInt(int* p, int v) {
#if defined(WF_IS_GPU_CODE)
    return atomicExch(p, v);
#else
    return __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL);
#endif
}

WF_CPU_GPU WF_INLINE void atomicAddFloat(float* p, float v) {
#if defined(WF_IS_GPU_CODE)
    atomicAdd(p, v);
#else
    float expected;
    __atomic_load(p, &expected, __ATOMIC_RELAXED);
    float desired;
    do {
        desired = expected + v;
    } while (!__atomic_compare_exchange(p, &expected, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
#endif
}

/// Double-precision add (film sums, MLT's normalisation sums); native on sm_60 and later, a
/// compare-and-swap loop on the CPU.
WF_CPU_GPU WF_INLINE void atomicAddDouble(double* p, double v) {
#if defined(WF_IS_GPU_CODE)
    atomicAdd(p, v);
#else
    double expected;
    __atomic_load(p, &expected, __ATOMIC_RELAXED);
    double desired;
    do {
        desired = expected + v;
    } while (!__atomic_compare_exchange(p, &expected, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
#endif
}

/// Adds 1 and returns the old value, acquire-release at device scope: the writes before it are
/// visible to the thread whose later increment reads this one's, and that thread's later reads
/// see them (the bottom-up BVH refit's arrival flag: the second child to arrive reads the first
/// one's box). One ordered atomic instead of two full fences around a relaxed one.
WF_CPU_GPU WF_INLINE int arriveAcquireRelease(int* p) {
#if defined(WF_IS_GPU_CODE)
    int old;
    asm volatile("atom.add.acq_rel.gpu.s32 %0, [%1], 1;" : "=r"(old) : "l"(p) : "memory");
    return old;
#else
    return __atomic_fetch_add(p, 1, __ATOMIC_ACQ_REL);
#endif
}

/// A load that bypasses the (non-coherent) L1 cache on the GPU.
template <class T>
WF_CPU_GPU WF_INLINE T loadCoherent(const T* p) {
#if defined(WF_IS_GPU_CODE)
    return __ldcg(p);
#else
    return *p;
#endif
}

}  // namespace wavefront

namespace wavefront {

/// Adds v to a counter with one atomic per warp on the GPU (statistics counters that every
/// thread bumps would otherwise serialise on one address).
WF_CPU_GPU WF_INLINE void addToCounter(unsigned long long* counter, unsigned v) {
#if defined(WF_IS_GPU_CODE)
    unsigned mask = __activemask();
    unsigned total = __reduce_add_sync(mask, v);
    if ((threadIdx.x & 31) == unsigned(__ffs(mask) - 1)) atomicAdd(counter, (unsigned long long)total);
#else
    __atomic_fetch_add(counter, (unsigned long long)v, __ATOMIC_RELAXED);
#endif
}

/// Hands out consecutive indices from *counter, one per calling lane; on the GPU the lanes that
/// call together share one atomic and take neighbouring indices in lane order (a work queue that
/// every lane of a persistent kernel polls would otherwise serialise on one address).
WF_CPU_GPU WF_INLINE unsigned long long claimNext(unsigned long long* counter) {
#if defined(WF_IS_GPU_CODE)
    unsigned mask = __activemask();
    unsigned lane = threadIdx.x & 31;
    int leader = __ffs(mask) - 1;
    unsigned long long base = 0;
    if (int(lane) == leader) base = atomicAdd(counter, (unsigned long long)__popc(mask));
    base = __shfl_sync(mask, base, leader);
    return base + (unsigned long long)__popc(mask & ((1u << lane) - 1u));
#else
    return __atomic_fetch_add(counter, 1ull, __ATOMIC_RELAXED);
#endif
}

}  // namespace wavefront
