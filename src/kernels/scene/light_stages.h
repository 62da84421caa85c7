// Light selection in proportion to power: the stages that weight the emissive primitives and
// scatter each light's probability to its primitive (for MIS at emitter hits).
#pragma once
#include "kernels/scene/surface.h"

namespace wavefront {

namespace lights {
/// Power of each emissive primitive: area x luminance of its emission.
struct WeightStage {
    SceneView scene;
    const int* primIds;
    double* weights;
    WF_CPU_GPU void operator()(int k) const {
        int prim = primIds[k];
        vec3 Le = scene.materials[scene.materialOf(prim)].emission();
        weights[k] = double(primitiveArea(scene, prim)) * double(luminance(Le));
    }
};
/// Scatters each light's selection probability to its primitive id (for MIS at emitter hits).
struct PrimPmfStage {
    DistributionView distribution;
    const int* primIds;
    float* primPmf;
    WF_CPU_GPU void operator()(int k) const { primPmf[primIds[k]] = distribution.probability(0, k); }
};
}  // namespace lights

}  // namespace wavefront
