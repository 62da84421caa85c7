// CUDA instantiations of the distribution entry points used by tests and benchmarks.
#include "host/device_scene/builders_cuda.cuh"  // first: the builders are instantiated in the library
#include "distribution_oracle_impl.h"
#include "host/backends/cuda/cuda_exec.cuh"

namespace wavefront {

DistributionSnapshot buildDistributionCuda(const std::vector<double>& weights, int n, int count, LightSampler kind,
                                           int guideSize, int repetitions) {
    CudaExec exec;
    return buildDistributionOn(exec, weights, n, count, kind, guideSize, repetitions);
}

DistributionSamples sampleDistributionCuda(const std::vector<double>& weights, int n, int count, LightSampler kind,
                                           int guideSize, const std::vector<float>& us,
                                           const std::vector<int>& distributions, bool countLoads) {
    CudaExec exec;
    return sampleDistributionOn(exec, weights, n, count, kind, guideSize, us, distributions, countLoads);
}

double samplingRateCuda(const std::vector<double>& weights, int n, LightSampler kind, int guideSize, int samples,
                        int repetitions) {
    CudaExec exec;
    return samplingRateOn(exec, weights, n, kind, guideSize, samples, repetitions);
}

}  // namespace wavefront
