// BDPT MIS: the recursive balance-heuristic weights (two quantities per vertex, bdpt.h) against
// the direct formula that iterates over the whole path, on random paths that start on an area
// light or at the environment (an infinite light: its vertex is a direction).
#include <random>

#include <catch2/catch.hpp>

#include "host/device_scene/scene_upload.h"
#include "kernels/bdpt/bdpt.h"

using namespace wavefront;

namespace {

struct PathPoint {
    vec3 p, n;  ///< n faces both neighbours
    MaterialData m;
};

/// A random path x_0 (on a light, or a direction of the environment) .. x_k (a pinhole camera)
/// with Lambertian and glossy vertices.
struct RandomPath {
    std::vector<PathPoint> x;  ///< x[k] is the camera
    vec3 forward;              ///< camera axis
    float pdfA;                ///< light choice / area; the environment: light choice x solid angle
    bool infinite = false;     ///< x_0 is the environment in direction envDir (from x_1)
    vec3 envDir;
    float pdfPosition = 0.0f;  ///< the environment's emission disk
    int k() const { return int(x.size()) - 1; }
    /// Unit direction from x_i towards x_j.
    vec3 dir(int i, int j) const { return infinite && j == 0 ? envDir : glm::normalize(x[j].p - x[i].p); }
};

MaterialData randomMaterial(std::mt19937& rng) {
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    bool glossy = u(rng) < 0.5f;
    vec3 albedo(0.2f + 0.7f * u(rng), 0.2f + 0.7f * u(rng), 0.2f + 0.7f * u(rng));
    vec3 specular(0.1f + 0.3f * u(rng));
    float exponent = 5.0f + 95.0f * u(rng);
    return packMaterial(glossy ? Material::glossy(0.5f * albedo, specular, exponent) : Material::lambertian(albedo));
}

/// |cos| at x_i of the direction to x_j.
float absCos(const RandomPath& path, int i, int j) { return std::fabs(glm::dot(path.x[i].n, path.dir(i, j))); }

/// The normals the connect phase sees (PathVertex packs them).
vec3 asStored(vec3 n) { return unpackUnitVector(packUnitVector(n)); }

bool makePath(std::mt19937& rng, int k, bool infinite, RandomPath& path) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    auto randomUnit = [&] {
        for (;;) {
            vec3 v(u(rng), u(rng), u(rng));
            float l = glm::length(v);
            if (l > 0.1f && l <= 1.0f) return v / l;
        }
    };
    path.x.assign(k + 1, PathPoint{});
    path.infinite = infinite;
    path.envDir = randomUnit();
    for (auto& v : path.x) v.p = vec3(u(rng), u(rng), u(rng));
    for (int i = infinite ? 1 : 0; i < k; ++i)
        if (glm::length(path.x[i + 1].p - path.x[i].p) < 0.2f) return false;
    for (int i = 1; i < k; ++i) {
        PathPoint& v = path.x[i];
        v.n = asStored(randomUnit());
        float a = glm::dot(v.n, path.dir(i, i - 1)), b = glm::dot(v.n, path.x[i + 1].p - v.p);
        if (a * b <= 0.0f) return false;  // neighbours on different sides: an opaque vertex cannot make it
        if (a < 0.0f) v.n = -v.n;
        if (absCos(path, i, i - 1) < 0.05f || absCos(path, i, i + 1) < 0.05f) return false;
        v.m = randomMaterial(rng);
    }
    PathPoint& light = path.x[0];
    light.n = randomUnit();
    if (!infinite) {
        if (glm::dot(light.n, path.x[1].p - light.p) < 0.0f) light.n = -light.n;
        if (absCos(path, 0, 1) < 0.05f) return false;
    }
    // Camera axis within 20 degrees of the direction to x_{k-1}.
    vec3 toScene = glm::normalize(path.x[k - 1].p - path.x[k].p);
    path.forward = glm::normalize(toScene + 0.3f * randomUnit());
    if (glm::dot(path.forward, toScene) < std::cos(20.0f * kPi / 180.0f)) return false;
    path.pdfA = 0.3f;
    path.pdfPosition = 0.07f;
    return true;
}

