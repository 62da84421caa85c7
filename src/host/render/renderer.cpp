#include "wavefront/renderer.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>

#include "host/render/render_backend.h"
#include "wavefront/error.h"

namespace wavefront {

#if !defined(WAVEFRONT_HAS_CUDA)
int cudaDeviceCount() { return 0; }
std::unique_ptr<RenderBackend> makeCudaRenderBackend(const Scene&, const RenderOptions&) {
    throw InputError("the CUDA backend was requested but this build of wavefront has no CUDA support");
}
#endif

void RenderOptions::validate() const {
    constexpr int kMaxSide = 1 << 15;
    if (width <= 0 || height <= 0 || width > kMaxSide || height > kMaxSide)
        throw InputError("resolution " + std::to_string(width) + "x" + std::to_string(height) +
                         " is out of range (each side 1.." + std::to_string(kMaxSide) + ")");
    // Enumerations arrive from casts and bindings too: a value outside its enum is an error, not
    // a black image.
    if (int(backend) < int(Backend::Auto) || int(backend) > int(Backend::Cpu))
        throw InputError("backend " + std::to_string(int(backend)) + " is not a Backend value");
    if (int(integrator) < int(IntegratorType::PathTracer) || int(integrator) > int(IntegratorType::Mlt))
        throw InputError("integrator " + std::to_string(int(integrator)) + " is not an IntegratorType value");
    if (int(variant) < int(PtVariant::Megakernel) || int(variant) > int(PtVariant::SptR))
        throw InputError("path-tracer variant " + std::to_string(int(variant)) + " is not a PtVariant value");
    if (int(bdptVariant) < int(BdptVariant::Streaming) || int(bdptVariant) > int(BdptVariant::Naive))
        throw InputError("BDPT variant " + std::to_string(int(bdptVariant)) + " is not a BdptVariant value");
    if (int(lightSampler) < int(LightSampler::BinarySearch) || int(lightSampler) > int(LightSampler::Alias))
        throw InputError("light sampler " + std::to_string(int(lightSampler)) + " is not a LightSampler value");
    if (int(bvhBuilder) < int(BvhBuilder::Auto) || int(bvhBuilder) > int(BvhBuilder::Ploc))
        throw InputError("BVH builder " + std::to_string(int(bvhBuilder)) + " is not a BvhBuilder value");
    if (!(timeLimitSeconds >= 0.0) || !std::isfinite(timeLimitSeconds))
        throw InputError("time limit must be a finite number of seconds (0: render samplesPerPixel instead)");
    if (timeLimitSeconds == 0.0 && samplesPerPixel <= 0) throw InputError("samples per pixel must be at least 1");
    if (std::uint64_t(width) * height * std::uint64_t(std::max(samplesPerPixel, 1)) >= (1ull << 56))
        throw InputError("too many samples in one render (width x height x spp must stay below 2^56)");
    // The pass range [firstPass, firstPass + spp) must stay below the sample-index limit (a
    // time-limited render needs its first pass below it).
    const std::uint64_t passLimit = (1ull << 56) / (std::uint64_t(width) * height);
    if (firstPass >= passLimit ||
        (timeLimitSeconds == 0.0 && std::uint64_t(std::max(samplesPerPixel, 1)) > passLimit - firstPass))
        throw InputError("first pass " + std::to_string(firstPass) + " is out of range (pass + spp stays at most " +
                         std::to_string(passLimit) + " at " + std::to_string(width) + "x" + std::to_string(height) + ")");
    if (firstPass > 0 && integrator == IntegratorType::Mlt)
        throw InputError("MLT renders no pass ranges (first pass must be 0); give each process its own seed instead");
    if (maxDepth < 1 || maxDepth > 255) throw InputError("max depth must be in 1..255");
    if (rouletteDepth < 1) throw InputError("roulette depth must be at least 1");
    if (streamCapacity < 0) throw InputError("stream capacity must be positive (or 0 for the default)");
    if (connectThreshold && !(*connectThreshold > 0.0f && *connectThreshold <= 1.0f))
        throw InputError("connect threshold must be in (0, 1]");
    if ((strategyS < 0) != (strategyT < 0) || (strategyS >= 0 && strategyT < 1))
        throw InputError("a BDPT strategy needs s >= 0 and t >= 1 (or neither)");
    if (strategyS >= 0 && strategyS + strategyT - 1 > maxDepth)
        throw InputError("strategy " + std::to_string(strategyS) + "," + std::to_string(strategyT) + " makes paths of " +
                         std::to_string(strategyS + strategyT - 1) + " segments, more than the max depth " +
                         std::to_string(maxDepth));
    // Large steps keep improving b; without them the image scale stays that of the start-up pool.
    if (!(largeStepProbability > 0.0f && largeStepProbability <= 1.0f))
        throw InputError("large-step probability must be in (0, 1]");
    if (integrator == IntegratorType::Mlt && bdptVariant == BdptVariant::Naive)
        throw InputError("MLT runs on the streaming BDPT schedule only (drop --bdpt-variant naive)");
    if (strategyS >= 0 && integrator != IntegratorType::Bdpt)
        throw InputError("per-strategy images exist only for --integrator bdpt");
    if (!(environmentScale >= 0.0f) || !std::isfinite(environmentScale))
        throw InputError("environment scale must be a finite non-negative number");
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (devices[i] < 0) throw InputError("device " + std::to_string(devices[i]) + " is not a device number (0, 1, ...)");
        for (std::size_t j = 0; j < i; ++j)
            if (devices[j] == devices[i]) throw InputError("device " + std::to_string(devices[i]) + " is listed twice");
    }
    if (!nextEventEstimation && integrator != IntegratorType::PathTracer)
        throw InputError(std::string("next-event estimation off is a path-tracer option; ") + toString(integrator) +
                         " connects to lights by construction");
}

