// The renderer: picks a backend, uploads a scene, runs an integrator into a film.
#pragma once
#include "config.h"
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "image.h"
#include "scene.h"
#include "types.h"

namespace wavefront {

enum class Backend { Auto, Cuda, Cpu };
/// Mmlt: multiplexed MLT (Hachisuka, Kaplanyan and Dachsbacher 2014), whose samples each evaluate
/// one path length and BDPT strategy chosen by the chain; its options are MltOptions too.
/// Vcm: vertex connection and merging (Georgiev et al. 2012); Bpm and Ppm: its merging-only
/// special cases (bidirectional and progressive photon mapping); their options are VcmOptions.
enum class IntegratorType { PathTracer, Bdpt, Mlt, Mmlt, Vcm, Bpm, Ppm };

/// How the path tracer schedules its work; all variants compute the same estimator and converge
/// to the same image (van Antwerpen 2011, section 4).
enum class PtVariant {
    Megakernel,  ///< one thread runs a whole path in a loop
    PtR,         ///< persistent threads; each starts a new path as soon as its own ends (Novak 2010)
    Spt,         ///< streams compacted at write time, no regeneration (the stream drains)
    SptR,        ///< compaction plus regeneration at the end of the stream (default)
};

/// How BDPT schedules its work; both compute the same estimator (van Antwerpen 2011, section 5).
enum class BdptVariant {
    Streaming,  ///< eye and light walks compacted and regenerated, one thread per connection (default)
    Naive,      ///< one thread per sample: both walks, then every connection in turn (the baseline)
};

/// Called between passes with (samples done, samples asked for or 0 when time-limited, seconds
/// elapsed) in the current call. A callable that returns bool cancels the render by returning
/// false; one that returns nothing never does.
class ProgressCallback {
public:
    ProgressCallback() = default;
    ProgressCallback(std::nullptr_t) {}
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, ProgressCallback> &&
                                                std::is_invocable_v<F&, std::uint64_t, std::uint64_t, double>>>
    ProgressCallback(F f) {
        if constexpr (std::is_constructible_v<bool, const F&>) {  // an empty std::function or null pointer
            if (!static_cast<bool>(f)) return;
        }
        if constexpr (std::is_void_v<std::invoke_result_t<F&, std::uint64_t, std::uint64_t, double>>)
            call_ = [f = std::move(f)](std::uint64_t done, std::uint64_t total, double s) mutable {
                f(done, total, s);
                return true;
            };
        else
            call_ = [f = std::move(f)](std::uint64_t done, std::uint64_t total, double s) mutable {
                return static_cast<bool>(f(done, total, s));
            };
    }
    explicit operator bool() const { return static_cast<bool>(call_); }
    /// Reports progress; false: the caller asks the render to stop.
    bool operator()(std::uint64_t done, std::uint64_t total, double seconds) const {
        return call_ ? call_(done, total, seconds) : true;
    }

private:
    std::function<bool(std::uint64_t, std::uint64_t, double)> call_;
};

/// The path tracer's options (RenderOptions::pt).
struct PtOptions {
    /// How the work is scheduled; every variant computes the same estimator.
    PtVariant variant = PtVariant::SptR;
    /// At every non-specular vertex sample a light (next-event estimation, one shadow ray) and
    /// weight emitters and the environment found by the path against it (MIS). Off: paths find
    /// light only by hitting it, every hit weighted 1, no shadow rays (the estimator of Ray Tracing
    /// in One Weekend).
    bool nextEventEstimation = true;
};

/// What BDPT and the Metropolis integrator on it share: the connect phase and the t = 1 strategy.
struct BidirectionalOptions {
    /// Fraction of the samples that must be complete before a connect phase runs (streaming; 1:
    /// all of them). Unset: the integrator's default (connectThresholdOrDefault()).
    std::optional<float> connectThreshold;
    /// The t = 1 strategy, light-subpath vertices connected to the camera and splatted wherever
    /// they land (MLT holds a proposal's splats until the chain decides). Off, the other
    /// strategies' MIS weights leave it out, so the image converges to the same value.
    bool cameraConnections = true;
    /// Write new path vertices through a warp transpose in shared memory (CUDA); false: each
    /// thread writes its own vertex (kept to measure the difference).
    bool coalescedVertexWrites = true;
};

/// BDPT's options (RenderOptions::bdpt).
struct BdptOptions : BidirectionalOptions {
    BdptVariant variant = BdptVariant::Streaming;
    /// >= 0 renders only the MIS-weighted contributions of strategy (s, t): s light-subpath
    /// vertices, t eye-subpath vertices; the images of all strategies sum to the full image.
    int strategyS = -1, strategyT = -1;
    /// van Antwerpen's 0.6 unless set.
    float connectThresholdOrDefault() const { return connectThreshold.value_or(0.6f); }
};

/// MLT's options (RenderOptions::mlt). MLT runs on the streaming BDPT schedule.
struct MltOptions : BidirectionalOptions {
    /// Probability that a mutation is a large step (a fresh uniform sample), in (0, 1]; the large
    /// steps also keep refining the normalisation b. 0.3 (pbrt's) unless set: on door-ajar and
    /// mirror-caustic it beat 0.5 (docs/decisions.md).
    float largeStepProbability = 0.3f;
    /// The small step's largest offset of a primary sample, in (1/1024, 1/2]: Kelemen's exponential
    /// step runs log-uniformly from 1/1024 up to it, either way. 1/128 unless set: on an H100 it
    /// beat Kelemen's 1/64 on door-ajar and mirror-caustic, and larger steps lost everywhere
    /// (docs/decisions.md).
    float smallStep = 1.0f / 128.0f;
    /// Start the chains from a pool of BDPT samples (poolSize) resampled in proportion to their
    /// contribution, so that they start close to the target distribution (Veach 1997; the bias
    /// left shrinks with the pool); false: each chain starts from one uniform sample.
    bool startupResampling = true;
    /// Markov chains (each one stream slot); 0: the chain policy (MltRunner::chainCount). The
    /// same as streamCapacity, which MLT also reads; give one of the two.
    int chains = 0;
    /// Start-up pool samples, at least one per chain (up to 2^28); 0: the pool policy
    /// (mltPoolSize). A pool much larger than the chain count lets fewer chains start from the
    /// same pool sample, whose mutations are then correlated. A time-limited render ends the
    /// pool at the limit (once every chain has a sample); the policy's at a quarter of it.
    int poolSize = 0;
    /// The target function: true (the default), each pixel's share of a sample's luminance over
    /// that pixel's brightness in a short BDPT pilot (Hoberock and Hart 2010), which spreads the
    /// mutations evenly over the image instead of in proportion to its brightness: on an H100 it
    /// made MLT 1.1-1.6x as efficient on door-ajar, mirror-caustic, cornell-box and glass-caustic;
    /// false, the luminance itself (Kelemen, Veach). Both are unbiased (docs/decisions.md, "MLT's
    /// relative importance").
    bool relativeImportance = true;
    /// 1 unless set: every chain then makes its mutation in every phase and none falls behind to
    /// leave a tail of stragglers at the end (measured on an H100: docs/decisions.md).
    float connectThresholdOrDefault() const { return connectThreshold.value_or(1.0f); }
    /// Multiplexed MLT's defaults: MLT's, but a small step of 1/16. One strategy per sample needs
    /// larger moves than MLT's 1/128: on cornell-box (CPU, 40x40, 64 mutations per pixel, 16
    /// seeds) the per-pixel relative variance was 0.83 at 1/128, 0.40 at 1/32, 0.33 at 1/16, 0.35
    /// at 1/8 and 0.49 at 1/4 (docs/decisions.md, "Multiplexed MLT per path length").
    static MltOptions multiplexed() {
        MltOptions m;
        m.smallStep = 1.0f / 16.0f;
        return m;
    }
};

/// Vertex connection and merging's options (RenderOptions::vcm, and ::bpm, ::ppm for its
/// merging-only special cases). Every iteration traces `lightPaths` light subpaths, merges eye
/// vertices with their vertices within the iteration's radius, and (VCM) connects each eye
/// subpath to one of them as BDPT does.
struct VcmOptions {
    /// The first iteration's merge radius in pixels: widths of a pixel of the full frame at the
    /// distance from the camera to its target, in (0, 1000]. A radius tied to the image, not to
    /// the scene's bounds (SmallVCM's 0.003 of the bounding sphere's radius, about 0.8 pixel on
    /// its 512 x 512 boxes, was 3 units on rtiow-final, whose ground is a ball of radius 1000).
    /// The default, a quarter pixel, keeps the merges' bias below VCM's noise on door-ajar, where a
    /// pixel's radius merges light through the zero-thickness dividing wall (docs/decisions.md).
    float radius = 0.25f;
    /// The radius of iteration i (from 0) is r0 / (i + 1)^((1 - alpha) / 2) (Knaus and Zwicker
    /// 2011), alpha in (0, 1): smaller shrinks faster.
    float alpha = 0.75f;
    /// Light subpaths per iteration (the photons); 0: one per pixel of the pass, as SmallVCM.
    int lightPaths = 0;
    /// The schedule, BDPT's two: Streaming (default) walks the light and eye subpaths as
    /// compacted streams, connections and merges as launches of their own; Naive walks a whole
    /// subpath per thread (the baseline). Both compute the same estimator.
    BdptVariant variant = BdptVariant::Streaming;
};

/// A crop window (RenderOptions::crop): columns [x0, x1) and rows [y0, y1) of the full frame,
/// rows top to bottom.
struct CropWindow {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

/// What a render does. The options of one integrator live in its own block (pt, bdpt, mlt); a
/// block of an integrator other than `integrator` that differs from its defaults is refused by
/// validate(), as the command line refuses an option that does not apply.
/// The film's estimate where the backend keeps it (Renderer::deviceImage()): 3 floats per pixel,
/// linear RGB, rows top to bottom, the film's (crop window's) size.
struct DeviceImage {
    const float* rgb = nullptr;
    int width = 0, height = 0;
    /// True on the CUDA backend: rgb is device memory of the renderer's device. False on the CPU
    /// backend: rgb is host memory.
    bool onDevice = false;
    /// The host's stream the image is ordered on (RenderOptions::cudaStream); null: it was ready
    /// when deviceImage() returned.
    void* stream = nullptr;
};

/// A host copy of a DeviceImage (for a host without CUDA code of its own, and for checks): waits
/// for the device that holds it, then copies.
WAVEFRONT_API Image copyToHost(const DeviceImage& image);

struct WAVEFRONT_API RenderOptions {
    IntegratorType integrator = IntegratorType::PathTracer;
    Backend backend = Backend::Auto;
    int width = 512;
    int height = 512;
    int samplesPerPixel = 16;
    /// > 0: render until this much time has passed (then to the end of the running pass, so every
    /// pixel has the same sample count; MLT: all chains the same number of mutations)
    double timeLimitSeconds = 0.0;
    int maxDepth = 16;              ///< longest path, in segments from the camera
    int rouletteDepth = 3;          ///< Russian roulette starts at this many segments
    std::uint32_t seed = 0;
    /// PT and BDPT: the film starts at pass `firstPass` (sample index firstPass x width x height)
    /// instead of 0, so that processes rendering disjoint pass ranges of one image can add their
    /// films (wavefront-render-mpi). MLT's chains are no sample ranges: it refuses anything but 0
    /// (give each process a seed of its own instead).
    std::uint64_t firstPass = 0;
    LightSampler lightSampler = LightSampler::BinarySearch;
    BvhBuilder bvhBuilder = BvhBuilder::Auto;
    /// HDR latitude-longitude image (.exr, .pfm or .hdr) lighting the scene from infinitely far away,
    /// in place of the scene's own environment (Scene::setEnvironment); empty: the scene's, if any.
    std::string environmentMap;
    /// Multiplies the environment's radiance (the file's or the scene's).
    float environmentScale = 1.0f;
    /// Path-state slots in the stream (BDPT: sample slots; MLT: chains, one slot each); 0 picks a
    /// default that fills the device (MLT: also at most one chain per 16 mutations). The megakernel
    /// and PT+R keep no stream: their first launch takes 4 x this many samples.
    int streamCapacity = 0;
    PtOptions pt;
    BdptOptions bdpt;
    MltOptions mlt;
    /// Multiplexed MLT's options: MLT's knobs, a block of its own (MltOptions::multiplexed()).
    MltOptions mmlt = MltOptions::multiplexed();
    VcmOptions vcm;   ///< vertex connection and merging's options
    VcmOptions bpm;   ///< bidirectional photon mapping's (VCM without connections)
    VcmOptions ppm;   ///< progressive photon mapping's (merges at the first diffuse eye vertex)
    /// CUDA devices (ordinals) that render the image together; empty: every CUDA device. PT and
    /// BDPT split the samples dynamically (a slower device takes less) and give the image one
    /// device gives; MLT runs chains of its own on every device (the same image in distribution).
    /// The CPU backend reads a list of k entries as k workers sharing its threads.
    std::vector<int> devices;
    /// A host's CUDA stream (a cudaStream_t) for the renderer to work on instead of a stream of
    /// its own: the CUDA backend on one device, the calling thread's current one (set `devices`
    /// to it on a host with several). Every render, edit and deviceImage() is then ordered on
    /// it, so the host's later work on the stream sees their results without waiting on the
    /// host. The renderer never destroys it; it must outlive the Renderer. Calls still return
    /// when their work is done (render() reports its statistics), as without a stream.
    void* cudaStream = nullptr;
    /// CPU backend: threads that render (0: one per CPU the process may run on). With Backend::Auto,
    /// a count above 0 picks the CPU; with Backend::Cuda it is refused.
    int cpuThreads = 0;
    /// Render first-hit albedo, shading normal and depth beside the colour (one camera ray per
    /// pixel and pass, shared by every integrator: kernels/scene/aov.h), and for PT and BDPT the
    /// per-pixel variance of the estimate from per-pass estimates (Renderer::aovs()). The render
    /// then runs pass by pass: one extra ray per pixel and pass, and the stream drains at the end
    /// of every pass. A single device only.
    bool aovs = false;
    /// The pixel filter Renderer::image() resolves the film with (filterImage); the film and
    /// film().resolve() stay box-filtered.
    PixelFilter filter = PixelFilter::Box;
    /// Render only this window of the width x height frame: the film and image are the window's
    /// size and equal the window of the full frame's film. The camera's raster mapping and BDPT's
    /// image-plane density stay the full frame's. PT and BDPT sample only the window's pixels,
    /// under the full frame's sample numbering: PT gives the full render's pixels (the same
    /// samples; sums to float rounding), BDPT with camera connections off too; with them on,
    /// BDPT traces a light subpath per window sample and divides its t = 1 splats by their
    /// number, dropping those outside: the same image in expectation, not the same pixels. MLT
    /// runs the full frame's chains and drops what lands outside (no work saved; the same image
    /// in distribution). Renderer::image()'s filter sees only the window (its edge pixels differ
    /// from the full frame's filtered ones; the box filter does not look at neighbours).
    std::optional<CropWindow> crop;
    /// Progress reports during a render; returning false cancels it (see ProgressCallback). A
    /// render on several devices calls it from their threads, one call at a time.
    ProgressCallback progress;

