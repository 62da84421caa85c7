#include "wavefront/renderer.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "host/integrators/registry.h"
#include "host/render/render_backend.h"
#include "host/scene/index_check.h"
#include "wavefront/error.h"

namespace wavefront {

#if !defined(WAVEFRONT_HAS_CUDA)
int cudaDeviceCount() { return 0; }
std::unique_ptr<RenderBackend> makeCudaRenderBackend(const Scene&, const RenderOptions&) {
    throw InputError("the CUDA backend was requested but this build of wavefront has no CUDA support");
}
void copyFromCudaDevice(void*, const void*, std::size_t) {
    throw Error("a device image to copy, but this build of wavefront has no CUDA support");
}
#endif

namespace {

/// Merging alone cannot estimate light scattered in a medium: collisions there merge with nothing
/// (kernels/vcm/vcm.h), and BPM and PPM have no connection to reach them. Throws InputError.
void checkIntegratorRendersScene(IntegratorType integrator, const Scene& scene) {
    if (scene.hasMedia() && (integrator == IntegratorType::Bpm || integrator == IntegratorType::Ppm))
        throw InputError(std::string("the ") + (integrator == IntegratorType::Bpm ? "BPM" : "PPM") +
                         " integrator does not render participating media (it merges only at surfaces); use vcm, "
                         "bdpt, mlt or pt");
}

}  // namespace

void RenderOptions::validate() const {
    constexpr int kMaxSide = 1 << 15;
    if (width <= 0 || height <= 0 || width > kMaxSide || height > kMaxSide)
        throw InputError("resolution " + std::to_string(width) + "x" + std::to_string(height) +
                         " is out of range (each side 1.." + std::to_string(kMaxSide) + ")");
    if (crop) {
        const CropWindow& c = *crop;
        if (c.x0 < 0 || c.y0 < 0 || c.x1 > width || c.y1 > height || c.x0 >= c.x1 || c.y0 >= c.y1)
            throw InputError("crop window " + std::to_string(c.x0) + "," + std::to_string(c.y0) + "," +
                             std::to_string(c.x1) + "," + std::to_string(c.y1) +
                             " must be a non-empty pixel rectangle x0,y0,x1,y1 with 0 <= x0 < x1 <= " +
                             std::to_string(width) + " and 0 <= y0 < y1 <= " + std::to_string(height));
    }
    // Enumerations arrive from casts and bindings too: a value outside its enum is an error, not
    // a black image.
    if (int(backend) < int(Backend::Auto) || int(backend) > int(Backend::Cpu))
        throw InputError("backend " + std::to_string(int(backend)) + " is not a Backend value");
    const IntegratorSpec& spec = integratorSpec(integrator);  // throws for a value that is no integrator
    if (int(lightSampler) < int(LightSampler::BinarySearch) || int(lightSampler) > int(LightSampler::Alias))
        throw InputError("light sampler " + std::to_string(int(lightSampler)) + " is not a LightSampler value");
    if (int(bvhBuilder) < int(BvhBuilder::Auto) || int(bvhBuilder) > int(BvhBuilder::Ploc))
        throw InputError("BVH builder " + std::to_string(int(bvhBuilder)) + " is not a BvhBuilder value");
    if (!(timeLimitSeconds >= 0.0) || !std::isfinite(timeLimitSeconds))
        throw InputError("time limit must be a finite number of seconds (0: render samplesPerPixel instead)");
    if (timeLimitSeconds == 0.0 && samplesPerPixel <= 0) throw InputError("samples per pixel must be at least 1");
    if (std::uint64_t(width) * height * std::uint64_t(std::max(samplesPerPixel, 1)) >= (1ull << 48))
        throw InputError("too many samples in one render (width x height x spp must stay below 2^48)");
    // The pass range [firstPass, firstPass + spp) must stay below the sample-index limit (a
    // time-limited render needs its first pass below it).
    const std::uint64_t passLimit = (1ull << 48) / (std::uint64_t(width) * height);
    if (firstPass >= passLimit ||
        (timeLimitSeconds == 0.0 && std::uint64_t(std::max(samplesPerPixel, 1)) > passLimit - firstPass))
        throw InputError("first pass " + std::to_string(firstPass) + " is out of range (pass + spp stays at most " +
                         std::to_string(passLimit) + " at " + std::to_string(width) + "x" + std::to_string(height) + ")");
    if (maxDepth < 1 || maxDepth > 255) throw InputError("max depth must be in 1..255");
    if (rouletteDepth < 1) throw InputError("roulette depth must be at least 1");
    if (streamCapacity < 0) throw InputError("stream capacity must be positive (or 0 for the default)");
    if (!(environmentScale >= 0.0f) || !std::isfinite(environmentScale))
        throw InputError("environment scale must be a finite non-negative number");
    if (cpuThreads < 0 || cpuThreads > 4096) throw InputError("CPU threads must be in 0..4096 (0: every CPU)");
    if (cpuThreads > 0 && backend == Backend::Cuda) throw InputError("CPU threads apply to the CPU backend, not to CUDA");
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (devices[i] < 0) throw InputError("device " + std::to_string(devices[i]) + " is not a device number (0, 1, ...)");
        for (std::size_t j = 0; j < i; ++j)
            if (devices[j] == devices[i]) throw InputError("device " + std::to_string(devices[i]) + " is listed twice");
    }
    if (int(filter) < int(PixelFilter::Box) || int(filter) > int(PixelFilter::Mitchell))
        throw InputError("pixel filter " + std::to_string(int(filter)) + " is not a PixelFilter value");
    if (aovs && devices.size() > 1)
        throw InputError("AOVs are rendered on a single device (devices lists " + std::to_string(devices.size()) + ")");
    if (cudaStream && backend == Backend::Cpu) throw InputError("a CUDA stream needs the CUDA backend, not the CPU");
    if (cudaStream && devices.size() > 1)
        throw InputError("a CUDA stream belongs to one device (devices lists " + std::to_string(devices.size()) + ")");
    if (spec.validate) spec.validate(*this);
    checkOtherIntegratorsAtDefaults(*this);
}

