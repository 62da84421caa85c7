// The scene as kernels see it: raw pointers into one exec's memory, plus the camera and the
// light-selection distribution. Trivially copyable, passed by value into every stage.
#pragma once
#include <cstdint>

#include "kernels/bvh/bvh.h"
#include "kernels/bvh/instances.h"
#include "kernels/lights/distribution.h"
#include "kernels/lights/environment.h"
#include "kernels/core/sampler.h"
#include "kernels/materials/material_types.h"
#include "kernels/materials/texture.h"
#include "kernels/media/medium.h"

namespace wavefront {

struct CameraData {
    vec3 position;
    vec3 right, up, forward;  ///< orthonormal
    float tanHalfFovY;
    float aspect;
    float lensRadius;
    float focusDistance;
    float targetDistance;  ///< from the position to the camera's target (VCM's radius is in pixels there)
};

/// A point, spot or directional light (Scene::addLight): no extent, never hit, only sampled.
struct DeltaLightData {
    static constexpr int kPoint = 0, kSpot = 1, kDirectional = 2;  ///< the values of wavefront::LightType
    Float4 position;   ///< xyz: position (point, spot); w: the kind | the code of its medium << 8 (int bits)
    Float4 intensity;  ///< xyz: radiant intensity (point, spot) or irradiance (directional); w: cos of the spot's outer angle
    Float4 axis;       ///< xyz: the direction light travels along (spot's axis, directional); w: cos of the inner angle
    WF_CPU_GPU int kind() const { return floatAsInt(position.w) & 0xff; }
    /// The medium its light starts in (a code: kernels/media/medium.h).
    WF_CPU_GPU int medium() const { return floatAsInt(position.w) >> 8; }
    WF_CPU_GPU float cosOuter() const { return intensity.w; }
    WF_CPU_GPU float cosInner() const { return axis.w; }
};

/// The lights chosen in proportion to power through the chosen sampler over one distribution:
/// emissive primitives (area x luminance of emission) first, then the delta lights (their power
/// over pi, on the same scale).
struct LightView {
    DistributionView distribution;    ///< one distribution over numLights entries
    const int* primIds = nullptr;     ///< numAreaLights: the emissive primitives
    const float* primPmf = nullptr;   ///< per primitive id: its selection probability (0 if not a light)
    const DeltaLightData* deltaLights = nullptr;  ///< numLights - numAreaLights
    int numLights = 0, numAreaLights = 0;

    /// Index of the light chosen by u (area lights below numAreaLights) and its probability.
    WF_CPU_GPU DistributionSample sample(float u) const { return distribution.sample(0, u); }
};

struct SceneView {
    BvhView bvh;               ///< the scene's own primitives
    InstancesView instances;   ///< placed objects (their triangles follow the scene's own in `triangles`)
    const vec3* positions = nullptr;
    const vec3* normals = nullptr;            ///< per vertex; valid where hasNormals[tri]
    const vec2* uvs = nullptr;                ///< per vertex texture coordinates, or null
    const uvec3* triangles = nullptr;
    const int* triangleMaterial = nullptr;
    const std::uint8_t* hasNormals = nullptr;
    const Float4* spheres = nullptr;          ///< centre, radius
    const int* sphereMaterial = nullptr;
    const MaterialData* materials = nullptr;
    const TextureView* textures = nullptr;
    const MaterialTextures* materialTextures = nullptr;  ///< per material; null without textures
    LightView lights;
    EnvironmentView environment;
    MediaView media;
    /// Media, interfaces or a camera in a medium (Scene::hasMedia): the full kernels, with trackers.
    bool hasMedia = false;
    /// Probability that next-event estimation samples the environment rather than an area light:
    /// 0 without an environment map, 1 without area lights, else 1/2.
    float environmentSelect = 0.0f;
    /// A sphere around every primitive: BDPT's light subpaths leave the environment from a disk of
    /// this radius (light_sample.h, sampleEnvironmentEmission).
    vec3 sceneCenter = vec3(0.0f);
    float sceneRadius = 1.0f;
    CameraData camera;
    /// Some material is of a kind whose BSDF is compiled into the full set only (kMicrofacet,
    /// material.h: needsFullMaterialSet): the drivers then run the kernels compiled for every kind
    /// (material_types.h, withMaterialSet).
    bool microfacetMaterials = true;
    /// Some material has a texture: the full kernels too (they look textures up).
    bool textured = true;
    int numTriangles = 0;
    int numSpheres = 0;
    int width = 0, height = 0;  ///< the full frame: the camera's raster (a crop window is the film's: FilmView)

