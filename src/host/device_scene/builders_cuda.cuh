// The CUDA builders (scene upload, LBVH and PLOC, distributions, environment map) live in one translation
// unit of their own, builders_cuda.cu, compiled with exact IEEE arithmetic: the render kernels are
// compiled with fast math (docs/decisions.md), but every build must equal the CPU backend's bit for
// bit. Every CUDA translation unit that builds includes this header instead of instantiating them.
#pragma once
#include "host/backends/cuda/cuda_exec.cuh"
#include "host/device_scene/scene_edit.h"

namespace wavefront {

extern template SceneBuffers<CudaExec> uploadScene<CudaExec>(CudaExec&, const Scene&, LightSampler, BvhBuilder);
extern template Bvh<CudaExec> buildLbvh<CudaExec>(CudaExec&, const PrimitiveSource&);
extern template Bvh<CudaExec> buildPloc<CudaExec>(CudaExec&, const PrimitiveSource&);
extern template Bvh<CudaExec> buildBvh<CudaExec>(CudaExec&, const PrimitiveSource&, BvhBuilder);
extern template class Distribution<CudaExec>;
extern template struct EnvironmentBuffers<CudaExec>;
extern template EditStats applySceneEdit<CudaExec>(CudaExec&, SceneBuffers<CudaExec>&, const Scene&, const SceneEdit&, LightSampler,
                                           BvhBuilder);
extern template std::size_t uploadEnvironment<CudaExec>(CudaExec&, const Scene&, SceneBuffers<CudaExec>&, LightSampler);

}  // namespace wavefront