class Renderer::Impl {
public:
    RenderOptions options;
    std::unique_ptr<RenderBackend> backend;
    Backend kind = Backend::Cpu;
    Film film;               ///< the host copy of the film, made when film() asks for it
    bool filmStale = false;  ///< the backend's film has changed since `film` was copied
    RenderStats stats;
    std::uint64_t skippedDegenerate = 0;
    std::atomic<bool> cancel{false};
    bool haveFilm = false;

    std::atomic<bool> busy{false};
    Scene scene;                         ///< the host copy, edits applied
    std::vector<EditStats> pendingEdits; ///< made since the last call (RenderStats::edits), one per `what`
    std::unordered_map<std::string, std::size_t> pendingIndex;  ///< `what` -> its entry in pendingEdits
    bool broken = false;                 ///< an edit failed on the device
    /// Meshes whose positions came from device memory (setMeshPositionsOnDevice): the host
    /// scene's are older than the device's until syncPositions() reads them back.
    std::set<int> devicePositionMeshes;

    /// Reads the device's positions of every mesh set from device memory back into the scene,
    /// but mesh `except` (an edit about to replace its positions). The caller holds the busy flag.
    void syncPositions(int except = -1) {
        for (auto it = devicePositionMeshes.begin(); it != devicePositionMeshes.end();) {
            if (*it == except) {
                ++it;
                continue;
            }
            const MeshRange& range = scene.meshes()[std::size_t(*it)];
            std::vector<glm::vec3> positions(range.vertexCount);
            backend->downloadPositions(range.firstVertex, positions.size(), positions.data());
            scene.setMeshPositions(*it, positions);
            it = devicePositionMeshes.erase(it);
        }
    }

    struct Release {
        std::atomic<bool>& flag;
        ~Release() { flag.store(false); }
    };

