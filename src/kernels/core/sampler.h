// Stateless random numbers addressed by (sample, dimension), and the primary-sample layout
// that every integrator uses, so that MLT substitutes its stored numbers (MltSampler).
#pragma once
#include <cstdint>

#include "kernels/core/math.h"

namespace wavefront {

/// Dimensions of one path-tracing sample. Every variant (megakernel, PT+R, SPT, SPT+R) reads the
/// same numbers for the same sample, so they converge to the same image.
namespace dims {
constexpr int kPixel = 0;      ///< pixel jitter u, v
constexpr int kLens = 2;       ///< lens u, v
constexpr int kCameraCount = 4;
/// Per path vertex: 4 extension numbers (roulette / BSDF component, direction u, v, the seed of
/// the media trackers on the segment that leaves it: kernels/media/medium.h) then 3 for
/// next-event estimation (light choice, position u, v).
constexpr int kPerVertex = 7;
constexpr int kComponent = 0, kDirection = 1, kMedium = 3, kLightChoice = 4, kLightPosition = 5;
WF_CPU_GPU constexpr int vertex(int depth, int offset) { return kCameraCount + depth * kPerVertex + offset; }
/// BDPT light subpaths (a range of their own, far above any eye-path dimension): the light start
/// takes 5 numbers (light choice, position u, v, direction u, v; the environment takes its
/// direction from the direction numbers and the point on its disk from the position numbers),
/// each light vertex 4 extension numbers laid out like an eye vertex's, then the lens point u, v
/// of its connection to a thin-lens camera (t = 1).
constexpr int kLightSubpath = 1 << 12;
constexpr int kLightStartCount = 5;
constexpr int kLightStartChoice = 0, kLightStartPosition = 1, kLightStartDirection = 3;
constexpr int kPerLightVertex = 6;
constexpr int kCameraLens = 4;
WF_CPU_GPU constexpr int lightStart(int offset) { return kLightSubpath + offset; }
WF_CPU_GPU constexpr int lightVertex(int depth, int offset) {
    return kLightSubpath + kLightStartCount + depth * kPerLightVertex + offset;
}
}  // namespace dims

/// The bidirectional strategies (s light vertices, t eye vertices: bdpt.h) one sample evaluates:
/// every one (BDPT, MLT), or the single (s, t) that multiplexed MLT chose (Hachisuka, Kaplanyan
/// and Dachsbacher 2014). With one strategy the walks go just deep enough for it, store only the
/// vertex its connection needs and deposit nothing else; its contribution is scaled by the
/// inverse probability of choosing it (`scale`).
struct StrategyChoice {
    int s = -1, t = -1;  ///< s < 0: every strategy
    float scale = 1.0f;
    WF_CPU_GPU bool all() const { return s < 0; }
    WF_CPU_GPU bool allows(int si, int ti) const { return s < 0 || (si == s && ti == t); }
    WF_CPU_GPU bool needsEyeWalk() const { return s < 0 || t >= 2; }
    WF_CPU_GPU bool needsLightWalk() const { return s < 0 || s >= 2; }
    /// The eye vertex at `depth` (t = depth + 1) ends the walk once its emission is taken (s = 0).
    WF_CPU_GPU bool eyeEndsAt(int depth) const { return s >= 0 && (depth > t - 1 || (depth == t - 1 && s == 0)); }
    WF_CPU_GPU bool storesEye(int depth) const { return s < 0 || (depth == t - 1 && s >= 2); }
    WF_CPU_GPU bool eyeContinues(int depth) const { return s < 0 || depth < t - 1; }
    /// The light vertex at `depth` (s = depth + 1).
    WF_CPU_GPU bool storesLight(int depth) const { return s < 0 || (depth == s - 1 && t >= 2); }
    WF_CPU_GPU bool lightContinues(int depth) const { return s < 0 || depth < s - 1; }
};

/// 64-bit finaliser (splitmix64 / Stafford variant 13): every input bit affects every output bit.
WF_CPU_GPU WF_INLINE std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/// Where a camera sample lands on the film: its pixel and its continuous raster position.
struct FilmSample {
    int pixel;
    vec2 raster;  ///< x in [0, width), y in [0, height), rows top to bottom
};

/// The pixels of the full frame (width x height, the camera's) that the film holds: a crop window
/// [x0, x0 + cropWidth) x [y0, y0 + cropHeight) (RenderOptions::crop). The camera's raster mapping
/// and BDPT's image-plane density always use the full frame; only the film and the camera samples
/// handed out are the window's. Camera samples keep the full frame's numbering (sample index =
/// pass x width x height + frame pixel), so a window pixel gets exactly the samples the full
/// frame gives it. Default (cropWidth 0): no window, every mapping is the identity.
struct FilmWindow {
    int frameWidth = 0, frameHeight = 0;
    int x0 = 0, y0 = 0, cropWidth = 0, cropHeight = 0;
    WF_CPU_GPU bool cropped() const { return cropWidth > 0; }
    /// The full frame's sample index of the window's camera sample k (k counts passes over the
    /// window's pixels, rows top to bottom).
    WF_CPU_GPU std::uint64_t frameSample(std::uint64_t k) const {
        if (!cropped()) return k;
        const std::uint64_t pixels = std::uint64_t(cropWidth) * std::uint64_t(cropHeight);
        const std::uint64_t pass = k / pixels;
        const int local = int(k - pass * pixels);
        const int x = x0 + local % cropWidth, y = y0 + local / cropWidth;
        return pass * (std::uint64_t(frameWidth) * std::uint64_t(frameHeight)) + std::uint64_t(y) * frameWidth + x;
    }
    /// The film pixel of full-frame pixel `framePixel`; -1 outside the window (a t = 1 or MLT
    /// splat there is dropped).
    WF_CPU_GPU int filmPixel(int framePixel) const {
        if (!cropped()) return framePixel;
        const int x = framePixel % frameWidth - x0, y = framePixel / frameWidth - y0;
        if (unsigned(x) >= unsigned(cropWidth) || unsigned(y) >= unsigned(cropHeight)) return -1;
        return y * cropWidth + x;
    }
};

/// The default sampler: a hash of (seed, sample index, dimension) mapped to [0, 1).
/// `sampleIndex` is global over the render (pixel and pass folded in by the caller).
///
/// Every sampler answers get / get2 / filmSample; the BDPT walks also call startSample and
/// useVertex, which let MLT's sampler (mlt.h) prepare the numbers a walk is about to read. Here
/// they do nothing: the numbers are a pure function of (sample, dimension).
struct HashSampler {
    std::uint64_t seedKey = 0;
    FilmWindow window;  ///< the camera samples handed out are this window's (startSample)
    WF_CPU_GPU explicit HashSampler(std::uint32_t seed = 0, FilmWindow w = FilmWindow{})
        : seedKey(mix64(std::uint64_t(seed) + 0x9e3779b97f4a7c15ull)), window(w) {}
    /// One finaliser per number, of the sample's key plus a Weyl step per dimension (SplitMix64's
    /// construction). The key is the same for every dimension of a sample, so a shading step that
    /// draws several numbers computes it once (two finalisers per number were 12% of the
    /// megakernel's per-bounce instructions on rtiow-final).
    WF_CPU_GPU float get(std::uint64_t sampleIndex, int dimension) const {
        std::uint64_t key = (sampleIndex * 0x9e3779b97f4a7c15ull) ^ seedKey;
        std::uint64_t h = mix64(key + std::uint64_t(std::int64_t(dimension)) * 0xd1b54a32d192ed03ull);
        return float(h >> 40) * (1.0f / 16777216.0f);  // 24 bits: exactly representable, < 1
    }
    WF_CPU_GPU vec2 get2(std::uint64_t sampleIndex, int dimension) const {
        return vec2(get(sampleIndex, dimension), get(sampleIndex, dimension + 1));
    }
    /// Pixel sample mod pixel count (consecutive samples are neighbouring pixels, so regenerated
    /// rays stay coherent), jittered by the two pixel numbers.
    WF_CPU_GPU FilmSample filmSample(std::uint64_t sampleIndex, int width, int height) const {
        int pixel = pixelIndex(sampleIndex, width, height);
        vec2 jitter = get2(sampleIndex, dims::kPixel);
        return FilmSample{pixel, vec2(float(pixel % width) + jitter.x, float(pixel / width) + jitter.y)};
    }
    WF_CPU_GPU int pixelIndex(std::uint64_t sampleIndex, int width, int height) const {
        return int(sampleIndex % std::uint64_t(width * height));
    }
    /// Work index `index` (the render's samples, passes over the film's pixels) starts in `slot`:
    /// the global sample index the walks read their numbers under (the full frame's numbering).
    WF_CPU_GPU std::uint64_t startSample(int /*slot*/, std::uint64_t index) const { return window.frameSample(index); }
    /// BDPT hands out samples in order to whichever slot is free (RegenerateStage); MLT's sampler
    /// hands each chain its own mutations instead (perSlotWork, slotHasWork, claim).
    WF_CPU_GPU bool perSlotWork() const { return false; }
    WF_CPU_GPU bool slotHasWork(int /*slot*/, std::uint64_t /*end*/) const { return false; }
    WF_CPU_GPU std::uint64_t claim(int /*slot*/) const { return 0; }
    /// A walk is about to read the numbers of its vertex `vertex` (eye or light subpath).
    WF_CPU_GPU void useVertex(bool /*eye*/, std::uint64_t /*sampleIndex*/, int /*vertex*/) const {}
    /// Every strategy (MLT's multiplexed sampler picks one per sample).
    WF_CPU_GPU StrategyChoice strategy(std::uint64_t /*sampleIndex*/, int /*maxDepth*/) const { return {}; }
};

// ---- Warping functions -------------------------------------------------------

WF_CPU_GPU WF_INLINE vec2 sampleConcentricDisk(vec2 u) {
    vec2 o = 2.0f * u - vec2(1.0f);
    if (o.x == 0.0f && o.y == 0.0f) return vec2(0.0f);
    float r, theta;
    if (std::fabs(o.x) > std::fabs(o.y)) {
        r = o.x;
        theta = (kPi / 4.0f) * (o.y / o.x);
    } else {
        r = o.y;
        theta = (kPi / 2.0f) - (kPi / 4.0f) * (o.x / o.y);
    }
    return r * vec2(std::cos(theta), std::sin(theta));
}

/// Cosine-weighted direction about +z; pdf = cos(theta) / pi.
WF_CPU_GPU WF_INLINE vec3 sampleCosineHemisphere(vec2 u) {
    vec2 d = sampleConcentricDisk(u);
    float z = std::sqrt(glm::max(0.0f, 1.0f - d.x * d.x - d.y * d.y));
    return vec3(d.x, d.y, z);
}

/// Uniform barycentrics (b1, b2) on a triangle; b0 = 1 - b1 - b2.
WF_CPU_GPU WF_INLINE vec2 sampleUniformTriangle(vec2 u) {
    float su = std::sqrt(u.x);
    return vec2(1.0f - su, u.y * su);
}

WF_CPU_GPU WF_INLINE vec3 sampleUniformSphere(vec2 u) {
    float z = 1.0f - 2.0f * u.x;
    float r = std::sqrt(glm::max(0.0f, 1.0f - z * z));
    float phi = 2.0f * kPi * u.y;
    return vec3(r * std::cos(phi), r * std::sin(phi), z);
}

/// Uniform over the directions within the cone cos(theta) >= cosMax around +z (density
/// 1 / (2 pi (1 - cosMax))).
WF_CPU_GPU WF_INLINE vec3 sampleUniformCone(vec2 u, float cosMax) {
    float z = 1.0f - u.x * (1.0f - cosMax);
    float r = std::sqrt(glm::max(0.0f, 1.0f - z * z));
    float phi = 2.0f * kPi * u.y;
    return vec3(r * std::cos(phi), r * std::sin(phi), z);
}

}  // namespace wavefront
