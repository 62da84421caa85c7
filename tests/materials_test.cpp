// Microfacet materials (conductor, rough dielectric, metallic-roughness) and the GGX sampler:
// chi-square goodness of fit of every sampling routine against its pdf, white furnace, reciprocity
// and the adjoint relation of rough refraction, sample / eval / pdf consistency, Fresnel, input
// validation, and PT against BDPT (and MLT) on a scene made of the new materials.
#include <catch2/catch.hpp>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "host/device_scene/scene_upload.h"
#include "host/scene/material_kinds.h"
#include "kernels/materials/material.h"
#include "test_support.h"

using namespace wavefront;

namespace {

constexpr double kPiD = 3.14159265358979323846;

float uniform(std::mt19937& rng) {
    return std::min(std::uniform_real_distribution<float>(0.0f, 1.0f)(rng), 0.99999994f);
}

vec3 directionAt(double cosTheta, double phi) {
    double s = std::sqrt(std::max(0.0, 1.0 - cosTheta * cosTheta));
    return vec3(float(s * std::cos(phi)), float(s * std::sin(phi)), float(cosTheta));
}

vec3 directionAtAngle(double theta) { return directionAt(std::cos(theta), 0.7); }

// ---- Numerical integration and the chi-square distribution ----------------------------------

/// Adaptive Simpson on [a, b], at least 2^minDepth panels, absolute tolerance eps.
template <class F>
double adaptiveSimpson(const F& f, double a, double fa, double b, double fb, double m, double fm, double whole,
                       double eps, int depth, int minDepth, int maxDepth) {
    double lm = 0.5 * (a + m), rm = 0.5 * (m + b);
    double flm = f(lm), frm = f(rm);
    double left = (m - a) / 6.0 * (fa + 4.0 * flm + fm), right = (b - m) / 6.0 * (fm + 4.0 * frm + fb);
    double delta = left + right - whole;
    if (depth >= maxDepth || (depth >= minDepth && std::fabs(delta) <= 15.0 * eps))
        return left + right + delta / 15.0;
    return adaptiveSimpson(f, a, fa, m, fm, lm, flm, left, 0.5 * eps, depth + 1, minDepth, maxDepth) +
           adaptiveSimpson(f, m, fm, b, fb, rm, frm, right, 0.5 * eps, depth + 1, minDepth, maxDepth);
}

template <class F>
double integrate(const F& f, double a, double b, double eps, int minDepth, int maxDepth) {
    double fa = f(a), fb = f(b), m = 0.5 * (a + b), fm = f(m);
    double whole = (b - a) / 6.0 * (fa + 4.0 * fm + fb);
    return adaptiveSimpson(f, a, fa, b, fb, m, fm, whole, eps, 0, minDepth, maxDepth);
}

/// Regularised upper incomplete gamma Q(a, x) (series / continued fraction, Numerical Recipes).
double gammaQ(double a, double x) {
    if (x <= 0.0) return 1.0;
    double lnPrefix = a * std::log(x) - x - std::lgamma(a);
    if (x < a + 1.0) {
        double sum = 1.0 / a, term = sum, ap = a;
        for (int n = 0; n < 100000; ++n) {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if (std::fabs(term) < std::fabs(sum) * 1e-15) break;
        }
        return std::max(0.0, 1.0 - sum * std::exp(lnPrefix));
    }
    double b = x + 1.0 - a, c = 1e300, d = 1.0 / b, h = d;
    for (int i = 1; i < 100000; ++i) {
        double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (std::fabs(d) < 1e-300) d = 1e-300;
        c = b + an / c;
        if (std::fabs(c) < 1e-300) c = 1e-300;
        d = 1.0 / d;
        double delta = d * c;
        h *= delta;
        if (std::fabs(delta - 1.0) < 1e-15) break;
    }
    return std::exp(lnPrefix) * h;
}

double chiSquareSurvival(double chi2, int dof) { return gammaQ(0.5 * dof, 0.5 * chi2); }

// ---- Chi-square goodness of fit of a direction sampler against its pdf -------------------------

/// A sampler's draw: a direction (local frame) or nothing (an invalid sample, which the pdf
/// accounts for by integrating to less than one).
struct Draw {
    vec3 w;
    bool valid;
};
using SampleFn = std::function<Draw(std::mt19937&)>;
using PdfFn = std::function<double(vec3)>;

struct FitResult {
    double p = 0.0;             ///< chi-square p-value (bins with expectation < 5 pooled)
    double pdfIntegral = 0.0;   ///< integral of the pdf over the sphere
    double validFraction = 0.0; ///< fraction of samples that were valid
    int dof = 0;
};

constexpr int kCosBins = 64;  // 32 per hemisphere, in cos(theta) over [-1, 1]
constexpr int kPhiBins = 64;

FitResult fitTest(const SampleFn& sample, const PdfFn& pdf, int n, unsigned seed) {
    std::vector<double> observed(kCosBins * kPhiBins + 1, 0.0), expected(kCosBins * kPhiBins + 1, 0.0);
    std::mt19937 rng(seed);
    int valid = 0;
    for (int i = 0; i < n; ++i) {
        Draw d = sample(rng);
        if (!d.valid) {
            observed.back() += 1.0;
            continue;
        }
        ++valid;
        double c = glm::clamp(double(d.w.z) / glm::length(d.w), -1.0, 1.0);
        double phi = std::atan2(double(d.w.y), double(d.w.x));
        if (phi < 0.0) phi += 2.0 * kPiD;
        int ci = std::min(int((c + 1.0) * 0.5 * kCosBins), kCosBins - 1);
        int pi = std::min(int(phi / (2.0 * kPiD) * kPhiBins), kPhiBins - 1);
        observed[ci * kPhiBins + pi] += 1.0;
    }
    double total = 0.0;
    const double dc = 2.0 / kCosBins, dphi = 2.0 * kPiD / kPhiBins;
    for (int ci = 0; ci < kCosBins; ++ci)
        for (int pi = 0; pi < kPhiBins; ++pi) {
            double c0 = -1.0 + ci * dc, p0 = pi * dphi;
            auto inner = [&](double c) {
                return integrate([&](double phi) { return pdf(directionAt(c, phi)); }, p0, p0 + dphi, 2e-7 / dc, 1, 14);
            };
            double mass = integrate(inner, c0, c0 + dc, 2e-8, 2, 16);
            expected[ci * kPhiBins + pi] = mass * n;
            total += mass;
        }
    expected.back() = std::max(0.0, 1.0 - total) * n;

    // Pool the bins expected to hold fewer than 5 samples into one.
    double chi2 = 0.0, pooledObs = 0.0, pooledExp = 0.0;
    int terms = 0;
    bool impossible = false;
    for (std::size_t i = 0; i < observed.size(); ++i) {
        if (expected[i] <= 0.0 && observed[i] > 0.0) impossible = true;
        if (expected[i] < 5.0) {
            pooledObs += observed[i];
            pooledExp += expected[i];
            continue;
        }
        chi2 += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
        ++terms;
    }
    if (pooledExp > 0.0) {
        chi2 += (pooledObs - pooledExp) * (pooledObs - pooledExp) / pooledExp;
        ++terms;
    } else if (pooledObs > 0.0) {
        impossible = true;
    }
    FitResult r;
    r.dof = std::max(terms - 1, 1);
    r.p = impossible ? 0.0 : chiSquareSurvival(chi2, r.dof);
    r.pdfIntegral = total;
    r.validFraction = double(valid) / n;
    return r;
}

// ---- Materials under test ---------------------------------------------------------------------

MaterialData pack(const Material& m) { return packMaterial(m); }

const float kAlphas[] = {0.05f, 0.3f, 0.8f};

struct MaterialCase {
    std::string name;
    MaterialData m;
};

/// Every non-delta configuration of the three materials, at the three roughnesses (as GGX alpha;
/// metallic-roughness takes roughness = sqrt(alpha) so that its alpha is the same).
std::vector<MaterialCase> microfacetCases() {
    std::vector<MaterialCase> cases;
    for (float a : kAlphas) {
        std::string suffix = " alpha " + std::to_string(a);
        cases.push_back({"conductor (Schlick)" + suffix, pack(Material::conductor(vec3(0.9f, 0.6f, 0.3f), a))});
        cases.push_back({"conductor (gold eta, k)" + suffix,
                         pack(Material::conductorIor(vec3(0.18f, 0.42f, 1.37f), vec3(3.42f, 2.35f, 1.77f), a))});
        cases.push_back({"rough dielectric 1.5" + suffix, pack(Material::roughDielectric(1.5f, a))});
        cases.push_back({"rough dielectric 1/1.33" + suffix, pack(Material::roughDielectric(1.0f / 1.33f, a))});
        for (float metal : {0.0f, 0.5f, 1.0f})
            cases.push_back({"metallic-roughness metallic " + std::to_string(metal) + suffix,
                             pack(Material::metallicRoughness(vec3(0.8f, 0.5f, 0.2f), metal, std::sqrt(a)))});
    }
    return cases;
}

/// Directions wo to test a material at: above the surface, and below it for glass.
std::vector<vec3> outgoingDirections(const MaterialData& m) {
    std::vector<vec3> wos;
    for (double theta : {0.2, 1.0, 1.45}) wos.push_back(directionAtAngle(theta));
    if (isTransmissive(m))
        for (double theta : {0.2, 0.6, 1.2}) wos.push_back(directionAtAngle(kPiD - theta));
    return wos;
}

std::string describe(vec3 wo) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "wo.z %.3f", double(wo.z));
    return buf;
}