    /// Takes the busy flag for a call or an edit; throws Error while one is running.
    void enter(const char* what) {
        bool idle = false;
        if (!busy.compare_exchange_strong(idle, true))
            throw Error(std::string("this Renderer is already rendering: ") + what +
                        " must not overlap a render() or renderMore() call (cancel() may be called meanwhile)");
        if (broken) {
            busy.store(false);
            throw Error("an earlier edit failed on the device: this Renderer is unusable; make a new one");
        }
    }

    void run(RenderCall call) {
        // One call at a time: a second (another thread, or the progress callback) would free the
        // runner the first is using.
        enter("render() and renderMore() calls");
        Release release{busy};
        // The flag is cleared when a call ends, not when it starts: a cancel() made by the host
        // right after starting its render thread came before this line and was lost (5 of 5).
        Release clearCancel{cancel};  // destroyed before `release`: cleared while still busy
        call.cancel = &cancel;
        call.progress = options.progress;
        backend->render(options, call, stats);
        filmStale = true;
        stats.skippedDegenerateTriangles = skippedDegenerate;
        stats.edits = std::move(pendingEdits);
        pendingEdits.clear();
        pendingIndex.clear();
        haveFilm = true;
    }

    /// One edit: `change` checks and applies it to the host scene (throwing InputError before it
    /// changes anything), then the backend follows.
    template <class Change>
    EditStats edit(SceneEdit e, EditMode mode, Change change) {
        enter("an edit");
        Release release{busy};
        if (mode != EditMode::ResetFilm && mode != EditMode::Accumulate)
            throw InputError("edit mode " + std::to_string(int(mode)) + " is not an EditMode value");
        if (int(e.bvh) < int(BvhUpdate::Auto) || int(e.bvh) > int(BvhUpdate::Rebuild))
            throw InputError("BVH update " + std::to_string(int(e.bvh)) + " is not a BvhUpdate value");
        // Positions set from device memory are read back before any other edit: the host scene
        // must be whole before it changes (a later edit's checks, a failure's state).
        syncPositions(e.kind == SceneEdit::Positions ? e.index : -1);
        change(e);
        EditStats st;
        try {
            st = backend->applyEdit(scene, e, options);
        } catch (const InputError&) {
            // Device positions are checked on the device before anything changes there.
            if (!e.deviceSource) broken = true;
            throw;
        } catch (...) {
            broken = true;  // the host scene has the edit, the device perhaps part of it
            throw;
        }
        if (e.kind == SceneEdit::Positions) {
            if (e.deviceSource) devicePositionMeshes.insert(e.index);
            else devicePositionMeshes.erase(e.index);
        }
        st.filmReset = mode == EditMode::ResetFilm;
        if (st.filmReset) haveFilm = false;
        recordPending(st);
        return st;
    }

    /// Adds an edit to pendingEdits, merged into the entry of an earlier edit of the same thing:
    /// a record per edit grew without bound (4 M edits without a render kept 425 MB).
    void recordPending(const EditStats& st) {
        const auto [it, added] = pendingIndex.emplace(st.what, pendingEdits.size());
        if (added) {
            pendingEdits.push_back(st);
            return;
        }
        EditStats& merged = pendingEdits[it->second];
        const bool refit = merged.bvh.find("refit") != std::string::npos || st.bvh.find("refit") != std::string::npos;
        const bool rebuild = merged.bvh.find("rebuild") != std::string::npos || st.bvh.find("rebuild") != std::string::npos;
        merged.bvh = refit && rebuild ? "refit, rebuild" : refit ? "refit" : rebuild ? "rebuild" : "none";
        merged.bytesUploaded += st.bytesUploaded;
        merged.bvhCostRatio = st.bvhCostRatio;
        merged.lightsRebuilt = merged.lightsRebuilt || st.lightsRebuilt;
        merged.filmReset = merged.filmReset || st.filmReset;
        merged.seconds += st.seconds;
        merged.bvhSeconds += st.bvhSeconds;
        merged.count += st.count;
    }
};

EditStats Renderer::setCamera(const Camera& camera, EditMode mode) {
    Impl& r = impl();
    return r.edit(SceneEdit{SceneEdit::Camera}, mode, [&](SceneEdit&) {
        Scene::checkCamera(camera);
        r.scene.setCamera(camera);
    });
}

