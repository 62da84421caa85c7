// pbrt-v4's layered BSDFs (its coateddiffuse and coatedconductor materials): a dielectric
// interface (the coat) over a diffuse or conductor base, with an optional homogeneous medium of
// the given thickness between them (albedo, Henyey-Greenstein g). f, pdf and sampling are
// stochastic estimates of the light's walk between the layers, as pbrt-v4 evaluates them (Guo,
// Hasan and Zhao 2018; Pharr, Jakob and Humphreys, 4th ed., 14.3): f by a walk from wo with
// next-event estimation towards wi through the coat, the pdf by a few one-bounce terms mixed with
// a uniform density, sampling by the walk itself, its weight the walk's throughput. Each estimate
// draws its numbers from a hash of its arguments, so f and pdf are functions of the direction pair
// and a sample of (wo, u): every integrator, both directions of BDPT and every strategy of a path
// see the same values. The walk is cut after maxDepth events, as pbrt cuts it (pbrt's images
// include that loss; a white furnace reads pbrt's values, not the untruncated albedo). One
// deliberate difference: f's MIS between the two ways of leaving through the coat weighs both with
// densities of the same direction, so that f agrees with sampling (see f).
//
// Directions are in the local shading frame with the coat on top (z > 0 outside): the coated
// materials are opaque and shaded in the frame turned towards wo, so wo.z > 0 always and only
// reflection (wi.z > 0) is non-zero. Inside, a direction's z says whether it climbs towards the
// coat (z > 0) or falls towards the base (z < 0).
#pragma once
#include <cfloat>
#include <cstdint>

#include "kernels/core/sampler.h"
#include "kernels/materials/classic_materials.h"
#include "kernels/materials/microfacet_materials.h"

namespace wavefront {
namespace layered {

/// Which lobes an interface may sample or evaluate a density for.
enum Lobes : int { kReflection = 1, kTransmission = 2, kAllLobes = 3 };

/// An interface's sample as pbrt states it: the BSDF value f and the density (for a delta lobe:
/// the discrete probability of choosing it), so that f |cos| / pdf is the sample's weight.
struct LayerSample {
    vec3 wi{0.0f};
    vec3 f{0.0f};
    float pdf = 0.0f;
    bool specular = false;
    bool transmission = false;
    bool valid = false;
};

WF_CPU_GPU WF_INLINE TransportMode adjoint(TransportMode mode) {
    return mode == TransportMode::Radiance ? TransportMode::Importance : TransportMode::Radiance;
}

/// The numbers of one estimate: a hash of its arguments, advanced by a 64-bit finaliser.
struct WalkRandom {
    std::uint64_t state;
    WF_CPU_GPU float next() {
        state = mix64(state + 0x9e3779b97f4a7c15ull);
        return float(state >> 40) * 0x1p-24f;
    }
    WF_CPU_GPU vec2 next2() {
        float a = next();
        return vec2(a, next());
    }
};
WF_CPU_GPU WF_INLINE std::uint64_t hashBits(vec3 w) {
    std::uint64_t xy = (std::uint64_t(std::uint32_t(floatAsInt(w.x))) << 32) | std::uint32_t(floatAsInt(w.y));
    return mix64(xy ^ mix64(std::uint64_t(std::uint32_t(floatAsInt(w.z))) + 0x632be59bd9b4e019ull));
}
WF_CPU_GPU WF_INLINE WalkRandom walkRandom(std::uint64_t a, std::uint64_t b) { return WalkRandom{mix64(a ^ mix64(b))}; }

WF_CPU_GPU WF_INLINE float powerHeuristic(float a, float b) {
    float a2 = a * a, b2 = b * b;
    return a2 + b2 > 0.0f ? a2 / (a2 + b2) : 0.0f;
}

/// Transmittance across a slab of depth dz (unit extinction) along w.
WF_CPU_GPU WF_INLINE float slabTransmittance(float dz, vec3 w) {
    return std::fabs(dz) <= FLT_MIN ? 1.0f : std::exp(-std::fabs(dz / w.z));
}

// ---- Henyey-Greenstein phase function (both directions point away from the scattering point) ----

WF_CPU_GPU WF_INLINE float henyeyGreenstein(float cosTheta, float g) {
    float denom = 1.0f + g * g + 2.0f * g * cosTheta;
    return (1.0f - g * g) / (4.0f * kPi * denom * std::sqrt(glm::max(denom, 1e-12f)));
}

/// A direction wi from the phase function at wo; its density equals its value.
WF_CPU_GPU inline vec3 sampleHenyeyGreenstein(vec3 wo, float g, vec2 u, float& density) {
    float cosTheta;  // of the angle between wo and wi
    if (std::fabs(g) < 1e-3f) {
        cosTheta = 1.0f - 2.0f * u.x;
    } else {
        float s = (1.0f - g * g) / (1.0f + g - 2.0f * g * u.x);
        cosTheta = -(1.0f + g * g - s * s) / (2.0f * g);
    }
    cosTheta = glm::clamp(cosTheta, -1.0f, 1.0f);
    float sinTheta = std::sqrt(glm::max(0.0f, 1.0f - cosTheta * cosTheta));
    float phi = 2.0f * kPi * u.y;
    vec3 t1 = std::fabs(wo.x) > 0.9f ? vec3(0.0f, 1.0f, 0.0f) : vec3(1.0f, 0.0f, 0.0f);
    t1 = glm::normalize(glm::cross(wo, t1));
    vec3 t2 = glm::cross(wo, t1);
    density = henyeyGreenstein(cosTheta, g);
    return glm::normalize(sinTheta * std::cos(phi) * t1 + sinTheta * std::sin(phi) * t2 + cosTheta * wo);
}

// ---- The coat: a smooth or GGX-rough dielectric interface --------------------------------------

/// pbrt's DielectricBxDF with eta = n_coat / n_outside: the side z < 0 is the coat.
struct CoatInterface {
    MaterialData m;  ///< a rough dielectric of the coat's index and alpha (RoughDielectricBsdf)