    /// The film's size: the crop window's, else width x height.
    int filmWidth() const { return crop ? crop->x1 - crop->x0 : width; }
    int filmHeight() const { return crop ? crop->y1 - crop->y0 : height; }

    /// Throws InputError for zero or absurd resolution, a crop window that is empty, inverted or
    /// outside the frame, non-positive spp or depth, an integrator's
    /// own rules (its registry row), or options of another integrator than the chosen one.
    void validate() const;
};

/// One option of an integrator as the command line (`flag`) and the comparison tool's method
/// strings (`name`: "mlt:large-step=0.3") spell it.
struct IntegratorOptionInfo {
    std::string name;          ///< "large-step"
    std::string flag;          ///< "--large-step"
    std::string help;
    std::string defaultValue;  ///< in the text form setIntegratorOption reads
};

/// An integrator of the registry (docs/architecture.md, "Adding an integrator").
struct IntegratorInfo {
    IntegratorType type;
    std::string name;         ///< "pt", "bdpt", "mlt": the command line's --integrator
    std::string description;  ///< one line
    std::vector<IntegratorOptionInfo> options;
    /// True: a render is passes of independent samples, and pass ranges (RenderOptions::firstPass)
    /// of one seed add up to one image. False (MLT, MMLT): it runs Markov chains; processes that
    /// share a render take seeds of their own instead.
    bool rendersSampleRanges = true;
    std::string typeName;  ///< "PathTracer": the IntegratorType value's name (Python's enum is made from it)
};

/// Every integrator, in the registry's order.
WAVEFRONT_API const std::vector<IntegratorInfo>& integrators();
/// Sets option `name` (IntegratorOptionInfo::name) of the integrator `options.integrator` from its
/// text form. Throws InputError, one line, for an option that integrator does not have (naming
/// those that do) or a value it does not read.
WAVEFRONT_API void setIntegratorOption(RenderOptions& options, const std::string& name, const std::string& value);
/// The text form of option `name` of `options.integrator` (throws InputError as above).
WAVEFRONT_API std::string integratorOption(const RenderOptions& options, const std::string& name);

/// One device's part of a render (RenderStats::devices).
struct DeviceStats {
    std::string name;           ///< as RenderStats::backend
    std::uint64_t samples = 0;  ///< samples (MLT: mutations) it put on the film
    double seconds = 0.0;       ///< time it spent rendering them
    /// PT and BDPT: pieces of the sample ranges it rendered (its own share of each call or
    /// round, and every part it took over from a slower device); MLT: render calls.
    std::uint64_t pieces = 0;
};

/// BDPT's counters (also MLT's, which runs on it).
struct BdptStats {
    std::uint64_t connections = 0;    ///< eye/light vertex pairs connected in the connect phase
    std::uint64_t connectPhases = 0;  ///< connect phases run (streaming)
    /// SIMD occupancy of the random-walk and connect phases (0..1; negative when not measured).
    double walkSimdEfficiency = -1.0, connectSimdEfficiency = -1.0;
};

/// MLT's counters: fraction of proposals accepted, fraction that were large steps, and the
/// normalisation b (mean luminance of a uniform sample's contribution) the render ended with.
struct MltStats {
    double acceptanceRate = -1.0, largeStepFraction = -1.0, normalization = 0.0;
    std::uint64_t startupSamples = 0;  ///< BDPT samples of the chains' start-up (the pilot, the pool and the starts)
    double startupSeconds = 0.0;       ///< wall time of the start-up (in the first call)
    double mutationsPerChain = 0.0;    ///< mutations on the film over the chains
    std::uint64_t poolSamples = 0;     ///< entries of the start-up pool evaluated (part of startupSamples)
    std::uint64_t pilotSamples = 0;    ///< samples of the relative importance's pilot (part of startupSamples)
    /// Multiplexed MLT (empty for MLT), per path length 1 .. maxDepth: its chains, and its
    /// normalisation b_l (the mean I of its bootstrap samples; normalization is their sum).
    std::vector<std::uint64_t> lengthChains;
    std::vector<double> lengthNormalization;
};

/// Vertex connection and merging's counters (VCM, BPM, PPM).
struct VcmStats {
    std::uint64_t iterations = 0;    ///< iterations run (each: the light pass, the grid, the eye pass)
    std::uint64_t lightPaths = 0;    ///< light subpaths traced
    std::uint64_t merges = 0;        ///< light vertices merged with eye vertices
    std::uint64_t connections = 0;   ///< eye/light vertex pairs connected (VCM)
    std::uint64_t cachedVertices = 0;  ///< light vertices the iterations' caches held (the vertices that exist)
    double lastRadius = 0.0;         ///< the merge radius of the last iteration, in scene units
};

/// What an edit of a Renderer's scene does to its film.
enum class EditMode {
    ResetFilm,   ///< the next renderMore() starts a fresh film (render() always does)
    /// The next renderMore() adds to the film as it is: the film then averages the images before
    /// and after the edit (a progressive preview that does not go black). MLT's chains keep their
    /// states and normalisation across it.
    Accumulate,
};

/// What went into the current film, counted on the device: by render() and every renderMore()
/// since (times, samples and rays add up over those calls).
struct RenderStats {
    std::string backend;          ///< "cuda (device name)" or "cpu (N threads)"
    double seconds = 0.0;         ///< wall time of the calls
    std::uint64_t samples = 0;    ///< samples on the film (PT: paths, BDPT: samples, MLT: mutations)
    bool cancelled = false;       ///< the last call was cancelled (cancel() or the progress callback)
    std::uint64_t extensionRays = 0;
    std::uint64_t shadowRays = 0;
    std::uint64_t nonFiniteSamples = 0;  ///< NaN/inf contributions dropped before the film
    std::uint64_t skippedDegenerateTriangles = 0;  ///< zero-area triangles at upload (never hit; Scene::validate)
    std::uint64_t bytesPerSampleSlot = 0; ///< stream state per slot, film excluded
    /// The scene on the backend: triangles (the scene's own and its objects', each stored once)
    /// and spheres after validation, instances, textures and their texel bytes, and the seconds
    /// its upload took (BVH builds, light and environment distributions included; once per Renderer).
    std::uint64_t triangles = 0, spheres = 0, instances = 0, textures = 0, textureBytes = 0;
    double sceneSetupSeconds = 0.0;
    /// The BVH the renderer built: "lbvh" or "ploc" (Auto resolved; PLOC falls back to the LBVH
    /// on trees too deep for traversal).
    std::string bvhBuilder;
    /// Memory the backend holds for this renderer (device memory on CUDA, host memory on the CPU):
    /// scene, film and integrator state now, and the most at once (temporaries of the BVH build
    /// and of sorts included). Counted at every allocation and free, not estimated.
    std::uint64_t memoryBytes = 0, peakMemoryBytes = 0;
    int streamCapacity = 0;  ///< slots of the stream (0: the megakernel and PT+R, which keep none)
    /// Kernel times and launches, added over the devices.
    std::vector<KernelStats> kernels;
    /// Every device that rendered the film (one entry for a single device).
    std::vector<DeviceStats> devices;
    /// The edits made between the previous render call and this one, with what they cost: one
    /// entry per thing edited (`what`), in the order first edited; repeated edits of it merged
    /// (bytes and seconds summed, `bvh` every kind of update made, `lightsRebuilt` and `filmReset`
    /// if any, `bvhCostRatio` the last edit's, `count` the edits), so that the list stays as small
    /// as the scene however many edits are made without a render.
    std::vector<EditStats> edits;
    BdptStats bdpt;  ///< BDPT, MLT and MMLT (which run on BDPT)
    MltStats mlt;    ///< MLT and MMLT
    VcmStats vcm;    ///< VCM, BPM and PPM
    double samplesPerSecond() const { return seconds > 0 ? samples / seconds : 0.0; }
    double raysPerSecond() const { return seconds > 0 ? (extensionRays + shadowRays) / seconds : 0.0; }
};

/// The integrator's own figures of a render (RenderStats::bdpt, ::mlt), named, in the order
/// wavefront-render --stats prints them; empty for the path tracer.
WAVEFRONT_API std::vector<std::pair<std::string, double>> integratorFigures(IntegratorType integrator,
                                                                           const RenderStats& stats);

/// Renders a scene. The backend is fixed per renderer, so one process can hold a CPU and a
/// CUDA renderer side by side. Construction validates and uploads the scene and builds the BVH.
class WAVEFRONT_API Renderer {
public:
    Renderer(Scene scene, RenderOptions options);
    ~Renderer();
    Renderer(Renderer&&) noexcept;
    Renderer& operator=(Renderer&&) noexcept;

