// The bidirectional path-tracing estimator, written once: subpath starts, one vertex of an eye or
// light random walk, and every connection strategy, with balance-heuristic MIS weights computed
// from two recursive quantities stored per vertex (van Antwerpen 2011, 5.3.2; in the notation of
// Georgiev's "Implementing Vertex Connection and Merging": dVCM and dVC, no merging).
// The streaming driver, the naive one-thread-per-sample baseline and MLT all call these functions.
//
// Strategies are named (s, t): s light-subpath vertices, t eye-subpath vertices (t = 1 is the
// camera alone). Where each is evaluated:
//   s = 0       the eye walk hits an emitter or escapes to the    (shadeEyeVertex, deposited at once)
//               environment
//   s = 1       eye vertex to a fresh light sample (a point on an (shadeEyeVertex, shadow ray)
//               area light, or a direction of the environment)
//   t = 1       light vertex to a point on the lens (the pinhole), (shadeLightVertex, shadow ray)
//               splatted to the pixel it lands in
//   s, t >= 2   stored eye vertex to stored light vertex          (connectVertices, connect phase)
// A path of k <= maxDepth segments can be made by every strategy (the walks go just deep enough),
// so the weights of its strategies sum to one.
//
// Lights: area lights, point, spot and directional lights and the environment map, chosen as the
// path tracer chooses them (SceneView::environmentSelect, LightView). A light subpath leaves the
// environment (and a directional light) from a disk that covers the scene's bounding sphere; its
// first vertex is a direction, so the MIS quantities treat it as SmallVCM treats infinite lights
// (no distance at the first hit, no cosine at the light, solid-angle densities for s = 0 and
// s = 1). Delta lights are SmallVCM's too: no strategy hits them (dVC = 0 at the start, no BSDF
// share in s = 1). Cameras: pinhole or thin lens; eye subpaths start on the lens,
// t = 1 samples a point on it and finds the pixel through the focal plane (the lens area density
// cancels between the importance and the lens sampling, pbrt-v4's PerspectiveCamera::SampleWi).
// Shading normals: BSDFs are evaluated in the frame ShadingNormals picks for the pair of directions
// (the same for both walks: material.h), geometric normals decide sidedness, ray offsets and the
// densities' cosines; light subpaths carry Veach's adjoint correction (1997, 5.3), half on arrival
// at a vertex and half on leaving it (continueWalk).
//
// Simplifications, stated: Russian roulette with a per-material continuation probability (the
// reverse pdf must not depend on the path prefix); strategy (s = 1, t = 1), a light sample seen
// straight from the camera, is left out (the camera sees emitters and the environment through
// s = 0).
#pragma once
#include "kernels/scene/light_sample.h"
#include "kernels/materials/material.h"
#include "kernels/media/media_path.h"
#include "kernels/scene/shadow_ray.h"
#include "kernels/scene/surface.h"

namespace wavefront {

struct BdptParams {
    int maxDepth = 16;        ///< longest path in segments; each subpath then has at most maxDepth vertices
    int numPixels = 0;        ///< samples per pass (BDPT: the film's pixels, a crop window's; MLT: the frame's)
    float lightPathCount = 0; ///< light subpaths per pass (= numPixels): t = 1 splats are divided by it
    float imagePlaneDistance = 0;  ///< camera to image plane, in pixels (a pixel has area 1 there)
    int onlyS = -1, onlyT = -1;    ///< >= 0: deposit only strategy (s, t) (per-strategy images)
    /// t = 1 (light vertices connected to the camera, splatted anywhere on the film). Off, the
    /// other strategies' weights leave it out and still sum to one (the camera vertex's dVCM is 0).
    bool cameraConnections = true;
    // Vertex merging (VCM, kernels/vcm/vcm.h; BDPT leaves all four at their defaults). The MIS
    // constants of Georgiev et al. 2012 in the notation of SmallVCM: vmWeight = eta_VCM = pi r^2
    // x light paths when merging (0: no merging strategy), vcWeight = 1 / eta_VCM when connecting
    // (0: no connection strategy); dVM is tracked when `merging`.
    float vmWeight = 0.0f, vcWeight = 0.0f;
    bool merging = false;
    /// Vertex connection: s = 1, t = 1 and the connect phase (off: BPM and PPM merge only).
    bool connecting = true;
    /// Emission found by an eye walk counts only when seen directly or through specular vertices
    /// alone (BPM and PPM: merging estimates every other path; SmallVCM's rule).
    bool emissionSpecularOnly = false;
    /// Vertices a subpath stores for connections: depths 1 .. maxDepth - 2 (deeper vertices
    /// can only take part in the s = 0, s = 1 and t = 1 strategies, evaluated during the walk);
    /// merging also keeps depth maxDepth - 1 (a light vertex there merges with a first eye hit).
    WF_CPU_GPU int storedVertices() const {
        int deepest = merging ? maxDepth - 1 : maxDepth - 2;
        return deepest > 0 ? deepest : 0;
    }
    WF_CPU_GPU bool deposits(int s, int t) const {
        return (onlyS < 0 || onlyS == s) && (onlyT < 0 || onlyT == t) && (connecting || s == 0);
    }
};

/// One step of a walk in flight (stream item, 64 bytes).
struct WalkState {
    Float4 origin;      ///< xyz; w = sample slot (int bits)
    Float4 direction;   ///< xyz; w = low 32 bits of the global sample index
    Float4 throughput;  ///< xyz; w = dVCM
    Float4 mis;         ///< x = dVC; y = high bits of the sample index; z = segments so far | vertices
                        ///< stored << 8 | medium code << 16 | flags (int bits); w = dVM (merging only)

    /// Flag of a light walk that leaves an infinite light (the environment): its first hit
    /// converts the MIS quantities without the distance (its start is a direction). The next
    /// segment drops it.
    static constexpr int kInfiniteLight = 1 << 30;
    /// Flag of an eye walk whose every scattering so far was specular (BdptParams::emissionSpecularOnly).
    static constexpr int kSpecularPath = 1 << 29;
    static constexpr int kCountMask = 0xff;  ///< segments and stored vertices: 8 bits each (max depth 255)
    /// The medium the walk's ray travels in (a code: kernels/media/medium.h), for set's `depth`.
    WF_CPU_GPU static int mediumBits(int code) { return code << 16; }

