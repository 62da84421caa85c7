// The one instantiation of the CUDA builders, compiled without fast math (builders_cuda.cuh).
#include "host/device_scene/builders_cuda.cuh"

namespace wavefront {

template SceneBuffers<CudaExec> uploadScene<CudaExec>(CudaExec&, const Scene&, LightSampler, BvhBuilder);
template Bvh<CudaExec> buildLbvh<CudaExec>(CudaExec&, const PrimitiveSource&);
template Bvh<CudaExec> buildPloc<CudaExec>(CudaExec&, const PrimitiveSource&);
template Bvh<CudaExec> buildBvh<CudaExec>(CudaExec&, const PrimitiveSource&, BvhBuilder);
template class Distribution<CudaExec>;
template struct EnvironmentBuffers<CudaExec>;
template EditStats applySceneEdit<CudaExec>(CudaExec&, SceneBuffers<CudaExec>&, const Scene&, const SceneEdit&, LightSampler,
                                           BvhBuilder);
template std::size_t uploadEnvironment<CudaExec>(CudaExec&, const Scene&, SceneBuffers<CudaExec>&, LightSampler);

}  // namespace wavefront