    /// Renders options().samplesPerPixel samples per pixel (or until the time limit) into a fresh
    /// film. Every call with the same options and seed gives the same image (MLT: the same in
    /// distribution). Calls on one Renderer must not overlap: render() or renderMore() while
    /// another is running (from a second thread, or from the progress callback) throws Error and
    /// leaves the running one alone; cancel() is the one call allowed meanwhile. film() and
    /// stats() are for after a call.
    void render();
    /// Adds `samplesPerPixel` more samples per pixel to the film (progressive rendering): the same
    /// image as one render() with the sum of the sample counts (MLT: its chains continue).
    void renderMore(int samplesPerPixel);
    /// Asks a render in progress (on another thread) to stop: no new samples start, those in
    /// flight finish, and the film holds what was done (stats().cancelled). Thread-safe. A cancel
    /// made while no call runs (a render thread just started may not have begun its call) stops
    /// the next call at its start; every call clears the request when it returns.
    void cancel();
    // ---- Edits between renders -------------------------------------------------------------
    // Each edit checks its input as the Scene's add* functions do and throws InputError, one
    // line, for bad input (wrong sizes, NaN, an index out of range, an edit that would leave the
    // scene without an emitter), and Error during a render call (from another thread or the
    // progress callback); either way nothing is changed. It then updates only what it names on
    // the device, synchronously, and returns what that cost. The film is reset unless `mode`
    // is EditMode::Accumulate. After an edit, render() gives the image a fresh Renderer on the
    // edited scene() gives with the same options and seed (PT and BDPT; MLT in distribution).
    // A device error during an edit (out of memory) throws Error and leaves the Renderer
    // unusable: every later call throws.