    WF_CPU_GPU static CoatInterface make(float eta, float alpha) {
        CoatInterface c;
        c.m.setKind(MaterialType::RoughDielectric);
        c.m.setIor(eta);
        c.m.setAlpha(alpha);
        return c;
    }
    WF_CPU_GPU bool specular() const { return m.alpha() < kSmoothAlpha || m.ior() == 1.0f; }

    WF_CPU_GPU vec3 f(vec3 wo, vec3 wi, TransportMode mode) const {
        return specular() ? vec3(0.0f) : vec3(RoughDielectricBsdf::value(m, wo, wi, mode).f);
    }
    /// The density of sampling wi restricted to `lobes` (renormalised to the allowed lobes).
    WF_CPU_GPU float pdf(vec3 wo, vec3 wi, int lobes) const {
        if (specular()) return 0.0f;
        RoughDielectricBsdf::Value v = RoughDielectricBsdf::value(m, wo, wi, TransportMode::Radiance);
        bool reflection = wo.z * wi.z > 0.0f;
        if (!(lobes & (reflection ? kReflection : kTransmission))) return 0.0f;
        return lobes == kAllLobes ? v.pdf : (v.lobe > 0.0f ? v.pdf / v.lobe : 0.0f);
    }

    WF_CPU_GPU LayerSample sample(vec3 wo, float uc, vec2 u, TransportMode mode, int lobes) const {
        LayerSample s;
        if (wo.z == 0.0f) return s;
        const float eta = m.ior();
        if (specular()) {
            float R = fresnelDielectricSigned(wo.z, eta), T = 1.0f - R;
            float pr = (lobes & kReflection) ? R : 0.0f, pt = (lobes & kTransmission) ? T : 0.0f;
            if (!(pr + pt > 0.0f)) return s;
            s.specular = true;
            if (uc < pr / (pr + pt)) {
                s.wi = vec3(-wo.x, -wo.y, wo.z);
                s.f = vec3(R / std::fabs(s.wi.z));
                s.pdf = pr / (pr + pt);
            } else {
                float etap = wo.z > 0.0f ? eta : 1.0f / eta;
                vec3 wi;
                if (!refractThrough(wo, vec3(0.0f, 0.0f, 1.0f), etap, wi) || wi.z == 0.0f) return s;
                s.wi = glm::normalize(wi);
                float ft = T / std::fabs(s.wi.z);
                s.f = vec3(mode == TransportMode::Radiance ? ft / (etap * etap) : ft);
                s.pdf = pt / (pr + pt);
                s.transmission = true;
            }
            s.valid = true;
            return s;
        }
        vec3 wm = Ggx{m.alpha()}.sampleVisible(wo, u);
        float R = fresnelDielectricSigned(glm::dot(wo, wm), eta), T = 1.0f - R;
        float pr = (lobes & kReflection) ? R : 0.0f, pt = (lobes & kTransmission) ? T : 0.0f;
        if (!(pr + pt > 0.0f)) return s;
        vec3 wi;
        if (uc < pr / (pr + pt)) {
            wi = reflectAbout(wo, wm);
            if (wi.z * wo.z <= 0.0f) return s;
        } else {
            float etap = wo.z > 0.0f ? eta : 1.0f / eta;
            if (!refractThrough(wo, wm, etap, wi) || wi.z * wo.z >= 0.0f) return s;
            s.transmission = true;
        }
        s.wi = glm::normalize(wi);
        RoughDielectricBsdf::Value v = RoughDielectricBsdf::value(m, wo, s.wi, mode);
        if (!(v.pdf > 0.0f) || !(v.lobe > 0.0f)) return s;
        s.f = vec3(v.f);
        s.pdf = v.pdf / v.lobe * ((s.transmission ? pt : pr) / (pr + pt));
        s.valid = true;
        return s;
    }
};

// ---- The bases -----------------------------------------------------------------------------------

/// A Lambertian base of reflectance R.
struct DiffuseBase {
    vec3 R;
    WF_CPU_GPU bool specular() const { return false; }
    WF_CPU_GPU vec3 f(vec3 wo, vec3 wi, TransportMode) const {
        return wo.z > 0.0f && wi.z > 0.0f ? R * kInvPi : vec3(0.0f);
    }
    WF_CPU_GPU float pdf(vec3 wo, vec3 wi) const { return wo.z > 0.0f && wi.z > 0.0f ? wi.z * kInvPi : 0.0f; }
    WF_CPU_GPU LayerSample sample(vec3 wo, float, vec2 u, TransportMode mode) const {
        LayerSample s;
        if (wo.z <= 0.0f) return s;
        s.wi = sampleCosineHemisphere(u);
        s.pdf = pdf(wo, s.wi);
        if (!(s.pdf > 0.0f)) return s;
        s.f = f(wo, s.wi, mode);
        s.valid = true;
        return s;
    }
};

/// A conductor base (ConductorBsdf's material: complex index relative to the coat, GGX alpha).
struct ConductorBase {
    MaterialData m;
    WF_CPU_GPU bool specular() const { return ConductorBsdf::isSpecular(m); }
    WF_CPU_GPU vec3 f(vec3 wo, vec3 wi, TransportMode mode) const {
        return specular() ? vec3(0.0f) : ConductorBsdf::evaluate(m, wo, wi, mode);
    }
    WF_CPU_GPU float pdf(vec3 wo, vec3 wi) const { return specular() ? 0.0f : ConductorBsdf::pdf(m, wo, wi); }
    WF_CPU_GPU LayerSample sample(vec3 wo, float, vec2 u, TransportMode mode) const {
        LayerSample s;
        if (wo.z <= 0.0f) return s;
        if (specular()) {
            s.wi = vec3(-wo.x, -wo.y, wo.z);
            s.f = ConductorBsdf::fresnel(m, wo.z) / wo.z;
            s.pdf = 1.0f;
            s.specular = true;
            s.valid = true;
            return s;
        }
        s.wi = reflectAbout(wo, Ggx{m.alpha()}.sampleVisible(wo, u));
        if (s.wi.z <= 0.0f) return s;
        s.pdf = pdf(wo, s.wi);
        if (!(s.pdf > 0.0f)) return s;
        s.f = f(wo, s.wi, mode);
        s.valid = true;
        return s;
    }
};

// ---- The layered BSDF ----------------------------------------------------------------------------

/// The walk's parameters besides the two layers (pbrt's defaults: thickness 0.01, albedo 0, g 0,
/// maxdepth 10, nsamples 1).
struct LayerSettings {
    float thickness = 0.01f;
    vec3 albedo{0.0f};  ///< single-scattering albedo of the medium between (0: no medium)
    float g = 0.0f;
    int maxDepth = 10;
    int samples = 1;
    WF_CPU_GPU bool medium() const { return albedo.x > 0.0f || albedo.y > 0.0f || albedo.z > 0.0f; }
};

template <class Base>
struct LayeredBsdf {
    CoatInterface coat;
    Base base;
    LayerSettings layer;