    WF_CPU_GPU int slot() const { return floatAsInt(origin.w); }
    WF_CPU_GPU std::uint64_t sampleIndex() const {
        return std::uint64_t(floatAsUint(direction.w)) | (std::uint64_t(floatAsUint(mis.y)) << 32);
    }
    WF_CPU_GPU int depth() const { return floatAsInt(mis.z) & kCountMask; }
    WF_CPU_GPU bool fromInfiniteLight() const { return (floatAsInt(mis.z) & kInfiniteLight) != 0; }
    WF_CPU_GPU bool specularPath() const { return (floatAsInt(mis.z) & kSpecularPath) != 0; }
    WF_CPU_GPU int stored() const { return (floatAsInt(mis.z) >> 8) & kCountMask; }
    WF_CPU_GPU int medium() const { return (floatAsInt(mis.z) >> 16) & 0xff; }
    WF_CPU_GPU float dVCM() const { return throughput.w; }
    WF_CPU_GPU float dVC() const { return mis.x; }
    WF_CPU_GPU float dVM() const { return mis.w; }
    /// `depth`: segments so far, with the flags above and mediumBits.
    WF_CPU_GPU void set(vec3 o, vec3 d, vec3 beta, float dVCM, float dVC, std::uint64_t sample, int slot, int depth,
                        int stored, float dVM = 0.0f) {
        origin = Float4(o, intAsFloat(slot));
        direction = Float4(d, uintAsFloat(std::uint32_t(sample)));
        throughput = Float4(beta, dVCM);
        mis = Float4(dVC, uintAsFloat(std::uint32_t(sample >> 32)), intAsFloat(depth | (stored << 8)), dVM);
    }
    WF_CPU_GPU void setStored(int stored) {
        mis.z = intAsFloat((floatAsInt(mis.z) & ~(kCountMask << 8)) | (stored << 8));
    }
};
static_assert(sizeof(WalkState) == 64, "walk state is four 16-byte words");

/// A stored subpath vertex, 64 bytes (the paper allows 128): everything a connection needs, so the
/// connect phase reads two vertices and nothing else. The two normals are packed in 32 bits each
/// (packUnitVector, within 1e-4 radians), which leaves one float free.
struct PathVertex {
    Float4 position;    ///< xyz; w = material | depth << 24 (int bits)
    Float4 throughput;  ///< xyz: the walk's throughput arriving here (light walks: with the arriving
                        ///< half of the adjoint correction); w = dVCM
    Float4 wo;          ///< xyz: unit direction to the previous vertex; w = dVC
    Float4 normal;      ///< x: geometric normal turned to wo's side (glass: outward), y: shading normal on
                        ///< the same side (the frame: ShadingNormals, from wo)
                        ///< (both packed); z: the position's error bound in its upper 16 bits (rounded
                        ///< up; negative: a collision in a medium, no surface), the codes of the media
                        ///< on ng's side and the other in the lower 16; w: texture coordinates
                        ///< (packTextureCoordinates; 0 in kernels without textures)
    static constexpr int kWords = 4;