    /// Moves the camera. Uploads nothing: the camera travels with every launch.
    EditStats setCamera(const Camera& camera, EditMode mode = EditMode::ResetFilm);
    /// Replaces material `index` (Scene::setMaterial's checks). Uploads that material (and its
    /// texture indices); the light distribution is built again when the material emits, before
    /// or after (O(emissive primitives) on the device, O(primitives) on the host).
    EditStats setMaterial(int index, const Material& material, EditMode mode = EditMode::ResetFilm);
    /// Replaces texture `index` (Scene::setTexture's checks). Same size and texel format: its
    /// texels are uploaded in place; otherwise every texture is uploaded again. The light
    /// distribution is built again when an emissive material uses it as emission.
    EditStats setTexture(int index, Texture texture, EditMode mode = EditMode::ResetFilm);
    /// Replaces point, spot or directional light `index` (Scene::setLight's checks). Uploads that
    /// light and builds the light distribution again (O(lights)).
    EditStats setLight(int index, const Light& light, EditMode mode = EditMode::ResetFilm);
    /// Replaces the environment with an image times `scale` (Scene::setEnvironment's checks), as
    /// RenderOptions::environmentMap would have at construction: the image and its sampling
    /// distribution are built again (O(texels)).
    EditStats setEnvironment(Image image, float scale = 1.0f, EditMode mode = EditMode::ResetFilm);
    /// Replaces the environment with a procedural sky (Scene::setSkyGradient's checks): uploads nothing.
    EditStats setSkyGradient(const SkyGradient& sky, EditMode mode = EditMode::ResetFilm);
    /// Moves the vertices of mesh `mesh` (Scene::meshes(), the order of addMesh and of a loader's
    /// meshes) keeping its triangles (Scene::setMeshPositions' checks); `normals` optionally
    /// replace its shading normals. Uploads that mesh's vertices, then refits or rebuilds the
    /// BVH over the whole scene as `bvh` says (refit: O(primitives), no sort; rebuild: the
    /// construction's build), and builds the light distribution again when the mesh emits or
    /// the scene's bounds changed under a directional light or an environment.
    EditStats setMeshPositions(int mesh, const std::vector<glm::vec3>& positions,
                               const std::vector<glm::vec3>& normals = {}, EditMode mode = EditMode::ResetFilm,
                               BvhUpdate bvh = BvhUpdate::Auto);
    /// setMeshPositions from positions already in CUDA device memory, for a host that animates or
    /// skins on the GPU: `devicePositions` holds `vertexCount` x, y, z float triples (packed, as
    /// a float3 array; the mesh's vertex count, else InputError), in the memory of any CUDA
    /// device. No host copy: they are
    /// copied device to device (6 MB for a million triangles: microseconds), checked there as
    /// Scene::setMeshPositions checks (InputError naming the first bad vertex, nothing changed),
    /// then the BVH is updated as `bvh` says. Rules:
    /// - The CUDA backend only (InputError on the CPU, or for a pointer to host memory).
    /// - The copy runs in RenderOptions::cudaStream's order when one is given (work the host
    ///   queued there before, such as the kernel that wrote the positions, comes first);
    ///   otherwise on the renderer's own stream, so the host must have finished writing them.
    ///   They are read only during the call: the host may overwrite them once it returns.
    /// - The mesh keeps its shading normals. The host scene (scene()) catches up lazily: the
    ///   next scene() call or other edit reads the positions back from the device, once.
    EditStats setMeshPositionsOnDevice(int mesh, const float* devicePositions, std::size_t vertexCount,
                                       EditMode mode = EditMode::ResetFilm, BvhUpdate bvh = BvhUpdate::Auto);
    /// Moves instance `index` (Scene::setInstanceTransform's checks): uploads its transforms and
    /// box (a few hundred bytes) and builds the top-level BVH over the instances again (O(instances);
    /// BvhUpdate::Refit refits it instead, keeping its topology); the objects' BVHs stay. The
    /// light distribution is built again only when the scene's bounds moved under a directional light.
    EditStats setInstanceTransform(int index, const glm::mat4& objectToWorld, EditMode mode = EditMode::ResetFilm,
                                   BvhUpdate bvh = BvhUpdate::Auto);
    /// The scene as the renderer holds it, edits applied (validated: degenerate triangles
    /// dropped). The Renderer keeps this host copy for its edits, besides the device's. After
    /// setMeshPositionsOnDevice the first call reads those positions back (Error while a render
    /// is running).
    const Scene& scene() const;

