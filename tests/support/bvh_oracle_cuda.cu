// CUDA instantiations of the LBVH build and the trace entry points used by tests and benchmarks.
#include "host/device_scene/builders_cuda.cuh"  // first: the builders are instantiated in the library
#include "bvh_oracle_impl.h"
#include "compaction.h"
#include "host/backends/cuda/cuda_exec.cuh"

namespace wavefront {

BvhSnapshot buildBvhSnapshotCuda(const PrimitiveArrays& prims, BvhBuilder builder, bool wide) {
    CudaExec exec;
    return buildBvhSnapshotOn(exec, prims, builder, wide);
}

std::vector<unsigned char> uploadRoundTripCuda(const std::vector<unsigned char>& data) {
    CudaExec exec;
    return uploadRoundTripOn(exec, data);
}

CompactionTimes measureCompactionCuda(int n, float keepFraction, int repetitions) {
    CudaExec exec;
    auto flagged = [&exec](const CompactionItem* in, const char* flags, CompactionItem* out, int* count, int items) {
        exec.selectFlagged(in, flags, out, count, items);
    };
    return measureCompaction(exec, n, keepFraction, repetitions, flagged);
}

TraceResult traceRaysCuda(const PrimitiveArrays& prims, const std::vector<Ray>& rays, bool anyHit, BvhBuilder builder,
                          bool wide, TraceSchedule schedule) {
    CudaExec exec;
    return traceRaysOn(exec, prims, rays, anyHit, builder, wide, schedule);
}

}  // namespace wavefront
