// Path-tracer drivers: the four scheduling variants of van Antwerpen (2011), section 4, over one
// estimator (path_tracer.h). Templates over the exec type; instantiated for CpuExec and CudaExec.
#pragma once
#include <algorithm>
#include <vector>

#include "host/backends/buffer.h"
#include "wavefront/error.h"
#include "wavefront/renderer.h"
#include "host/integrators/stream_scheduler.h"
#include "kernels/pt/pt_stages.h"

namespace wavefront {

/// Runs the path tracer over a range of global sample indices.
template <class Exec>
class PathTracerDriver {
public:
    /// `launchRate`: where the rate of whole-path launches is kept between drivers (LaunchSizer;
    /// the backend's, which outlives the runner of each film); null: this driver's own.
    PathTracerDriver(Exec& exec, PtVariant variant, int capacity, double* launchRate = nullptr)
        : exec_(exec), variant_(variant), capacity_(capacity), scheduler_(exec),
          launchRate_(launchRate ? launchRate : &wholePathLaunches_.itemsPerSecond) {
        SlotAllocator<Exec> slots(exec_, std::size_t(capacity_));
        streams_ = allocateStreams(slots, variant_);
        bytesPerSlot_ = slots.bytesPerSlot();
    }

    /// Renders samples [first, first + count) into the film, asking `budget.check(done)` now and
    /// then (done: samples handed out so far); the budget can end the render early at a pass
    /// boundary of `params.numPixels` samples or at once. Returns the samples rendered.
    template <class Budget>
    std::uint64_t render(const SceneView& scene, const PtParams& params, const FilmView& film, std::uint64_t first,
                         std::uint64_t count, Budget& budget) {
        pt::Common c{scene, params, film, scheduler_.control(), scheduler_.simd()};
        StreamControl start{};
        start.work = WorkRange{first, first + count};
        scheduler_.reset(start);
        WorkSteering steering(0, std::uint64_t(params.numPixels));  // passes from the film's first sample
        std::uint64_t chunked = 0;
        wholePathLaunches_.itemsPerSecond = *launchRate_;
        withMaterialSet(scene, [&](auto materials) {
            withNextEventSetting(params, [&](auto nextEvent) {
                using M = decltype(materials);
                constexpr bool kNee = decltype(nextEvent)::value;
                switch (variant_) {
                case PtVariant::Megakernel: chunked = renderMegakernel<M, kNee>(c, first, count, budget); break;
                case PtVariant::PtR: chunked = renderPersistent<M, kNee>(c, first, count, budget); break;
                case PtVariant::Spt: renderStreaming<M, kNee>(c, true, first, steering, budget); break;
                case PtVariant::SptR: renderStreaming<M, kNee>(c, false, first, steering, budget); break;
                }
            });
        });
        *launchRate_ = wholePathLaunches_.itemsPerSecond;
        StreamControl k = scheduler_.read();
        extensionRays_ += k.extensionRays;
        shadowRays_ += k.shadowRays;
        return wholePaths(variant_) ? chunked : std::min(k.work.next, k.work.end) - first;
    }

    std::uint64_t extensionRays() const { return extensionRays_; }
    std::uint64_t shadowRays() const { return shadowRays_; }
    /// Per counter slot: average active-lane fraction (negative where nothing was sampled); slot
    /// 2k is kernel k's occupancy, 2k + 1 its per-step figure.
    std::vector<double> simdEfficiency() { return scheduler_.simdEfficiency(); }
    int capacity() const { return capacity_; }
    /// Bytes of stream state per sample slot, as allocated (film excluded; the paper's Table 6;
    /// 0 for the megakernel and PT+R, whose state lives in registers).
    std::size_t bytesPerSlot() const { return bytesPerSlot_; }

private:
    /// The schedules whose threads run whole paths, with no stream between kernels: launched in
    /// chunks of samples (runChunked).
    static bool wholePaths(PtVariant v) { return v == PtVariant::Megakernel || v == PtVariant::PtR; }

