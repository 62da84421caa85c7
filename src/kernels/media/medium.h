// Participating media as kernels see them: homogeneous media and density grids with a coarse
// majorant grid, the Henyey-Greenstein phase function, and the two estimators every integrator
// shares: delta tracking of a free-flight distance (null collisions against a majorant) and
// ratio tracking of transmittance (shadow rays and connections).
//
// RGB without spectral MIS: tentative collisions are sampled against one scalar majorant (the
// largest channel's), and the event at each is chosen with probabilities from the channels'
// averages weighted by the path's throughput (Kutz et al. 2017's history-aware spectral
// tracking): real with P = avg(beta sigma_t) / (sigma_maj avg(beta)), null otherwise, and the
// throughput weighted by sigma_s / (sigma_maj P) or sigma_n / (sigma_maj (1 - P)) per channel.
// Every channel stays unbiased, and the channels that carry the path decide its events, so the
// weights stay near 1 where the path is coloured; a grey sigma_t (RGB albedo only) makes them the
// albedo at real collisions and 1 at null ones. Absorption is never sampled: it is in the real
// collisions' weights (sigma_s instead of sigma_t), so a path ends by Russian roulette only.
#pragma once
#include <cstdint>

#include "kernels/core/math.h"
#include "kernels/core/sampler.h"

namespace wavefront {

/// The media of a scene, 8 bits wherever a path or vertex carries one: 0 is vacuum, k + 1 is
/// medium k (Scene::kMaxMedia = 254).
namespace mediumcode {
constexpr int kVacuum = 0;
WF_CPU_GPU constexpr int of(int mediumIndex) { return mediumIndex + 1; }
WF_CPU_GPU constexpr int index(int code) { return code - 1; }
}  // namespace mediumcode

/// One medium, 128 bytes. Coefficients are per unit world length, scale applied.
struct MediumData {
    static constexpr int kHomogeneous = 0, kGrid = 1;
    Float4 sigmaA;   ///< xyz; w = Henyey-Greenstein g
    Float4 sigmaS;   ///< xyz; w = kind (int bits)
    /// Grid: world -> grid space, where the grid's box is [0, 1]^3 (rows of an affine map).
    Float4 toGrid[3];
    int nx, ny, nz;
    int densityOffset;   ///< into MediaView::values: nx x ny x nz densities, x fastest
    int majorantOffset;  ///< into MediaView::values: kMajorantRes^3 maxima of the density
    int pad[3];

