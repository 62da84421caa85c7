// The range of work a streaming render hands out, kept in a driver's device control block, and
// the one-thread stages through which the host moves its end (host/integrators/stream_scheduler.h
// says when).
#pragma once
#include "kernels/core/device.h"

namespace wavefront {

/// Work indices [next, end) a render hands out (samples for PT and BDPT, mutations for MLT).
struct WorkRange {
    unsigned long long next;
    unsigned long long end;
};

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

/// One thread: moves the end of a render's work range back to `end`, or to what has been handed
/// out when that is further (another device renders the rest: host/render/work_splitter.h).
struct ShrinkWorkStage {
    WorkRange* range;
    unsigned long long end;
    WF_CPU_GPU void operator()(int) const {
        unsigned long long handedOut = range->next < range->end ? range->next : range->end;
        unsigned long long target = end > handedOut ? end : handedOut;
        if (target < range->end) range->end = target;
    }
};

/// One thread: sets the end of a render's work range (MLT moves it both ways).
struct SetEndStage {
    WorkRange* range;
    unsigned long long end;
    WF_CPU_GPU void operator()(int) const { range->end = end; }
};

}  // namespace wavefront
