// What every driver loop shares: the range of work a render hands out (a pair of counters in the
// driver's device control block), the one-thread stage that moves its end, the host-side poll of
// the control block, and the loop over launches of whole paths (megakernel, PT+R, naive BDPT).
//
// A render never waits for the host to decide how much work is left: the device keeps handing out
// work until `next` reaches `end`. The host steers by moving `end` in stream order: a time limit
// ends the render at the next pass boundary (every pixel then has the same sample count), a
// cancellation ends it at once (paths in flight still finish, so the film stays consistent).
#pragma once
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "host/backends/buffer.h"
#include "kernels/core/launch.h"
#include "kernels/core/work_range.h"

namespace wavefront {

/// What a driver loop does after asking the host (the `Budget` every driver takes):
/// carry on, stop at the end of the running pass (time is up), or stop handing out work now
/// (cancelled: the progress callback said stop, or Renderer::cancel()). Shrink: another device
/// takes over the end of the work (multi-device renders of PT and BDPT; the budget says where).
enum class RunVerdict { Continue, FinishPass, Stop, Shrink };

/// A budget that never ends a render early, for internal renders (MLT's start-up, the replay check).
struct NoBudget {
    RunVerdict check(std::uint64_t) { return RunVerdict::Continue; }
    bool cancelRequested() const { return false; }
    bool timeLimited() const { return false; }
    double elapsed() const { return 0.0; }
    double timeLimit() const { return 0.0; }
    std::uint64_t shrinkTarget() const { return 0; }
    void shrunk(std::uint64_t) {}
    bool sharesState() const { return false; }
    std::vector<double> exchangeState(const std::vector<double>&) { return {}; }
};

/// Host side of a verdict: launches EndWorkStage when the verdict asks for more than what was
/// already applied (a cancellation can still follow a time limit), or ShrinkWorkStage, then
/// reads back the end it set for the budget (the device giving work up waits that long once).
class WorkSteering {
public:
    WorkSteering(unsigned long long first, unsigned long long pass) : first_(first), pass_(pass) {}
    /// Asks the budget with the work handed out so far and applies its verdict.
    template <class Exec, class Budget>
    void steer(Exec& exec, WorkRange* range, Budget& budget, std::uint64_t handedOut) {
        RunVerdict verdict = budget.check(handedOut);
        if (verdict != RunVerdict::Shrink) return apply(exec, range, verdict);
        exec.parallelFor("shrink work", 1, ShrinkWorkStage{range, budget.shrinkTarget()});
        WorkRange now;
        exec.synchronize();
        exec.download(&now, range, 1);
        budget.shrunk(now.end);
    }
    template <class Exec>
    void apply(Exec& exec, WorkRange* range, RunVerdict verdict) {
        if (verdict == RunVerdict::Shrink || int(verdict) <= int(applied_)) return;
        applied_ = verdict;
        exec.parallelFor("end work", 1, EndWorkStage{range, first_, verdict == RunVerdict::Stop ? 0ull : pass_});
    }
    RunVerdict applied() const { return applied_; }

private:
    unsigned long long first_, pass_;
    RunVerdict applied_ = RunVerdict::Continue;
};

/// Reads a driver's device control block without stalling the GPU: `post` queues an
/// asynchronous copy behind the work launched so far; `take` returns the previous post (blocking
/// only on it, which bounds how far the host runs ahead). Only posts made through this object
/// count, so a render never reads a snapshot left over from an earlier render on the same exec.
template <class Exec, class Control>
class ControlPoll {
public:
    ControlPoll(Exec& exec, const Control* control) : exec_(exec), control_(control) {}
    void post() {
        exec_.postRead(control_);
        posted_ = true;
    }
    bool take(Control& out) { return posted_ && exec_.tryRead(out, true); }

private:
    Exec& exec_;
    const Control* control_;
    bool posted_ = false;
};

/// One thread: writes a whole control block (a render's reset).
template <class Control>
struct SetControlStage {
    Control* control;
    Control value;
    WF_CPU_GPU void operator()(int) const { *control = value; }
};

/// What every streaming driver (PT, BDPT, and MLT through BDPT) keeps on its exec besides its
/// streams: its control block, which the kernels update and the host polls without stalling,
/// and its SIMD counters (kSimdSlots pairs, counted only in WAVEFRONT_STATS builds).
template <class Exec, class Control>
class StreamScheduler {
public:
    explicit StreamScheduler(Exec& exec) : exec_(exec) {
        control_ = exec_.template allocate<Control>(1);
        simd_ = exec_.template allocate<unsigned long long>(2 * kSimdSlots);
        exec_.fill(simd_.data(), 0ull, 2 * kSimdSlots);
    }
    Control* control() const { return control_.data(); }
    SimdCounters simd() const { return SimdCounters{simd_.data()}; }
    /// Starts a render: the control block takes `start`, in stream order.
    void reset(const Control& start) { exec_.parallelFor("reset control", 1, SetControlStage<Control>{control_.data(), start}); }
    /// An asynchronous reader of the control block for the render now starting.
    ControlPoll<Exec, Control> poll() const { return ControlPoll<Exec, Control>(exec_, control_.data()); }
    /// Waits for the exec and reads the control block.
    Control read() {
        exec_.synchronize();
        Control k;
        exec_.download(&k, control_.data(), 1);
        return k;
    }
    /// The SIMD counters as (active lanes, warp samples) pairs, and as fractions per slot
    /// (negative where nothing was sampled).
    std::vector<unsigned long long> simdCounts() {
        std::vector<unsigned long long> raw(2 * kSimdSlots);
        exec_.download(raw.data(), simd_.data(), raw.size());
        return raw;
    }
    std::vector<double> simdEfficiency() {
        std::vector<unsigned long long> raw = simdCounts();
        std::vector<double> r(kSimdSlots);
        for (int s = 0; s < kSimdSlots; ++s) r[s] = simdFraction(raw, {s});
        return r;
    }

private:
    Exec& exec_;
    Buffer<Control> control_;
    Buffer<unsigned long long> simd_;
};

/// Allocates a driver's per-slot buffers and counts their bytes, so that the bytes per slot it
/// reports (the paper's Table 6) and the memory limit it plans with come from the allocations
/// themselves. Without an exec it only counts (a driver's plan before it exists).
template <class Exec>
class SlotAllocator {
public:
    SlotAllocator() = default;  ///< counts only
    SlotAllocator(Exec& exec, std::size_t slots) : exec_(&exec), slots_(slots) {}
    /// `perSlot` items of T for every slot.
    template <class T>
    Buffer<T> perSlot(std::size_t perSlotCount = 1) {
        bytesPerSlot_ += perSlotCount * sizeof(T);
        return exec_ ? exec_->template allocate<T>(std::max<std::size_t>(perSlotCount * slots_, 1)) : Buffer<T>();
    }
    std::size_t bytesPerSlot() const { return bytesPerSlot_; }

private:
    Exec* exec_ = nullptr;
    std::size_t slots_ = 0;
    std::size_t bytesPerSlot_ = 0;
};

/// The stream slots a render uses: all `capacity`, or for a time-limited render at most a pass
/// (`pass` samples, at least one slot), so that what is in flight when the limit passes ends
/// within about a pass, whatever the stream's size.
template <class Budget>
int timedSlots(int capacity, std::uint64_t pass, const Budget& budget) {
    if (!budget.timeLimited() || pass == 0) return capacity;
    return int(std::min<std::uint64_t>(std::uint64_t(capacity), pass));
}

/// How many items each launch of runChunked takes. Without a target time, always `minItems`.
/// With one, enough for about `targetSeconds` at the rate the last launch ran (never fewer than
/// `minItems`): fast scenes then run a whole render call in one launch, so the tail where the GPU
/// waits for the longest paths comes once per call rather than once per launch, and slow scenes
/// still check the budget (progress, time limits, work stealing) every `targetSeconds` or so. A
/// driver keeps its sizer across render calls: the rate carries over.
struct LaunchSizer {
    std::uint64_t minItems = 1;
    double targetSeconds = 0.0;
    double itemsPerSecond = 0.0;  ///< measured over the last launch; 0: none yet