/// Solid-angle pdf of vertex i's BSDF sampling the direction to x[to] given the one to x[from],
/// with its continuation probability (all in double, from float BSDF evaluations).
double bsdfPdf(const RandomPath& path, int i, int from, int to, bool withContinuation = true) {
    const PathPoint& v = path.x[i];
    Frame f(v.n);
    vec3 wo = f.toLocal(path.dir(i, from)), wi = f.toLocal(path.dir(i, to));
    double q = withContinuation ? continuationProbability(v.m) : 1.0;
    return double(pdfBsdf(v.m, wo, wi)) * q;
}

double dist2(const RandomPath& path, int a, int b) {
    vec3 d = path.x[a].p - path.x[b].p;
    return double(glm::dot(d, d));
}

double cosAtCamera(const RandomPath& path) {
    int k = path.k();
    return glm::dot(glm::normalize(path.x[k - 1].p - path.x[k].p), path.forward);
}

/// Area densities of every vertex x_i: pL[i] as the light subpath makes it (from x_{i-1}), pE[i]
/// as the eye subpath does (from x_{i+1}). The environment's x_0 is a direction: densities of it
/// are per solid angle (at x_1), and x_1 comes from the emission disk, pdfPosition x |cos| at x_1.
void vertexDensities(const RandomPath& path, const BdptParams& params, std::vector<double>& pL, std::vector<double>& pE) {
    int k = path.k();
    pL.assign(k, 0.0);
    pE.assign(k, 0.0);
    pL[0] = path.pdfA;
    if (k > 1)
        pL[1] = path.infinite ? path.pdfPosition * absCos(path, 1, 0)
                              : absCos(path, 0, 1) / kPi * absCos(path, 1, 0) / dist2(path, 0, 1);
    for (int i = 2; i < k; ++i) pL[i] = bsdfPdf(path, i - 1, i - 2, i) * absCos(path, i, i - 1) / dist2(path, i, i - 1);
    pE[k - 1] = double(cameraPdfW(params, float(cosAtCamera(path)))) * absCos(path, k - 1, k) / dist2(path, k - 1, k);
    for (int i = k - 2; i >= 0; --i)
        pE[i] = bsdfPdf(path, i + 1, i + 2, i) * (path.infinite && i == 0 ? 1.0 : absCos(path, i, i + 1) / dist2(path, i, i + 1));
}

/// The direct way: the area density of every strategy's way of making the path, as a product over
/// all its vertices, then the balance heuristic. Strategy s has s light vertices. The environment's
/// vertex x_0 is a direction: densities of it are per solid angle (at x_1), and x_1 comes from
/// the emission disk, pdfPosition x |cos| at x_1, with no distance.
std::vector<double> directWeights(const RandomPath& path, const BdptParams& params) {
    int k = path.k();
    std::vector<double> pL, pE;
    vertexDensities(path, params, pL, pE);
    std::vector<double> p(k + 1);
    double total = 0.0;
    for (int s = 0; s <= k; ++s) {
        double v = s == k ? double(params.lightPathCount) : 1.0;  // t = 1: every light path of a pass splats
        for (int i = 0; i < s; ++i) v *= pL[i];
        for (int i = s; i < k; ++i) v *= pE[i];
        p[s] = v;
        total += v;
    }
    for (double& v : p) v /= total;
    return p;
}