BsdfSample sampleWith(const MaterialData& m, vec3 wo, std::mt19937& rng, TransportMode mode) {
    float uc = uniform(rng);
    vec2 u(uniform(rng), uniform(rng));
    return sampleBsdf(m, wo, uc, u, wo.z > 0.0f, mode);
}

/// |difference| / standard error of two independent estimates.
double zScore(const wftest::MeanEstimate& a, const wftest::MeanEstimate& b) {
    double se = std::sqrt(a.standardError * a.standardError + b.standardError * b.standardError);
    return se > 0.0 ? std::fabs(a.mean - b.mean) / se : 0.0;
}

double relativeDifference(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-6); }

/// a == b up to float rounding: relative 2e-4, or absolutely 1e-6 for values far in a lobe's tail
/// (where a cosine of 1e-4 computed in float is only good to 1e-3 of itself).
bool nearlyEqual(double a, double b) { return std::fabs(a - b) <= 2e-4 * std::max(std::fabs(a), std::fabs(b)) + 1e-6; }

}  // namespace

TEST_CASE("every microfacet sampler matches its pdf (chi-square)", "[materials]") {
    // Histograms of 100,000 samples over 64 x 64 bins of (cos theta, phi) on the whole sphere,
    // against the pdf integrated over each bin (nested adaptive Simpson); bins expected to hold
    // fewer than 5 samples are pooled, and one more bin counts the invalid samples against
    // 1 - (integral of the pdf). Sidak correction over all cases at significance 0.01.
    struct Fit {
        std::string name;
        FitResult r;
    };
    std::vector<Fit> fits;
    const int n = 100000;
    unsigned seed = 1;
    // The GGX visible-normal sampler itself.
    for (float a : kAlphas)
        for (double theta : {0.2, 1.0, 1.45}) {
            Ggx ggx{a};
            vec3 wo = directionAtAngle(theta);
            FitResult r = fitTest(
                [&](std::mt19937& rng) { return Draw{ggx.sampleVisible(wo, vec2(uniform(rng), uniform(rng))), true}; },
                [&](vec3 wm) { return double(ggx.visibleD(wo, wm)); }, n, seed++);
            fits.push_back({"GGX visible normals alpha " + std::to_string(a) + " " + describe(wo), r});
        }
    for (const MaterialCase& c : microfacetCases())
        for (vec3 wo : outgoingDirections(c.m)) {
            FitResult r = fitTest(
                [&](std::mt19937& rng) {
                    BsdfSample s = sampleWith(c.m, wo, rng, TransportMode::Radiance);
                    return Draw{s.wi, s.valid && !s.specular};
                },
                [&](vec3 wi) { return double(pdfBsdf(c.m, wo, wi)); }, n, seed++);
            fits.push_back({c.name + " " + describe(wo), r});
        }
    const double alpha = 0.01;
    const double sidak = 1.0 - std::pow(1.0 - alpha, 1.0 / double(fits.size()));
    double minP = 1.0, maxIntegral = 0.0;
    std::string worst;
    for (const Fit& f : fits) {
        INFO(f.name << ": p " << f.r.p << " (dof " << f.r.dof << "), pdf integral " << f.r.pdfIntegral
                    << ", valid fraction " << f.r.validFraction);
        CHECK(f.r.p > sidak);
        CHECK(f.r.pdfIntegral <= 1.0 + 2e-3);
        // The pdf integrates to the probability of a (non-delta) sample.
        CHECK(std::fabs(f.r.pdfIntegral - f.r.validFraction) <=
              5.0 * std::sqrt(f.r.validFraction * (1.0 - f.r.validFraction) / n) + 2e-3);
        if (f.r.p < minP) {
            minP = f.r.p;
            worst = f.name;
        }
        maxIntegral = std::max(maxIntegral, f.r.pdfIntegral);
    }
    std::cout << "materials chi-square: " << fits.size() << " cases, min p " << minP << " (" << worst
              << "), Sidak threshold " << sidak << ", largest pdf integral " << maxIntegral << std::endl;
}