EditStats Renderer::setMaterial(int index, const Material& material, EditMode mode) {
    Impl& r = impl();
    return r.edit(SceneEdit{SceneEdit::Material, index}, mode, [&](SceneEdit& e) {
        checkIndex(index, r.scene.materials().size(), "material");
        const Material old = r.scene.materials()[std::size_t(index)];
        r.scene.setMaterial(index, material);
        if (!r.scene.hasEmitter()) {
            r.scene.setMaterial(index, old);
            throw InputError("material " + std::to_string(index) +
                             ": without its emission the scene would have no emitter, light or environment");
        }
        try {
            checkIntegratorRendersScene(r.options.integrator, r.scene);  // an interface brings media
        } catch (const InputError& err) {
            r.scene.setMaterial(index, old);
            throw InputError("material " + std::to_string(index) + ": " + err.what());
        }
        e.emissionChanged = old.isEmissive() || material.isEmissive();
    });
}

EditStats Renderer::setTexture(int index, Texture texture, EditMode mode) {
    Impl& r = impl();
    return r.edit(SceneEdit{SceneEdit::Texture, index}, mode,
                  [&](SceneEdit&) { r.scene.setTexture(index, std::move(texture)); });
}

EditStats Renderer::setLight(int index, const Light& light, EditMode mode) {
    Impl& r = impl();
    return r.edit(SceneEdit{SceneEdit::Light, index}, mode, [&](SceneEdit&) { r.scene.setLight(index, light); });
}

EditStats Renderer::setEnvironment(Image image, float scale, EditMode mode) {
    Impl& r = impl();
    return r.edit(SceneEdit{SceneEdit::Environment}, mode,
                  [&](SceneEdit&) { r.scene.setEnvironment(std::move(image), scale); });
}

EditStats Renderer::setSkyGradient(const SkyGradient& sky, EditMode mode) {
    Impl& r = impl();
    return r.edit(SceneEdit{SceneEdit::Environment}, mode, [&](SceneEdit&) { r.scene.setSkyGradient(sky); });
}

EditStats Renderer::setMeshPositions(int mesh, const std::vector<glm::vec3>& positions,
                                     const std::vector<glm::vec3>& normals, EditMode mode, BvhUpdate bvh) {
    Impl& r = impl();
    SceneEdit e{SceneEdit::Positions, mesh};
    e.normals = !normals.empty();
    e.bvh = bvh;
    return r.edit(e, mode, [&](SceneEdit&) { r.scene.setMeshPositions(mesh, positions, normals); });
}

EditStats Renderer::setMeshPositionsOnDevice(int mesh, const float* devicePositions, std::size_t vertexCount,
                                             EditMode mode, BvhUpdate bvh) {
    Impl& r = impl();
    if (r.kind != Backend::Cuda)
        throw InputError("setMeshPositionsOnDevice needs the CUDA backend (this renderer runs on the CPU): "
                         "setMeshPositions takes host positions");
    if (!devicePositions) throw InputError("setMeshPositionsOnDevice: the device positions are a null pointer");
    r.scene.checkMeshPositions(mesh, nullptr, vertexCount);  // the mesh and the count; the values on the device
    SceneEdit e{SceneEdit::Positions, mesh};
    e.bvh = bvh;
    e.deviceSource = reinterpret_cast<const glm::vec3*>(devicePositions);
    return r.edit(e, mode, [](SceneEdit&) {});  // the host scene follows lazily (syncPositions)
}

EditStats Renderer::setInstanceTransform(int index, const glm::mat4& objectToWorld, EditMode mode, BvhUpdate bvh) {
    Impl& r = impl();
    SceneEdit e{SceneEdit::Instance, index};
    e.bvh = bvh;
    return r.edit(e, mode, [&](SceneEdit&) { r.scene.setInstanceTransform(index, objectToWorld); });
}