    /// The film of the last render call. A render call leaves the film where the backend keeps
    /// it (the GPU's memory); the first film(), image() or aovs() after the call copies it to the
    /// host, once (tens of MB at 1080p), so a host that shows deviceImage() never pays for it.
    /// Error if it has to copy while a render is running (from another thread or a progress
    /// callback). The reference stays valid while the Renderer lives; the first call after the
    /// next render call copies that call's film into it.
    const Film& film() const;
    /// The film's estimate, filtered with options().filter (film() on the host).
    Image image() const;
    /// The film's estimate resolved where the backend keeps the film, with no copy to the host:
    /// the image film().resolve() gives, in memory the Renderer owns (DeviceImage). Rules:
    /// - It stays valid until the next deviceImage(), render, renderMore, edit or the Renderer's
    ///   destruction; each call resolves the film of the last render call again.
    /// - With RenderOptions::cudaStream it is ready in that stream's order (the call does not
    ///   wait for it); otherwise it is ready when the call returns.
    /// - One device, and the box filter only: InputError otherwise (image() applies the other
    ///   filters, on the host). Error while a render is running.
    DeviceImage deviceImage();
    /// The AOVs of the film (RenderOptions::aovs; empty images otherwise).
    AovImages aovs() const { return film().resolveAovs(); }
    const RenderStats& stats() const;
    Backend backend() const;
    const RenderOptions& options() const;