TEST_CASE("white furnace: no microfacet material reflects more than it receives", "[materials]") {
    // Directional albedo E[f |cos| / pdf] with white colours, for many wo. Glass in Importance
    // mode: flux that arrives along wo and leaves anywhere (Radiance mode adds the 1/eta^2 that is
    // not energy). Bound: 1 + 4 standard errors + 1e-3.
    const int n = 40000;
    std::mt19937 rng(7);
    auto albedo = [&](const MaterialData& m, vec3 wo, TransportMode mode, double& standardError) {
        double sum = 0.0, sumSq = 0.0;
        for (int i = 0; i < n; ++i) {
            BsdfSample s = sampleWith(m, wo, rng, mode);
            double w = s.valid ? double(maxComponent(s.weight)) : 0.0;
            sum += w;
            sumSq += w * w;
        }
        double mean = sum / n;
        standardError = std::sqrt(std::max(0.0, sumSq / n - mean * mean) / (n - 1));
        return mean;
    };
    std::vector<std::pair<std::string, MaterialData>> cases;
    for (float a : {0.05f, 0.3f, 0.8f, 1.0f}) {
        std::string suffix = " alpha " + std::to_string(a);
        cases.push_back({"conductor" + suffix, pack(Material::conductor(vec3(1.0f), a))});
        cases.push_back({"rough dielectric" + suffix, pack(Material::roughDielectric(1.5f, a))});
        for (float metal : {0.0f, 0.5f, 1.0f})
            cases.push_back({"metallic-roughness metallic " + std::to_string(metal) + suffix,
                             pack(Material::metallicRoughness(vec3(1.0f), metal, std::sqrt(a)))});
    }
    double worst = 0.0;
    std::string worstName;
    std::map<std::string, double> largest;  // per material family
    for (auto& [name, m] : cases)
        for (double cosTheta : {1.0, 0.9, 0.7, 0.5, 0.3, 0.1, 0.02}) {
            for (double side : {1.0, -1.0}) {
                if (side < 0.0 && !isTransmissive(m)) continue;
                vec3 wo = directionAt(side * cosTheta, 0.3);
                double se = 0.0;
                double e = albedo(m, wo, TransportMode::Importance, se);
                INFO(name << " " << describe(wo) << ": albedo " << e << " +- " << se);
                CHECK(e <= 1.0 + 4.0 * se + 1e-3);
                double& family = largest[name.substr(0, name.find(" alpha"))];
                family = std::max(family, e);
                if (e > worst) {
                    worst = e;
                    worstName = name + " " + describe(wo);
                }
            }
        }
    std::cout << "materials furnace: largest directional albedo " << worst << " (" << worstName << "); per material:";
    for (auto& [family, e] : largest) std::cout << " " << family << " " << e << ";";
    std::cout << std::endl;

    // Single scattering loses energy at high roughness (no multiple scattering between
    // microfacets): a white GGX conductor at alpha 1 (D uniform over the hemisphere of normals)
    // reflects about 0.31 at normal incidence, where half the reflected directions fall below the
    // surface, rising towards grazing. The sampled albedo against a quadrature of f cos.
    MaterialData rough = pack(Material::conductor(vec3(1.0f), 1.0f));
    std::cout << "GGX alpha 1 single-scattering albedo (white conductor), sampled / quadrature:";
    for (double cosTheta : {1.0, 0.5, 0.2, 0.05}) {
        vec3 wo = directionAt(cosTheta, 0.0);
        double se = 0.0;
        double e = albedo(rough, wo, TransportMode::Radiance, se);
        double quadrature = integrate(
            [&](double c) {
                auto fCos = [&](double phi) {
                    return c * evalBsdf(rough, wo, directionAt(c, phi), TransportMode::Radiance).x;
                };
                return integrate(fCos, 0.0, 2.0 * kPiD, 1e-7, 4, 12);
            },
            0.0, 1.0, 1e-7, 4, 14);
        std::cout << " cos " << cosTheta << ": " << e << " / " << quadrature << ";";
        INFO("cos " << cosTheta << ": sampled " << e << " +- " << se << ", quadrature " << quadrature);
        CHECK(std::fabs(e - quadrature) <= 4.0 * se + 2e-3);
        CHECK(e < 0.9);  // visibly below 1
        CHECK(e > 0.25);
    }
    std::cout << std::endl;
}