    struct Streams {
        Buffer<Float4> pathWords[2];  ///< ping-pong path streams
        Buffer<Float4> shadowWords;
        Buffer<Hit> hits;
    };
    static Streams allocateStreams(SlotAllocator<Exec>& slots, PtVariant variant) {
        Streams s;
        if (wholePaths(variant)) return s;
        for (int b = 0; b < 2; ++b) s.pathWords[b] = slots.template perSlot<Float4>(SoaView<PathState>::kWords);
        s.shadowWords = slots.template perSlot<Float4>(SoaView<ShadowRay>::kWords);
        s.hits = slots.template perSlot<Hit>();
        return s;
    }

    SoaView<PathState> paths(int b) const { return SoaView<PathState>{streams_.pathWords[b].data(), capacity_}; }
    SoaView<ShadowRay> shadow() const { return SoaView<ShadowRay>{streams_.shadowWords.data(), capacity_}; }

    /// Polls the control block every few iterations without stalling the GPU (ControlPoll), asks
    /// the budget and steers the work range; true once the render has finished. Once a snapshot
    /// shows every sample handed out (`exhausted`: the range only ever shrinks), paths only end:
    /// its counts bound the grids (`live`), so the drain at the end of a render launches few
    /// blocks, and no generate kernel runs.
    template <class Budget>
    bool finished(int iteration, int pollEvery, ControlPoll<Exec, StreamControl>& poll, std::uint64_t first,
                  WorkSteering& steering, Budget& budget, int& live, bool& exhausted) {
        if (iteration % pollEvery != pollEvery - 1) return false;
        StreamControl k;
        bool have = poll.take(k);
        poll.post();
        if (!have) return false;
        if (k.done) return true;
        if (k.work.next >= k.work.end) {
            exhausted = true;
            live = std::min(live, std::max(k.pathCount[0], k.pathCount[1]));
        }
        steering.steer(exec_, &scheduler_.control()->work, budget, std::min(k.work.next, k.work.end) - first);
        return false;
    }

    /// Measured on the H100 against 16 (results/h100.md): rtiow-final spt-r -1.8% time with NEE
    /// off, -2.2% with NEE on; mesh-1m and cornell-spheres +1.4%, the others within 0.3%.
    static constexpr int kDrainFraction = 2;

    template <class Materials, bool kNee, class Budget>
    void renderStreaming(const pt::Common& c, bool onlyWhenEmpty, std::uint64_t first, WorkSteering& steering,
                         Budget& budget) {
        // A timed render keeps at most a pass in flight: a stream many passes long (a small image)
        // was filled before the first look at the clock (0.31 s for 0.033 s at 48 x 36 on a CPU).
        const int slots = timedSlots(capacity_, std::uint64_t(c.params.numPixels), budget);
        // Every fourth iteration's snapshot (the GPU runs on meanwhile), but every one's in a timed
        // render where four iterations are long: on the CPU (synchronous anyway; 8 iterations of
        // 256 x 256 were 0.4 s) or when the stream is a pass or less (a small image).
        const int pollEvery = budget.timeLimited() && (!Exec::kIsGpu || slots < capacity_) ? 1 : 4;
        int cur = 0, bound = slots;
        bool exhausted = false;
        StreamControl* k = scheduler_.control();
        ControlPoll<Exec, StreamControl> poll = scheduler_.poll();
        for (int iteration = 0;; ++iteration) {
            // In the drain every sample is handed out: a generate launch would find nothing to start.
            if (!exhausted) exec_.parallelFor("generate", bound, pt::RegenerateStage{c, paths(cur), cur, onlyWhenEmpty});
            exec_.parallelFor("bookkeeping", 1, pt::BookkeepingStage{c, cur, slots, onlyWhenEmpty});
            ItemCount live{bound, &k->pathCount[cur]};
            exec_.parallelFor("extend", live, pt::ExtendStage<Materials>{c, paths(cur), streams_.hits.data()});
            pt::ShadeStage<Materials, kNee> shade{c, paths(cur), streams_.hits.data(), paths(cur ^ 1), shadow(), {&k->pathCount[cur ^ 1], &k->shadowCount}};
            exec_.compactingFor("shade", live, shade);
            // Without next-event estimation the connection stream stays empty: no launch (an empty
            // one cost 6.5 us, 5% of an rtiow-final frame with NEE off).
            if (c.params.nextEventEstimation)
                exec_.parallelFor("connect", ItemCount{bound, &k->shadowCount}, pt::ConnectStage<Materials>{c, shadow()});
            cur ^= 1;
            if (finished(iteration, pollEvery, poll, first, steering, budget, bound, exhausted)) break;
            // SPT+R's drain: nothing left to start and at most half of the stream in flight. One
            // launch runs each path to its end; bookkeeping first counts their next traversals and
            // the last shadow rays.
            // SPT, a baseline of the paper's, keeps its schedule to the end.
            if (!onlyWhenEmpty && exhausted && bound <= slots / kDrainFraction) {
                exec_.parallelFor("bookkeeping", 1, pt::BookkeepingStage{c, cur, slots, onlyWhenEmpty});
                exec_.parallelFor("drain", ItemCount{bound, &k->pathCount[cur]}, pt::DrainStage<Materials, kNee>{c, paths(cur)});
                break;
            }
        }
        // Without the drain launch (SPT, or a render whose paths end first), the last poll can see
        // `done` only after a bookkeeping pass that found nothing.
    }

