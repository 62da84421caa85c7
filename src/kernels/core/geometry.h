// Rays, boxes and the ray/primitive tests shared by traversal on both backends.
#pragma once
#include <cstdint>

#include "kernels/core/math.h"

namespace wavefront {

struct Ray {
    vec3 origin;
    vec3 direction;  ///< unit length everywhere in the renderer
    float tMax;
};

struct Aabb {
    vec3 lo{FLT_MAX};
    vec3 hi{-FLT_MAX};
    WF_CPU_GPU void extend(vec3 p) { lo = glm::min(lo, p); hi = glm::max(hi, p); }
    WF_CPU_GPU void extend(const Aabb& b) { lo = glm::min(lo, b.lo); hi = glm::max(hi, b.hi); }
    WF_CPU_GPU bool contains(const Aabb& b) const {
        return lo.x <= b.lo.x && lo.y <= b.lo.y && lo.z <= b.lo.z && hi.x >= b.hi.x && hi.y >= b.hi.y && hi.z >= b.hi.z;
    }
    WF_CPU_GPU bool empty() const { return lo.x > hi.x; }
    WF_CPU_GPU vec3 center() const { return 0.5f * (lo + hi); }
    WF_CPU_GPU static Aabb unite(const Aabb& a, const Aabb& b) { Aabb r = a; r.extend(b); return r; }
};

/// Rounding-error bounds of computed surface points (pbrt-v4, section 6.8): every point a ray can
/// leave from carries a scalar bound on how far (per axis, the largest axis) it may lie from the
/// exact surface, proportional to the magnitudes it was computed from. Offsetting a new ray's
/// origin by that bound along the normal is then scale invariant: the same relative offset at 1e-4
/// as at 1e6, and no absolute constant anywhere.
///
/// kPointError is the bound per unit of magnitude: 64 units of float roundoff (2^-24), i.e. 32 ULPs
/// at 1, 3.8e-6. Generous on purpose: the interpolation b0 v0 + b1 v1 + b2 v2 alone is within 3
/// roundoffs per axis of the exact point for exact barycentrics (pbrt's gamma(3)), but ours are
/// recomputed in float by projection and b0 = 1 - b1 - b2 need not make the sum exactly 1 (a few
/// more roundoffs of the vertex magnitudes off the plane), and the watertight triangle test has no
/// conservative t floor (pbrt's has one), so at the offset origin it decides the sign of t with
/// its own rounding, again relative to the vertex magnitudes but larger on slivers. Measured on 20
/// million rays leaving random triangles at magnitudes 1e-4 .. 1e6 (docs/decisions.md): re-hits
/// fall from 13,053 at 1 roundoff to 63 at 16 and 3 at 64. The price: features closer together
/// than the bound (3.8e-6 of the coordinates' magnitude) are not resolved.
constexpr float kPointError = 64.0f * (0.5f * FLT_EPSILON);

/// Error bound of b0 v0 + b1 v1 + b2 v2 (a point on a triangle from barycentrics).
WF_CPU_GPU WF_INLINE float trianglePointError(float b0, float b1, float b2, vec3 v0, vec3 v1, vec3 v2) {
    vec3 m = glm::abs(b0 * v0) + glm::abs(b1 * v1) + glm::abs(b2 * v2);
    return kPointError * glm::max(m.x, glm::max(m.y, m.z));
}

/// Error bound of center + radius * n (a point on a sphere, n unit length).
WF_CPU_GPU WF_INLINE float spherePointError(vec3 center, float radius) {
    vec3 c = glm::abs(center);
    return kPointError * (glm::max(c.x, glm::max(c.y, c.z)) + std::fabs(radius));
}

/// Moves a surface point off its surface so a ray leaving it cannot hit that surface again
/// (pbrt-v4, OffsetRayOrigin): by `error` (the point's bound, kPointError above) times
/// |n.x| + |n.y| + |n.z| along n, which takes the point outside the box of half-width `error`
/// around it. `n` is the geometric normal turned to the side the ray leaves towards. pbrt then
/// rounds each moved coordinate one float further; here the rounding of p + d n costs at most half
/// an ULP of the coordinate, under 1/64 of d, since the bound is 64 roundoffs of magnitudes at
/// least |p| (dropping the step made the megakernel's PTX 5% shorter).
WF_CPU_GPU WF_INLINE vec3 offsetRayOrigin(vec3 p, float error, vec3 n) {
    float d = error * (std::fabs(n.x) + std::fabs(n.y) + std::fabs(n.z));
    return p + d * n;
}

/// Per-ray constants of the watertight ray/triangle test (Woop, Benthin and Wald 2013):
/// the ray is sheared so it runs along +z, then edge functions decide inside/outside exactly
/// once per shared edge, so rays cannot slip between neighbouring triangles.
struct WatertightRay {
    int kx = 0, ky = 1, kz = 2;
    float sx = 0.0f, sy = 0.0f, sz = 1.0f;
    /// Unsheared: for traversals that test no triangle (sphere-only scenes skip the divisions).
    WF_CPU_GPU WatertightRay() {}
    WF_CPU_GPU explicit WatertightRay(vec3 d) {
        vec3 ad = glm::abs(d);
        kz = ad.x > ad.y ? (ad.x > ad.z ? 0 : 2) : (ad.y > ad.z ? 1 : 2);
        kx = kz == 2 ? 0 : kz + 1;
        ky = kx == 2 ? 0 : kx + 1;
        if (d[kz] < 0.0f) { int t = kx; kx = ky; ky = t; }
        sx = d[kx] / d[kz];
        sy = d[ky] / d[kz];
        sz = 1.0f / d[kz];
    }
};

struct TriangleHit {
    float t;
    float b0, b1, b2;  ///< barycentrics of v0, v1, v2
};

/// Returns true and fills `hit` if the ray hits the triangle at 0 < t < tMax.
WF_CPU_GPU WF_INLINE bool intersectTriangle(const WatertightRay& wr, vec3 org, float tMax, vec3 v0, vec3 v1, vec3 v2,
                                            TriangleHit& hit) {
    vec3 a = v0 - org, b = v1 - org, c = v2 - org;
    float ax = a[wr.kx] - wr.sx * a[wr.kz], ay = a[wr.ky] - wr.sy * a[wr.kz];
    float bx = b[wr.kx] - wr.sx * b[wr.kz], by = b[wr.ky] - wr.sy * b[wr.kz];
    float cx = c[wr.kx] - wr.sx * c[wr.kz], cy = c[wr.ky] - wr.sy * c[wr.kz];
    float u = cx * by - cy * bx;
    float v = ax * cy - ay * cx;
    float w = bx * ay - by * ax;
    // An edge function of exactly zero is ambiguous in float: redo the three in double.
    if (u == 0.0f || v == 0.0f || w == 0.0f) {
        u = float(double(cx) * double(by) - double(cy) * double(bx));
        v = float(double(ax) * double(cy) - double(ay) * double(cx));
        w = float(double(bx) * double(ay) - double(by) * double(ax));
    }
    if ((u < 0.0f || v < 0.0f || w < 0.0f) && (u > 0.0f || v > 0.0f || w > 0.0f)) return false;
    float det = u + v + w;
    if (det == 0.0f) return false;
    float az = wr.sz * a[wr.kz], bz = wr.sz * b[wr.kz], cz = wr.sz * c[wr.kz];
    float t = u * az + v * bz + w * cz;
    if (det < 0.0f ? (t >= 0.0f || t < tMax * det) : (t <= 0.0f || t > tMax * det)) return false;
    float inv = 1.0f / det;
    hit.t = t * inv;
    hit.b0 = u * inv;
    hit.b1 = v * inv;
    hit.b2 = w * inv;
    return true;
}

/// Nearest hit of a unit-direction ray with a sphere in (tMin, tMax), tMin relative to the radius.
/// The relative floor rejects the near-zero root a ray leaving the surface can still produce after
/// the origin offset (the quadratic's rounding is relative to the radius, not to the offset).
WF_CPU_GPU WF_INLINE bool intersectSphere(vec3 org, vec3 dir, float tMax, vec3 center, float radius, float& tHit) {
    vec3 f = org - center;
    float b = -glm::dot(f, dir);
    vec3 l = f + b * dir;  // closest approach, computed without cancellation (Ray Tracing Gems, ch. 7)
    float r2 = radius * radius;
    float disc = r2 - glm::dot(l, l);
    if (disc < 0.0f) return false;
    float c = glm::dot(f, f) - r2;
    float q = b + std::copysign(std::sqrt(disc), b);
    float t0 = q != 0.0f ? c / q : 0.0f, t1 = q;
    if (t0 > t1) { float t = t0; t0 = t1; t1 = t; }
    float tMin = 1e-4f * radius;
    float t = t0 > tMin ? t0 : t1;
    if (t <= tMin || t >= tMax) return false;
    tHit = t;
    return true;
}

/// A ray's constants for the slab test. A plane's distance is plane * invDir - offset: one FMA on
/// the GPU where (plane - origin) * invDir takes a subtraction and a product (a node test has
/// twelve planes). That form's rounding error is not relative to the distance, since the product
/// cancels against origin * invDir: it is a few roundoffs of |origin * invDir| on that axis. So
/// each axis gets two offsets, origin * invDir moved by 8 roundoffs of itself towards widening the
/// slab: the plane that gives the entry distance uses the one that lowers it, the exit plane the
/// one that raises it (which plane is which depends on the sign of invDir). Per axis, because a
/// nearly parallel axis has a huge origin * invDir, and a slack shared by all axes then let
/// almost every box pass (measured: mesh-1m primary rays 6x slower).
struct SlabRay {
    vec3 invDir;    ///< correctly rounded 1 / direction
    vec3 offsetLo;  ///< subtracted at the box's lo planes
    vec3 offsetHi;  ///< subtracted at the box's hi planes
    /// A direction component below 1e-20 in magnitude (zero included) becomes +-1e-20, so |invDir|
    /// <= 1e20 and, for coordinates below 1e18, no distance overflows: an infinite one would make
    /// the FMA's distances NaN (infinity minus infinity), and an axis whose two distances are NaN
    /// culls the box (slabTest). The stand-in culls as the parallel slab should, to within the
    /// widening (8 roundoffs of the origin).
    WF_CPU_GPU SlabRay(vec3 origin, vec3 direction) : invDir(reciprocal(clampTiny(direction))) {
        for (int k = 0; k < 3; ++k) {
            float o = origin[k] * invDir[k];
            float widen = std::fabs(o) * (1.0f / 2097152.0f);  // 8 roundoffs (2^-24 each)
            // lo is the entry plane when invDir >= 0: its distance must not grow, so subtract more.
            bool positive = invDir[k] >= 0.0f;
            offsetLo[k] = positive ? o + widen : o - widen;
            offsetHi[k] = positive ? o - widen : o + widen;
        }
    }
    /// Components below 1e-20 in magnitude as +-1e-20 (zero as +1e-20).
    WF_CPU_GPU static vec3 clampTiny(vec3 d) {
        auto clamp = [](float x) { return std::fabs(x) >= 1e-20f ? x : (x < 0.0f ? -1e-20f : 1e-20f); };
        return vec3(clamp(d.x), clamp(d.y), clamp(d.z));
    }
    /// kFused: one rounding (the GPU's FFMA); else plane * invDir rounded first, one more roundoff
    /// of |plane invDir|, within the widening and the factor (the CPU, where a fused multiply-add
    /// is a library call).
    template <bool kFused>
    WF_CPU_GPU static float distance(float plane, float invDir, float offset) {
        if constexpr (kFused) return std::fma(plane, invDir, -offset);
        else return plane * invDir - offset;
    }
};

constexpr bool kFusedSlabs = kFastFma;

/// Slab test against a box: whether the ray meets it within [0, tMax], conservatively (a box the
/// ray misses by less than the rounding bound also passes), and in `tNear` where it enters (>= 0).
/// The tests run the GPU's fused form on the CPU too (kFused = true).
template <bool kFused = kFusedSlabs>
WF_CPU_GPU WF_INLINE bool slabTest(vec3 lo, vec3 hi, const SlabRay& ray, float tMax, float& tNear) {
    auto distance = [&ray](int k, float plane, bool isLo) {
        return SlabRay::distance<kFused>(plane, ray.invDir[k], isLo ? ray.offsetLo[k] : ray.offsetHi[k]);
    };
    vec3 t0(distance(0, lo.x, true), distance(1, lo.y, true), distance(2, lo.z, true));
    vec3 t1(distance(0, hi.x, false), distance(1, hi.y, false), distance(2, hi.z, false));
    // minNum / maxNum per axis: one FMNMX each on the GPU (glm's compare-and-select takes two);
    // a plane whose distance is NaN leaves the axis to the other plane (SlabRay keeps distances
    // finite for coordinates below 1e18). The three-way combines are DPX instructions on Hopper;
    // tFar is exact when it is >= 0, and any negative tFar (the box is behind the ray) fails the
    // test all the same.
    tNear = maxOfThreeAndZero(minNum(t0.x, t1.x), minNum(t0.y, t1.y), minNum(t0.z, t1.z));
    float tFar = minOfThreeSignExact(maxNum(t0.x, t1.x), maxNum(t0.y, t1.y), minNum(maxNum(t0.z, t1.z), tMax));
    // The 1 + 2 gamma(3) factor keeps the test conservative under rounding (pbrt, Bounds3::IntersectP).
    return tNear <= tFar * 1.0000004f;
}

}  // namespace wavefront
