// Portability macros shared by host and device code. They expand to nothing in a plain
// C++17 build, so the public headers and the CPU backend never need a CUDA header.
#pragma once

#if defined(__CUDACC__)
#define WF_CPU_GPU __host__ __device__
#define WF_GPU __device__
#define WF_INLINE __forceinline__
#else
#define WF_CPU_GPU
#define WF_GPU
#define WF_INLINE inline
#endif

#if defined(__CUDA_ARCH__)
#define WF_IS_GPU_CODE 1
#endif

/// The public API: what libwavefront.so exports (everything else is built with hidden visibility).
#if defined(_WIN32)
#define WAVEFRONT_API
#else
#define WAVEFRONT_API __attribute__((visibility("default")))
#endif