    WF_CPU_GPU int material() const { return floatAsInt(position.w) & 0xffffff; }
    WF_CPU_GPU int depth() const { return int(floatAsUint(position.w) >> 24); }
    WF_CPU_GPU vec3 ng() const { return unpackUnitVector(normal.x); }
    WF_CPU_GPU vec3 ns() const { return unpackUnitVector(normal.y); }
    WF_CPU_GPU float error() const { return uintAsFloat(floatAsUint(normal.z) & 0xffff0000u); }
    /// A collision in a medium (material() is then the medium's index): no normals, the phase function.
    WF_CPU_GPU bool inMedium() const { return (floatAsUint(normal.z) & 0x80000000u) != 0; }
    /// The code of the medium a connection leaving the vertex along w travels in.
    WF_CPU_GPU int mediumTowards(vec3 w) const {
        std::uint32_t codes = floatAsUint(normal.z);
        return int(glm::dot(w, ng()) >= 0.0f ? codes & 0xff : (codes >> 8) & 0xff);
    }
    /// One end of a connection from here.
    WF_CPU_GPU RayEnd rayEnd() const { return inMedium() ? RayEnd::point(position.xyz()) : RayEnd::surface(position.xyz(), ng(), error()); }
    WF_CPU_GPU vec2 uv() const { return unpackTextureCoordinates(normal.w); }
    /// The vertex's normals and its frame, as the walk that stored it chose (from wo).
    WF_CPU_GPU ShadingNormals normals() const {
        vec3 g = ng(), n = ns();
        return ShadingNormals{g, n, agreesWithShading(g, n, wo.xyz())};
    }
    /// Shading normal equal to the geometric one: the same bits, so the two decode identically.
    /// `front`, `back`: the media codes on ng's side and the other; error < 0: a medium collision.
    WF_CPU_GPU void setNormals(vec3 ng, vec3 ns, float error, int front = 0, int back = 0) {
        float g = packUnitVector(ng);
        std::uint32_t e = floatAsUint(error);
        if (e & 0xffffu) e = (e & 0xffff0000u) + 0x10000u;  // the bound rounded away from 0
        normal = Float4(g, ns == ng ? g : packUnitVector(ns),
                        uintAsFloat(e | std::uint32_t(front) | std::uint32_t(back) << 8), 0.0f);
    }
};
static_assert(sizeof(PathVertex) == 64, "path vertex is four 16-byte words");

/// The geometric cosine of a connection leaving a vertex along wi, against the vertex's normal n
/// (wo's side for opaque materials, outward for glass); not positive where the material cannot
/// scatter that way: opaque vertices connect on their wo side only, rough glass on both sides.
template <class Materials = AllMaterials>
WF_CPU_GPU WF_INLINE float connectionCosine(const MaterialData& m, vec3 n, vec3 wi) {
    float c = glm::dot(n, wi);
    return isTransmissive<Materials>(m) ? std::fabs(c) : c;
}

// ---- Camera: importance and raster position (pinhole or thin lens) ---------------------------

/// Solid-angle density of the camera sampling a direction at `cosAtCamera` to the view axis, per
/// unit pixel area: (d / cos)^2 / cos with d the image plane distance in pixels. A thin lens has
/// the same density for rays from a fixed lens point (pbrt-v4's PDF_We: 1 / (A cos^3)), with the
/// cosine of the ray from that point.
WF_CPU_GPU WF_INLINE float cameraPdfW(const BdptParams& p, float cosAtCamera) {
    float toImage = p.imagePlaneDistance / cosAtCamera;
    return toImage * toImage / cosAtCamera;
}

/// The full-frame pixel that direction `dir` (from the camera position, any length) lands in;
/// false when outside the frame (a crop window drops the splat later: FilmView::deposit).
WF_CPU_GPU inline bool cameraRaster(const SceneView& scene, vec3 dir, int& pixel, float& cosAtCamera) {
    const CameraData& cam = scene.camera;
    cosAtCamera = glm::dot(dir, cam.forward);
    if (cosAtCamera <= 0.0f) return false;
    float sx = glm::dot(dir, cam.right) / cosAtCamera, sy = glm::dot(dir, cam.up) / cosAtCamera;
    float fx = (sx / (cam.tanHalfFovY * cam.aspect) + 1.0f) * 0.5f * scene.width;
    float fy = (1.0f - sy / cam.tanHalfFovY) * 0.5f * scene.height;
    if (!(fx >= 0.0f && fx < float(scene.width) && fy >= 0.0f && fy < float(scene.height))) return false;
    pixel = glm::min(int(fy), scene.height - 1) * scene.width + glm::min(int(fx), scene.width - 1);
    return true;
}

/// The camera end of a t = 1 connection from scene point `p`: a point on the lens (the pinhole
/// itself, or uniform on the lens disk from `uLens`), the pixel the connection lands in (through
/// the point of the focal plane it passes) and its cosine with the view axis at the lens point.
struct CameraConnection {
    vec3 lensPoint;
    vec3 wi;            ///< unit, from p to lensPoint
    float dist;
    float cosAtCamera;
    int pixel;
};

/// False when the connection misses the image.
WF_CPU_GPU inline bool connectToCamera(const SceneView& scene, vec3 p, vec2 uLens, CameraConnection& c) {
    const CameraData& cam = scene.camera;
    c.lensPoint = cam.position;
    if (cam.lensRadius > 0.0f) {
        vec2 lens = cam.lensRadius * sampleConcentricDisk(uLens);
        c.lensPoint = cam.position + lens.x * cam.right + lens.y * cam.up;
    }
    vec3 toCamera = c.lensPoint - p;
    c.dist = glm::length(toCamera);
    if (!(c.dist > 0.0f)) return false;
    c.wi = toCamera / c.dist;
    vec3 dir = -c.wi;
    c.cosAtCamera = glm::dot(dir, cam.forward);
    if (c.cosAtCamera <= 0.0f) return false;
    // A thin lens: the pixel of the focal-plane point the ray from the lens point passes (the
    // raster position cameraRay started from); a pinhole: the direction itself.
    vec3 fromCentre = dir;
    if (cam.lensRadius > 0.0f) fromCentre = c.lensPoint + dir * (cam.focusDistance / c.cosAtCamera) - cam.position;
    float cosCentre;
    return cameraRaster(scene, fromCentre, c.pixel, cosCentre);
}

// ---- Recursive MIS quantities ---------------------------------------------------------------

/// Arriving at a surface point over `dist` with |cos| `cosIn` there: converts the quantities from
/// solid angle at the previous vertex to area at this one. From an infinite light (a direction,
/// whose rays start on a disk perpendicular to it) the distance does not enter: dist = 1.
WF_CPU_GPU WF_INLINE void misAtHit(float& dVCM, float& dVC, float dist, float cosIn) {
    dVCM *= dist * dist / cosIn;
    dVC /= cosIn;
}

/// After sampling the next direction with (continuation-weighted) forward and reverse pdfs.
/// Merging (p.vmWeight, p.vcWeight) adds its terms to dVC and updates dVM (SmallVCM's
/// SampleScattering); without it dVM stays as it is. `mergeable` false: no merge happens at this
/// vertex (a collision in a medium), so neither quantity takes its term.
WF_CPU_GPU WF_INLINE void misAfterScatter(float& dVCM, float& dVC, float& dVM, float cosOut, float pdfForward,
                                          float pdfReverse, bool specular, const BdptParams& p, bool mergeable = true) {
    if (specular) {  // forward and reverse densities are the same delta: they cancel
        dVCM = 0.0f;
        dVC *= cosOut;
        if (p.merging) dVM *= cosOut;
    } else {
        dVC = cosOut / pdfForward * (dVC * pdfReverse + dVCM + (mergeable ? p.vmWeight : 0.0f));
        if (p.merging) dVM = cosOut / pdfForward * (dVM * pdfReverse + dVCM * p.vcWeight + (mergeable ? 1.0f : 0.0f));
        dVCM = 1.0f / pdfForward;
    }
}
/// BDPT's (no merging).
WF_CPU_GPU WF_INLINE void misAfterScatter(float& dVCM, float& dVC, float cosOut, float pdfForward, float pdfReverse,
                                          bool specular) {
    float dVM = 0.0f;
    misAfterScatter(dVCM, dVC, dVM, cosOut, pdfForward, pdfReverse, specular, BdptParams{});
}

/// Selection probability per unit area of the emitter `prim` (light choice and position).
WF_CPU_GPU WF_INLINE float emitterPdfA(const SceneView& scene, int prim) {
    return (1.0f - scene.environmentSelect) * scene.lights.primPmf[prim] / primitiveArea(scene, prim);
}

/// s = 0 weight: the eye walk (at depth >= 2) found an emitter; `cosLight` at the emitter.
WF_CPU_GPU WF_INLINE float weightEmitterHit(float dVCM, float dVC, float pdfA, float cosLight) {
    float pdfEmit = pdfA * cosLight * kInvPi;
    return 1.0f / (1.0f + pdfA * dVCM + pdfEmit * dVC);
}

/// s = 0 weight: the eye walk (at depth >= 2) escaped in a direction of the environment whose
/// solid-angle density under light sampling is pdfDirect; pdfPosition: the emission disk's.
WF_CPU_GPU WF_INLINE float weightEnvironmentHit(float dVCM, float dVC, float pdfDirect, float pdfPosition) {
    return 1.0f / (1.0f + pdfDirect * dVCM + pdfDirect * pdfPosition * dVC);
}

/// s = 1 weight: eye vertex to a light sample (DirectLight). pdfDirect: solid-angle density of the
/// light sample seen from the eye vertex; pdfEmit: the light's density of emitting it (area x
/// direction; the environment: direction x disk, cosLight = 1); cosEye: the geometric cosine at the
/// eye vertex; bsdfForward / bsdfReverse at the eye vertex towards the light / back along the eye
/// path.
/// vmWeight: BdptParams::vmWeight (merging at the eye vertex is another strategy of the path).
WF_CPU_GPU WF_INLINE float weightLightSample(float dVCM, float dVC, float pdfDirect, float pdfEmit, float cosLight,
                                             float cosEye, float bsdfForward, float bsdfReverse, float vmWeight = 0.0f) {
    float wLight = bsdfForward / pdfDirect;
    float wCamera = pdfEmit * cosEye / (pdfDirect * cosLight) * (dVCM + vmWeight + dVC * bsdfReverse);
    return 1.0f / (wLight + 1.0f + wCamera);
}

/// t = 1 weight: light vertex to the camera. cameraPdfA: the camera's density of the vertex per
/// unit pixel area; bsdfReverse at the light vertex back along the light path.
WF_CPU_GPU WF_INLINE float weightCameraConnection(float dVCM, float dVC, float cameraPdfA, float lightPathCount,
                                                  float bsdfReverse, float vmWeight = 0.0f) {
    float wLight = cameraPdfA / lightPathCount * (dVCM + vmWeight + dVC * bsdfReverse);
    return 1.0f / (wLight + 1.0f);
}

/// s, t >= 2 weight from the two endpoint vertices only. eyeToLightPdfA: the eye vertex's BSDF
/// sampling the light vertex (area density there); lightToEyePdfA likewise; the reverse pdfs
/// continue each subpath backwards.
/// vmWeight: merging at the light vertex, eyeVmWeight at the eye vertex (< 0: vmWeight; 0 at a
/// collision in a medium, where no merge happens).
WF_CPU_GPU WF_INLINE float weightConnection(float eyeDVCM, float eyeDVC, float lightDVCM, float lightDVC,
                                            float eyeToLightPdfA, float lightToEyePdfA, float eyeReverse,
                                            float lightReverse, float vmWeight = 0.0f, float eyeVmWeight = -1.0f) {
    if (eyeVmWeight < 0.0f) eyeVmWeight = vmWeight;
    float wLight = eyeToLightPdfA * (lightDVCM + vmWeight + lightDVC * lightReverse);
    float wCamera = lightToEyePdfA * (eyeDVCM + eyeVmWeight + eyeDVC * eyeReverse);
    return 1.0f / (wLight + 1.0f + wCamera);
}

/// Merge weight (VCM, vcm.h): eye vertex and light vertex at (nearly) one point. pdfForward:
/// the eye BSDF sampling the light vertex's incoming direction; pdfReverse: that BSDF sampling
/// the eye's direction from it, with the light vertex's roulette (SmallVCM's RangeQuery).
WF_CPU_GPU WF_INLINE float weightMerge(float eyeDVCM, float eyeDVM, float lightDVCM, float lightDVM, float pdfForward,
                                       float pdfReverse, float vcWeight) {
    float wLight = lightDVCM * vcWeight + lightDVM * pdfForward;
    float wCamera = eyeDVCM * vcWeight + eyeDVM * pdfReverse;
    return 1.0f / (wLight + 1.0f + wCamera);
}

/// Where BDPT contributions go: straight to the film. MLT substitutes a per-chain record (mlt.h).
struct FilmSink {
    FilmView film;
    /// The sample in `slot` starts, its eye subpath through `pixel`; its contributions are worth
    /// `scale` times their value (StrategyChoice::scale: 1 for BDPT's sampler).
    WF_CPU_GPU void beginSample(int /*slot*/, int pixel, float /*scale*/) const { film.countSample(pixel); }
    WF_CPU_GPU void deposit(int /*slot*/, int pixel, vec3 L) const { film.deposit(pixel, L); }
};

// ---- Subpath starts --------------------------------------------------------------------------

/// Eye subpath of global sample `sample` in `slot` (zero throughput, traced nowhere, when the
/// sample's one strategy has t = 1).
template <class Sampler>
WF_CPU_GPU inline WalkState startEyeWalk(const SceneView& scene, const BdptParams& p, const Sampler& sampler,
                                         std::uint64_t sample, int slot) {
    Ray r = cameraRay(scene, sampler, sample);
    float cosAtCamera = glm::dot(r.direction, scene.camera.forward);
    float dVCM = p.cameraConnections ? p.lightPathCount / cameraPdfW(p, cosAtCamera) : 0.0f;
    bool needed = sampler.strategy(sample, p.maxDepth).needsEyeWalk();
    WalkState w;
    w.set(r.origin, r.direction, vec3(needed ? 1.0f : 0.0f), dVCM, 0.0f, sample, slot,
          WalkState::kSpecularPath | WalkState::mediumBits(scene.media.cameraMedium), 0);
    return w;
}

/// Light subpath: the environment (probability environmentSelect, as next-event estimation
/// chooses it), or a light chosen by power: an emitter, a uniform point on it and a
/// cosine-distributed direction on its emitting side; a point light and a direction on the sphere
/// (a spot: in its cone); a directional light and a point on the disk its light crosses the scene
/// from. A zero throughput marks a start that failed (grazing) or a walk the sample's one strategy
/// does not use (s <= 1).
template <class Materials, class Sampler>
WF_CPU_GPU inline WalkState startLightWalk(const SceneView& scene, const BdptParams& p, const Sampler& sampler,
                                           std::uint64_t sample, int slot) {
    WalkState w;
    if (!sampler.strategy(sample, p.maxDepth).needsLightWalk()) {
        w.set(scene.sceneCenter, vec3(0.0f, 0.0f, 1.0f), vec3(0.0f), 0.0f, 0.0f, sample, slot, 0, 0);
        return w;
    }
    float uChoice = sampler.get(sample, dims::lightStart(dims::kLightStartChoice));
    vec2 uPosition = sampler.get2(sample, dims::lightStart(dims::kLightStartPosition));
    vec2 uDirection = sampler.get2(sample, dims::lightStart(dims::kLightStartDirection));
    if (uChoice < scene.environmentSelect) {
        // SmallVCM's infinite light: dVCM = direct / emission density = 1 / pdfPosition, and dVC
        // has no cosine at the light (1 / emission density).
        EnvironmentEmission e = sampleEnvironmentEmission(scene, uDirection, uPosition);
        float pdfEmit = scene.environmentSelect * e.pdfDirection * e.pdfPosition;
        if (!(pdfEmit > 0.0f)) {
            w.set(e.origin, e.direction, vec3(0.0f), 0.0f, 0.0f, sample, slot, 0, 0);
            return w;
        }
        w.set(e.origin, e.direction, e.Le / pdfEmit, 1.0f / e.pdfPosition, 1.0f / pdfEmit, sample, slot,
              WalkState::kInfiniteLight, 0, p.vcWeight / pdfEmit);
        return w;
    }
    DistributionSample choice =
        chooseLight(scene, (uChoice - scene.environmentSelect) / (1.0f - scene.environmentSelect));
    if (choice.index >= scene.lights.numAreaLights) {
        // SmallVCM's delta lights: dVCM = direct / emission density (a point of unit area density;
        // a directional light: a direction of unit solid-angle density, leaving from a disk as the
        // environment does), dVC = 0 (no other strategy can end on the light).
        const DeltaLightData& l = scene.lights.deltaLights[choice.index - scene.lights.numAreaLights];
        const float pmf = (1.0f - scene.environmentSelect) * choice.pmf;
        if (l.kind() == DeltaLightData::kDirectional) {
            vec3 dir = l.axis.xyz();
            Frame frame(-dir);
            vec2 d = scene.sceneRadius * sampleConcentricDisk(uPosition);
            vec3 origin = scene.sceneCenter - scene.sceneRadius * dir + d.x * frame.s + d.y * frame.t;
            float pdfEmit = pmf * environmentDiskPdf(scene);
            w.set(origin, dir, l.intensity.xyz() / pdfEmit, 1.0f / environmentDiskPdf(scene), 0.0f, sample, slot,
                  WalkState::kInfiniteLight | WalkState::mediumBits(l.medium()), 0);
            return w;
        }
        vec3 dir = l.kind() == DeltaLightData::kSpot ? Frame(l.axis.xyz()).toWorld(sampleUniformCone(uDirection, l.cosOuter()))
                                                     : sampleUniformSphere(uDirection);
        dir = glm::normalize(dir);
        float pdfDirection = deltaEmissionPdf(l);
        w.set(l.position.xyz(), dir, deltaIntensity(l, dir) / (pmf * pdfDirection), 1.0f / pdfDirection, 0.0f, sample,
              slot, WalkState::mediumBits(l.medium()), 0);
        return w;
    }
    LightSample ls = sampleAreaLight<Materials>(scene, choice.index, uPosition);
    vec3 local = sampleCosineHemisphere(uDirection);
    float cosLight = local.z;
    vec3 dir = glm::normalize(Frame(ls.n).toWorld(local));
    float pdfEmit = ls.pdfArea * cosLight * kInvPi;
    if (!(pdfEmit > 0.0f)) {
        w.set(ls.p, ls.n, vec3(0.0f), 0.0f, 0.0f, sample, slot, 0, 0);
        return w;
    }
    // An emitter's light leaves into the medium outside it (TriangleMesh::mediumOutside).
    int medium = 0;
    if constexpr (Materials::kMedia)
        if (scene.hasMedia) medium = scene.media.primInterface[scene.lights.primIds[choice.index]] >> 8;
    w.set(offsetRayOrigin(ls.p, ls.error, ls.n), dir, ls.Le * (cosLight / pdfEmit), ls.pdfArea / pdfEmit,
          cosLight / pdfEmit, sample, slot, WalkState::mediumBits(medium), 0, cosLight / pdfEmit * p.vcWeight);
    return w;
}

// ---- One vertex of a walk -------------------------------------------------------------------

/// What shading one walk vertex produces: the continued walk, a shadow ray (s = 1 for eye walks,
/// t = 1 for light walks) and a vertex for the connect phase; any may be absent.
struct WalkOutput {
    static constexpr int kNext = 0, kShadow = 1;
    WalkState next;
    ShadowRay shadow;
    PathVertex vertex;
    bool hasNext = false, hasShadow = false, hasVertex = false;
    int slot = 0;
    int vertexIndex = 0;  ///< where `vertex` goes in its subpath (the walk's stored count before it)
    int storedCount = 0;  ///< the subpath's stored vertices after this one
    float vertexDVM = 0.0f;  ///< `vertex`'s dVM (merging; the PathVertex has no room for it)
    WF_CPU_GPU bool active(int stream) const { return stream == kNext ? hasNext : hasShadow; }
};

/// The surface a walk arrived at, in the frame both walks shade in.
struct WalkHit {
    vec3 p, n;       ///< n: geometric normal on wo's side for opaque materials, outward for glass
    vec3 ns;         ///< shading normal on n's side
    bool shading;    ///< wo agrees with ns (ShadingNormals): the frame is ns's, else n's
    float error;     ///< bound on p's rounding error (SurfaceHit::error)
    vec3 ngOutside;  ///< the stored geometric normal (front side)
    vec3 wo;
    float cosIn;
    bool entering;
    vec2 uv;
    int material;      ///< a collision in a medium: the medium's index
    int prim;          ///< -1: a collision in a medium
    int mediumFront;   ///< codes of the media a ray leaving along n's side, and the other, enters
    int mediumBack;
    WF_CPU_GPU ShadingNormals normals() const { return ShadingNormals{n, ns, shading}; }
    WF_CPU_GPU bool inMedium() const { return prim < 0; }
    WF_CPU_GPU int mediumTowards(vec3 w) const { return glm::dot(w, n) >= 0.0f ? mediumFront : mediumBack; }
};

/// The vertex of a collision in medium `code` at p, reached along -wo: no surface (error -1,
/// RayEnd::point), every cosine 1 (n = wo).
WF_CPU_GPU inline WalkHit mediumWalkHit(vec3 p, vec3 wo, int code) {
    WalkHit h;
    h.p = p;
    h.n = h.ns = h.ngOutside = wo;
    h.shading = true;
    h.error = -1.0f;
    h.wo = wo;
    h.cosIn = 1.0f;
    h.entering = true;
    h.uv = vec2(0.0f);
    h.material = mediumcode::index(code);
    h.prim = -1;
    h.mediumFront = h.mediumBack = code;
    return h;
}

/// The surface a walk's segment `seg` ended at (seg.hit), arrived at through medium seg.medium.
template <class Materials>
WF_CPU_GPU inline WalkHit walkHitAt(const SceneView& scene, const WalkState& w, const MediaSegment& seg) {
    const Hit& hit = seg.hit;
    SurfaceHit sh = surfaceAt<Materials>(scene, hit, seg.origin, w.direction.xyz());
    WalkHit h;
    h.p = sh.p;
    h.error = sh.error;
    h.ngOutside = sh.ng;
    h.wo = -w.direction.xyz();
    h.material = sh.material;
    h.uv = sh.uv;
    float c = glm::dot(h.wo, sh.ng);
    h.entering = c > 0.0f;
    h.cosIn = std::fabs(c);
    ShadingNormals sn = shadingNormals<Materials>(scene.materials[sh.material], h.wo, h.entering, sh.ng, sh.ns);
    h.n = sn.ng;
    h.ns = sn.ns;
    h.shading = sn.shading;
    h.prim = hit.prim;
    h.mediumFront = mediumTowards<Materials>(scene, hit.prim, sh.ng, h.n, seg.medium);
    h.mediumBack = mediumTowards<Materials>(scene, hit.prim, sh.ng, -h.n, seg.medium);
    return h;
}

/// Samples the continuation of a walk at a hit: roulette with the material's continuation
/// probability (the surviving number, rescaled, picks the BSDF lobe), then the BSDF in the
/// shading frame. Opaque materials only reflect: a direction below the geometric surface ends the
/// walk (as in the path tracer). Light walks take the leaving half of the adjoint correction,
/// |wi.ng| / |wi.ns|; the MIS quantities take the geometric cosine (a change of measure).
template <class Materials, class Sampler>
WF_CPU_GPU inline bool continueWalk(const SceneView& scene, const BdptParams& p, const MaterialData& m, const WalkHit& h,
                                    const WalkState& w, float dVCM, float dVC, float dVM, const Sampler& sampler,
                                    int componentDim, int directionDim, TransportMode mode, WalkState& next) {
    float q = continuationProbability<Materials>(m);
    std::uint64_t sample = w.sampleIndex();
    float uc = sampler.get(sample, componentDim);
    if (!(uc < q)) return false;
    uc /= q;
    Frame frame(h.normals().frameNormal());
    vec3 woLocal = frame.toLocal(h.wo);
    BsdfSample bs = sampleBsdf<Materials>(m, woLocal, uc, sampler.get2(sample, directionDim), h.entering, mode);
    if (!bs.valid || isBlack(bs.weight)) return false;
    vec3 wi = glm::normalize(frame.toWorld(bs.wi));
    float cosGeometric = glm::dot(wi, h.n);
    if ((!isTransmissive<Materials>(m) && !(cosGeometric > 0.0f)) || !h.normals().pairs(wi)) return false;
    float cosOut = std::fabs(cosGeometric), cosShading = std::fabs(bs.wi.z);
    if (!(cosShading > 0.0f)) return false;
    vec3 weight = bs.weight;
    if (mode == TransportMode::Importance) weight *= cosOut / cosShading;
    float pdfReverse = bs.specular ? 0.0f : pdfBsdf<Materials>(m, bs.wi, woLocal) * q;
    misAfterScatter(dVCM, dVC, dVM, cosOut, bs.pdf * q, pdfReverse, bs.specular, p);
    vec3 side = glm::dot(wi, h.ngOutside) > 0.0f ? h.ngOutside : -h.ngOutside;
    int flags = (w.specularPath() && bs.specular ? WalkState::kSpecularPath : 0) | WalkState::mediumBits(h.mediumTowards(wi));
    next.set(offsetRayOrigin(h.p, h.error, side), wi, w.throughput.xyz() * weight / q, dVCM, dVC, w.sampleIndex(),
             w.slot(), (w.depth() + 1) | flags, w.stored(), dVM);
    return true;
}

/// The continuation of a walk at a collision in a medium (h.inMedium): roulette with the medium's
/// continuation probability q, then the phase function, its own density (the throughput keeps its
/// value up to 1 / q). No merge happens there (misAfterScatter's `mergeable`).
template <class Sampler>
WF_CPU_GPU inline bool continueMediumWalk(const BdptParams& p, const MediumData& medium, const WalkHit& h,
                                          const WalkState& w, float dVCM, float dVC, float dVM, const Sampler& sampler,
                                          int componentDim, int directionDim, WalkState& next) {
    const float q = medium.continuation();
    std::uint64_t sample = w.sampleIndex();
    if (!(sampler.get(sample, componentDim) < q)) return false;
    vec3 wi = sampleHenyeyGreenstein(h.wo, medium.g(), sampler.get2(sample, directionDim));
    float pdf = henyeyGreenstein(glm::dot(h.wo, wi), medium.g()) * q;
    if (!(pdf > 0.0f)) return false;
    misAfterScatter(dVCM, dVC, dVM, 1.0f, pdf, pdf, false, p, false);
    next.set(h.p, wi, w.throughput.xyz() / q, dVCM, dVC, sample, w.slot(),
             (w.depth() + 1) | WalkState::mediumBits(h.mediumFront), w.stored(), dVM);
    return true;
}

/// An output with no vertex yet, for the walk `w` continues.
WF_CPU_GPU WF_INLINE WalkOutput walkOutputFor(const WalkState& w) {
    WalkOutput out;
    out.slot = w.slot();
    out.vertexIndex = out.storedCount = w.stored();
    return out;
}

template <class Materials>
WF_CPU_GPU WF_INLINE PathVertex makeVertex(const WalkHit& h, vec3 beta, float dVCM, float dVC, int depth) {
    PathVertex v;
    v.position = Float4(h.p, intAsFloat(h.material | (depth << 24)));
    v.throughput = Float4(beta, dVCM);
    v.wo = Float4(h.wo, dVC);
    v.setNormals(h.n, h.ns, h.error, h.mediumFront, h.mediumBack);
    if constexpr (Materials::kTextures) v.normal.w = packTextureCoordinates(h.uv);
    return v;
}

/// Keeps a non-specular vertex for the connect phase when it can still take part in a connection
/// (depth <= maxDepth - 2).
template <class Materials>
WF_CPU_GPU WF_INLINE void storeVertex(WalkOutput& out, const BdptParams& p, const WalkHit& h, vec3 beta, float dVCM,
                                      float dVC, float dVM, int depth) {
    if (depth > p.storedVertices()) return;
    out.vertex = makeVertex<Materials>(h, beta, dVCM, dVC, depth);
    out.vertexDVM = dVM;
    out.hasVertex = true;
    out.storedCount++;
}

/// Whether emission the eye walk `w` finds at `depth` segments counts (BdptParams::emissionSpecularOnly).
WF_CPU_GPU WF_INLINE bool countsEmission(const BdptParams& p, const WalkState& w, int depth) {
    return !p.emissionSpecularOnly || depth == 1 || w.specularPath();
}

/// Shades a collision of an eye walk in a medium (seg.scattered; beta with the trackers' weights):
/// s = 1 with the phase function, the stored vertex and the phase-sampled continuation. Every
/// cosine is 1 there, no merge happens there (vmWeight 0 for this vertex).
template <class Materials, class Sampler>
WF_CPU_GPU inline WalkOutput shadeEyeMediumVertex(const SceneView& scene, const BdptParams& p, const Sampler& sampler,
                                                  const WalkState& w, const MediaSegment& seg, vec3 beta, WalkOutput out) {
    const int depth = w.depth() + 1, vertex = depth - 1;
    const std::uint64_t sample = w.sampleIndex();
    const StrategyChoice choice = sampler.strategy(sample, p.maxDepth);
    float dVCM = w.dVCM(), dVC = w.dVC();
    misAtHit(dVCM, dVC, seg.distance, 1.0f);
    const float dVM = p.merging ? w.dVM() : 0.0f;
    if (depth >= p.maxDepth || choice.eyeEndsAt(depth)) return out;
    const WalkHit h = mediumWalkHit(seg.point, -w.direction.xyz(), seg.medium);
    const MediumData& medium = scene.media.media[h.material];
    const float q = medium.continuation();
    if ((scene.lights.numLights > 0 || scene.environment.present()) && p.deposits(1, depth + 1) &&
        choice.allows(1, depth + 1)) {
        DirectLight dl = sampleDirectLight<Materials>(scene, h.p, sampler.get(sample, dims::vertex(vertex, dims::kLightChoice)),
                                                      sampler.get2(sample, dims::vertex(vertex, dims::kLightPosition)));
        if (dl.pdfDirect > 0.0f && !isBlack(dl.Le)) {
            const float phase = henyeyGreenstein(glm::dot(h.wo, dl.wi), medium.g());
            const float weight = weightLightSample(dVCM, dVC, dl.pdfDirect, dl.pdfEmit, dl.cosLight, 1.0f,
                                                   dl.delta ? 0.0f : phase * q, phase * q, 0.0f);
            const vec3 contribution = beta * dl.Le * (phase * weight / dl.pdfDirect);
            const int pixel = sampler.pixelIndex(sample, scene.width, scene.height);
            out.shadow = dl.infinite ? shadowRayAlong(RayEnd::point(h.p), dl.wi, pixel, contribution, w.slot(), seg.medium)
                                     : shadowRayBetween(RayEnd::point(h.p), dl.end, pixel, contribution, w.slot(), seg.medium);
            out.hasShadow = true;
        }
    }
    if (choice.storesEye(depth)) storeVertex<Materials>(out, p, h, beta, dVCM, dVC, dVM, depth);
    if (!choice.eyeContinues(depth)) return out;
    WalkState base = w;
    base.throughput = Float4(beta, w.throughput.w);
    base.setStored(out.storedCount);
    out.hasNext = continueMediumWalk(p, medium, h, base, dVCM, dVC, dVM, sampler, dims::vertex(vertex, dims::kComponent),
                                     dims::vertex(vertex, dims::kDirection), out.next);
    return out;
}

/// Shades a collision of a light walk in a medium: t = 1 with the phase function, the stored
/// vertex and the continuation (no adjoint correction: no shading normal).
template <class Materials, class Sampler>
WF_CPU_GPU inline WalkOutput shadeLightMediumVertex(const SceneView& scene, const BdptParams& p, const Sampler& sampler,
                                                    const WalkState& w, const MediaSegment& seg, vec3 beta,
                                                    WalkOutput out) {
    const int depth = w.depth() + 1, vertex = depth - 1;
    const StrategyChoice choice = sampler.strategy(w.sampleIndex(), p.maxDepth);
    float dVCM = w.dVCM(), dVC = w.dVC();
    misAtHit(dVCM, dVC, w.fromInfiniteLight() ? 1.0f : seg.distance, 1.0f);
    const float dVM = p.merging ? w.dVM() : 0.0f;
    const WalkHit h = mediumWalkHit(seg.point, -w.direction.xyz(), seg.medium);
    const MediumData& medium = scene.media.media[h.material];
    const float q = medium.continuation();
    if (p.cameraConnections && depth + 1 <= p.maxDepth && p.deposits(depth + 1, 1) && choice.allows(depth + 1, 1)) {
        vec2 uLens = scene.camera.lensRadius > 0.0f ? sampler.get2(w.sampleIndex(), dims::lightVertex(vertex, dims::kCameraLens))
                                                    : vec2(0.0f);
        CameraConnection cc;
        if (connectToCamera(scene, h.p, uLens, cc)) {
            const float phase = henyeyGreenstein(glm::dot(h.wo, cc.wi), medium.g());
            const float cameraPdfA = cameraPdfW(p, cc.cosAtCamera) / (cc.dist * cc.dist);
            if (phase > 0.0f && cameraPdfA > 0.0f) {
                const float weight = weightCameraConnection(dVCM, dVC, cameraPdfA, p.lightPathCount, phase * q, 0.0f);
                out.shadow = shadowRayBetween(RayEnd::point(h.p), RayEnd::point(cc.lensPoint), cc.pixel,
                                              beta * (phase * weight * cameraPdfA / p.lightPathCount), w.slot(), seg.medium);
                out.hasShadow = true;
            }
        }
    }
    if (choice.storesLight(depth)) storeVertex<Materials>(out, p, h, beta, dVCM, dVC, dVM, depth);
    if (depth + 2 > p.maxDepth || !choice.lightContinues(depth)) return out;
    WalkState base = w;
    base.throughput = Float4(beta, w.throughput.w);
    base.setStored(out.storedCount);
    out.hasNext = continueMediumWalk(p, medium, h, base, dVCM, dVC, dVM, sampler,
                                     dims::lightVertex(vertex, dims::kComponent), dims::lightVertex(vertex, dims::kDirection),
                                     out.next);
    return out;
}

/// Shades the hit of an eye walk (hit.prim < 0: it escaped). Emission found here (s = 0, an
/// emitter or the environment) goes to the sink directly; the s = 1 shadow ray, the stored vertex
/// and the continuation are returned.
template <class Materials, class Sampler, class Sink>
WF_CPU_GPU inline WalkOutput shadeEyeVertex(const SceneView& scene, const BdptParams& p, const Sampler& sampler,
                                            const Sink& sink, const WalkState& w, Hit hit) {
    WalkOutput out = walkOutputFor(w);
    vec3 beta = w.throughput.xyz();
    if (isBlack(beta)) return out;
    int depth = w.depth() + 1;  // segments including the ray that made this hit
    std::uint64_t sample = w.sampleIndex();
    const StrategyChoice choice = sampler.strategy(sample, p.maxDepth);
    int vertex = depth - 1;
    const MediaSegment seg = resolveSegment<Materials>(scene, w.origin.xyz(), w.direction.xyz(), hit, w.medium(), beta, [&] {
        return sampler.get(sample, dims::vertex(vertex, dims::kMedium));
    });
    beta *= seg.weight;
    if (isBlack(beta)) return out;
    if (seg.scattered) return shadeEyeMediumVertex<Materials>(scene, p, sampler, w, seg, beta, out);
    hit = seg.hit;
    if (hit.prim < 0) {
        // s = 0 on the environment: the quantities stay per solid angle (the escape direction is
        // the light vertex), against s = 1 sampling that direction and light subpaths leaving it.
        if (scene.environment.present() && p.deposits(0, depth + 1) && choice.allows(0, depth + 1) &&
            countsEmission(p, w, depth)) {
            vec3 d = w.direction.xyz();
            float weight = depth == 1 ? 1.0f
                                      : weightEnvironmentHit(w.dVCM(), w.dVC(),
                                                             scene.environmentSelect * scene.environment.pdf(d),
                                                             environmentDiskPdf(scene));
            sink.deposit(w.slot(), sampler.pixelIndex(sample, scene.width, scene.height),
                         beta * scene.environment.radiance(d) * weight);
        }
        return out;
    }
    WalkHit h = walkHitAt<Materials>(scene, w, seg);
    if (!(h.cosIn > 0.0f)) return out;
    float dVCM = w.dVCM(), dVC = w.dVC();
    misAtHit(dVCM, dVC, seg.distance, h.cosIn);
    float dVM = p.merging ? w.dVM() / h.cosIn : 0.0f;
    MaterialData textured;
    const MaterialData& m = materialAt<Materials>(scene, h.material, h.uv, textured);  // fields read where used
    int pixel = sampler.pixelIndex(sample, scene.width, scene.height);

    if (m.emissive() && p.deposits(0, depth + 1) && choice.allows(0, depth + 1) && countsEmission(p, w, depth)) {
        vec3 Le = emittedRadiance(m, h.ngOutside, h.wo);
        if (!isBlack(Le)) {
            float weight = depth == 1 ? 1.0f : weightEmitterHit(dVCM, dVC, emitterPdfA(scene, hit.prim), h.cosIn);
            sink.deposit(w.slot(), pixel, beta * Le * weight);
        }
    }
    if (depth >= p.maxDepth || choice.eyeEndsAt(depth)) return out;

    if (!isSpecular<Materials>(m)) {
        float q = continuationProbability<Materials>(m);
        Frame frame(h.normals().frameNormal());
        vec3 woLocal = frame.toLocal(h.wo);
        // s = 1: a fresh light sample (the environment or a point on an area light).
        if ((scene.lights.numLights > 0 || scene.environment.present()) && p.deposits(1, depth + 1) &&
            choice.allows(1, depth + 1)) {
            DirectLight dl = sampleDirectLight<Materials>(scene, h.p, sampler.get(sample, dims::vertex(vertex, dims::kLightChoice)),
                                               sampler.get2(sample, dims::vertex(vertex, dims::kLightPosition)));
            float cosEye = connectionCosine<Materials>(m, h.n, dl.wi);  // geometric: which side, and the density's measure
            vec3 wiLocal = frame.toLocal(dl.wi);
            if (dl.pdfDirect > 0.0f && cosEye > 0.0f && h.normals().pairs(dl.wi)) {
                vec3 f = evalBsdf<Materials>(m, woLocal, wiLocal, TransportMode::Radiance);
                if (!isBlack(f)) {
                    // BSDF sampling never finds a delta light: its density there is 0.
                    float bsdfForward = dl.delta ? 0.0f : pdfBsdf<Materials>(m, woLocal, wiLocal) * q;
                    float weight = weightLightSample(dVCM, dVC, dl.pdfDirect, dl.pdfEmit, dl.cosLight, cosEye, bsdfForward,
                                                     pdfBsdf<Materials>(m, wiLocal, woLocal) * q, p.vmWeight);
                    vec3 contribution = beta * f * dl.Le * (std::fabs(wiLocal.z) * weight / dl.pdfDirect);
                    RayEnd here = RayEnd::surface(h.p, h.n, h.error);
                    int towards = h.mediumTowards(dl.wi);
                    out.shadow = dl.infinite ? shadowRayAlong(here, dl.wi, pixel, contribution, w.slot(), towards)
                                             : shadowRayBetween(here, dl.end, pixel, contribution, w.slot(), towards);
                    out.hasShadow = true;
                }
            }
        }
        if (choice.storesEye(depth)) storeVertex<Materials>(out, p, h, beta, dVCM, dVC, dVM, depth);
    }
    if (!choice.eyeContinues(depth)) return out;
    WalkState base = w;
    base.throughput = Float4(beta, w.throughput.w);
    base.setStored(out.storedCount);
    out.hasNext = continueWalk<Materials>(scene, p, m, h, base, dVCM, dVC, dVM, sampler, dims::vertex(vertex, dims::kComponent),
                               dims::vertex(vertex, dims::kDirection), TransportMode::Radiance, out.next);
    return out;
}

/// Shades the hit of a light walk: the t = 1 connection to the camera (a shadow ray splatting to
/// the pixel it lands in), the stored vertex and the continuation.
template <class Materials, class Sampler>
WF_CPU_GPU inline WalkOutput shadeLightVertex(const SceneView& scene, const BdptParams& p, const Sampler& sampler,
                                              const WalkState& w, Hit hit) {
    WalkOutput out = walkOutputFor(w);
    vec3 beta = w.throughput.xyz();
    if (isBlack(beta)) return out;
    int depth = w.depth() + 1;
    const StrategyChoice choice = sampler.strategy(w.sampleIndex(), p.maxDepth);
    int vertex = depth - 1;
    const MediaSegment seg = resolveSegment<Materials>(scene, w.origin.xyz(), w.direction.xyz(), hit, w.medium(), beta, [&] {
        return sampler.get(w.sampleIndex(), dims::lightVertex(vertex, dims::kMedium));
    });
    beta *= seg.weight;
    if (seg.hit.prim < 0 && !seg.scattered) return out;
    if (isBlack(beta)) return out;
    if (seg.scattered) return shadeLightMediumVertex<Materials>(scene, p, sampler, w, seg, beta, out);
    WalkHit h = walkHitAt<Materials>(scene, w, seg);
    if (!(h.cosIn > 0.0f)) return out;
    float dVCM = w.dVCM(), dVC = w.dVC();
    misAtHit(dVCM, dVC, w.fromInfiniteLight() ? 1.0f : seg.distance, h.cosIn);
    float dVM = p.merging ? w.dVM() / h.cosIn : 0.0f;
    MaterialData textured;
    const MaterialData& m = materialAt<Materials>(scene, h.material, h.uv, textured);  // fields read where used
    // The arriving half of the adjoint correction, |wo.ns| / |wo.ng|: every use of this vertex
    // (t = 1, the connect phase, the continuation) then takes the geometric cosine on its light
    // side (Veach 1997, 5.3; pbrt-v3's CorrectShadingNormal).
    beta *= std::fabs(glm::dot(h.wo, h.normals().frameNormal())) / h.cosIn;

    if (!isSpecular<Materials>(m)) {
        float q = continuationProbability<Materials>(m);
        // t = 1: towards a point on the lens (the pinhole).
        if (p.cameraConnections && depth + 1 <= p.maxDepth && p.deposits(depth + 1, 1) && choice.allows(depth + 1, 1)) {
            vec2 uLens = scene.camera.lensRadius > 0.0f
                             ? sampler.get2(w.sampleIndex(), dims::lightVertex(vertex, dims::kCameraLens))
                             : vec2(0.0f);
            CameraConnection cc;
            Frame frame(h.normals().frameNormal());
            if (connectToCamera(scene, h.p, uLens, cc)) {
                float cosVertex = connectionCosine<Materials>(m, h.n, cc.wi);
                vec3 wiLocal = frame.toLocal(cc.wi), woLocal = frame.toLocal(h.wo);
                if (cosVertex > 0.0f && h.normals().pairs(cc.wi)) {
                    vec3 f = evalBsdf<Materials>(m, woLocal, wiLocal, TransportMode::Importance);
                    // Density of the camera producing this vertex, per unit pixel area (from the
                    // same lens point: the lens density cancels with the importance's).
                    float cameraPdfA = cameraPdfW(p, cc.cosAtCamera) * cosVertex / (cc.dist * cc.dist);
                    if (!isBlack(f) && cameraPdfA > 0.0f) {
                        float weight = weightCameraConnection(dVCM, dVC, cameraPdfA, p.lightPathCount,
                                                              pdfBsdf<Materials>(m, wiLocal, woLocal) * q, p.vmWeight);
                        // The lens is not scene geometry: only the vertex end is offset.
                        out.shadow = shadowRayBetween(RayEnd::surface(h.p, h.n, h.error), RayEnd::point(cc.lensPoint),
                                                      cc.pixel, beta * f * (weight * cameraPdfA / p.lightPathCount),
                                                      w.slot(), h.mediumTowards(cc.wi));
                        out.hasShadow = true;
                    }
                }
            }
        }
        if (choice.storesLight(depth)) storeVertex<Materials>(out, p, h, beta, dVCM, dVC, dVM, depth);
    }
    // A vertex at depth d + 1 is useful only if it can still reach the camera: d + 2 <= maxDepth.
    if (depth + 2 > p.maxDepth || !choice.lightContinues(depth)) return out;
    WalkState base = w;
    base.throughput = Float4(beta, w.throughput.w);
    base.setStored(out.storedCount);
    out.hasNext = continueWalk<Materials>(scene, p, m, h, base, dVCM, dVC, dVM, sampler, dims::lightVertex(vertex, dims::kComponent),
                               dims::lightVertex(vertex, dims::kDirection), TransportMode::Importance, out.next);
    return out;
}

// ---- The connect phase: one eye vertex, one light vertex ------------------------------------

/// The unoccluded value of connecting eye vertex e to light vertex l: throughputs x BSDFs x G
/// (`unweighted`) and the balance-heuristic weight, from the two vertices alone. BSDFs in the
/// shading frames; the geometric cosines decide the sides and convert the densities. The eye
/// vertex's cosine in G is its shading one; the light vertex's is the geometric one, its throughput
/// holding the rest of the adjoint correction (shadeLightVertex).
struct Connection {
    vec3 unweighted = vec3(0.0f);
    float weight = 0.0f;
    bool valid = false;
};

/// How a stored vertex scatters a connection leaving it along wi: f (Importance: the adjoint), the
/// densities of sampling wi from wo and wo from wi (its continuation probability included), the
/// geometric cosine along wi and the shading one. A collision in a medium: the phase function,
/// cosines 1.
struct ConnectionEnd {
    vec3 f = vec3(0.0f);
    float pdfForward = 0.0f, pdfReverse = 0.0f;
    float cosGeometric = 0.0f, cosShading = 0.0f;
    bool valid = false;
};

/// `m`: the vertex's material (surface vertices); `media`: the scene's (medium vertices).
template <class Materials = AllMaterials>
WF_CPU_GPU inline ConnectionEnd connectionEnd(const MaterialData& m, const MediaView* media, const PathVertex& v, vec3 wi,
                                              TransportMode mode) {
    ConnectionEnd c;
    if (v.inMedium()) {
        const MediumData& medium = media->media[v.material()];
        float q = medium.continuation();
        float phase = henyeyGreenstein(glm::dot(v.wo.xyz(), wi), medium.g());
        c.f = vec3(phase);
        c.pdfForward = c.pdfReverse = phase * q;
        c.cosGeometric = c.cosShading = 1.0f;
        c.valid = phase > 0.0f;
        return c;
    }
    // Opaque vertices connect on their wo side only, glass on both.
    c.cosGeometric = connectionCosine<Materials>(m, v.ng(), wi);
    ShadingNormals sn = v.normals();
    if (c.cosGeometric <= 0.0f || !sn.pairs(wi)) return c;
    Frame frame(sn.frameNormal());
    vec3 woLocal = frame.toLocal(v.wo.xyz()), wiLocal = frame.toLocal(wi);
    c.f = evalBsdf<Materials>(m, woLocal, wiLocal, mode);
    // The continuation probability depends on the material alone.
    float q = continuationProbability<Materials>(m);
    c.pdfForward = pdfBsdf<Materials>(m, woLocal, wiLocal) * q;
    c.pdfReverse = pdfBsdf<Materials>(m, wiLocal, woLocal) * q;
    c.cosShading = std::fabs(wiLocal.z);
    c.valid = true;
    return c;
}

/// `media`: needed only where a vertex is a collision in a medium (PathVertex::inMedium), which
/// merges with nothing: vmWeight counts at surface ends only.
template <class Materials = AllMaterials>
WF_CPU_GPU inline Connection evaluateConnection(const MaterialData& me, const MaterialData& ml, const PathVertex& e,
                                                const PathVertex& l, float vmWeight = 0.0f,
                                                const MediaView* media = nullptr) {
    Connection c;
    vec3 d = l.position.xyz() - e.position.xyz();
    float dist2 = glm::dot(d, d);
    if (!(dist2 > 0.0f)) return c;
    vec3 dir = d / std::sqrt(dist2);
    // The light vertex scatters importance: the adjoint BSDF (differs for refraction only).
    ConnectionEnd ee = connectionEnd<Materials>(me, media, e, dir, TransportMode::Radiance);
    if (!ee.valid) return c;
    ConnectionEnd le = connectionEnd<Materials>(ml, media, l, -dir, TransportMode::Importance);
    if (!le.valid) return c;
    vec3 f = ee.f * le.f;
    if (isBlack(f)) return c;
    float eyeToLightPdfA = ee.pdfForward * le.cosGeometric / dist2;
    float lightToEyePdfA = le.pdfForward * ee.cosGeometric / dist2;
    c.weight = weightConnection(e.throughput.w, e.wo.w, l.throughput.w, l.wo.w, eyeToLightPdfA, lightToEyePdfA,
                                ee.pdfReverse, le.pdfReverse, l.inMedium() ? 0.0f : vmWeight,
                                e.inMedium() ? 0.0f : vmWeight);
    c.unweighted = e.throughput.xyz() * l.throughput.xyz() * f * (ee.cosShading * le.cosGeometric / dist2);
    c.valid = true;
    return c;
}

/// Connects stored eye vertex e and light vertex l of the sample in `slot`; returns a shadow ray
/// to trace (false when the pair contributes nothing). The work is the same for every pair.
template <class Materials>
WF_CPU_GPU inline bool connectVertices(const SceneView& scene, const BdptParams& p, const PathVertex& e,
                                       const PathVertex& l, int pixel, int slot, ShadowRay& out) {
    int t = e.depth() + 1, s = l.depth() + 1;
    if (s + t - 1 > p.maxDepth || !p.deposits(s, t)) return false;
    // The ray first: the two ends' normals and error bounds die before the BSDFs are evaluated.
    out = shadowRayBetween(e.rayEnd(), l.rayEnd(), pixel, vec3(0.0f), slot,
                           e.mediumTowards(l.position.xyz() - e.position.xyz()));
    MaterialData texturedE, texturedL;
    // A collision in a medium has no material (material() is its medium): any stands in, unread.
    auto material = [&](const PathVertex& v, MaterialData& textured) -> const MaterialData& {
        return v.inMedium() ? scene.materials[0] : materialAt<Materials>(scene, v.material(), v.uv(), textured);
    };
    Connection c = evaluateConnection<Materials>(material(e, texturedE), material(l, texturedL), e, l, p.vmWeight,
                                                 &scene.media);
    if (!c.valid) return false;
    out.contribution = Float4(c.unweighted * c.weight, out.contribution.w);  // w: the slot and the medium
    return true;
}

/// Parameters that follow from the render options and the camera. `passPixels`: the pixels a pass
/// samples, 0 for the full frame (a crop window's pass has fewer light subpaths, which t = 1 is
/// divided by; the image-plane distance stays the full frame's).
inline BdptParams makeBdptParams(const SceneView& scene, int maxDepth, bool cameraConnections = true,
                                 int passPixels = 0) {
    BdptParams p;
    p.maxDepth = maxDepth;
    p.cameraConnections = cameraConnections;
    p.numPixels = passPixels > 0 ? passPixels : scene.width * scene.height;
    p.lightPathCount = float(p.numPixels);
    p.imagePlaneDistance = 0.5f * float(scene.height) / scene.camera.tanHalfFovY;
    return p;
}

}  // namespace wavefront