/// The recursive way: the walks' quantities built with bdpt.h's functions, then the weight of the
/// strategy from its two endpoints only. `withContinuation = false` breaks the recursion on purpose.
std::vector<double> recursiveWeights(const RandomPath& path, const BdptParams& params, bool withContinuation = true) {
    int k = path.k();
    float q = withContinuation ? 1.0f : 0.0f;
    auto qOf = [&](int i) { return q ? continuationProbability(path.x[i].m) : 1.0f; };
    auto dist = [&](int a, int b) { return glm::length(path.x[a].p - path.x[b].p); };
    float cos0 = path.infinite ? 1.0f : absCos(path, 0, 1);
    std::vector<double> w(k + 1);
    for (int s = 0; s <= k; ++s) {
        // Eye subpath x_k .. x_s (an escape to the environment does not convert at x_0).
        float eVCM = params.lightPathCount / cameraPdfW(params, float(cosAtCamera(path))), eVC = 0.0f;
        for (int i = k - 1; i >= std::max(s, path.infinite ? 1 : 0); --i) {
            misAtHit(eVCM, eVC, dist(i, i + 1), i == 0 ? cos0 : absCos(path, i, i + 1));
            if (i > s)
                misAfterScatter(eVCM, eVC, absCos(path, i, i - 1), float(bsdfPdf(path, i, i + 1, i - 1, false)) * qOf(i),
                                float(bsdfPdf(path, i, i - 1, i + 1, false)) * qOf(i), false);
        }
        // Light subpath x_0 .. x_{s-1}, as startLightWalk and shadeLightVertex build it.
        float pdfEmit = path.infinite ? path.pdfA * path.pdfPosition : path.pdfA * cos0 * kInvPi;
        float lVCM = path.infinite ? 1.0f / path.pdfPosition : path.pdfA / pdfEmit, lVC = cos0 / pdfEmit;
        for (int i = 1; i <= s - 1; ++i) {
            misAtHit(lVCM, lVC, path.infinite && i == 1 ? 1.0f : dist(i, i - 1), absCos(path, i, i - 1));
            if (i < s - 1)
                misAfterScatter(lVCM, lVC, absCos(path, i, i + 1), float(bsdfPdf(path, i, i - 1, i + 1, false)) * qOf(i),
                                float(bsdfPdf(path, i, i + 1, i - 1, false)) * qOf(i), false);
        }
        if (s == 0) {
            w[s] = path.infinite ? weightEnvironmentHit(eVCM, eVC, path.pdfA, path.pdfPosition)
                                 : weightEmitterHit(eVCM, eVC, path.pdfA, cos0);
        } else if (s == 1) {
            float pdfDirect = path.infinite ? path.pdfA : path.pdfA * float(dist2(path, 0, 1)) / cos0;
            w[s] = weightLightSample(eVCM, eVC, pdfDirect, pdfEmit, cos0, absCos(path, 1, 0),
                                     float(bsdfPdf(path, 1, 2, 0, false)) * qOf(1), float(bsdfPdf(path, 1, 0, 2, false)) * qOf(1));
        } else if (s == k) {
            float cameraPdfA = cameraPdfW(params, float(cosAtCamera(path))) * absCos(path, k - 1, k) /
                               float(dist2(path, k - 1, k));
            w[s] = weightCameraConnection(lVCM, lVC, cameraPdfA, params.lightPathCount,
                                          float(bsdfPdf(path, k - 1, k, k - 2, false)) * qOf(k - 1));
        } else {
            auto vertex = [&](int i, int previous, float dVCM, float dVC, int depth) {
                PathVertex v;
                v.position = Float4(path.x[i].p, intAsFloat(depth << 24));
                v.throughput = Float4(vec3(1.0f), dVCM);
                v.wo = Float4(path.dir(i, previous), dVC);
                v.setNormals(path.x[i].n, path.x[i].n, 0.0f);  // the error bound is unused by the weight
                return v;
            };
            PathVertex e = vertex(s, s + 1, eVCM, eVC, k - s), l = vertex(s - 1, s - 2, lVCM, lVC, s - 1);
            Connection c = evaluateConnection(path.x[s].m, path.x[s - 1].m, e, l);
            REQUIRE(c.valid);
            w[s] = c.weight;
        }
    }
    return w;
}

/// VCM's direct weights: the connection strategies s = 0..k (as above) and a merge at every inner
/// vertex x_i, i = 1..k-1 (light subpath x_0..x_i, eye subpath x_k..x_i: the acceptance of the
/// merge is pi r^2 x the eye's density of x_i, with every one of the light paths a candidate).
/// Returns k + 1 connection weights, then k - 1 merge weights.
std::vector<double> directVcmWeights(const RandomPath& path, const BdptParams& params, double eta) {
    int k = path.k();
    std::vector<double> pL, pE;
    vertexDensities(path, params, pL, pE);
    std::vector<double> p;
    double total = 0.0;
    auto product = [&](int lightEnd, int eyeStart) {  // pL[0, lightEnd) x pE[eyeStart, k)
        double v = 1.0;
        for (int i = 0; i < lightEnd; ++i) v *= pL[i];
        for (int i = eyeStart; i < k; ++i) v *= pE[i];
        return v;
    };
    for (int s = 0; s <= k; ++s) p.push_back(product(s, s) * (s == k ? double(params.lightPathCount) : 1.0));
    for (int i = 1; i < k; ++i) p.push_back(product(i + 1, i + 1) * pE[i] * eta);
    for (double v : p) total += v;
    for (double& v : p) v /= total;
    return p;
}