    class Impl;

private:
    Impl& impl() const;  ///< throws Error on a moved-from renderer
    std::unique_ptr<Impl> impl_;
};

WAVEFRONT_API const char* toString(Backend backend);
WAVEFRONT_API const char* toString(PtVariant variant);
WAVEFRONT_API Backend parseBackend(const std::string& name);        ///< throws InputError
WAVEFRONT_API PtVariant parsePtVariant(const std::string& name);    ///< throws InputError
WAVEFRONT_API const char* toString(IntegratorType integrator);  ///< "pt", "bdpt", "mlt" or "mmlt"
WAVEFRONT_API IntegratorType parseIntegrator(const std::string& name);  ///< throws InputError
WAVEFRONT_API const char* toString(BdptVariant variant);
WAVEFRONT_API BdptVariant parseBdptVariant(const std::string& name);  ///< throws InputError
WAVEFRONT_API const char* toString(LightSampler sampler);
WAVEFRONT_API LightSampler parseLightSampler(const std::string& name);  ///< throws InputError
WAVEFRONT_API const char* toString(BvhBuilder builder);
WAVEFRONT_API BvhBuilder parseBvhBuilder(const std::string& name);  ///< throws InputError
WAVEFRONT_API const char* toString(BvhUpdate update);
WAVEFRONT_API const char* toString(PixelFilter filter);
WAVEFRONT_API PixelFilter parsePixelFilter(const std::string& name);  ///< box, gaussian, mitchell; throws InputError
WAVEFRONT_API const char* toString(ToneMap toneMap);
WAVEFRONT_API ToneMap parseToneMap(const std::string& name);  ///< clamp, reinhard, aces; throws InputError
WAVEFRONT_API BvhUpdate parseBvhUpdate(const std::string& name);  ///< throws InputError

}  // namespace wavefront