    WF_CPU_GPU int materialOf(int prim) const {
        return prim < numTriangles ? triangleMaterial[prim] : sphereMaterial[prim - numTriangles];
    }
};

/// Closest hit of `ray` in (0, ray.tMax): the scene's own primitives, then, in kernels compiled
/// for them (Materials::kInstances), its instances.
template <class Materials = InstancedMaterials>
WF_CPU_GPU WF_INLINE Hit traceClosest(const SceneView& scene, const Ray& ray, const SimdProbe& probe = SimdProbe()) {
    Hit hit = traverse<false>(scene.bvh, ray, probe);
    if constexpr (Materials::kInstances)
        if (scene.instances.count > 0) traverseInstances<false>(scene.instances, ray, hit, probe);
    return hit;
}

/// Whether anything lies on `ray` in (0, ray.tMax) (shadow rays).
template <class Materials = InstancedMaterials>
WF_CPU_GPU WF_INLINE bool traceOccluded(const SceneView& scene, const Ray& ray, const SimdProbe& probe = SimdProbe()) {
    Hit hit = traverse<true>(scene.bvh, ray, probe);
    if constexpr (Materials::kInstances)
        if (hit.prim < 0 && scene.instances.count > 0) traverseInstances<true>(scene.instances, ray, hit, probe);
    return hit.prim >= 0;
}

/// Calls f(InstancedMaterials{}) for a scene with instances or media, else f(AllMaterials{}) or
/// f(ClassicMaterials{}): the smaller set whenever the scene has no microfacet material and no
/// texture (SceneView::microfacetMaterials and textured, set at upload).
template <class F>
decltype(auto) withMaterialSet(const SceneView& scene, F&& f) {
    if (scene.instances.count > 0 || scene.hasMedia) return f(InstancedMaterials{});
    if (scene.microfacetMaterials || scene.textured) return f(AllMaterials{});
    return f(ClassicMaterials{});
}

/// Where radiance estimates go: RGB sums per pixel (atomics) and guards for bad samples. The sums
/// are double: a float sum overflows to infinity long before the estimate it holds does (64
/// samples of 1e38), while each deposit is a finite float.
struct FilmView {
    double* sum = nullptr;                 ///< 3 per pixel
    unsigned* sampleCount = nullptr;       ///< per pixel
    unsigned long long* nonFinite = nullptr;
    /// The part of the frame the film holds. Kernels name pixels of the full frame; the film maps
    /// them here, the one place, and drops what lands outside a crop window.
    FilmWindow window;

    /// Counts one more sample in (full-frame) pixel `framePixel` (once per camera path, when it starts).
    WF_CPU_GPU WF_INLINE void countSample(int framePixel) const {
        int pixel = window.filmPixel(framePixel);
        if (pixel >= 0) atomicFetchAdd(&sampleCount[pixel], 1u);
    }

    /// Adds L to (full-frame) pixel `framePixel`; NaN or infinite estimates are counted and
    /// dropped, never stored; outside the window, L is dropped.
    WF_CPU_GPU WF_INLINE void deposit(int framePixel, vec3 L) const {
        if (!isFinite(L)) {
            atomicFetchAdd(nonFinite, 1ull);
            return;
        }
        int pixel = window.filmPixel(framePixel);
        if (isBlack(L) || pixel < 0) return;
        atomicAddDouble(&sum[3 * pixel + 0], double(L.x));
        atomicAddDouble(&sum[3 * pixel + 1], double(L.y));
        atomicAddDouble(&sum[3 * pixel + 2], double(L.z));
    }
};

}  // namespace wavefront
