// One integrator over one exec, for the life of a film: how many slots or chains it takes (its
// capacity policy), its driver, and its statistics. The
// render backend (host/render) owns one and hands it each call; runners.h makes the one of each
// registry row (registry.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "host/integrators/registry.h"
#include "host/integrators/render_budget.h"
#include "kernels/scene/film_resolve.h"
#include "kernels/scene/scene_view.h"
#include "wavefront/error.h"
#include "wavefront/image.h"
#include "wavefront/renderer.h"

namespace wavefront {

/// What a fresh film's runner is made from, besides the exec and the options.
struct RunnerStart {
    std::uint64_t firstCall = 0;  ///< samples (MLT: mutations) the first call asks for; all a device holds when timed
    bool timed = false;           ///< the first call is time-limited
    const SceneView& scene;
    /// Values a runner keeps for the next film of the same renderer (the path tracer's launch
    /// rates), by name; they outlive the runner.
    std::map<std::string, double>& kept;
};

template <class Exec>
class IntegratorRunner {
public:
    virtual ~IntegratorRunner() = default;
    /// Renders `asked` more samples (0: as many as the budget's time limit allows) into the film;
    /// returns those rendered.
    virtual std::uint64_t render(const SceneView& scene, const FilmView& film, std::uint64_t asked,
                                 RenderBudget& budget) = 0;
    /// PT and BDPT: the next call starts at sample index `sample` instead of where the last one
    /// ended (the devices of a multi-device render take pieces of one range). MLT has no
    /// sample ranges to seek in.
    virtual void seek(std::uint64_t sample) {
        (void)sample;
        throw Error("this integrator renders no sample ranges");
    }
    /// On several devices (WorkSplit::Chains): what the devices' runners must agree on, as this
    /// device's own contribution: numbers of any length that only the runner reads (empty:
    /// nothing to share). The backend sums them over the devices (SharedStateExchange); the
    /// driver may trade them during a call through the budget as well.
    virtual std::vector<double> sharedState() { return {}; }
    /// The element-wise sum of the other devices' latest contributions (sharedState), which the
    /// runner takes into account from then on.
    virtual void absorbSharedState(const std::vector<double>& othersSummed) { (void)othersSummed; }
    /// Fills in the integrator's statistics for the film so far (the backend has set the backend
    /// name, time and kernels); `filmSamples`: the samples the film's pixels counted.
    virtual void finish(std::uint64_t filmSamples, RenderStats& stats) = 0;
    /// How the film's sums become estimates (the backend applies it to the film it copies out
    /// and to the image it resolves): each pixel's own count unless the integrator says
    /// otherwise (MLT).
    virtual FilmScale filmScale() { return FilmScale{}; }
};

namespace runner {

/// PT and BDPT sample indices stay below 2^48 (the path state keeps 48 bits of them, beside its
/// medium and depth).
constexpr std::uint64_t kSampleIndexLimit = 1ull << 48;

/// The film's window on the frame (RenderOptions::crop; none: the identity).
inline FilmWindow filmWindow(const RenderOptions& o) {
    FilmWindow w;
    w.frameWidth = o.width;
    w.frameHeight = o.height;
    if (o.crop) {
        w.x0 = o.crop->x0;
        w.y0 = o.crop->y0;
        w.cropWidth = o.crop->x1 - o.crop->x0;
        w.cropHeight = o.crop->y1 - o.crop->y0;
    }
    return w;
}

/// The film's pixels.
inline std::uint64_t filmPixels(const RenderOptions& o) { return std::uint64_t(o.filmWidth()) * std::uint64_t(o.filmHeight()); }

/// Samples (chains: mutations) per pass: sample ranges sample the film's pixels, chains the whole
/// frame (a crop drops what lands outside it).
inline std::uint64_t passSamples(const RenderOptions& o, WorkSplit split) {
    return split == WorkSplit::SampleRanges ? filmPixels(o) : std::uint64_t(o.width) * std::uint64_t(o.height);
}

/// PT and BDPT: the first work index past the limit, in whole passes. A crop's work index maps to
/// a sample index of the full frame's numbering (FilmWindow::frameSample), which must stay below
/// kSampleIndexLimit.
inline std::uint64_t sampleLimit(const RenderOptions& o) {
    return kSampleIndexLimit / (std::uint64_t(o.width) * std::uint64_t(o.height)) * filmPixels(o);
}

/// The work indices of a call that continues a film at `next`: `asked` of them, or all that
/// are left below `limit` (sampleLimit) when time-limited.
inline std::uint64_t sampleCount(std::uint64_t next, std::uint64_t asked, std::uint64_t limit, bool timed) {
    if (next >= limit || (!timed && asked > limit - next))
        throw InputError("the film is full: at most 2^48 samples go into one film");
    return timed ? limit - next : asked;
}

/// The work index a fresh PT or BDPT film starts at (RenderOptions::firstPass; validate() keeps
/// it below the limit).
inline std::uint64_t firstSample(const RenderOptions& o) { return o.firstPass * filmPixels(o); }

/// Path-state slots for a film: the requested stream capacity or the device's default, no more
/// than the first call's samples.
template <class Exec>
int streamSlots(const Exec& exec, const RenderOptions& o, std::uint64_t firstCall) {
    int capacity = o.streamCapacity > 0 ? o.streamCapacity : exec.defaultStreamCapacity();
    return int(std::min<std::uint64_t>(std::uint64_t(capacity), std::max<std::uint64_t>(firstCall, 1)));
}

/// Puts per-kernel SIMD figures (slot 2k: kernel k's occupancy, 2k + 1: per traversal step) on the
/// kernels of `stats` whose label `label(k)` names.
inline void attachSimd(RenderStats& stats, const std::vector<double>& simd, const char* (*label)(int), int kernels) {
    for (KernelStats& k : stats.kernels)
        for (int kernel = 0; kernel < kernels; ++kernel)
            if (k.label == label(kernel)) {
                k.simdOccupancy = simd[2 * kernel];
                k.simdEfficiency = simd[2 * kernel + 1];
            }
}

}  // namespace runner

}  // namespace wavefront