/// VCM's recursive weights: bdpt.h's walks with dVM (BdptParams::merging), the connection
/// weights with vmWeight and weightMerge for the merges; in directVcmWeights' order.
std::vector<double> recursiveVcmWeights(const RandomPath& path, const BdptParams& params) {
    int k = path.k();
    auto q = [&](int i) { return continuationProbability(path.x[i].m); };
    auto pdf = [&](int i, int from, int to) { return float(bsdfPdf(path, i, from, to, false)) * q(i); };
    auto dist = [&](int a, int b) { return glm::length(path.x[a].p - path.x[b].p); };
    float cos0 = path.infinite ? 1.0f : absCos(path, 0, 1);
    float pdfEmit = path.infinite ? path.pdfA * path.pdfPosition : path.pdfA * cos0 * kInvPi;
    struct Mis {
        float dVCM, dVC, dVM;
    };
    // Eye quantities at x_i after the hit (i = k-1 .. 0), light quantities at x_i after the hit.
    std::vector<Mis> eye(k), light(k);
    Mis e{params.lightPathCount / cameraPdfW(params, float(cosAtCamera(path))), 0.0f, 0.0f};
    for (int i = k - 1; i >= (path.infinite ? 1 : 0); --i) {
        float c = i == 0 ? cos0 : absCos(path, i, i + 1);
        misAtHit(e.dVCM, e.dVC, dist(i, i + 1), c);
        e.dVM /= c;
        eye[i] = e;
        if (i > 0) misAfterScatter(e.dVCM, e.dVC, e.dVM, absCos(path, i, i - 1), pdf(i, i + 1, i - 1), pdf(i, i - 1, i + 1), false, params);
    }
    Mis l{path.infinite ? 1.0f / path.pdfPosition : path.pdfA / pdfEmit, cos0 / pdfEmit, cos0 / pdfEmit * params.vcWeight};
    light[0] = l;
    for (int i = 1; i < k; ++i) {
        float c = absCos(path, i, i - 1);
        misAtHit(l.dVCM, l.dVC, path.infinite && i == 1 ? 1.0f : dist(i, i - 1), c);
        l.dVM /= c;
        light[i] = l;
        if (i < k - 1) misAfterScatter(l.dVCM, l.dVC, l.dVM, absCos(path, i, i + 1), pdf(i, i - 1, i + 1), pdf(i, i + 1, i - 1), false, params);
    }
    std::vector<double> w;
    for (int s = 0; s <= k; ++s) {
        if (s == 0) {
            // The eye walk's quantities before its last hit (the environment converts nothing).
            Mis before{params.lightPathCount / cameraPdfW(params, float(cosAtCamera(path))), 0.0f, 0.0f};
            if (k > 1) {
                before = eye[1];
                misAfterScatter(before.dVCM, before.dVC, before.dVM, absCos(path, 1, 0), pdf(1, 2, 0), pdf(1, 0, 2), false, params);
            }
            if (path.infinite) {
                w.push_back(weightEnvironmentHit(before.dVCM, before.dVC, path.pdfA, path.pdfPosition));
            } else {
                Mis at = before;
                misAtHit(at.dVCM, at.dVC, dist(0, 1), cos0);
                w.push_back(weightEmitterHit(at.dVCM, at.dVC, path.pdfA, cos0));
            }
        } else if (s == 1) {
            float pdfDirect = path.infinite ? path.pdfA : path.pdfA * float(dist2(path, 0, 1)) / cos0;
            w.push_back(weightLightSample(eye[1].dVCM, eye[1].dVC, pdfDirect, pdfEmit, cos0, absCos(path, 1, 0), pdf(1, 2, 0),
                                          pdf(1, 0, 2), params.vmWeight));
        } else if (s == k) {
            float cameraPdfA = cameraPdfW(params, float(cosAtCamera(path))) * absCos(path, k - 1, k) / float(dist2(path, k - 1, k));
            w.push_back(weightCameraConnection(light[k - 1].dVCM, light[k - 1].dVC, cameraPdfA, params.lightPathCount,
                                               pdf(k - 1, k, k - 2), params.vmWeight));
        } else {
            float eyeToLight = pdf(s, s + 1, s - 1) * absCos(path, s - 1, s) / float(dist2(path, s, s - 1));
            float lightToEye = pdf(s - 1, s - 2, s) * absCos(path, s, s - 1) / float(dist2(path, s, s - 1));
            w.push_back(weightConnection(eye[s].dVCM, eye[s].dVC, light[s - 1].dVCM, light[s - 1].dVC, eyeToLight, lightToEye,
                                         pdf(s, s - 1, s + 1), pdf(s - 1, s, s - 2), params.vmWeight));
        }
    }
    for (int i = 1; i < k; ++i)
        w.push_back(weightMerge(eye[i].dVCM, eye[i].dVM, light[i].dVCM, light[i].dVM, pdf(i, i + 1, i - 1),
                                pdf(i, i - 1, i + 1), params.vcWeight));
    return w;
}

