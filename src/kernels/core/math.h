// Small math helpers shared by host and device code, on top of GLM.
#pragma once
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <glm/glm.hpp>

#include "kernels/core/device.h"

namespace wavefront {

using glm::vec2;
using glm::vec3;
using glm::uvec3;

constexpr float kPi = 3.14159265358979323846f;
constexpr float kInvPi = 0.31830988618379067154f;

/// 16 bytes, 16-byte aligned: the unit of every stored stream field (one vector load on the GPU;
/// a 12-byte glm::vec3 field would cost two).
struct alignas(16) Float4 {
    float x, y, z, w;
    WF_CPU_GPU Float4() : x(0), y(0), z(0), w(0) {}
    WF_CPU_GPU Float4(float x_, float y_, float z_, float w_) : x(x_), y(y_), z(z_), w(w_) {}
    WF_CPU_GPU Float4(vec3 v, float w_) : x(v.x), y(v.y), z(v.z), w(w_) {}
    WF_CPU_GPU vec3 xyz() const { return vec3(x, y, z); }
};
static_assert(sizeof(Float4) == 16 && alignof(Float4) == 16, "Float4 must be one 16-byte load");

/// A load through the read-only (texture) cache on the GPU, for data no thread of the kernel
/// writes and several threads read (BDPT's connect phase reads each stored vertex many times).
WF_CPU_GPU WF_INLINE Float4 loadReadOnly(const Float4* p) {
    float v[4];
    loadReadOnlyFloats(&p->x, v);
    return Float4(v[0], v[1], v[2], v[3]);
}

WF_CPU_GPU WF_INLINE float maxComponent(vec3 v) { return glm::max(v.x, glm::max(v.y, v.z)); }
WF_CPU_GPU WF_INLINE float luminance(vec3 c) { return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z; }
/// The same weights in double, for sums that may exceed the float range (a film's).
WF_CPU_GPU WF_INLINE double luminance(double r, double g, double b) { return 0.2126 * r + 0.7152 * g + 0.0722 * b; }
/// The sum of two values: the reduction of transformReduceDevice's sums.
template <class T>
struct SumOf {
    WF_CPU_GPU T operator()(T a, T b) const { return a + b; }
};
WF_CPU_GPU WF_INLINE bool isFinite(vec3 v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}
WF_CPU_GPU WF_INLINE bool isBlack(vec3 v) { return v.x <= 0.0f && v.y <= 0.0f && v.z <= 0.0f; }
WF_CPU_GPU WF_INLINE float sqr(float x) { return x * x; }

/// Orthonormal basis around a unit normal (Duff et al. 2017, branchless).
struct Frame {
    vec3 s, t, n;
    WF_CPU_GPU explicit Frame(vec3 normal) : n(normal) {
        float sign = std::copysign(1.0f, n.z);
        float a = -1.0f / (sign + n.z);
        float b = n.x * n.y * a;
        s = vec3(1.0f + sign * n.x * n.x * a, sign * b, -sign * n.x);
        t = vec3(b, sign + n.y * n.y * a, -n.y);
    }
    WF_CPU_GPU vec3 toLocal(vec3 v) const { return vec3(glm::dot(v, s), glm::dot(v, t), glm::dot(v, n)); }
    WF_CPU_GPU vec3 toWorld(vec3 v) const { return s * v.x + t * v.y + n * v.z; }
};

/// A unit vector in 32 bits (octahedral map, 16 bits per coordinate, rounded to nearest; Cigolle
/// et al. 2014): less than 1e-4 radians off (6.4e-5 the worst of 200,000 tested). Stored as float
/// bits (BDPT's path vertex).
WF_CPU_GPU WF_INLINE float packUnitVector(vec3 n) {
    float l1 = std::fabs(n.x) + std::fabs(n.y) + std::fabs(n.z);
    float u = n.x / l1, v = n.y / l1;
    if (n.z < 0.0f) {
        float fu = (1.0f - std::fabs(v)) * (u >= 0.0f ? 1.0f : -1.0f);
        float fv = (1.0f - std::fabs(u)) * (v >= 0.0f ? 1.0f : -1.0f);
        u = fu;
        v = fv;
    }
    std::uint32_t qu = std::uint32_t(int(std::floor(glm::clamp(u, -1.0f, 1.0f) * 32767.0f + 0.5f)) + 32767);
    std::uint32_t qv = std::uint32_t(int(std::floor(glm::clamp(v, -1.0f, 1.0f) * 32767.0f + 0.5f)) + 32767);
    return uintAsFloat(qu | qv << 16);
}
WF_CPU_GPU WF_INLINE vec3 unpackUnitVector(float packed) {
    std::uint32_t bits = floatAsUint(packed);
    float u = (float(int(bits & 0xffffu)) - 32767.0f) * (1.0f / 32767.0f);
    float v = (float(int(bits >> 16)) - 32767.0f) * (1.0f / 32767.0f);
    vec3 n(u, v, 1.0f - std::fabs(u) - std::fabs(v));
    if (n.z < 0.0f) {
        n.x = (1.0f - std::fabs(v)) * (u >= 0.0f ? 1.0f : -1.0f);
        n.y = (1.0f - std::fabs(u)) * (v >= 0.0f ? 1.0f : -1.0f);
    }
    return glm::normalize(n);
}

/// Power heuristic with exponent 2 (Veach 1997), for one sample of each strategy. Computed from
/// the ratio of the two: a density above 1.8e19 (a light sampled all but edge-on, between two
/// nearly coplanar emitting triangles: found by fuzzing) squared to inf and gave inf / inf.
WF_CPU_GPU WF_INLINE float powerHeuristic(float pdfA, float pdfB) {
    if (!(pdfA > 0.0f)) return 0.0f;
    if (!(pdfB > 0.0f)) return 1.0f;
    const float r = pdfA >= pdfB ? pdfB / pdfA : pdfA / pdfB;
    return pdfA >= pdfB ? 1.0f / (1.0f + r * r) : r * r / (1.0f + r * r);
}

}  // namespace wavefront
