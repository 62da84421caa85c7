#include "host/render/multi_device_backend.h"

#include <map>

namespace wavefront {
namespace multidevice {

void addFilms(const std::vector<Film>& films, Film& out) {
    out = films.at(0);
    const std::size_t pixels = out.samples.size();
    // Slices of the image on as many threads as there are films: each film was copied out by a
    // thread of its own, and the sum is of the same size.
    const int threads = int(std::min<std::size_t>(films.size(), std::max<std::size_t>(pixels / 65536, 1)));
    forEachDevice(threads, [&](int t) {
        const std::size_t lo = pixels * t / threads, hi = pixels * (t + 1) / threads;
        for (std::size_t f = 1; f < films.size(); ++f) {
            const Film& in = films[f];
            for (std::size_t i = 3 * lo; i < 3 * hi; ++i) out.sum[i] += in.sum[i];
            for (std::size_t i = lo; i < hi; ++i) out.samples[i] += in.samples[i];
        }
    });
}

RenderStats mergeStats(IntegratorType integrator, const std::vector<RenderStats>& perDevice, double seconds) {
    RenderStats m = perDevice.at(0);
    m.devices.clear();
    m.kernels.clear();
    m.samples = m.extensionRays = m.shadowRays = m.nonFiniteSamples = 0;
    m.memoryBytes = m.peakMemoryBytes = 0;
    m.streamCapacity = 0;
    m.seconds = seconds;
    m.backend = perDevice[0].backend + " x" + std::to_string(perDevice.size());
    std::map<std::string, std::size_t> kernelAt;
    for (const RenderStats& s : perDevice) {
        m.devices.insert(m.devices.end(), s.devices.begin(), s.devices.end());
        m.samples += s.samples;
        m.extensionRays += s.extensionRays;
        m.shadowRays += s.shadowRays;
        m.nonFiniteSamples += s.nonFiniteSamples;
        m.memoryBytes += s.memoryBytes;
        m.peakMemoryBytes += s.peakMemoryBytes;
        m.streamCapacity += s.streamCapacity;
        m.sceneSetupSeconds = std::max(m.sceneSetupSeconds, s.sceneSetupSeconds);
        m.bvhBuilder = s.bvhBuilder;  // every device builds from the same options and scene
        for (const KernelStats& k : s.kernels) {
            auto [at, fresh] = kernelAt.emplace(k.label, m.kernels.size());
            if (fresh) {
                m.kernels.push_back(k);
                continue;
            }
            KernelStats& sum = m.kernels[at->second];
            sum.milliseconds += k.milliseconds;
            sum.launches += k.launches;
        }
    }
    if (const auto merge = integratorSpec(integrator).mergeDeviceStats) merge(perDevice, m);
    return m;
}

std::uint32_t deviceSeed(std::uint32_t seed, int d) {
    if (d == 0) return seed;  // device 0 keeps the chains a single device runs
    std::uint64_t x = (std::uint64_t(seed) << 32 | std::uint32_t(d)) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    return std::uint32_t(x >> 32);
}

}  // namespace multidevice
}  // namespace wavefront