TEST_CASE("microfacet BSDFs are reciprocal and rough refraction obeys the adjoint relation", "[materials]") {
    std::mt19937 rng(11);
    auto randomDirection = [&](bool upper) {
        vec3 w = directionAt(0.02 + 0.97 * uniform(rng), 2.0 * kPiD * uniform(rng));
        return upper ? w : vec3(w.x, w.y, -w.z);
    };
    std::vector<std::pair<std::string, MaterialData>> reflective = {
        {"lambertian", pack(Material::lambertian(vec3(0.7f)))},
        {"glossy", pack(Material::glossy(vec3(0.4f), vec3(0.5f), 40.0f))},
    };
    for (float a : kAlphas) {
        std::string suffix = " alpha " + std::to_string(a);
        reflective.push_back({"conductor" + suffix, pack(Material::conductor(vec3(0.9f, 0.6f, 0.3f), a))});
        reflective.push_back({"conductor ior" + suffix,
                              pack(Material::conductorIor(vec3(0.18f, 0.42f, 1.37f), vec3(3.42f, 2.35f, 1.77f), a))});
        reflective.push_back({"metallic-roughness" + suffix,
                              pack(Material::metallicRoughness(vec3(0.8f, 0.5f, 0.2f), 0.4f, std::sqrt(a)))});
        reflective.push_back({"rough dielectric (reflection)" + suffix, pack(Material::roughDielectric(1.5f, a))});
    }
    for (auto& [name, m] : reflective)
        for (int i = 0; i < 2000; ++i) {
            bool upper = !isTransmissive(m) || i % 2 == 0;  // glass: reflection on both sides
            vec3 wo = randomDirection(upper), wi = randomDirection(upper);
            for (TransportMode mode : {TransportMode::Radiance, TransportMode::Importance}) {
                vec3 a = evalBsdf(m, wo, wi, mode), b = evalBsdf(m, wi, wo, mode);
                INFO(name << " " << describe(wo) << " " << describe(wi) << ": " << a.x << " vs " << b.x);
                for (int c = 0; c < 3; ++c) REQUIRE(nearlyEqual(a[c], b[c]));
            }
        }
    // Rough refraction: f_Radiance(wo, wi) / n(wo)^2 = f_Radiance(wi, wo) / n(wi)^2 (Veach 1997,
    // 5.2) and f_Importance(wo, wi) = f_Radiance(wi, wo).
    int nonZero = 0;
    for (float ior : {1.5f, 1.0f / 1.33f})
        for (float a : kAlphas) {
            MaterialData m = pack(Material::roughDielectric(ior, a));
            for (int i = 0; i < 2000; ++i) {
                bool woOutside = i % 2 == 0;
                vec3 wo = randomDirection(woOutside), wi = randomDirection(!woOutside);
                double nO = woOutside ? 1.0 : ior, nI = woOutside ? ior : 1.0;
                double fOI = evalBsdf(m, wo, wi, TransportMode::Radiance).x;
                double fIO = evalBsdf(m, wi, wo, TransportMode::Radiance).x;
                double adjoint = evalBsdf(m, wo, wi, TransportMode::Importance).x;
                nonZero += fOI > 1e-3;
                INFO("ior " << ior << " alpha " << a << " " << describe(wo) << " " << describe(wi));
                REQUIRE(nearlyEqual(fOI / (nO * nO), fIO / (nI * nI)));
                REQUIRE(nearlyEqual(adjoint, fIO));
            }
        }
    CHECK(nonZero > 1000);  // the relation was tested on values that are not all tiny
}

