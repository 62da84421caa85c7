// Environment-map light: an HDR latitude-longitude image at infinity, y up. Sampled in 2D with
// piecewise-constant densities: a marginal over rows, then one conditional per row (all rows
// built in one pass by Distribution), weighted by sin(theta) so the density is per solid angle.
// Or a procedural sky (Scene::setSkyGradient): radiance computed from the direction, no texels,
// sampled uniformly over the sphere.
#pragma once
#include "kernels/lights/distribution.h"

namespace wavefront {

struct EnvironmentView {
    const Float4* texels = nullptr;  ///< width x height, rgb (already scaled), rows top (theta = 0) to bottom
    int width = 0, height = 0;
    DistributionView marginal;       ///< one distribution over rows
    DistributionView conditional;    ///< `height` distributions over columns
    /// The procedural sky in place of the image: radiance mix(nadir, zenith, (d.y + 1) / 2).
    bool gradient = false;
    vec3 nadir = vec3(0.0f), zenith = vec3(0.0f);

    WF_CPU_GPU bool present() const { return texels != nullptr || gradient; }

    /// The sky's density: uniform over the sphere, the same constant in sample() and pdf(), so
    /// the two cannot disagree; a smooth sky gains little from importance sampling.
    static constexpr float kUniformPdf = 0.25f * kInvPi;

    /// Direction of image coordinates (u, v) in [0, 1)^2: phi = 2 pi u, theta = pi v.
    WF_CPU_GPU static vec3 direction(float u, float v, float& sinTheta) {
        float phi = 2.0f * kPi * u, theta = kPi * v;
        sinTheta = std::sin(theta);
        return vec3(sinTheta * std::cos(phi), std::cos(theta), sinTheta * std::sin(phi));
    }
    WF_CPU_GPU void texel(vec3 d, int& x, int& y) const {
        float u = std::atan2(d.z, d.x) * (0.5f * kInvPi);
        if (u < 0.0f) u += 1.0f;
        float v = std::acos(glm::clamp(d.y, -1.0f, 1.0f)) * kInvPi;
        x = glm::min(int(u * width), width - 1);
        y = glm::min(int(v * height), height - 1);
    }

    /// Radiance arriving from direction d (from the environment towards the scene along -d).
    WF_CPU_GPU vec3 radiance(vec3 d) const {
        if (gradient) {
            float t = glm::clamp(0.5f * (d.y + 1.0f), 0.0f, 1.0f);
            return (1.0f - t) * nadir + t * zenith;
        }
        int x, y;
        texel(d, x, y);
        return texels[std::size_t(y) * width + x].xyz();
    }

    /// Solid-angle density of sample() producing d.
    WF_CPU_GPU float pdf(vec3 d) const {
        if (gradient) return kUniformPdf;
        int x, y;
        texel(d, x, y);
        float sinTheta = std::sqrt(d.x * d.x + d.z * d.z);  // not sqrt(1 - y^2): that cancels near the poles
        if (sinTheta <= 0.0f) return 0.0f;
        float p = marginal.probability(0, y) * conditional.probability(y, x) * float(width) * float(height);
        return p / (2.0f * kPi * kPi * sinTheta);
    }

    struct Sample {
        vec3 direction;
        vec3 radiance;
        float pdf;  ///< solid angle
    };
    WF_CPU_GPU Sample sample(vec2 u) const {
        if (gradient) {
            float y = 1.0f - 2.0f * u.x, r = std::sqrt(glm::max(0.0f, 1.0f - y * y)), phi = 2.0f * kPi * u.y;
            Sample s;
            s.direction = vec3(r * std::cos(phi), y, r * std::sin(phi));
            s.radiance = radiance(s.direction);
            s.pdf = kUniformPdf;
            return s;
        }
        DistributionSample row = marginal.sample(0, u.x);
        DistributionSample col = conditional.sample(row.index, u.y);
        float sinTheta;
        vec3 d = direction((col.index + col.remapped) / float(width), (row.index + row.remapped) / float(height), sinTheta);
        Sample s;
        s.direction = d;
        s.radiance = texels[std::size_t(row.index) * width + col.index].xyz();
        float p = row.pmf * col.pmf * float(width) * float(height);
        s.pdf = sinTheta > 0.0f ? p / (2.0f * kPi * kPi * sinTheta) : 0.0f;
        return s;
    }
};

namespace environment {
/// Texel weight: luminance times sin(theta) of the row centre (rows near the poles cover less
/// solid angle).
struct WeightStage {
    const Float4* texels;
    int width, height;
    double* weights;  ///< width x height
    WF_CPU_GPU void operator()(int k) const {
        int y = k / width;
        double sinTheta = std::sin(kPi * (y + 0.5f) / height);
        weights[k] = double(luminance(texels[k].xyz())) * sinTheta;
    }
};
struct RowSumStage {
    const double* weights;
    int width;
    double* rowSums;
    WF_CPU_GPU void operator()(int y) const {
        double s = 0.0;
        for (int x = 0; x < width; ++x) s += weights[std::size_t(y) * width + x];
        rowSums[y] = s;
    }
};
}  // namespace environment

}  // namespace wavefront