    /// Delta only when both layers are and no medium scatters between them.
    WF_CPU_GPU bool specular() const { return coat.specular() && base.specular() && !layer.medium(); }

    /// The non-delta part of f(wo, wi) (pbrt's LayeredBxDF::f for a two-sided opaque stack).
    WF_CPU_GPU vec3 f(vec3 wo, vec3 wi, TransportMode mode) const {
        if (wo.z <= 0.0f || wi.z <= 0.0f) return vec3(0.0f);
        const float thickness = layer.thickness;
        const float exitZ = thickness;  // reflection leaves through the coat
        vec3 f = float(layer.samples) * coat.f(wo, wi, mode);
        WalkRandom r = walkRandom(hashBits(wo), hashBits(wi));
        for (int sample = 0; sample < layer.samples; ++sample) {
            // Into the stack through the coat from wo, and out of it towards wi (the adjoint walk).
            LayerSample wos = coat.sample(wo, r.next(), r.next2(), mode, kTransmission);
            if (!wos.valid || !(wos.pdf > 0.0f) || wos.wi.z == 0.0f || maxComponent(wos.f) <= 0.0f) continue;
            LayerSample wis = coat.sample(wi, r.next(), r.next2(), adjoint(mode), kTransmission);
            if (!wis.valid || !(wis.pdf > 0.0f) || wis.wi.z == 0.0f || maxComponent(wis.f) <= 0.0f) continue;
            vec3 beta = wos.f * std::fabs(wos.wi.z) / wos.pdf;
            float z = thickness;
            vec3 w = wos.wi;
            for (int depth = 0; depth < layer.maxDepth; ++depth) {
                if (depth > 3 && maxComponent(beta) < 0.25f) {  // Russian roulette
                    float q = glm::max(0.0f, 1.0f - maxComponent(beta));
                    if (r.next() < q) break;
                    beta /= 1.0f - q;
                }
                if (!layer.medium()) {
                    z = z == thickness ? 0.0f : thickness;
                    beta *= slabTransmittance(thickness, w);
                } else {
                    float dz = -std::log(1.0f - r.next()) * std::fabs(w.z);  // unit extinction
                    float zp = w.z > 0.0f ? z + dz : z - dz;
                    if (zp == z) continue;
                    if (0.0f < zp && zp < thickness) {
                        // Scattering in the medium: towards wi through the coat, then onwards.
                        float phaseToExit = henyeyGreenstein(glm::dot(-w, -wis.wi), layer.g);
                        float wt = coat.specular() ? 1.0f : powerHeuristic(wis.pdf, phaseToExit);
                        f += beta * layer.albedo * phaseToExit * wt * slabTransmittance(zp - exitZ, wis.wi) * wis.f / wis.pdf;
                        float density;
                        vec3 next = sampleHenyeyGreenstein(-w, layer.g, r.next2(), density);
                        if (!(density > 0.0f) || next.z == 0.0f) continue;
                        beta *= layer.albedo;  // phase value over its density: 1
                        w = next;
                        z = zp;
                        if (((z < exitZ && w.z > 0.0f) || (z > exitZ && w.z < 0.0f)) && !coat.specular()) {
                            vec3 fExit = coat.f(-w, wi, mode);
                            if (maxComponent(fExit) > 0.0f) {
                                float exitPdf = coat.pdf(wi, -w, kTransmission);  // as at the base, below
                                f += beta * slabTransmittance(zp - exitZ, w) * fExit * powerHeuristic(density, exitPdf);
                            }
                        }
                        continue;
                    }
                    z = glm::clamp(zp, 0.0f, thickness);
                }
                if (z == exitZ) {  // at the coat from below: reflect back into the stack
                    LayerSample e = coat.sample(-w, r.next(), r.next2(), mode, kReflection);
                    if (!e.valid || !(e.pdf > 0.0f) || e.wi.z == 0.0f) break;
                    beta *= e.f * std::fabs(e.wi.z) / e.pdf;
                    w = e.wi;
                } else {  // at the base: towards wi through the coat, then a bounce
                    if (!base.specular()) {
                        float wt = coat.specular() ? 1.0f : powerHeuristic(wis.pdf, base.pdf(-w, -wis.wi));
                        f += beta * base.f(-w, -wis.wi, mode) * std::fabs(wis.wi.z) * wt *
                             slabTransmittance(thickness, wis.wi) * wis.f / wis.pdf;
                    }
                    LayerSample b = base.sample(-w, r.next(), r.next2(), mode);
                    if (!b.valid || !(b.pdf > 0.0f) || b.wi.z == 0.0f) break;
                    beta *= b.f * std::fabs(b.wi.z) / b.pdf;
                    w = b.wi;
                    if (!coat.specular()) {
                        vec3 fExit = coat.f(-w, wi, mode);
                        if (maxComponent(fExit) > 0.0f) {
                            // The other strategy's density of the same inside direction: the
                            // coat's transmission sampled from wi (pbrt-v4 weighs with the
                            // density of wi from -w instead, a density of another variable: its
                            // f then stays 4-8% off its own sampling on rough coats,
                            // docs/decisions.md).
                            float wt = base.specular() ? 1.0f : powerHeuristic(b.pdf, coat.pdf(wi, -w, kTransmission));
                            f += beta * slabTransmittance(thickness, b.wi) * fExit * wt;
                        }
                    }
                }
            }
        }
        return f / float(layer.samples);
    }