TEST_CASE("microfacet samples agree with eval and pdf, and their smooth limits are delta", "[materials]") {
    std::mt19937 rng(5);
    int checked = 0;
    for (const MaterialCase& c : microfacetCases()) {
        CHECK_FALSE(isSpecular(c.m));
        for (vec3 wo : outgoingDirections(c.m))
            for (TransportMode mode : {TransportMode::Radiance, TransportMode::Importance})
                for (int i = 0; i < 2000; ++i) {
                    BsdfSample s = sampleWith(c.m, wo, rng, mode);
                    if (!s.valid) continue;
                    REQUIRE_FALSE(s.specular);
                    float pdf = pdfBsdf(c.m, wo, s.wi);
                    vec3 expected = evalBsdf(c.m, wo, s.wi, mode) * (std::fabs(s.wi.z) / pdf);
                    INFO(c.name << " " << describe(wo) << " wi.z " << s.wi.z << ": pdf " << s.pdf << " vs " << pdf);
                    REQUIRE(relativeDifference(s.pdf, pdf) < 1e-3);
                    for (int k = 0; k < 3; ++k) REQUIRE(relativeDifference(s.weight[k], expected[k]) < 1e-3);
                    REQUIRE(std::fabs(glm::length(s.wi) - 1.0f) < 1e-4f);
                    ++checked;
                }
    }
    CHECK(checked > 100000);

    // Roughness 0: the conductor is a mirror with its Fresnel, the rough dielectric the smooth one.
    MaterialData mirror = pack(Material::conductor(vec3(0.5f, 0.6f, 0.7f), 0.0f));
    MaterialData glass = pack(Material::roughDielectric(1.5f, 0.0f));
    MaterialData smooth = pack(Material::dielectric(1.5f));
    CHECK(isSpecular(mirror));
    CHECK(isSpecular(glass));
    vec3 wo = directionAtAngle(0.5);
    BsdfSample s = sampleBsdf(mirror, wo, 0.5f, vec2(0.3f, 0.6f), true, TransportMode::Radiance);
    CHECK((s.valid && s.specular));
    CHECK(s.wi.z == Approx(wo.z));
    CHECK(s.weight.x == Approx(fresnelSchlick(0.5f, wo.z)));
    CHECK(isBlack(evalBsdf(mirror, wo, vec3(-wo.x, -wo.y, wo.z), TransportMode::Radiance)));
    for (float uc : {0.01f, 0.5f, 0.99f})
        for (vec3 w : {wo, vec3(wo.x, wo.y, -wo.z)}) {
            BsdfSample a = sampleBsdf(glass, w, uc, vec2(0.3f, 0.6f), w.z > 0.0f, TransportMode::Radiance);
            BsdfSample b = sampleBsdf(smooth, w, uc, vec2(0.3f, 0.6f), w.z > 0.0f, TransportMode::Radiance);
            CHECK((a.specular && a.valid == b.valid && a.wi == b.wi && a.weight == b.weight));
        }
    // Metallic-roughness at roughness 0 stays a (very sharp) GGX lobe: no delta part.
    CHECK_FALSE(isSpecular(pack(Material::metallicRoughness(vec3(0.5f), 0.5f, 0.0f))));
}