    std::uint64_t next() const {
        const double byTime = itemsPerSecond * targetSeconds;
        const std::uint64_t items = byTime < double(INT_MAX) ? std::uint64_t(byTime) : std::uint64_t(INT_MAX);
        return std::clamp<std::uint64_t>(items, std::max<std::uint64_t>(minItems, 1), INT_MAX);
    }
    void observe(std::uint64_t items, double seconds) {
        if (targetSeconds > 0.0 && seconds > 0.0) itemsPerSecond = double(items) / seconds;
    }
};

/// Runs work items [first, first + count) in launches sized by `sizer` (one thread per item: the
/// megakernel and naive BDPT; or persistent threads that share a launch's items: PT+R), asking
/// the budget between launches; a time limit ends at a pass boundary (a multiple of `pass` from
/// item 0). `withinPass`: no launch crosses a pass boundary (VCM, whose iteration is a pass).
/// `launch(offset, n)` queues items [first + offset, first + offset + n), or may return how many
/// of them it ran (fewer: the render ends there); returns the items run.
template <class Exec, class Budget, class Launch>
std::uint64_t runChunked(Exec& exec, std::uint64_t first, std::uint64_t count, LaunchSizer& sizer, std::uint64_t pass,
                         Budget& budget, const Launch& launch, bool withinPass = false) {
    std::uint64_t end = count, done = 0;
    while (done < end) {
        std::uint64_t n = std::min(sizer.next(), end - done);
        if (withinPass) n = std::min(n, pass - (first + done) % pass);
        // A timed render's launch must not outlast the limit by more than a pass: the first (no
        // rate measured yet) runs to the next pass boundary, later ones what the measured rate
        // fits into the time left, or to the next boundary. The smallest launch (4 x capacity) ran
        // ten times a 0.033 s limit on a small image.
        if (budget.timeLimited() && pass > 0) {
            const double left = std::max(0.0, budget.timeLimit() - budget.elapsed());
            const double fits = sizer.itemsPerSecond * left;
            const std::uint64_t toBoundary = pass - (first + done) % pass;
            n = std::min(n, std::max(toBoundary, fits < double(INT_MAX) ? std::uint64_t(fits) : std::uint64_t(INT_MAX)));
        }
        const auto start = std::chrono::steady_clock::now();
        std::uint64_t ran = n;
        if constexpr (std::is_void_v<decltype(launch(done, n))>) launch(done, n);
        else ran = launch(done, n);
        exec.synchronize();  // the budget must see finished work, not queued launches
        sizer.observe(ran, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        done += ran;
        if (ran < n) break;
        RunVerdict v = budget.check(done);
        if (v == RunVerdict::Stop) end = done;
        else if (v == RunVerdict::Shrink) {
            const std::uint64_t target = budget.shrinkTarget() > first ? budget.shrinkTarget() - first : 0;
            end = std::clamp(target, done, end);  // launches run whole: never below what ran
            budget.shrunk(first + end);
        } else if (v == RunVerdict::FinishPass && pass > 0) end = std::min(end, (first + done + pass - 1) / pass * pass - first);
    }
    return done;
}

/// runChunked in launches of `chunk` items.
template <class Exec, class Budget, class Launch>
std::uint64_t runChunked(Exec& exec, std::uint64_t first, std::uint64_t count, std::uint64_t chunk, std::uint64_t pass,
                         Budget& budget, const Launch& launch) {
    LaunchSizer fixed{chunk};
    return runChunked(exec, first, count, fixed, pass, budget, launch);
}

}  // namespace wavefront
