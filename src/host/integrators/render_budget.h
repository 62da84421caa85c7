// What one render call may spend, as every driver loop asks it (the `Budget` of the drivers):
// the time limit, cancellation through Renderer::cancel() or the progress callback, and the
// progress reports themselves.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>

#include "host/integrators/stream_scheduler.h"
#include "wavefront/renderer.h"

namespace wavefront {

/// One call's request: a fresh film or more samples on the existing one, how many (or for how
/// long), and how the caller can stop it.
struct RenderCall {
    bool accumulate = false;       ///< add to the existing film instead of starting a fresh one
    int samplesPerPixel = 0;       ///< used when timeLimitSeconds is 0
    double timeLimitSeconds = 0.0; ///< > 0: render whole passes until this much time has passed
    const std::atomic<bool>* cancel = nullptr;
    ProgressCallback progress;
};

class RenderBudget {
public:
    /// `total`: the samples the call asks for (0 when it is time-limited).
    RenderBudget(const RenderCall& call, std::uint64_t total) : call_(call), total_(total) {}

    /// Called by the drivers now and then with the work handed out so far in this call.
    RunVerdict check(std::uint64_t done) {
        if (stopped_) return RunVerdict::Stop;
        double t = elapsed();
        bool keepGoing = call_.progress(done, total_, t);
        if (!keepGoing || (call_.cancel && call_.cancel->load(std::memory_order_relaxed))) {
            stopped_ = true;
            return RunVerdict::Stop;
        }
        if (timeLimited() && t >= call_.timeLimitSeconds) return RunVerdict::FinishPass;
        return RunVerdict::Continue;
    }
    bool timeLimited() const { return call_.timeLimitSeconds > 0.0; }
    double timeLimit() const { return call_.timeLimitSeconds; }
    double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
    /// Whether the call was cancelled (the progress callback returned false, or cancel() was called).
    bool stopped() const { return stopped_; }
    /// The final report, once the work is done.
    void finish(std::uint64_t done) { call_.progress(done, total_, elapsed()); }

private:
    const RenderCall& call_;
    std::uint64_t total_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    bool stopped_ = false;
};

}  // namespace wavefront