TEST_CASE("Fresnel: conductor against complex arithmetic and the dielectric, Schlick", "[materials]") {
    for (float eta : {0.2f, 1.3f, 2.5f})
        for (float k : {0.0f, 0.5f, 3.5f})
            for (float c : {1.0f, 0.8f, 0.5f, 0.2f, 0.01f}) {
                // Reference: the Fresnel equations with std::complex.
                std::complex<double> n(eta, k);
                double sin2 = 1.0 - double(c) * c;
                std::complex<double> cosT = std::sqrt(1.0 - sin2 / (n * n));
                std::complex<double> rs = (double(c) - n * cosT) / (double(c) + n * cosT);
                std::complex<double> rp = (n * double(c) - cosT) / (n * double(c) + cosT);
                double reference = 0.5 * (std::norm(rs) + std::norm(rp));
                INFO("eta " << eta << " k " << k << " cos " << c);
                CHECK(fresnelConductor(c, eta, k) == Approx(reference).margin(2e-5));
                if (k == 0.0f && eta > 1.0f)
                    CHECK(fresnelConductor(c, eta, k) == Approx(fresnelDielectric(c, eta)).margin(1e-5));
            }
    CHECK(fresnelSchlick(0.04f, 1.0f) == Approx(0.04f));
    CHECK(fresnelSchlick(0.04f, 0.0f) == Approx(1.0f));
    CHECK(fresnelDielectricSigned(-0.2f, 1.5f) == 1.0f);  // inside beyond the critical angle
    CHECK(fresnelDielectricSigned(0.7f, 1.5f) == Approx(fresnelDielectric(0.7f, 1.5f)));
}

TEST_CASE("microfacet materials: factories, packing and validation", "[materials]") {
    Scene scene;
    CHECK(scene.addMaterial(Material::conductor(vec3(0.9f), 0.2f)) == 0);
    CHECK(scene.addMaterial(Material::conductorIor(vec3(0.2f, 0.4f, 1.4f), vec3(3.4f, 2.3f, 1.8f), 0.0f)) == 1);
    CHECK(scene.addMaterial(Material::roughDielectric(1.5f, 1.0f)) == 2);
    CHECK(scene.addMaterial(Material::metallicRoughness(vec3(0.5f), 1.0f, 0.5f)) == 3);
    MaterialData mr = pack(Material::metallicRoughness(vec3(0.5f), 0.25f, 0.5f));
    CHECK(mr.kind() == MaterialType::MetallicRoughness);
    CHECK(mr.alpha() == Approx(0.25f));
    CHECK(mr.metallic() == Approx(0.25f));
    MaterialData gold = pack(Material::conductorIor(vec3(0.2f, 0.4f, 1.4f), vec3(3.4f, 2.3f, 1.8f), 0.1f));
    CHECK((gold.complexIor() && gold.eta().x == 0.2f && gold.k().z == 1.8f && gold.alpha() == 0.1f));
    // The original four pack as before, with zero parameters.
    MaterialData lambert = pack(Material::lambertian(vec3(0.3f)));
    CHECK((lambert.alpha() == 0.0f && lambert.metallic() == 0.0f && !lambert.complexIor()));

    using wftest::inputErrorOf;
    Scene s;
    CHECK_THAT(inputErrorOf([&] { s.addMaterial(Material::conductor(vec3(0.5f), 1.5f)); }),
               Catch::Contains("roughness") && Catch::Contains("[0, 1]"));
    CHECK_THAT(inputErrorOf([&] { s.addMaterial(Material::conductor(vec3(0.5f), std::nanf(""))); }),
               Catch::Contains("roughness"));
    CHECK_THAT(inputErrorOf([&] { s.addMaterial(Material::conductor(vec3(1.2f, 0.5f, 0.5f), 0.1f)); }),
               Catch::Contains("tint"));
    CHECK_THAT(inputErrorOf([&] { s.addMaterial(Material::conductorIor(vec3(0.0f, 1.0f, 1.0f), vec3(1.0f), 0.1f)); }),
               Catch::Contains("eta"));
    CHECK_THAT(inputErrorOf([&] { s.addMaterial(Material::conductorIor(vec3(1.0f), vec3(-1.0f), 0.1f)); }),
               Catch::Contains("k "));
    CHECK_THAT(inputErrorOf([&] { s.addMaterial(Material::roughDielectric(-1.0f, 0.1f)); }), Catch::Contains("ior"));
    CHECK_THAT(inputErrorOf([&] { s.addMaterial(Material::roughDielectric(1.0f, 0.1f)); }),
               Catch::Contains("must differ from 1"));
    CHECK_THAT(inputErrorOf([&] { s.addMaterial(Material::metallicRoughness(vec3(0.5f, 1.5f, 0.5f), 0.5f, 0.5f)); }),
               Catch::Contains("base colour"));
    CHECK_THAT(inputErrorOf([&] { s.addMaterial(Material::metallicRoughness(vec3(0.5f), 2.0f, 0.5f)); }),
               Catch::Contains("metallic"));
    CHECK(s.materials().empty());
}

