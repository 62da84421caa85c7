// CUDA instantiations of the LBVH build and the trace entry points used by tests and benchmarks.
#include "host/bvh_api_impl.h"
#include "kernels/cuda_exec.cuh"

namespace wavefront {

BvhSnapshot buildBvhSnapshotCuda(const PrimitiveArrays& prims) {
    CudaExec exec;
    return buildBvhSnapshotOn(exec, prims);
}

TraceResult traceRaysCuda(const PrimitiveArrays& prims, const std::vector<Ray>& rays, bool anyHit) {
    CudaExec exec;
    return traceRaysOn(exec, prims, rays, anyHit);
}

}  // namespace wavefront
