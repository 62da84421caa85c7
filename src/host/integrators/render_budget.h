// What one render call may spend, as every driver loop asks it (the `Budget` of the drivers):
// the time limit, cancellation through Renderer::cancel() or the progress callback, and the
// progress reports themselves.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "host/integrators/stream_scheduler.h"
#include "wavefront/renderer.h"

namespace wavefront {

/// What the devices of one multi-device render share (host/render/work_splitter.h): each device's
/// budget reports there how far its piece of the work has got and learns whether to give part of
/// it up to a device that has run out, or to stop.
class SharedWork {
public:
    virtual ~SharedWork() = default;
    /// Device `device` has handed out `done` samples of its current piece. Shrink: another device
    /// takes the samples from `shrinkTo` on; the driver moves its end there (or to what it has
    /// handed out, if further) and calls shrunk() with the end it set.
    virtual RunVerdict report(int device, std::uint64_t done, std::uint64_t& shrinkTo) = 0;
    virtual void shrunk(int device, std::uint64_t end) = 0;
};

/// What the runners of one multi-device render share (IntegratorRunner::sharedState): each device
/// posts its own contribution now and then while it runs and takes the sum of the others' latest,
/// so that every device sees all of them without any device waiting for another. The numbers are
/// the runner's alone; a post may have any length.
class SharedStateExchange {
public:
    /// Forgets every post (a fresh film: the devices' runners start again).
    void reset(int devices) {
        std::lock_guard<std::mutex> lock(mutex_);
        posted_.assign(std::size_t(devices), {});
    }
    /// Posts device `device`'s own contribution and returns the element-wise sum of the other
    /// devices' latest posts, as long as the longest post (its own included; a shorter post
    /// counts 0 beyond its end, as does a device that has not posted).
    std::vector<double> exchange(int device, const std::vector<double>& own) {
        std::lock_guard<std::mutex> lock(mutex_);
        posted_.at(std::size_t(device)) = own;
        std::size_t length = 0;
        for (const std::vector<double>& post : posted_) length = std::max(length, post.size());
        std::vector<double> others(length, 0.0);
        for (std::size_t e = 0; e < posted_.size(); ++e)
            if (e != std::size_t(device))
                for (std::size_t i = 0; i < posted_[e].size(); ++i) others[i] += posted_[e][i];
        return others;
    }

private:
    std::mutex mutex_;
    std::vector<std::vector<double>> posted_;
};

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
    /// One device's budget in a multi-device render: progress, stopping and the split of the
    /// work go through `shared`, and the runners' shared state through `state` (null: none).
    RenderBudget(const RenderCall& call, std::uint64_t total, SharedWork& shared, int device,
                 SharedStateExchange* state = nullptr)
        : call_(call), total_(total), shared_(&shared), device_(device), state_(state) {}

    /// Called by the drivers now and then with the work handed out so far in this call (or piece).
    RunVerdict check(std::uint64_t done) {
        if (stopped_) return RunVerdict::Stop;
        double t = elapsed();
        RunVerdict shared = shared_ ? shared_->report(device_, done, shrinkTo_) : RunVerdict::Continue;
        if (shared == RunVerdict::Shrink) return shared;
        bool keepGoing = shared_ ? shared != RunVerdict::Stop : call_.progress(done, total_, t);
        if (!keepGoing || (call_.cancel && call_.cancel->load(std::memory_order_relaxed))) {
            stopped_ = true;
            return RunVerdict::Stop;
        }
        if (timeLimited() && t >= call_.timeLimitSeconds) return RunVerdict::FinishPass;
        return RunVerdict::Continue;
    }
    /// Whether Renderer::cancel() has been called, without a progress report or a word with the
    /// other devices: for work that no sample count measures (MLT's chain start-up).
    bool cancelRequested() {
        if (!stopped_ && call_.cancel && call_.cancel->load(std::memory_order_relaxed)) stopped_ = true;
        return stopped_;
    }
    bool timeLimited() const { return call_.timeLimitSeconds > 0.0; }
    double timeLimit() const { return call_.timeLimitSeconds; }
    double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
    /// Whether the call was cancelled (the progress callback returned false, or cancel() was called).
    bool stopped() const { return stopped_; }
    /// The final report, once the work is done (a device's budget leaves it to the splitter).
    void finish(std::uint64_t done) {
        if (!shared_) call_.progress(done, total_, elapsed());
    }
    /// After check() said Shrink: where the work should now end, and (from the driver) where it does.
    std::uint64_t shrinkTarget() const { return shrinkTo_; }
    void shrunk(std::uint64_t end) { shared_->shrunk(device_, end); }
    /// Whether the runner shares state with the runners of other devices during the call
    /// (SharedStateExchange).
    bool sharesState() const { return state_ != nullptr; }
    /// Posts this device's own contribution and returns the sum of the other devices' latest
    /// (SharedStateExchange::exchange); empty when nothing is shared.
    std::vector<double> exchangeState(const std::vector<double>& own) {
        return state_ ? state_->exchange(device_, own) : std::vector<double>{};
    }

private:
    const RenderCall& call_;
    std::uint64_t total_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    bool stopped_ = false;
    SharedWork* shared_ = nullptr;
    int device_ = 0;
    std::uint64_t shrinkTo_ = 0;
    SharedStateExchange* state_ = nullptr;
};

}  // namespace wavefront