TEST_CASE("every material kind has one table row and one BSDF with its class and material set", "[materials]") {
    struct Expected {
        Material material;
        bool transmissive, specular, fullSet;
    };
    // In MaterialType order: one per kind of the list.
    const std::vector<Expected> kinds = {
        {Material::lambertian(vec3(0.5f)), false, false, false},
        {Material::glossy(vec3(0.3f), vec3(0.3f), 20.0f), false, false, false},
        {Material::mirror(vec3(0.9f)), false, true, false},
        {Material::dielectric(1.5f), true, true, false},
        {Material::conductor(vec3(0.9f), 0.3f), false, false, true},
        {Material::roughDielectric(1.5f, 0.3f), true, false, true},
        {Material::metallicRoughness(vec3(0.5f), 0.5f, 0.5f), false, false, true},
        {Material::coatedDiffuse(vec3(0.5f), 0.0f), false, false, true},
        {Material::coatedConductor(vec3(0.2f), vec3(3.0f), 0.3f, 0.1f), false, false, true},
        // No surface: delta (nothing to evaluate), in the full set only (the kernels with media).
        {Material::interface(), true, true, true},
    };
    REQUIRE(kinds.size() == std::size_t(kMaterialTypeCount));
    REQUIRE(materialKinds().size() == std::size_t(kMaterialTypeCount));
    CHECK(materialTypeNames().size() == std::size_t(kMaterialTypeCount));
    const vec3 wo = glm::normalize(vec3(0.3f, 0.1f, 0.9f)), wi = glm::normalize(vec3(-0.2f, 0.4f, 0.8f));
    for (int i = 0; i < kMaterialTypeCount; ++i) {
        const MaterialKindSpec& row = materialKinds()[std::size_t(i)];
        INFO(row.name);
        const MaterialData m = pack(kinds[std::size_t(i)].material);
        CHECK(int(m.kind()) == i);
        CHECK(int(row.type) == i);
        // The host's choice of kernels follows the BSDF's flag.
        CHECK(row.microfacet == kinds[std::size_t(i)].fullSet);
        CHECK(needsFullMaterialSet(MaterialType(i)) == kinds[std::size_t(i)].fullSet);
        CHECK(isTransmissive(m) == kinds[std::size_t(i)].transmissive);
        CHECK(isSpecular(m) == kinds[std::size_t(i)].specular);
        // Delta BSDFs are sampled only: evaluated, they give nothing; the others have a density.
        if (kinds[std::size_t(i)].specular) {
            CHECK(isBlack(evalBsdf(m, wo, wi, TransportMode::Radiance)));
            CHECK(pdfBsdf(m, wo, wi) == 0.0f);
        } else {
            CHECK(pdfBsdf(m, wo, wi) > 0.0f);
        }
        const float q = continuationProbability(m);
        CHECK((q > 0.0f && q <= 1.0f));
    }
}

TEST_CASE("OBJ: Pr / Pm select the metallic-roughness material", "[materials]") {
    wftest::TempDir dir;
    dir.write("m.mtl", "newmtl pbr\nKd 0.6 0.5 0.4\nPr 0.3\nPm 0.7\nnewmtl light\nKd 0 0 0\nKe 5 5 5\n");
    std::string obj = dir.write("m.obj",
                                "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nusemtl pbr\nf 1 2 3\n"
                                "usemtl light\nf 1 2 4\n");
    Scene scene = Scene::loadObj(obj);
    REQUIRE(scene.materials().size() == 2);
    const Material& m = scene.materials()[0];
    CHECK(m.type == MaterialType::MetallicRoughness);
    CHECK(m.roughness == Approx(0.3f));
    CHECK(m.metallic == Approx(0.7f));
    CHECK(m.diffuse.x == Approx(0.6f));
    CHECK(scene.materials()[1].type == MaterialType::Lambertian);
}

namespace {

/// A Cornell-like room lit only by a frosted bulb: a small emitting sphere inside a rough glass
/// sphere, so that every light path crosses rough glass (PT: next-event estimation through the
/// glass, BDPT: light vertices on its inside, connected out with the adjoint BTDF); a rough
/// gold-tinted conductor sphere and a metallic-roughness floor.
Scene frostedBulbRoom() {
    Scene scene;
    int white = scene.addMaterial(Material::lambertian(vec3(0.73f)));
    int red = scene.addMaterial(Material::lambertian(vec3(0.65f, 0.05f, 0.05f)));
    int green = scene.addMaterial(Material::lambertian(vec3(0.12f, 0.45f, 0.15f)));
    int floor = scene.addMaterial(Material::metallicRoughness(vec3(0.6f, 0.55f, 0.5f), 0.0f, 0.5f));
    int metal = scene.addMaterial(Material::conductor(vec3(0.95f, 0.75f, 0.4f), 0.25f));
    int glass = scene.addMaterial(Material::roughDielectric(1.5f, 0.35f));
    int light = scene.addMaterial(Material::lambertian(vec3(0.5f), vec3(60.0f, 50.0f, 40.0f)));
    wftest::addUnitRoom(scene, white, red, green, floor);
    scene.addSphere(Sphere{vec3(0.3f, 0.18f, 0.45f), 0.18f, metal});
    scene.addSphere(Sphere{vec3(0.55f, 0.62f, 0.5f), 0.16f, glass});
    scene.addSphere(Sphere{vec3(0.55f, 0.62f, 0.5f), 0.05f, light});
    return scene;
}

}  // namespace

