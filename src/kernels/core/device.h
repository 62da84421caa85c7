// Everything device code does differently on the two backends, in one place: the function
// qualifiers, the warp width, bit casts and bit operations, the float operations the GPU has one
// instruction for, cached and coherent loads, atomics, and the warp's votes and aggregated
// atomics. Every other kernel header is written once for both backends on top of these; a new
// backend (HIP, say) provides this file's functions and an exec (host/backends/exec_contract.h).
// On the CPU a "warp" is one lane: votes see that lane alone and per-warp aggregation is a plain
// atomic.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include <glm/glm.hpp>

#if defined(__CUDACC__)
#define WF_CPU_GPU __host__ __device__
#define WF_GPU __device__
#define WF_INLINE __forceinline__
/// A device function kept out of line: its registers stay its own instead of raising every
/// kernel that could call it (the layered BSDFs' walks).
#define WF_NOINLINE __noinline__
#else
#define WF_CPU_GPU
#define WF_GPU
#define WF_INLINE inline
#define WF_NOINLINE
#endif

#if defined(__CUDA_ARCH__)
#define WF_IS_GPU_CODE 1
#define WF_UNROLL _Pragma("unroll")
#else
#define WF_UNROLL
#endif

namespace wavefront {

/// Lanes per warp: the SIMD width the streams, the SIMD counters and the coalesced scatter are
/// laid out for.
constexpr int kWarpSize = 32;

/// Code that runs in warps of kWarpSize lanes (the GPU). Heuristics that look at the other lanes
/// (postponing work while few are active, leaving a loop on a vote) apply only there; the CPU's
/// lanes run alone.
#if defined(WF_IS_GPU_CODE)
constexpr bool kHasWarps = true;
#else
constexpr bool kHasWarps = false;
#endif

/// A fused multiply-add is one instruction (the GPU) rather than a library call (the CPU).
#if defined(WF_IS_GPU_CODE)
constexpr bool kFastFma = true;
#else
constexpr bool kFastFma = false;
#endif

/// SIMD statistics are counted (sampleActiveLanes): WAVEFRONT_STATS builds, on the GPU.
#if defined(WAVEFRONT_STATS) && defined(WF_IS_GPU_CODE)
constexpr bool kCountSimd = true;
#else
constexpr bool kCountSimd = false;
#endif

// ---- Bit casts and bit operations -------------------------------------------------------------

WF_CPU_GPU WF_INLINE float intAsFloat(int i) {
#if defined(WF_IS_GPU_CODE)
    return __int_as_float(i);
#else
    float f;
    std::memcpy(&f, &i, sizeof f);
    return f;
#endif
}
WF_CPU_GPU WF_INLINE int floatAsInt(float f) {
#if defined(WF_IS_GPU_CODE)
    return __float_as_int(f);
#else
    int i;
    std::memcpy(&i, &f, sizeof i);
    return i;
#endif
}
WF_CPU_GPU WF_INLINE float uintAsFloat(std::uint32_t i) { return intAsFloat(int(i)); }
WF_CPU_GPU WF_INLINE std::uint32_t floatAsUint(float f) { return std::uint32_t(floatAsInt(f)); }

WF_CPU_GPU WF_INLINE int countLeadingZeros64(std::uint64_t x) {
#if defined(WF_IS_GPU_CODE)
    return __clzll((long long)x);
#else
    return x == 0 ? 64 : __builtin_clzll(x);
#endif
}
/// Index of the highest (lowest) set bit of a non-zero x.
WF_CPU_GPU WF_INLINE int highestBit(std::uint32_t x) {
#if defined(WF_IS_GPU_CODE)
    return 31 - __clz(int(x));
#else
    return 31 - __builtin_clz(x);
#endif
}
WF_CPU_GPU WF_INLINE int lowestBit(std::uint32_t x) {
#if defined(WF_IS_GPU_CODE)
    return __ffs(int(x)) - 1;
#else
    return __builtin_ctz(x);
#endif
}
WF_CPU_GPU WF_INLINE int bitCount(std::uint32_t x) {
#if defined(WF_IS_GPU_CODE)
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}
/// CUDA's __byte_perm: byte k of the result is byte (selector >> 4k) & 7 of the eight bytes
/// (x's four, then y's four).
WF_CPU_GPU WF_INLINE std::uint32_t bytePermute(std::uint32_t x, std::uint32_t y, std::uint32_t selector) {
#if defined(WF_IS_GPU_CODE)
    return __byte_perm(x, y, selector);
#else
    const std::uint64_t bytes = std::uint64_t(y) << 32 | x;
    std::uint32_t out = 0;
    for (int k = 0; k < 4; ++k) out |= std::uint32_t((bytes >> (8 * ((selector >> (4 * k)) & 7u))) & 0xffu) << (8 * k);
    return out;
#endif
}

// ---- Float operations -----------------------------------------------------------------------

/// IEEE minNum and maxNum: a NaN operand yields the other one. One FMNMX instruction on the GPU,
/// where glm::min and glm::max (a ternary) cost a compare and a select each.
WF_CPU_GPU WF_INLINE float minNum(float a, float b) {
#if defined(WF_IS_GPU_CODE)
    return fminf(a, b);
#else
    return a < b || b != b ? a : b;
#endif
}
WF_CPU_GPU WF_INLINE float maxNum(float a, float b) {
#if defined(WF_IS_GPU_CODE)
    return fmaxf(a, b);
#else
    return a > b || b != b ? a : b;
#endif
}

/// The slab test's three-way combines, on the bits of non-NaN floats as signed integers: that
/// order is the float order for non-negative values, and every negative value (-0 included) is
/// below every non-negative one. Hopper's DPX integer min/max take three operands and a clamp at 0
/// in one instruction where FMNMX takes two; the CPU computes the same integers.
/// max(a, b, c, 0), exactly.
WF_CPU_GPU WF_INLINE float maxOfThreeAndZero(float a, float b, float c) {
#if defined(WF_IS_GPU_CODE)
    return __int_as_float(__vimax3_s32_relu(__float_as_int(a), __float_as_int(b), __float_as_int(c)));
#else
    int m = std::max(std::max(floatAsInt(a), floatAsInt(b)), std::max(floatAsInt(c), 0));
    return intAsFloat(m);
#endif
}
/// min(a, b, c) when it is >= 0 (+0 or above); otherwise some negative value among them.
WF_CPU_GPU WF_INLINE float minOfThreeSignExact(float a, float b, float c) {
#if defined(WF_IS_GPU_CODE)
    return __int_as_float(__vimin3_s32(__float_as_int(a), __float_as_int(b), __float_as_int(c)));
#else
    return intAsFloat(std::min(std::min(floatAsInt(a), floatAsInt(b)), floatAsInt(c)));
#endif
}

/// 1 / x rounded to nearest, also where the kernels are compiled with fast math (whose division is
/// approximate): the slab test's conservative bound assumes correctly rounded inverse directions.
WF_CPU_GPU WF_INLINE glm::vec3 reciprocal(glm::vec3 v) {
#if defined(WF_IS_GPU_CODE)
    return glm::vec3(__frcp_rn(v.x), __frcp_rn(v.y), __frcp_rn(v.z));
#else
    return 1.0f / v;
#endif
}

// ---- Loads ----------------------------------------------------------------------------------

/// Copies `words` 16-byte words from `p` (16-byte aligned) into `out`, through the read-only
/// (texture) cache on the GPU: for data no thread of the kernel writes and several threads read
/// (BDPT's stored vertices in the connect phase, the 8-wide BVH's nodes).
WF_CPU_GPU WF_INLINE void loadReadOnlyWords(const void* p, std::uint32_t* out, int words) {
#if defined(WF_IS_GPU_CODE)
    const uint4* q = reinterpret_cast<const uint4*>(p);
    WF_UNROLL
    for (int k = 0; k < words; ++k) {
        uint4 v = __ldg(q + k);
        out[4 * k] = v.x;
        out[4 * k + 1] = v.y;
        out[4 * k + 2] = v.z;
        out[4 * k + 3] = v.w;
    }
#else
    std::memcpy(out, p, 16 * std::size_t(words));
#endif
}

/// Four floats at `p` (16-byte aligned) in one load through the read-only cache.
WF_CPU_GPU WF_INLINE void loadReadOnlyFloats(const float* p, float* out) {
#if defined(WF_IS_GPU_CODE)
    float4 v = __ldg(reinterpret_cast<const float4*>(p));
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
    out[3] = v.w;
#else
    std::memcpy(out, p, 4 * sizeof(float));
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

// ---- Atomics (CUDA atomics on the GPU; GCC/Clang __atomic builtins on the CPU: C++17 has no
// std::atomic_ref) ------------------------------------------------------------------------------

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

// ---- The warp -------------------------------------------------------------------------------

/// Lanes of the calling warp that run this instruction (the CPU: one).
WF_CPU_GPU WF_INLINE int activeLaneCount() {
#if defined(WF_IS_GPU_CODE)
    return __popc(__activemask());
#else
    return 1;
#endif
}

/// Whether every active lane of the warp has `predicate`.
WF_CPU_GPU WF_INLINE bool wholeWarpAgrees(bool predicate) {
#if defined(WF_IS_GPU_CODE)
    return __all_sync(__activemask(), predicate);
#else
    return predicate;
#endif
}

/// Adds v to a counter with one atomic per warp on the GPU (statistics counters that every
/// thread bumps would otherwise serialise on one address).
WF_CPU_GPU WF_INLINE void addToCounter(unsigned long long* counter, unsigned v) {
#if defined(WF_IS_GPU_CODE)
    unsigned mask = __activemask();
    unsigned total = __reduce_add_sync(mask, v);
    if ((threadIdx.x & (kWarpSize - 1)) == unsigned(__ffs(mask) - 1)) atomicAdd(counter, (unsigned long long)total);
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
    unsigned lane = threadIdx.x & (kWarpSize - 1);
    int leader = __ffs(mask) - 1;
    unsigned long long base = 0;
    if (int(lane) == leader) base = atomicAdd(counter, (unsigned long long)__popc(mask));
    base = __shfl_sync(mask, base, leader);
    return base + (unsigned long long)__popc(mask & ((1u << lane) - 1u));
#else
    return __atomic_fetch_add(counter, 1ull, __ATOMIC_RELAXED);
#endif
}

/// SIMD statistics: adds the calling warp's active lanes to counters[0] and one warp sample to
/// counters[1], once per warp. Nothing unless kCountSimd.
WF_CPU_GPU WF_INLINE void sampleActiveLanes(unsigned long long* counters) {
#if defined(WAVEFRONT_STATS) && defined(WF_IS_GPU_CODE)
    unsigned mask = __activemask();
    int leader = __ffs(mask) - 1;
    if ((threadIdx.x & (kWarpSize - 1)) == unsigned(leader)) {
        atomicAdd(&counters[0], (unsigned long long)__popc(mask));
        atomicAdd(&counters[1], 1ull);
    }
#else
    (void)counters;
#endif
}

}  // namespace wavefront
