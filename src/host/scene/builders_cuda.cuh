// The CUDA builders (scene upload, LBVH and PLOC, distributions, environment map) live in one translation
// unit of their own, builders_cuda.cu, compiled with exact IEEE arithmetic: the render kernels are
// compiled with fast math (docs/decisions.md), but every build must equal the CPU backend's bit for
// bit. Every CUDA translation unit that builds includes this header instead of instantiating them.
#pragma once
#include "host/backends/cuda/cuda_exec.cuh"
#include "host/scene/scene_upload.h"

namespace wavefront {

extern template SceneBuffers<CudaExec> uploadScene<CudaExec>(CudaExec&, const Scene&, LightSampler, BvhBuilder);
extern template Bvh<CudaExec> buildLbvh<CudaExec>(CudaExec&, const PrimitiveSource&);
extern template Bvh<CudaExec> buildPloc<CudaExec>(CudaExec&, const PrimitiveSource&);
extern template Bvh<CudaExec> buildBvh<CudaExec>(CudaExec&, const PrimitiveSource&, BvhBuilder);
extern template std::optional<WideBvh<CudaExec>> collapseToWide<CudaExec>(CudaExec&, const Bvh<CudaExec>&);
extern template class Distribution<CudaExec>;
extern template struct EnvironmentBuffers<CudaExec>;

}  // namespace wavefront
