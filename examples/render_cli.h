// What wavefront-render and wavefront-render-mpi share: the command-line options, turning them into
// render options and a lit, framed scene, the progress line and the report after a render.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "wavefront/wavefront.h"

namespace wfcli {

/// The command line as given (strings are parsed later, so that every mistake gets the same
/// one-line InputError).
struct Args {
    std::string scene = "cornell-box", integrator = "pt", backend = "auto";
    std::string res = "512x512", out = "wavefront.png", lightSampler = "binary", bvhBuilder = "auto", envmap;
    std::string cameraSpec, lensSpec, up = "y", sky, devices = "all";
    float envScale = 1.0f;
    int spp = 16, maxDepth = 16, capacity = 0, threads = 0;
    double seconds = 0.0;
    float exposure = 0.0f;
    unsigned seed = 0;
    std::string filter = "box", toneMap = "clamp";
    std::string crop;  ///< --crop x0,y0,x1,y1 (empty: the whole frame)
    bool stats = false, listScenes = false, allowExternal = false, strict = false;
    bool aovs = false, aovFiles = false;
    CLI::Option* toneMapOpt = nullptr;
    CLI::Option* timeOpt = nullptr;
    CLI::Option* envScaleOpt = nullptr;
    CLI::Option* exposureOpt = nullptr;
    /// The integrators' options (the registry's flags: --variant, --large-step, ...) as given,
    /// by flag; set on the chosen integrator only, refused for another.
    std::map<std::string, std::string> integratorFlags;
    std::map<std::string, CLI::Option*> integratorFlagOptions;
};

/// Adds wavefront-render's options to `app`, bound to `args`.
void addOptions(CLI::App& app, Args& args);

/// The render options the arguments ask for, validated (no progress callback). `checkOutput`:
/// also check that --out can be written (before the render, not after it). Throws InputError.
wavefront::RenderOptions renderOptions(const Args& args, bool checkOutput);

/// The scene to render: loaded, with the camera (--camera, --lens, or one that frames the model),
/// the sky or environment, and a light; the camera, lens and sky options are checked before the
/// load, which can take seconds. `loadSeconds` receives the load time. Throws InputError.
wavefront::Scene loadScene(const Args& args, double& loadSeconds);

/// The scene file's own settings (pbrt-v4's Film resolution and file name, its Integrator's
/// maxdepth) where the command line did not give --res, --out or --max-depth. Throws InputError.
void useFileSettings(const wavefront::SceneFileSettings& file, const CLI::App& app, Args& args,
                     wavefront::RenderOptions& options);

/// The lines after a render on stderr: what was rendered, how fast, where it went, and the
/// warnings (degenerate triangles, non-finite samples, a black image, clamped values).
void printSummary(const std::string& schedule, const wavefront::RenderStats& stats, const wavefront::Image& image,
                  const std::string& out, std::uint64_t clamped, std::uint64_t replaced);

/// "spt-r" for the path tracer, "bdpt streaming" and the like otherwise.
std::string scheduleName(const wavefront::RenderOptions& options);

/// Writes the image to --out: with --aovs into one EXR with the AOV layers, and with --aov-files
/// each AOV beside it as OUT-STEM.<layer>.exr as well. Returns the values writeImage replaced.
std::uint64_t writeOutput(const Args& args, const wavefront::Image& image, const wavefront::Renderer& renderer);

/// --stats: scene, memory, per-kernel figures and the integrator's counters on stdout.
void printStats(const wavefront::RenderOptions& options, const wavefront::RenderStats& stats, double loadSeconds);

/// A throttled progress line on stderr: rewritten in place on a terminal, a line every few
/// seconds otherwise (logs).
class ProgressLine {
public:
    ProgressLine();
    void operator()(std::uint64_t done, std::uint64_t total, double seconds);
    void finish();

private:
    bool tty_ = false;
    bool printed_ = false;
    bool finalPrinted_ = false;
    double last_ = -1e9;
};

}  // namespace wfcli