float RenderOptions::connectThresholdOrDefault() const {
    return connectThreshold.value_or(integrator == IntegratorType::Mlt ? 1.0f : 0.6f);
}

class Renderer::Impl {
public:
    RenderOptions options;
    std::unique_ptr<RenderBackend> backend;
    Backend kind = Backend::Cpu;
    Film film;
    RenderStats stats;
    std::uint64_t skippedDegenerate = 0;
    std::atomic<bool> cancel{false};
    bool haveFilm = false;

    void run(RenderCall call) {
        cancel.store(false);
        call.cancel = &cancel;
        call.progress = options.progress;
        backend->render(options, call, film, stats);
        stats.skippedDegenerateTriangles = skippedDegenerate;
        haveFilm = true;
    }
};

Renderer::Renderer(Scene scene, RenderOptions options) : impl_(std::make_unique<Impl>()) {
    options.validate();
    if (!options.environmentMap.empty()) {
        Image env = readImage(options.environmentMap);
        try {
            scene.setEnvironment(std::move(env), options.environmentScale);
        } catch (const InputError& e) {
            throw InputError("environment map '" + options.environmentMap + "': " + e.what());
        }
    } else if (scene.hasSkyGradient() && options.environmentScale != 1.0f) {
        SkyGradient sky = scene.skyGradient();
        sky.nadir *= options.environmentScale;
        sky.zenith *= options.environmentScale;
        scene.setSkyGradient(sky);
    } else if (scene.hasEnvironment() && options.environmentScale != 1.0f) {
        scene.setEnvironment(scene.environment(), options.environmentScale);
    }
    scene.validate();
    impl_->skippedDegenerate = scene.skippedDegenerateTriangles();
    impl_->options = options;
    Backend kind = options.backend;
    if (kind == Backend::Auto) kind = cudaDeviceCount() > 0 ? Backend::Cuda : Backend::Cpu;
    impl_->kind = kind;
    impl_->backend = kind == Backend::Cuda ? makeCudaRenderBackend(scene, options) : makeCpuRenderBackend(scene, options);
}

Renderer::~Renderer() = default;
Renderer::Renderer(Renderer&&) noexcept = default;
Renderer& Renderer::operator=(Renderer&&) noexcept = default;

Renderer::Impl& Renderer::impl() const {
    if (!impl_) throw Error("this Renderer was moved from; use the Renderer it was moved to");
    return *impl_;
}

void Renderer::render() {
    RenderCall call;
    call.samplesPerPixel = impl().options.samplesPerPixel;
    call.timeLimitSeconds = impl().options.timeLimitSeconds;
    impl().run(call);
}