BdptParams testParams() {
    BdptParams p;
    p.numPixels = 64 * 64;
    p.lightPathCount = float(p.numPixels);
    p.imagePlaneDistance = 40.0f;
    p.maxDepth = 16;
    return p;
}

}  // namespace

TEST_CASE("recursive MIS weights equal the direct ones and sum to one", "[bdpt][mis]") {
    for (bool infinite : {false, true}) {
        std::mt19937 rng(infinite ? 19770101 : 20111122);
        BdptParams params = testParams();
        double worst = 0.0, worstSum = 0.0;
        int paths = 0;
        while (paths < 2000) {
            RandomPath path;
            if (!makePath(rng, 2 + paths % 6, infinite, path)) continue;
            ++paths;
            std::vector<double> direct = directWeights(path, params), recursive = recursiveWeights(path, params);
            double sum = 0.0;
            for (int s = 0; s <= path.k(); ++s) {
                worst = std::max(worst, std::fabs(direct[s] - recursive[s]));
                sum += recursive[s];
            }
            worstSum = std::max(worstSum, std::fabs(sum - 1.0));
        }
        INFO((infinite ? "environment" : "area light") << ": worst weight difference " << worst << ", worst |sum - 1| "
                                                       << worstSum);
        CHECK(worst < 1e-4);
        CHECK(worstSum < 1e-4);
    }
}

TEST_CASE("the MIS comparison detects a recursion that forgets Russian roulette", "[bdpt][mis]") {
    std::mt19937 rng(7);
    BdptParams params = testParams();
    int paths = 0, detected = 0;
    while (paths < 200) {
        RandomPath path;
        if (!makePath(rng, 3 + paths % 4, false, path)) continue;
        ++paths;
        std::vector<double> direct = directWeights(path, params), broken = recursiveWeights(path, params, false);
        double worst = 0.0;
        for (int s = 0; s <= path.k(); ++s) worst = std::max(worst, std::fabs(direct[s] - broken[s]));
        detected += worst > 1e-3;
    }
    CHECK(detected > paths / 2);
}

TEST_CASE("VCM's recursive weights of connections and merges equal the direct ones and sum to one", "[vcm][mis]") {
    for (bool infinite : {false, true})
        for (double radius : {0.002, 0.05}) {
            std::mt19937 rng(infinite ? 4242 : 2012);
            BdptParams params = testParams();
            const float eta = float(kPi * radius * radius * params.lightPathCount);
            params.merging = true;
            params.vmWeight = eta;
            params.vcWeight = 1.0f / eta;
            double worst = 0.0, worstSum = 0.0, mergeShare = 0.0;
            int paths = 0;
            while (paths < 2000) {
                RandomPath path;
                if (!makePath(rng, 2 + paths % 6, infinite, path)) continue;
                ++paths;
                std::vector<double> direct = directVcmWeights(path, params, eta), recursive = recursiveVcmWeights(path, params);
                REQUIRE(direct.size() == recursive.size());
                double sum = 0.0;
                for (std::size_t i = 0; i < direct.size(); ++i) {
                    worst = std::max(worst, std::fabs(direct[i] - recursive[i]) / std::max(direct[i], 1e-3));
                    sum += recursive[i];
                    if (i > std::size_t(path.k())) mergeShare += recursive[i];
                }
                worstSum = std::max(worstSum, std::fabs(sum - 1.0));
            }
            INFO((infinite ? "environment" : "area light") << ", radius " << radius << ": worst relative weight difference "
                                                           << worst << ", worst |sum - 1| " << worstSum
                                                           << ", mean merge share " << mergeShare / paths);
            CHECK(worst < 1e-3);
            CHECK(worstSum < 1e-4);
            CHECK(mergeShare / paths > (radius > 0.01 ? 0.05 : 1e-5));  // the merges do take part
        }
}
