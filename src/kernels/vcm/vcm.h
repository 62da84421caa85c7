// Vertex connection and merging (Georgiev, Krivanek, Davidovic and Slusallek 2012) on BDPT's
// estimator (bdpt.h), in the notation of Georgiev's "Implementing Vertex Connection and Merging"
// and SmallVCM: an iteration traces one light subpath per pixel of the pass (or a set number),
// keeps their non-specular vertices (the light vertex cache), builds a hash grid over them, and
// every eye subpath then connects to its own light subpath as BDPT does (vertex connection) and,
// at each non-specular vertex, merges with the cached light vertices within radius r (photon
// density estimation, vertex merging). The radius shrinks with the iteration (Knaus and Zwicker
// 2011). Both kinds of strategy share balance-heuristic weights through a third recursive
// quantity, dVM (BdptParams::merging, vmWeight, vcWeight).
//
// BPM (bidirectional photon mapping) and PPM are VCM without connections: BPM merges at every
// eye vertex with MIS between the merges; PPM merges at the first non-specular eye vertex only,
// unweighted. Both count emission the eye walk finds only when seen directly or through specular
// vertices alone (SmallVCM's rule).
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/bdpt/bdpt.h"

namespace wavefront {

enum class VcmMode { Vcm, Bpm, Ppm };

/// The merge radius of iteration `iteration` (0-based): r0 / (i + 1)^((1 - alpha) / 2), so
/// that the merging bias and variance both vanish as iterations add up (Knaus and Zwicker 2011).
inline float vcmRadius(float baseRadius, float alpha, std::uint64_t iteration) {
    float r = baseRadius / std::pow(float(iteration) + 1.0f, 0.5f * (1.0f - alpha));
    return r > 1e-7f ? r : 1e-7f;
}

/// Sets the MIS constants of an iteration at `radius` with p.lightPathCount light subpaths
/// (SmallVCM's RunIteration): eta_VCM = pi r^2 x light paths.
inline void setVcmWeights(BdptParams& p, VcmMode mode, float radius) {
    const float eta = kPi * radius * radius * p.lightPathCount;
    p.merging = true;
    p.connecting = mode == VcmMode::Vcm;
    p.vmWeight = eta;
    p.vcWeight = p.connecting ? 1.0f / eta : 0.0f;
    p.cameraConnections = p.cameraConnections && p.connecting;
    p.emissionSpecularOnly = !p.connecting;
}

/// A hash grid over an iteration's light vertices: cubic cells of side 2r hashed into a
/// power-of-two table; entries[begin[b] .. end[b]) are the indices of the vertices in bucket b.
/// A query looks at the 2 x 2 x 2 cells nearest its point, which hold every vertex within r.
struct MergeGrid {
    vec3 lower;          ///< the cells' origin
    float invCellSize;   ///< 1 / (2r)
    float radius2;
    std::uint32_t tableMask;  ///< table size - 1
    const std::uint32_t* begin;
    const std::uint32_t* end;
    const std::uint32_t* entries;
    float normalization;  ///< 1 / (pi r^2 x light paths): a merge's density estimate
    bool firstHitOnly;    ///< PPM: merge at the first non-specular eye vertex, unweighted

