// Rays, boxes and the ray/primitive tests shared by traversal on both backends.
#pragma once
#include <cstdint>

#include "math.h"

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

/// Offsets a surface point along its geometric normal by a few float ULPs so a ray leaving it
/// cannot hit the same surface again (Waechter and Binder, Ray Tracing Gems, chapter 6).
/// `n` must point to the side the new ray leaves towards.
WF_CPU_GPU WF_INLINE vec3 offsetRayOrigin(vec3 p, vec3 n) {
    constexpr float kOrigin = 1.0f / 32.0f, kFloatScale = 1.0f / 65536.0f, kIntScale = 256.0f;
    vec3 out;
    for (int a = 0; a < 3; ++a) {
        int ofi = int(kIntScale * n[a]);
        float pi = intAsFloat(floatAsInt(p[a]) + (p[a] < 0.0f ? -ofi : ofi));
        out[a] = std::fabs(p[a]) < kOrigin ? p[a] + kFloatScale * n[a] : pi;
    }
    return out;
}

/// Per-ray constants of the watertight ray/triangle test (Woop, Benthin and Wald 2013):
/// the ray is sheared so it runs along +z, then edge functions decide inside/outside exactly
/// once per shared edge, so rays cannot slip between neighbouring triangles.
struct WatertightRay {
    int kx, ky, kz;
    float sx, sy, sz;
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

/// Slab test against a box with precomputed inverse direction; returns the entry distance or
/// a value >= tMax on a miss.
WF_CPU_GPU WF_INLINE float intersectBox(vec3 lo, vec3 hi, vec3 org, vec3 invDir, float tMax) {
    vec3 t0 = (lo - org) * invDir, t1 = (hi - org) * invDir;
    vec3 tn = glm::min(t0, t1), tf = glm::max(t0, t1);
    float tNear = glm::max(glm::max(tn.x, tn.y), glm::max(tn.z, 0.0f));
    float tFar = glm::min(glm::min(tf.x, tf.y), glm::min(tf.z, tMax));
    // The 1 + 2 gamma(3) factor keeps the test conservative under rounding (pbrt, Bounds3::IntersectP).
    return tNear <= tFar * 1.0000004f ? tNear : FLT_MAX;
}

}  // namespace wavefront
