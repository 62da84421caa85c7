// Checked CUDA calls: every runtime call and every launch goes through these, and a failure
// throws wavefront::CudaError with the file, line, expression and error code.
#pragma once
#include <cuda_runtime.h>

#include "wavefront/error.h"

namespace wavefront {

[[noreturn]] void throwCudaError(cudaError_t code, const char* file, int line, const char* expression);
/// A failed launch of the labelled stage (the label names the stage, where file and line would
/// only name the generic launcher).
[[noreturn]] void throwLaunchError(cudaError_t code, const char* label, const char* file, int line);

}  // namespace wavefront

#define WF_CUDA_CHECK(expr)                                                               \
    do {                                                                                  \
        cudaError_t wfCudaStatus_ = (expr);                                               \
        if (wfCudaStatus_ != cudaSuccess)                                                 \
            ::wavefront::throwCudaError(wfCudaStatus_, __FILE__, __LINE__, #expr);        \
    } while (0)

/// After a <<<>>> launch of the stage `label`: catches bad configurations at once (and, with
/// WAVEFRONT_SYNC_CHECKS, faults inside the kernel at the launch that caused them); the error
/// names the stage.
#if defined(WAVEFRONT_SYNC_CHECKS)
#define WF_CUDA_SYNC_AFTER_LAUNCH() cudaDeviceSynchronize()
#else
#define WF_CUDA_SYNC_AFTER_LAUNCH() cudaSuccess
#endif
#define WF_CUDA_CHECK_LAUNCH(label)                                                        \
    do {                                                                                   \
        cudaError_t wfLaunchStatus_ = cudaGetLastError();                                  \
        if (wfLaunchStatus_ == cudaSuccess) wfLaunchStatus_ = WF_CUDA_SYNC_AFTER_LAUNCH(); \
        if (wfLaunchStatus_ != cudaSuccess)                                                \
            ::wavefront::throwLaunchError(wfLaunchStatus_, (label), __FILE__, __LINE__);   \
    } while (0)