    /// pbrt's estimate of the sampling density: the coat's reflection and the one-bounce
    /// transmission-reflection-transmission term, mixed with a uniform density (a function of the
    /// pair, used for MIS weights; the sample's weight never divides by it).
    WF_CPU_GPU float pdf(vec3 wo, vec3 wi) const {
        if (wo.z <= 0.0f || wi.z <= 0.0f) return 0.0f;
        WalkRandom r = walkRandom(hashBits(wi), hashBits(wo));
        const TransportMode mode = TransportMode::Radiance;
        float pdfSum = float(layer.samples) * coat.pdf(wo, wi, kReflection);
        for (int sample = 0; sample < layer.samples; ++sample) {
            LayerSample wos = coat.sample(wo, r.next(), r.next2(), mode, kTransmission);
            LayerSample wis = coat.sample(wi, r.next(), r.next2(), adjoint(mode), kTransmission);
            if (!wos.valid || !(wos.pdf > 0.0f) || maxComponent(wos.f) <= 0.0f || !wis.valid || !(wis.pdf > 0.0f) ||
                maxComponent(wis.f) <= 0.0f)
                continue;
            if (coat.specular()) {
                pdfSum += base.pdf(-wos.wi, -wis.wi);
                continue;
            }
            LayerSample rs = base.sample(-wos.wi, r.next(), r.next2(), mode);
            if (!rs.valid || !(rs.pdf > 0.0f) || maxComponent(rs.f) <= 0.0f) continue;
            if (base.specular()) {
                pdfSum += coat.pdf(-rs.wi, wi, kAllLobes);
            } else {
                float rPdf = base.pdf(-wos.wi, -wis.wi);
                pdfSum += powerHeuristic(wis.pdf, rPdf) * rPdf;
                float tPdf = coat.pdf(-rs.wi, wi, kAllLobes);
                pdfSum += powerHeuristic(rs.pdf, tPdf) * tPdf;
            }
        }
        return 0.1f / (4.0f * kPi) + 0.9f * pdfSum / float(layer.samples);
    }