const Scene& Renderer::scene() const {
    Impl& r = impl();
    if (!r.devicePositionMeshes.empty()) {
        r.enter("scene() with positions set on the device");
        Impl::Release release{r.busy};
        r.syncPositions();
    }
    return r.scene;
}

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
    checkIntegratorRendersScene(options.integrator, scene);
    impl_->skippedDegenerate = scene.skippedDegenerateTriangles();
    impl_->options = options;
    Backend kind = options.backend;
    if (kind == Backend::Auto) kind = cudaDeviceCount() > 0 && options.cpuThreads == 0 ? Backend::Cuda : Backend::Cpu;
    if (options.cudaStream && kind != Backend::Cuda)
        throw InputError("a CUDA stream was given but the renderer runs on the CPU (no CUDA device)");
    impl_->kind = kind;
    impl_->backend = kind == Backend::Cuda ? makeCudaRenderBackend(scene, options) : makeCpuRenderBackend(scene, options);
    impl_->scene = std::move(scene);
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
    if (std::uint64_t(o.width) * o.height * std::uint64_t(samplesPerPixel) >= (1ull << 48))
        throw InputError("too many samples in one call (width x height x spp must stay below 2^48)");
    RenderCall call;
    call.accumulate = impl().haveFilm;
    call.samplesPerPixel = samplesPerPixel;
    impl().run(call);
}

void Renderer::cancel() { impl().cancel.store(true); }
const Film& Renderer::film() const {
    Impl& r = impl();
    if (r.filmStale) {
        r.enter("film(), image() and aovs()");
        Impl::Release release{r.busy};
        r.backend->downloadFilm(r.options, r.film);
        r.filmStale = false;
    }
    return r.film;
}
Image Renderer::image() const { return filterImage(film().resolve(), impl().options.filter); }
Image copyToHost(const DeviceImage& image) {
    if (!image.rgb || image.width <= 0 || image.height <= 0) throw InputError("copyToHost: an empty device image");
    Image out(image.width, image.height);
    const std::size_t bytes = out.rgb.size() * sizeof(float);
    if (image.onDevice) copyFromCudaDevice(out.rgb.data(), image.rgb, bytes);
    else std::copy(image.rgb, image.rgb + out.rgb.size(), out.rgb.begin());
    return out;
}

DeviceImage Renderer::deviceImage() {
    Impl& r = impl();
    if (r.options.filter != PixelFilter::Box)
        throw InputError("deviceImage() resolves the box filter only; image() applies the " +
                         std::string(toString(r.options.filter)) + " filter");
    r.enter("deviceImage()");
    Impl::Release release{r.busy};
    return r.backend->resolveOnDevice(r.options);
}
const RenderStats& Renderer::stats() const { return impl().stats; }
Backend Renderer::backend() const { return impl().kind; }
const RenderOptions& Renderer::options() const { return impl().options; }

