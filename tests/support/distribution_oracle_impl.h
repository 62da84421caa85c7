// Template bodies of distribution_oracle.h, instantiated for each exec (oracles.cpp,
// distribution_oracle_cuda.cu).
#pragma once
#include <chrono>

#include "distribution_oracle.h"
#include "host/device_scene/distribution_builder.h"
#include "kernels/core/sampler.h"

namespace wavefront {

namespace distribution {

struct SampleStage {
    DistributionView view;
    const float* us;
    const int* ds;  ///< may be null: distribution 0
    DistributionSample* out;
    int* loads;     ///< may be null: not counted
    WF_CPU_GPU void operator()(int i) const {
        int d = ds ? ds[i] : 0;
        if (loads) {
            int l = 0;
            out[i] = view.sample(d, us[i], &l);
            loads[i] = l;
        } else {
            out[i] = view.sample(d, us[i]);
        }
    }
};

/// Throughput probe: u hashed in the thread (no input traffic), only the index written.
struct RateStage {
    DistributionView view;
    HashSampler sampler;
    int* out;
    WF_CPU_GPU void operator()(int i) const { out[i] = view.sample(0, sampler.get(std::uint64_t(i), 0)).index; }
};

/// Keeps the GPU busy for a while (nothing on the CPU), so that the host can enqueue a whole
/// build behind it and the build's event times then show GPU work without launch gaps.
struct SpinStage {
    long long cycles;
    WF_CPU_GPU void operator()(int) const {
#if defined(WF_IS_GPU_CODE)
        long long start = clock64();
        while (clock64() - start < cycles) {
        }
#endif
    }
};

template <class Exec, class T>
Buffer<T> upload(Exec& exec, const std::vector<T>& v) {
    Buffer<T> b = exec.template allocate<T>(v.size());
    exec.upload(b.data(), v.data(), v.size());
    return b;
}

}  // namespace distribution

template <class Exec>
DistributionSnapshot buildDistributionOn(Exec& exec, const std::vector<double>& weights, int n, int count,
                                         LightSampler kind, int guideSize, int repetitions) {
    Buffer<double> w = distribution::upload(exec, weights);
    Distribution<Exec> dist;
    DistributionSnapshot snap;
    snap.buildMilliseconds = 1e30;
    int runs = repetitions > 1 ? repetitions + 1 : 1;
    for (int r = 0; r < runs; ++r) {
        exec.synchronize();
        exec.clearStats();
        auto start = std::chrono::steady_clock::now();
        dist.build(exec, w.data(), n, count, kind, guideSize);
        exec.synchronize();
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (runs == 1 || r > 0) snap.buildMilliseconds = std::min(snap.buildMilliseconds, ms);
    }
    snap.stages = exec.kernelStats();
    if (Exec::kIsGpu && kind != LightSampler::Alias) {
        // One more build enqueued behind a 1 ms spin: its stage times are back to back on the GPU.
        exec.clearStats();
        exec.parallelFor("spin", 1, distribution::SpinStage{2000000});
        dist.build(exec, w.data(), n, count, kind, guideSize);
        snap.stages.clear();
        for (const KernelStats& k : exec.kernelStats())
            if (k.label != "spin") {
                snap.stages.push_back(k);
                snap.gpuMilliseconds += k.milliseconds;
            }
    }
    DistributionView v = dist.view();
    snap.n = n;
    snap.count = count;
    snap.kind = kind;
    snap.guideSize = v.guideSize;
    std::size_t total = std::size_t(n) * count;
    auto fetch = [&](auto& out, const auto* src, std::size_t size) {
        if (!src) return;
        out.resize(size);
        exec.download(out.data(), src, size);
    };
    fetch(snap.cdf, v.cdf, total);
    fetch(snap.pmf, v.pmf, total);
    fetch(snap.guide, v.guide, std::size_t(v.guideSize + 1) * count);
    fetch(snap.nodes, v.nodes, total);
    fetch(snap.alias, v.alias, total);
    return snap;
}

template <class Exec>
DistributionSamples sampleDistributionOn(Exec& exec, const std::vector<double>& weights, int n, int count,
                                         LightSampler kind, int guideSize, const std::vector<float>& us,
                                         const std::vector<int>& distributions, bool countLoads) {
    Buffer<double> w = distribution::upload(exec, weights);
    Distribution<Exec> dist;
    dist.build(exec, w.data(), n, count, kind, guideSize);
    Buffer<float> dUs = distribution::upload(exec, us);
    Buffer<int> dDs = distribution::upload(exec, distributions);
    int samples = int(us.size());
    Buffer<DistributionSample> dOut = exec.template allocate<DistributionSample>(us.size());
    Buffer<int> dLoads;
    if (countLoads) dLoads = exec.template allocate<int>(us.size());
    exec.synchronize();
    auto start = std::chrono::steady_clock::now();
    exec.parallelFor("distribution sample", samples,
                     distribution::SampleStage{dist.view(), dUs.data(), dDs.data(), dOut.data(), dLoads.data()});
    exec.synchronize();
    DistributionSamples r;
    r.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    r.samples.resize(us.size());
    exec.download(r.samples.data(), dOut.data(), us.size());
    if (countLoads) {
        r.loads.resize(us.size());
        exec.download(r.loads.data(), dLoads.data(), us.size());
    }
    return r;
}

template <class Exec>
double samplingRateOn(Exec& exec, const std::vector<double>& weights, int n, LightSampler kind, int guideSize,
                      int samples, int repetitions) {
    Buffer<double> w = distribution::upload(exec, weights);
    Distribution<Exec> dist;
    dist.build(exec, w.data(), n, 1, kind, guideSize);
    Buffer<int> out = exec.template allocate<int>(samples);
    double best = 1e30;
    for (int r = 0; r <= repetitions; ++r) {  // r = 0 warms up
        exec.synchronize();
        auto start = std::chrono::steady_clock::now();
        exec.parallelFor("distribution sample rate", samples,
                         distribution::RateStage{dist.view(), HashSampler(std::uint32_t(r)), out.data()});
        exec.synchronize();
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (r > 0) best = std::min(best, s);
    }
    return samples / best;
}

}  // namespace wavefront
