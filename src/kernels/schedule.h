// What every driver loop shares: the range of work a render hands out (a pair of counters in the
// driver's device control block), the one-thread stage that moves its end, the host-side poll of
// the control block, and the loop over fixed-size launches (megakernel, naive BDPT).
//
// A render never waits for the host to decide how much work is left: the device keeps handing out
// work until `next` reaches `end`. The host steers by moving `end` in stream order: a time limit
// ends the render at the next pass boundary (every pixel then has the same sample count), a
// cancellation ends it at once (paths in flight still finish, so the film stays consistent).
#pragma once
#include <algorithm>
#include <cstdint>

#include "wavefront/config.h"

namespace wavefront {

/// Work indices [next, end) a render hands out (samples for PT and BDPT, mutations for MLT).
struct WorkRange {
    unsigned long long next;
    unsigned long long end;
};

/// What a driver loop does after asking the host (the `Budget` every driver takes):
/// carry on, stop at the end of the running pass (time is up), or stop handing out work now
/// (cancelled: the progress callback said stop, or Renderer::cancel()).
enum class RunVerdict { Continue, FinishPass, Stop };

/// One thread: moves the end of a render's work range forward to `first + k * pass`, the first
/// pass boundary at or after what has been handed out (pass 0: to what has been handed out).
/// Never moves the end back up.
struct EndWorkStage {
    WorkRange* range;
    unsigned long long first;
    unsigned long long pass;
    WF_CPU_GPU void operator()(int) const {
        unsigned long long handedOut = range->next < range->end ? range->next : range->end;
        unsigned long long end = handedOut;
        if (pass > 0 && handedOut > first) end = first + (handedOut - first + pass - 1) / pass * pass;
        if (end < range->end) range->end = end;
    }
};

/// One thread: sets the end of a render's work range (MLT moves it both ways).
struct SetEndStage {
    WorkRange* range;
    unsigned long long end;
    WF_CPU_GPU void operator()(int) const { range->end = end; }
};

/// A budget that never ends a render early, for internal renders (MLT's start-up, the replay check).
struct NoBudget {
    RunVerdict check(std::uint64_t) { return RunVerdict::Continue; }
    bool timeLimited() const { return false; }
    double elapsed() const { return 0.0; }
    double timeLimit() const { return 0.0; }
};

/// Host side of a verdict: launches EndWorkStage when the verdict asks for more than what was
/// already applied (a cancellation can still follow a time limit).
class WorkSteering {
public:
    WorkSteering(unsigned long long first, unsigned long long pass) : first_(first), pass_(pass) {}
    template <class Exec>
    void apply(Exec& exec, WorkRange* range, RunVerdict verdict) {
        if (int(verdict) <= int(applied_)) return;
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

/// Runs `count` work items in launches of at most `chunk` (one thread per item: the megakernel
/// and naive BDPT), asking the budget between launches. `launch(offset, n)` queues items
/// [offset, offset + n); returns the items run.
template <class Exec, class Budget, class Launch>
std::uint64_t runChunked(Exec& exec, std::uint64_t count, std::uint64_t chunk, std::uint64_t pass, Budget& budget,
                         const Launch& launch) {
    std::uint64_t end = count, done = 0;
    chunk = std::max<std::uint64_t>(chunk, 1);
    while (done < end) {
        std::uint64_t n = std::min(chunk, end - done);
        launch(done, n);
        exec.synchronize();  // the budget must see finished work, not queued launches
        done += n;
        RunVerdict v = budget.check(done);
        if (v == RunVerdict::Stop) end = done;
        else if (v == RunVerdict::FinishPass && pass > 0) end = std::min(end, (done + pass - 1) / pass * pass);
    }
    return done;
}

}  // namespace wavefront