namespace {

/// An enumeration's names: the first entry of a value is its name, later ones are accepted
/// aliases ("gpu" for cuda).
template <class E>
struct EnumName {
    E value;
    const char* name;
};

template <class E, std::size_t N>
const char* nameOf(E value, const EnumName<E> (&names)[N]) {
    for (const EnumName<E>& n : names)
        if (n.value == value) return n.name;
    return "?";
}

/// Case-insensitive; throws InputError "unknown <what> 'x' (expected a, b or c)".
template <class E, std::size_t N>
E parseName(const std::string& text, const EnumName<E> (&names)[N], const char* what) {
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    for (const EnumName<E>& n : names)
        if (lower == n.name) return n.value;
    std::vector<const char*> expected;
    for (const EnumName<E>& n : names)
        if (nameOf(n.value, names) == n.name) expected.push_back(n.name);
    std::string list;
    for (std::size_t i = 0; i < expected.size(); ++i)
        list += std::string(i == 0 ? "" : i + 1 == expected.size() ? " or " : ", ") + expected[i];
    throw InputError(std::string("unknown ") + what + " '" + text + "' (expected " + list + ")");
}

constexpr EnumName<Backend> kBackendNames[] = {{Backend::Auto, "auto"}, {Backend::Cuda, "cuda"}, {Backend::Cpu, "cpu"},
                                               {Backend::Cuda, "gpu"}};
constexpr EnumName<PtVariant> kPtVariantNames[] = {{PtVariant::Megakernel, "megakernel"}, {PtVariant::PtR, "pt-r"},
                                                   {PtVariant::Spt, "spt"}, {PtVariant::SptR, "spt-r"}};
constexpr EnumName<BdptVariant> kBdptVariantNames[] = {{BdptVariant::Streaming, "streaming"}, {BdptVariant::Naive, "naive"}};
constexpr EnumName<LightSampler> kLightSamplerNames[] = {{LightSampler::BinarySearch, "binary"},
                                                         {LightSampler::GuideTable, "guide"},
                                                         {LightSampler::RadixForest, "forest"},
                                                         {LightSampler::Alias, "alias"}};
constexpr EnumName<BvhUpdate> kBvhUpdateNames[] = {{BvhUpdate::Auto, "auto"}, {BvhUpdate::Refit, "refit"},
                                                   {BvhUpdate::Rebuild, "rebuild"}};
constexpr EnumName<PixelFilter> kPixelFilterNames[] = {
    {PixelFilter::Box, "box"}, {PixelFilter::Gaussian, "gaussian"}, {PixelFilter::Mitchell, "mitchell"}};
constexpr EnumName<ToneMap> kToneMapNames[] = {{ToneMap::Clamp, "clamp"}, {ToneMap::Reinhard, "reinhard"}, {ToneMap::Aces, "aces"}};
constexpr EnumName<BvhBuilder> kBvhBuilderNames[] = {{BvhBuilder::Auto, "auto"}, {BvhBuilder::Lbvh, "lbvh"},
                                                     {BvhBuilder::Ploc, "ploc"}};

}  // namespace

const char* toString(Backend v) { return nameOf(v, kBackendNames); }
Backend parseBackend(const std::string& name) { return parseName(name, kBackendNames, "backend"); }
const char* toString(PtVariant v) { return nameOf(v, kPtVariantNames); }
PtVariant parsePtVariant(const std::string& name) { return parseName(name, kPtVariantNames, "variant"); }
const char* toString(BdptVariant v) { return nameOf(v, kBdptVariantNames); }
BdptVariant parseBdptVariant(const std::string& name) { return parseName(name, kBdptVariantNames, "BDPT variant"); }
const char* toString(LightSampler v) { return nameOf(v, kLightSamplerNames); }
LightSampler parseLightSampler(const std::string& name) { return parseName(name, kLightSamplerNames, "light sampler"); }
const char* toString(BvhBuilder v) { return nameOf(v, kBvhBuilderNames); }
BvhBuilder parseBvhBuilder(const std::string& name) { return parseName(name, kBvhBuilderNames, "BVH builder"); }
const char* toString(PixelFilter v) { return nameOf(v, kPixelFilterNames); }
PixelFilter parsePixelFilter(const std::string& name) { return parseName(name, kPixelFilterNames, "pixel filter"); }
const char* toString(ToneMap v) { return nameOf(v, kToneMapNames); }
ToneMap parseToneMap(const std::string& name) { return parseName(name, kToneMapNames, "tone map"); }
const char* toString(BvhUpdate v) { return nameOf(v, kBvhUpdateNames); }
BvhUpdate parseBvhUpdate(const std::string& name) { return parseName(name, kBvhUpdateNames, "BVH update"); }

// Integrators by their registry names.
const char* toString(IntegratorType integrator) {
    for (const IntegratorSpec& s : integratorSpecs())
        if (s.type == integrator) return s.name;
    return "unknown";
}

IntegratorType parseIntegrator(const std::string& name) {
    std::string lower = name, list;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    const std::vector<IntegratorSpec>& specs = integratorSpecs();
    for (std::size_t i = 0; i < specs.size(); ++i) {
        if (lower == specs[i].name) return specs[i].type;
        list += std::string(i == 0 ? "" : i + 1 == specs.size() ? " or " : ", ") + specs[i].name;
    }
    throw InputError("unknown integrator '" + name + "' (expected " + list + ")");
}

}  // namespace wavefront