    WF_CPU_GPU static int clampedCell(float x) {
        x = glm::clamp(x, -1.0e9f, 1.0e9f);
        return int(std::floor(x));
    }
    WF_CPU_GPU std::uint32_t bucket(int x, int y, int z) const {
        return ((std::uint32_t(x) * 73856093u) ^ (std::uint32_t(y) * 19349663u) ^ (std::uint32_t(z) * 83492791u)) &
               tableMask;
    }
    WF_CPU_GPU std::uint32_t bucketOf(vec3 p) const {
        vec3 c = (p - lower) * invCellSize;
        return bucket(clampedCell(c.x), clampedCell(c.y), clampedCell(c.z));
    }
    /// The lowest corner of the 2 x 2 x 2 cells a query at p visits: in each axis the cell of p
    /// and its neighbour on p's nearer side.
    WF_CPU_GPU void queryCorner(vec3 p, int& x0, int& y0, int& z0) const {
        const vec3 c = (p - lower) * invCellSize;
        const int cx = clampedCell(c.x), cy = clampedCell(c.y), cz = clampedCell(c.z);
        x0 = c.x - float(cx) < 0.5f ? cx - 1 : cx;
        y0 = c.y - float(cy) < 0.5f ? cy - 1 : cy;
        z0 = c.z - float(cz) < 0.5f ? cz - 1 : cz;
    }
};

/// Merges eye vertex `e` (dVM `eDVM`) with every light vertex of the grid within the radius
/// whose path is no longer than maxDepth: the sum of MIS weight x eye BSDF x light throughput
/// (SmallVCM's RangeQuery), still to be multiplied by the eye throughput and the grid's
/// normalization. The eye vertex's BSDF is evaluated towards each light vertex's incoming
/// direction; the light vertex's throughput holds the arriving half of the adjoint correction
/// (shadeLightVertex), so the estimate is per unit geometric area there. Collisions in media
/// merge with nothing, on either side (their MIS quantities leave merging out: misAfterScatter).
template <class Materials>
WF_CPU_GPU inline vec3 mergeLightVertices(const SceneView& scene, const BdptParams& p, const MergeGrid& g,
                                          const PathVertex& e, float eDVM, const PathVertex* lightVertices,
                                          const float* lightDVM, unsigned& merged) {
    if (e.inMedium()) return vec3(0.0f);
    MaterialData texturedE;
    const MaterialData& me = materialAt<Materials>(scene, e.material(), e.uv(), texturedE);
    const ShadingNormals se = e.normals();
    const Frame frame(se.frameNormal());
    const vec3 woE = frame.toLocal(e.wo.xyz());
    const vec3 pe = e.position.xyz(), ng = e.ng();
    const float qe = continuationProbability<Materials>(me);
    const bool transmissive = isTransmissive<Materials>(me);
    const int eyeDepth = e.depth();
    int x0, y0, z0;
    g.queryCorner(pe, x0, y0, z0);
    vec3 sum(0.0f);
    std::uint32_t seen[8];
    for (int cell = 0; cell < 8; ++cell) {
        const std::uint32_t b = g.bucket(x0 + (cell & 1), y0 + ((cell >> 1) & 1), z0 + (cell >> 2));
        // Two of the eight cells can hash to one bucket: visit it once, or its vertices count twice.
        seen[cell] = b;
        bool again = false;
        for (int other = 0; other < cell; ++other) again = again || seen[other] == b;
        if (again) continue;
        const std::uint32_t last = g.end[b];
        for (std::uint32_t k = g.begin[b]; k < last; ++k) {
            const std::uint32_t index = g.entries[k];
            const PathVertex& l = lightVertices[index];
            if (eyeDepth + l.depth() > p.maxDepth || l.inMedium()) continue;
            const vec3 d = l.position.xyz() - pe;
            if (glm::dot(d, d) > g.radius2) continue;  // also drops other cells hashed here
            const vec3 wi = l.wo.xyz();  // towards where the light came from
            if (connectionCosine<Materials>(me, ng, wi) <= 0.0f || !se.pairs(wi)) continue;
            // Light arriving on the other side of a thin opaque wall is not light here.
            if (!transmissive && glm::dot(l.ng(), ng) <= 0.0f) continue;
            const vec3 wiLocal = frame.toLocal(wi);
            const vec3 f = evalBsdf<Materials>(me, woE, wiLocal, TransportMode::Radiance);
            if (isBlack(f)) continue;
            float weight = 1.0f;
            if (!g.firstHitOnly) {
                MaterialData texturedL;
                const MaterialData& ml = materialAt<Materials>(scene, l.material(), l.uv(), texturedL);
                // The reverse density is the eye BSDF's, its roulette the light vertex's (which
                // would decide whether the light subpath went on; SmallVCM).
                const float pdfForward = pdfBsdf<Materials>(me, woE, wiLocal) * qe;
                const float pdfReverse = pdfBsdf<Materials>(me, wiLocal, woE) * continuationProbability<Materials>(ml);
                weight = weightMerge(e.throughput.w, eDVM, l.throughput.w, lightDVM[index], pdfForward, pdfReverse,
                                     p.vcWeight);
            }
            sum += weight * f * l.throughput.xyz();
            ++merged;
        }
    }
    return sum;
}

}  // namespace wavefront