TEST_CASE("PT and BDPT agree on a scene of microfacet materials", "[materials][statistical]") {
    Scene scene = frostedBulbRoom();
    RenderOptions bdpt = wftest::smallRender(IntegratorType::Bdpt, Backend::Cpu, 24, 64);
    bdpt.maxDepth = 8;
    RenderOptions pt = bdpt;
    pt.integrator = IntegratorType::PathTracer;
    pt.samplesPerPixel = 256;
    const int seeds = 8;
    wftest::PixelStats b = wftest::renderPixelStats(scene, bdpt, seeds, 100);
    wftest::PixelStats p = wftest::renderPixelStats(scene, pt, seeds, 200);
    wftest::PixelTest t = wftest::pixelTest(b, p);
    INFO("per-pixel pass " << t.passFraction() << " of " << t.tested << ", worst p " << t.worstP);
    CHECK(t.tested > 24 * 24 * 3 / 2);
    CHECK(t.passFraction() >= 0.99);
    wftest::MeanEstimate bm = wftest::imageMeanOverSeeds(scene, bdpt, seeds, 300);
    wftest::MeanEstimate pm = wftest::imageMeanOverSeeds(scene, pt, seeds, 400);
    double z = zScore(bm, pm);
    INFO("image mean BDPT " << bm.mean << " +- " << bm.standardError << ", PT " << pm.mean << " +- "
                            << pm.standardError);
    CHECK(z < 4.5);
    std::cout << "materials PT vs BDPT: per-pixel pass " << t.passFraction() << " (worst p " << t.worstP
              << "), image means " << bm.mean << " +- " << bm.standardError << " and " << pm.mean << " +- "
              << pm.standardError << " (z " << z << ")" << std::endl;
}

TEST_CASE("MLT agrees with BDPT on a scene of microfacet materials", "[materials][mlt][statistical]") {
    // MLT reuses BDPT's vertex and connection functions with another sampler: the image means over
    // independent renders (its pixels are correlated within a render) must agree.
    Scene scene = frostedBulbRoom();
    RenderOptions mlt = wftest::smallRender(IntegratorType::Mlt, Backend::Cpu, 24, 64);
    mlt.maxDepth = 8;
    mlt.streamCapacity = 1024;
    RenderOptions bdpt = mlt;
    bdpt.integrator = IntegratorType::Bdpt;
    bdpt.streamCapacity = 0;
    const int seeds = 8;
    wftest::MeanEstimate m = wftest::imageMeanOverSeeds(scene, mlt, seeds, 500);
    wftest::MeanEstimate b = wftest::imageMeanOverSeeds(scene, bdpt, seeds, 600);
    double z = zScore(m, b);
    INFO("image mean MLT " << m.mean << " +- " << m.standardError << ", BDPT " << b.mean << " +- " << b.standardError);
    CHECK(z < 4.5);
    std::cout << "materials MLT vs BDPT: image means " << m.mean << " +- " << m.standardError << " and " << b.mean
              << " +- " << b.standardError << " (z " << z << ")" << std::endl;
}

TEST_CASE("CUDA renders the microfacet materials like the CPU", "[materials][gpu]") {
    if (!wftest::haveGpu()) return;
    Scene scene = frostedBulbRoom();
    const char* names[] = {"PT", "BDPT", "MLT"};
    int k = 0;
    for (IntegratorType integrator : {IntegratorType::PathTracer, IntegratorType::Bdpt, IntegratorType::Mlt}) {
        int spp = integrator == IntegratorType::PathTracer ? 256 : 64;
        RenderOptions o = wftest::smallRender(integrator, Backend::Cpu, 24, spp);
        o.maxDepth = 8;
        if (integrator == IntegratorType::Mlt) o.streamCapacity = 1024;
        wftest::BlockStats cpu = wftest::renderBlockStats(scene, o, 8, 8, 700);
        o.backend = Backend::Cuda;
        wftest::BlockStats gpu = wftest::renderBlockStats(scene, o, 8, 8, 900);
        INFO(names[k++]);
        CHECK(wftest::maxZScore(cpu, gpu) < 6.0);
        CHECK(wftest::imageMeanZScore(cpu, gpu) < 4.5);
    }
}