    /// Launches of whole paths (megakernel, PT+R) take at least kMegakernelChunk x `capacity`
    /// samples and then as many as run in about kWholePathLaunchSeconds (LaunchSizer): short
    /// enough for progress reports, time limits and work stealing, and long enough that the last
    /// wave of each launch, where SMs idle behind the longest paths, comes rarely. Measured on the
    /// H100 (rtiow-final, NEE off, 27.6 M samples a frame): PT+R 6.4 ms in launches of 4 x
    /// capacity (8.7 M samples), 7.0 ms with 2 x, 5.8 ms with the frame in one launch.
    static constexpr int kMegakernelChunk = 4;
    static constexpr double kWholePathLaunchSeconds = 0.05;

    template <class Materials, bool kNee, class Budget>
    std::uint64_t renderMegakernel(const pt::Common& c, std::uint64_t first, std::uint64_t count, Budget& budget) {
        return runChunked(exec_, first, count, wholePathLaunches_, std::uint64_t(c.params.numPixels), budget,
                          [&](std::uint64_t offset, std::uint64_t n) {
                              exec_.parallelFor("megakernel", int(n), pt::MegakernelStage<Materials, kNee>{c, first + offset});
                          });
    }

    /// PT+R: per launch of samples (as the megakernel's), as many threads as stay resident, which
    /// take the launch's samples from control->claimed until none is left.
    template <class Materials, bool kNee, class Budget>
    std::uint64_t renderPersistent(const pt::Common& c, std::uint64_t first, std::uint64_t count, Budget& budget) {
        using Stage = pt::PersistentRegenerateStage<Materials, kNee>;
        const std::uint64_t threads = std::uint64_t(exec_.template residentThreads<Stage>());
        unsigned long long* claimed = &scheduler_.control()->claimed;
        return runChunked(exec_, first, count, wholePathLaunches_, std::uint64_t(c.params.numPixels), budget,
                          [&](std::uint64_t offset, std::uint64_t n) {
                              exec_.fill(claimed, 0ull, 1);
                              exec_.parallelFor("persistent", int(std::min(threads, n)), Stage{c, first + offset, n});
                          });
    }

    Exec& exec_;
    PtVariant variant_;
    int capacity_;
    StreamScheduler<Exec, StreamControl> scheduler_;
    Streams streams_;
    std::size_t bytesPerSlot_ = 0;
    std::uint64_t extensionRays_ = 0, shadowRays_ = 0;
    LaunchSizer wholePathLaunches_{std::min<std::uint64_t>(std::uint64_t(kMegakernelChunk) * std::uint64_t(capacity_), INT_MAX),
                                   kWholePathLaunchSeconds};
    double* launchRate_;
};

}  // namespace wavefront