    /// A direction from the walk itself: the coat reflects, or the light enters and walks until it
    /// leaves through the coat. The weight is the walk's f |cos| / pdf; `pdf` is pdf(wo, wi) for
    /// MIS (0 for a delta path: the coat's mirror reflection, or a walk of delta events only).
    WF_CPU_GPU BsdfSample sample(vec3 wo, float uc, vec2 u, TransportMode mode) const {
        BsdfSample out{vec3(0.0f), vec3(0.0f), 0.0f, false, false};
        if (wo.z <= 0.0f) return out;
        LayerSample bs = coat.sample(wo, uc, u, mode, kAllLobes);
        if (!bs.valid || !(bs.pdf > 0.0f) || bs.wi.z == 0.0f || maxComponent(bs.f) <= 0.0f) return out;
        vec3 f = bs.f * std::fabs(bs.wi.z);
        float pdf = bs.pdf;
        bool specularPath = bs.specular;
        vec3 w = bs.wi;
        if (!bs.transmission) return finish(out, wo, w, f / pdf, specularPath);
        WalkRandom r = walkRandom(hashBits(wo), (std::uint64_t(floatAsInt(uc)) << 32) ^
                                                    (std::uint64_t(std::uint32_t(floatAsInt(u.x))) << 16) ^
                                                    std::uint32_t(floatAsInt(u.y)));
        const float thickness = layer.thickness;
        float z = thickness;
        for (int depth = 0; depth < layer.maxDepth; ++depth) {
            float rrBeta = maxComponent(f) / pdf;  // Russian roulette
            if (depth > 3 && rrBeta < 0.25f) {
                float q = glm::max(0.0f, 1.0f - rrBeta);
                if (r.next() < q) return out;
                pdf *= 1.0f - q;
            }
            if (w.z == 0.0f) return out;
            if (layer.medium()) {
                float dz = -std::log(1.0f - r.next()) * std::fabs(w.z);
                float zp = w.z > 0.0f ? z + dz : z - dz;
                if (zp == z) return out;
                if (0.0f < zp && zp < thickness) {
                    float density;
                    vec3 next = sampleHenyeyGreenstein(-w, layer.g, r.next2(), density);
                    if (!(density > 0.0f) || next.z == 0.0f) return out;
                    f *= layer.albedo * density;
                    pdf *= density;
                    specularPath = false;
                    w = next;
                    z = zp;
                    continue;
                }
                z = glm::clamp(zp, 0.0f, thickness);
            } else {
                z = z == thickness ? 0.0f : thickness;
                f *= slabTransmittance(thickness, w);
            }
            LayerSample e = z == 0.0f ? base.sample(-w, r.next(), r.next2(), mode)
                                      : coat.sample(-w, r.next(), r.next2(), mode, kAllLobes);
            if (!e.valid || !(e.pdf > 0.0f) || e.wi.z == 0.0f || maxComponent(e.f) <= 0.0f) return out;
            f *= e.f;
            pdf *= e.pdf;
            specularPath = specularPath && e.specular;
            w = e.wi;
            if (e.transmission) return w.z > 0.0f ? finish(out, wo, w, f * std::fabs(w.z) / pdf, specularPath) : out;
            f *= std::fabs(e.wi.z);
        }
        return out;
    }

private:
    WF_CPU_GPU BsdfSample finish(BsdfSample out, vec3 wo, vec3 wi, vec3 weight, bool specularPath) const {
        if (!(maxComponent(weight) > 0.0f) || !(wi.z > 0.0f)) return out;
        out.wi = wi;
        out.weight = weight;
        out.specular = specularPath;
        out.pdf = specularPath ? 0.0f : pdf(wo, wi);
        out.valid = specularPath || out.pdf > 0.0f;
        return out;
    }
};

}  // namespace layered

// ---- The coated kinds: BSDF structs over MaterialData (material.h's dispatch) ---------------------
// Their walks are long: out of line on the GPU (WF_NOINLINE), so that only kernels that meet a
// coated material pay their registers, and only in the call.

template <class Layered>
struct CoatedBsdf {
    static constexpr bool kMicrofacet = true;
    static constexpr bool kTransmissive = false;
    WF_CPU_GPU static bool isSpecular(const MaterialData& m) { return Layered::make(m).specular(); }
    WF_CPU_GPU WF_NOINLINE static vec3 evaluate(const MaterialData& m, vec3 wo, vec3 wi, TransportMode mode) {
        return Layered::make(m).f(wo, wi, mode);
    }
    WF_CPU_GPU WF_NOINLINE static float pdf(const MaterialData& m, vec3 wo, vec3 wi) {
        return Layered::make(m).pdf(wo, wi);
    }
    WF_CPU_GPU WF_NOINLINE static BsdfSample sample(const MaterialData& m, vec3 wo, float uc, vec2 u, bool,
                                                    TransportMode mode) {
        return Layered::make(m).sample(wo, uc, u, mode);
    }
};

namespace layered {
WF_CPU_GPU WF_INLINE LayerSettings settingsOf(const MaterialData& m, vec3 albedo, float g) {
    LayerSettings s;
    s.thickness = m.thickness();
    s.albedo = albedo;
    s.g = g;
    s.maxDepth = m.layerDepth();
    s.samples = m.layerSamples();
    return s;
}
struct CoatedDiffuseLayers : LayeredBsdf<DiffuseBase> {
    WF_CPU_GPU static CoatedDiffuseLayers make(const MaterialData& m) {
        CoatedDiffuseLayers b;
        b.coat = CoatInterface::make(m.ior(), m.alpha());
        b.base = DiffuseBase{m.diffuse()};
        b.layer = settingsOf(m, m.mediumAlbedo(), m.mediumG());
        return b;
    }
};
struct CoatedConductorLayers : LayeredBsdf<ConductorBase> {
    WF_CPU_GPU static CoatedConductorLayers make(const MaterialData& m) {
        CoatedConductorLayers b;
        b.coat = CoatInterface::make(m.ior(), m.alpha());
        b.base.m.setKind(MaterialType::Conductor);
        b.base.m.setDiffuse(m.eta());
        b.base.m.setSpecular(m.k(), 0.0f);
        b.base.m.setComplexIor(true);
        b.base.m.setAlpha(m.baseAlpha());
        b.layer = settingsOf(m, vec3(0.0f), 0.0f);
        return b;
    }
};
}  // namespace layered

/// pbrt-v4's coateddiffuse.
struct CoatedDiffuseBsdf : CoatedBsdf<layered::CoatedDiffuseLayers> {
    /// Roulette by the base's reflectance plus what a clear coat reflects head-on, at least 0.1.
    WF_CPU_GPU static float continuation(const MaterialData& m) {
        return glm::clamp(maxComponent(m.diffuse()) + kCoatF0, 0.1f, 1.0f);
    }
    WF_CPU_GPU static vec3 albedo(const MaterialData& m) { return m.diffuse(); }
};

/// pbrt-v4's coatedconductor (the base's eta and k relative to the coat, as pbrt divides them).
struct CoatedConductorBsdf : CoatedBsdf<layered::CoatedConductorLayers> {
    WF_CPU_GPU static vec3 baseFresnel(const MaterialData& m) { return fresnelConductor(1.0f, m.eta(), m.k()); }
    WF_CPU_GPU static float continuation(const MaterialData& m) {
        return glm::clamp(maxComponent(baseFresnel(m)), 0.1f, 1.0f);
    }
    WF_CPU_GPU static vec3 albedo(const MaterialData& m) { return baseFresnel(m); }
};

}  // namespace wavefront
