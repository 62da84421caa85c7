// Checked CUDA calls: every runtime call and every launch goes through these, and a failure
// throws wavefront::CudaError with the file, line, expression and error code.
#pragma once
#include <cuda_runtime.h>

#include "wavefront/error.h"

namespace wavefront {

[[noreturn]] void throwCudaError(cudaError_t code, const char* file, int line, const char* expression);

}  // namespace wavefront

#define WF_CUDA_CHECK(expr)                                                               \
    do {                                                                                  \
        cudaError_t wfCudaStatus_ = (expr);                                               \
        if (wfCudaStatus_ != cudaSuccess)                                                 \
            ::wavefront::throwCudaError(wfCudaStatus_, __FILE__, __LINE__, #expr);        \
    } while (0)

/// After a <<<>>> launch: catches bad configurations at once (and, with WAVEFRONT_SYNC_CHECKS,
/// faults inside the kernel at the launch that caused them).
#if defined(WAVEFRONT_SYNC_CHECKS)
#define WF_CUDA_CHECK_LAUNCH(label)                                                        \
    do {                                                                                   \
        WF_CUDA_CHECK(cudaGetLastError());                                                 \
        WF_CUDA_CHECK(cudaDeviceSynchronize());                                            \
    } while (0)
#else
#define WF_CUDA_CHECK_LAUNCH(label) WF_CUDA_CHECK(cudaGetLastError())
#endif
