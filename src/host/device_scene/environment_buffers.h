// The environment map in one exec's memory: its texels and its distributions (marginal over rows,
// one conditional per row), built by the stages of kernels/lights/environment.h; or the two
// colours of a procedural sky, which needs no memory.
#pragma once
#include <vector>

#include "host/device_scene/distribution_builder.h"
#include "kernels/lights/environment.h"

namespace wavefront {

template <class Exec>
struct EnvironmentBuffers {
    Buffer<Float4> texels;
    Distribution<Exec> marginal, conditional;
    int width = 0, height = 0;
    bool gradient = false;
    vec3 nadir = vec3(0.0f), zenith = vec3(0.0f);

    /// The procedural sky (Scene::setSkyGradient, colours already scaled).
    void setGradient(vec3 nadirColour, vec3 zenithColour) {
        gradient = true;
        nadir = nadirColour;
        zenith = zenithColour;
    }

    /// `rgb` is width x height x 3 floats of radiance (Scene::setEnvironment has scaled them), top
    /// row first.
    void build(Exec& exec, const std::vector<float>& rgb, int w, int h, LightSampler kind);
    EnvironmentView view() const {
        EnvironmentView v;
        v.texels = texels.data();
        v.width = width;
        v.height = height;
        v.marginal = marginal.view();
        v.conditional = conditional.view();
        v.gradient = gradient;
        v.nadir = nadir;
        v.zenith = zenith;
        return v;
    }
};

// Out of the class body (not inline), like Distribution::build.
template <class Exec>
void EnvironmentBuffers<Exec>::build(Exec& exec, const std::vector<float>& rgb, int w, int h, LightSampler kind) {
    width = w;
    height = h;
    std::vector<Float4> host(std::size_t(w) * h);
    for (std::size_t i = 0; i < host.size(); ++i)
        host[i] = Float4(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2], 0.0f);
    texels = exec.template allocate<Float4>(host.size());
    exec.upload(texels.data(), host.data(), host.size());
    Buffer<double> weights = exec.template allocate<double>(host.size());
    Buffer<double> rowSums = exec.template allocate<double>(h);
    exec.parallelFor("environment weights", int(host.size()), environment::WeightStage{texels.data(), w, h, weights.data()});
    exec.parallelFor("environment row sums", h, environment::RowSumStage{weights.data(), w, rowSums.data()});
    conditional.build(exec, weights.data(), w, h, kind);
    marginal.build(exec, rowSums.data(), h, 1, kind);
    exec.synchronize();
}

}  // namespace wavefront