    static constexpr int kMajorantRes = 16;
    WF_CPU_GPU int kind() const { return floatAsInt(sigmaS.w); }
    WF_CPU_GPU float g() const { return sigmaA.w; }
    WF_CPU_GPU vec3 sigmaT() const { return sigmaA.xyz() + sigmaS.xyz(); }
    /// Russian roulette of BDPT and MLT at a collision in this medium: its largest single-scattering
    /// albedo, a function of the medium alone (the reverse densities of the MIS weights need that).
    WF_CPU_GPU float continuation() const {
        vec3 t = sigmaT(), s = sigmaS.xyz();
        float a = glm::max(t.x > 0.0f ? s.x / t.x : 0.0f, glm::max(t.y > 0.0f ? s.y / t.y : 0.0f, t.z > 0.0f ? s.z / t.z : 0.0f));
        return glm::min(a, 1.0f);
    }
};
static_assert(sizeof(MediumData) == 112, "medium record: seven 16-byte words");

struct MediaView {
    const MediumData* media = nullptr;
    const float* values = nullptr;  ///< grid densities and majorants
    /// Per primitive (the scene's own and the objects' triangles, then the spheres): the codes of
    /// the media inside (low byte) and outside (high byte); equal bytes: the surface bounds none.
    const std::uint16_t* primInterface = nullptr;
    int count = 0;
    int cameraMedium = mediumcode::kVacuum;  ///< code
};

// ---- Phase function ---------------------------------------------------------------------------

/// Henyey-Greenstein with wo and wi both pointing away from the scattering point (pbrt-v4's
/// convention): g > 0 scatters forward, towards wi = -wo. Symmetric in wo and wi; its own pdf.
WF_CPU_GPU WF_INLINE float henyeyGreenstein(float cosWoWi, float g) {
    float denom = 1.0f + g * g + 2.0f * g * cosWoWi;
    return kInvPi * 0.25f * (1.0f - g * g) / (denom * std::sqrt(glm::max(denom, 1e-12f)));
}

/// Samples wi for wo (both away from the point) with density henyeyGreenstein(dot(wo, wi), g).
WF_CPU_GPU inline vec3 sampleHenyeyGreenstein(vec3 wo, float g, vec2 u) {
    // cos of the angle to the forward direction -wo.
    float cosTheta;
    if (std::fabs(g) < 1e-3f) {
        cosTheta = 1.0f - 2.0f * u.x;
    } else {
        float s = (1.0f - g * g) / (1.0f + g - 2.0f * g * u.x);
        cosTheta = glm::clamp((1.0f + g * g - s * s) / (2.0f * g), -1.0f, 1.0f);
    }
    float sinTheta = std::sqrt(glm::max(0.0f, 1.0f - cosTheta * cosTheta));
    float phi = 2.0f * kPi * u.y;
    Frame frame(-wo);
    return glm::normalize(frame.toWorld(vec3(sinTheta * std::cos(phi), sinTheta * std::sin(phi), cosTheta)));
}

// ---- Random numbers of the trackers ---------------------------------------------------------

/// The trackers draw as many numbers as their collisions need: a counter hashed from a seed that
/// one sampler number and the segment's start make (as pbrt-v4 seeds its RNG from sampler
/// numbers), so that the numbers are a function of the sample (MLT replays them) and the pieces
/// of a ray between media boundaries never share them.
struct MediumRng {
    std::uint64_t state;
    WF_CPU_GPU MediumRng(float u, vec3 origin) {
        std::uint64_t a = std::uint64_t(floatAsUint(u)) << 32 | floatAsUint(origin.x);
        std::uint64_t b = std::uint64_t(floatAsUint(origin.y)) << 32 | floatAsUint(origin.z);
        state = mix64(a ^ mix64(b + 0x632be59bd9b4e019ull));
    }
    WF_CPU_GPU float next() {
        state += 0x9e3779b97f4a7c15ull;
        return float(mix64(state) >> 40) * (1.0f / 16777216.0f);
    }
};

// ---- Densities and majorants ------------------------------------------------------------------

/// Density of grid medium m at grid-space point g (its box is [0, 1]^3): trilinear over the
/// values at the cell centres, 0 beyond the outermost ones (pbrt-v4's SampledGrid).
WF_CPU_GPU inline float gridDensity(const MediaView& media, const MediumData& m, vec3 g) {
    float x = g.x * m.nx - 0.5f, y = g.y * m.ny - 0.5f, z = g.z * m.nz - 0.5f;
    float fx = std::floor(x), fy = std::floor(y), fz = std::floor(z);
    int ix = int(fx), iy = int(fy), iz = int(fz);
    float dx = x - fx, dy = y - fy, dz = z - fz;
    const float* v = media.values + m.densityOffset;
    auto at = [&](int i, int j, int k) {
        if (i < 0 || j < 0 || k < 0 || i >= m.nx || j >= m.ny || k >= m.nz) return 0.0f;
        return v[(std::size_t(k) * m.ny + j) * m.nx + i];
    };
    float c00 = at(ix, iy, iz) * (1 - dx) + at(ix + 1, iy, iz) * dx;
    float c10 = at(ix, iy + 1, iz) * (1 - dx) + at(ix + 1, iy + 1, iz) * dx;
    float c01 = at(ix, iy, iz + 1) * (1 - dx) + at(ix + 1, iy, iz + 1) * dx;
    float c11 = at(ix, iy + 1, iz + 1) * (1 - dx) + at(ix + 1, iy + 1, iz + 1) * dx;
    return ((c00 * (1 - dy) + c10 * dy) * (1 - dz) + (c01 * (1 - dy) + c11 * dy) * dz);
}

WF_CPU_GPU WF_INLINE vec3 toGridPoint(const MediumData& m, vec3 p) {
    return vec3(glm::dot(m.toGrid[0].xyz(), p) + m.toGrid[0].w, glm::dot(m.toGrid[1].xyz(), p) + m.toGrid[1].w,
                glm::dot(m.toGrid[2].xyz(), p) + m.toGrid[2].w);
}
WF_CPU_GPU WF_INLINE vec3 toGridVector(const MediumData& m, vec3 d) {
    return vec3(glm::dot(m.toGrid[0].xyz(), d), glm::dot(m.toGrid[1].xyz(), d), glm::dot(m.toGrid[2].xyz(), d));
}

/// The density (1 for a homogeneous medium) at world point p.
WF_CPU_GPU WF_INLINE float mediumDensity(const MediaView& media, const MediumData& m, vec3 p) {
    return m.kind() == MediumData::kGrid ? gridDensity(media, m, toGridPoint(m, p)) : 1.0f;
}

/// Calls f(t0, t1, densityBound) for consecutive pieces of the ray o + t d, t in (0, tMax), over
/// which the medium's density stays below densityBound: the whole ray for a homogeneous medium
/// (bound 1), the cells of the majorant grid it crosses for a grid (a 3D DDA in grid space, where
/// the same t applies: the direction is mapped, not normalised). f returns false to stop.
template <class F>
WF_CPU_GPU inline void forEachMajorantPiece(const MediaView& media, const MediumData& m, vec3 o, vec3 d, float tMax,
                                            F&& f) {
    if (m.kind() != MediumData::kGrid) {
        f(0.0f, tMax, 1.0f);
        return;
    }
    vec3 go = toGridPoint(m, o), gd = toGridVector(m, d);
    // Clip to the box [0, 1]^3.
    float t0 = 0.0f, t1 = tMax;
    for (int a = 0; a < 3; ++a) {
        float inv = 1.0f / gd[a];
        float tn = (0.0f - go[a]) * inv, tf = (1.0f - go[a]) * inv;
        if (tn > tf) {
            float s = tn;
            tn = tf;
            tf = s;
        }
        if (!(tn == tn)) tn = -FLT_MAX;  // direction parallel to the slab: 0 * inf
        if (!(tf == tf)) tf = FLT_MAX;
        t0 = glm::max(t0, tn);
        t1 = glm::min(t1, tf);
    }
    if (!(t0 < t1)) return;
    constexpr int R = MediumData::kMajorantRes;
    const float* maj = media.values + m.majorantOffset;
    vec3 start = go + t0 * gd;
    int cell[3], step[3];
    float nextT[3], deltaT[3];
    for (int a = 0; a < 3; ++a) {
        cell[a] = glm::clamp(int(start[a] * R), 0, R - 1);
        if (gd[a] == 0.0f) {
            step[a] = 0;
            nextT[a] = FLT_MAX;
            deltaT[a] = FLT_MAX;
            continue;
        }
        float inv = 1.0f / gd[a];
        step[a] = gd[a] > 0.0f ? 1 : -1;
        float boundary = float(cell[a] + (gd[a] > 0.0f ? 1 : 0)) / R;
        nextT[a] = t0 + (boundary - start[a]) * inv;
        deltaT[a] = std::fabs(inv) / R;
    }
    float t = t0;
    for (int guard = 0; guard < 3 * R + 3; ++guard) {
        int axis = nextT[0] < nextT[1] ? (nextT[0] < nextT[2] ? 0 : 2) : (nextT[1] < nextT[2] ? 1 : 2);
        float tEnd = glm::min(nextT[axis], t1);
        float bound = maj[(cell[2] * R + cell[1]) * R + cell[0]];
        if (tEnd > t && !f(t, tEnd, bound)) return;
        if (tEnd >= t1) return;
        t = tEnd;
        cell[axis] += step[axis];
        if (cell[axis] < 0 || cell[axis] >= R) return;
        nextT[axis] += deltaT[axis];
    }
}

/// Average of the three channels.
WF_CPU_GPU WF_INLINE float channelMean(vec3 v) { return (v.x + v.y + v.z) * (1.0f / 3.0f); }

/// Tentative collisions a tracker takes before it gives up (the weight then 0): far beyond any
/// sensible optical depth, only a guard against a hang.
constexpr int kMaxTrackingSteps = 1 << 20;

/// Calls f(t, density) at each tentative collision of o + t d (d unit), t in (0, tMax), in medium
/// `m` against its majorant (`majorant` = the largest channel's sigma_t times the piece's density
/// bound, passed along), in order; f returns false to stop. The one collision loop of both
/// trackers. Returns false when it gave up after kMaxTrackingSteps.
template <class F>
WF_CPU_GPU inline bool forEachTentativeCollision(const MediaView& media, const MediumData& m, vec3 o, vec3 d, float tMax,
                                                 MediumRng& rng, F&& f) {
    const float sigmaMax = maxComponent(m.sigmaT());
    if (!(sigmaMax > 0.0f)) return true;
    int steps = 0;
    bool finished = true;
    forEachMajorantPiece(media, m, o, d, tMax, [&](float t0, float t1, float bound) {
        const float majorant = sigmaMax * bound;
        if (!(majorant > 0.0f)) return true;
        for (float t = t0;;) {
            t -= std::log(1.0f - rng.next()) / majorant;
            if (!(t < t1)) return true;
            if (++steps > kMaxTrackingSteps) {
                finished = false;
                return false;
            }
            if (!f(t, mediumDensity(media, m, o + t * d), majorant)) return false;
        }
    });
    return finished;
}

/// Where delta tracking stopped: a real collision (scattered) at distance t, or none before tMax.
struct MediumSample {
    vec3 weight = vec3(1.0f);  ///< per channel: the collisions' weights (the albedo for a grey sigma_t)
    float t = 0.0f;
    bool scattered = false;
};

/// Delta tracking along o + t d (d unit), t in (0, tMax), in medium `m`, for a path of throughput
/// `beta` (it weighs the channels that choose each event; the result's weight multiplies it).
WF_CPU_GPU inline MediumSample sampleMediumDistance(const MediaView& media, const MediumData& m, vec3 o, vec3 d,
                                                    float tMax, MediumRng& rng, vec3 beta = vec3(1.0f)) {
    MediumSample s;
    const vec3 sigmaT = m.sigmaT(), sigmaS = m.sigmaS.xyz();
    const bool finished = forEachTentativeCollision(media, m, o, d, tMax, rng, [&](float t, float density, float majorant) {
        // The channel mean weighted by the throughput so far (plain where it is black).
        vec3 h = beta * s.weight;
        float sum = h.x + h.y + h.z;
        h = sum > 0.0f ? h / sum : vec3(1.0f / 3.0f);
        const vec3 st = density * sigmaT;
        const vec3 sn = glm::max(vec3(majorant) - st, vec3(0.0f));
        const float real = glm::dot(h, st), null = glm::dot(h, sn);
        if (rng.next() * (real + null) < real) {
            s.weight *= density * sigmaS * ((real + null) / (majorant * real));
            s.t = t;
            s.scattered = true;
            return false;
        }
        s.weight *= sn * ((real + null) / (majorant * null));
        return true;
    });
    if (!finished) s.weight = vec3(0.0f);
    return s;
}

/// Transmittance along o + t d (d unit), t in (0, tMax), in medium `m`: exact for a homogeneous
/// medium, ratio tracking in a grid (Russian roulette once it falls low).
WF_CPU_GPU inline vec3 mediumTransmittance(const MediaView& media, const MediumData& m, vec3 o, vec3 d, float tMax,
                                           MediumRng& rng) {
    const vec3 sigmaT = m.sigmaT();
    if (m.kind() != MediumData::kGrid) {
        if (!(tMax < FLT_MAX)) return vec3(isBlack(sigmaT) ? 1.0f : 0.0f);  // an unbounded ray through it
        return vec3(std::exp(-sigmaT.x * tMax), std::exp(-sigmaT.y * tMax), std::exp(-sigmaT.z * tMax));
    }
    vec3 T(1.0f);
    const bool finished = forEachTentativeCollision(media, m, o, d, tMax, rng, [&](float, float density, float majorant) {
        T *= glm::max(vec3(majorant) - density * sigmaT, vec3(0.0f)) / majorant;
        const float largest = maxComponent(T);
        if (largest < 0.05f) {
            if (rng.next() >= largest * 4.0f) {  // survive with probability 4 T, at least 0.2 after
                T = vec3(0.0f);
                return false;
            }
            T /= largest * 4.0f;
        }
        return true;
    });
    return finished ? T : vec3(0.0f);
}

}  // namespace wavefront