void Renderer::renderMore(int samplesPerPixel) {
    if (samplesPerPixel < 1) throw InputError("renderMore needs at least 1 sample per pixel");
    const RenderOptions& o = impl().options;
    if (std::uint64_t(o.width) * o.height * std::uint64_t(samplesPerPixel) >= (1ull << 56))
        throw InputError("too many samples in one call (width x height x spp must stay below 2^56)");
    RenderCall call;
    call.accumulate = impl().haveFilm;
    call.samplesPerPixel = samplesPerPixel;
    impl().run(call);
}

void Renderer::cancel() { impl().cancel.store(true); }
const Film& Renderer::film() const { return impl().film; }
const RenderStats& Renderer::stats() const { return impl().stats; }
Backend Renderer::backend() const { return impl().kind; }
const RenderOptions& Renderer::options() const { return impl().options; }

const char* toString(Backend backend) {
    switch (backend) {
    case Backend::Auto: return "auto";
    case Backend::Cuda: return "cuda";
    case Backend::Cpu: return "cpu";
    }
    return "?";
}

const char* toString(PtVariant variant) {
    switch (variant) {
    case PtVariant::Megakernel: return "megakernel";
    case PtVariant::PtR: return "pt-r";
    case PtVariant::Spt: return "spt";
    case PtVariant::SptR: return "spt-r";
    }
    return "?";
}

static std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

Backend parseBackend(const std::string& name) {
    std::string n = lower(name);
    if (n == "auto") return Backend::Auto;
    if (n == "cuda" || n == "gpu") return Backend::Cuda;
    if (n == "cpu") return Backend::Cpu;
    throw InputError("unknown backend '" + name + "' (expected auto, cuda or cpu)");
}

PtVariant parsePtVariant(const std::string& name) {
    std::string n = lower(name);
    for (PtVariant v : {PtVariant::Megakernel, PtVariant::PtR, PtVariant::Spt, PtVariant::SptR})
        if (n == toString(v)) return v;
    throw InputError("unknown variant '" + name + "' (expected megakernel, pt-r, spt or spt-r)");
}

const char* toString(BdptVariant variant) {
    return variant == BdptVariant::Naive ? "naive" : "streaming";
}

BdptVariant parseBdptVariant(const std::string& name) {
    std::string n = lower(name);
    for (BdptVariant v : {BdptVariant::Streaming, BdptVariant::Naive})
        if (n == toString(v)) return v;
    throw InputError("unknown BDPT variant '" + name + "' (expected streaming or naive)");
}

const char* toString(LightSampler sampler) {
    switch (sampler) {
    case LightSampler::BinarySearch: return "binary";
    case LightSampler::GuideTable: return "guide";
    case LightSampler::RadixForest: return "forest";
    case LightSampler::Alias: return "alias";
    }
    return "?";
}

LightSampler parseLightSampler(const std::string& name) {
    std::string n = lower(name);
    for (LightSampler s : {LightSampler::BinarySearch, LightSampler::GuideTable, LightSampler::RadixForest, LightSampler::Alias})
        if (n == toString(s)) return s;
    throw InputError("unknown light sampler '" + name + "' (expected binary, guide, forest or alias)");
}

const char* toString(BvhBuilder builder) {
    switch (builder) {
    case BvhBuilder::Auto: return "auto";
    case BvhBuilder::Lbvh: return "lbvh";
    case BvhBuilder::Ploc: return "ploc";
    }
    return "?";
}

BvhBuilder parseBvhBuilder(const std::string& name) {
    std::string n = lower(name);
    for (BvhBuilder b : {BvhBuilder::Auto, BvhBuilder::Lbvh, BvhBuilder::Ploc})
        if (n == toString(b)) return b;
    throw InputError("unknown BVH builder '" + name + "' (expected auto, lbvh or ploc)");
}

const char* toString(IntegratorType integrator) {
    switch (integrator) {
    case IntegratorType::PathTracer: return "pt";
    case IntegratorType::Bdpt: return "bdpt";
    case IntegratorType::Mlt: return "mlt";
    }
    return "unknown";
}

IntegratorType parseIntegrator(const std::string& name) {
    std::string n = lower(name);
    if (n == "pt") return IntegratorType::PathTracer;
    if (n == "bdpt") return IntegratorType::Bdpt;
    if (n == "mlt") return IntegratorType::Mlt;
    throw InputError("unknown integrator '" + name + "' (expected pt, bdpt or mlt)");
}

}  // namespace wavefront
