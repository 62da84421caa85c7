// BDPT drivers over one estimator (bdpt.h): the streaming version of van Antwerpen (2011),
// section 5 (eye and light walks compacted at write time, a parallel connection stream,
// regeneration at the end of both streams), and the naive one-thread-per-sample baseline.
// Templates over the exec type; instantiated for CpuExec and CudaExec.
#pragma once
#include <algorithm>
#include <climits>
#include <vector>

#include "host/backends/buffer.h"
#include "wavefront/error.h"
#include "wavefront/renderer.h"
#include "host/integrators/stream_scheduler.h"
#include "kernels/bdpt/bdpt_stages.h"

namespace wavefront {

template <class Exec>
class BdptDriver {
public:
    BdptDriver(Exec& exec, BdptVariant variant, int slots, int maxDepth, float connectThreshold, bool coalescedScatter)
        : exec_(exec), variant_(variant), slots_(slots), threshold_(connectThreshold), coalesced_(coalescedScatter),
          scheduler_(exec) {
        SlotAllocator<Exec> allocator(exec_, std::size_t(slots_));
        s_ = allocateSlots(allocator, variant_, maxDepth);
        bytesPerSlot_ = allocator.bytesPerSlot();
    }

    /// Bytes per sample slot a driver of this variant and depth allocates (film excluded; the
    /// paper's Table 6 measure), before it exists.
    static std::size_t plannedBytesPerSlot(BdptVariant variant, int maxDepth) {
        SlotAllocator<Exec> plan;
        allocateSlots(plan, variant, maxDepth);
        return plan.bytesPerSlot();
    }
    /// Slots for a BDPT render: at most what half of the free memory holds, and few enough that
    /// the connection count fits an int.
    static int slotLimit(std::size_t freeBytes, int maxDepth, BdptVariant variant) {
        BdptParams p;
        p.maxDepth = maxDepth;
        std::size_t byMemory = freeBytes / 2 / std::max<std::size_t>(plannedBytesPerSlot(variant, maxDepth), 1);
        std::size_t s = std::max(p.storedVertices(), 1);
        std::size_t byConnections = std::size_t(INT_MAX) / (s * s);
        return int(std::min<std::size_t>({byMemory, byConnections, std::size_t(INT_MAX / 4)}));
    }

    /// Renders samples [first, first + count) into the film, asking `budget.check(done)` now and
    /// then (done: samples started so far); the budget can end the render early at a pass
    /// boundary of `params.numPixels` samples or at once. Returns the samples rendered.
    template <class Budget>
    std::uint64_t render(const SceneView& scene, const BdptParams& params, const HashSampler& sampler,
                         const FilmView& film, std::uint64_t first, std::uint64_t count, Budget& budget) {
        return withMaterialSet(scene, [&](auto materials) -> std::uint64_t {
            auto c = context<decltype(materials)>(scene, params, sampler, FilmSink{film});
            if (variant_ == BdptVariant::Naive) return renderNaive(c, first, count, budget);
            WorkSteering steering(first, std::uint64_t(params.numPixels));
            // A timed render keeps at most a pass in flight (PathTracerDriver::renderStreaming).
            const int slots = timedSlots(slots_, std::uint64_t(params.numPixels), budget);
            BdptControl k = renderStreaming(
                c, first, count, [](const auto&) {},
                [&](const BdptControl& seen, bool) {
                    steering.steer(exec_, workRange(), budget, seen.started);
                    return false;  // the end only ever moves back
                },
                -1.0f, slots);
            return k.started;
        });
    }

    /// The stage context over this driver's slot records and vertex storage, for the stages
    /// compiled for `Materials`.
    template <class Materials, class Sampler, class Sink>
    bdpt::Context<Sampler, Sink, Materials> context(const SceneView& scene, const BdptParams& params,
                                                    const Sampler& sampler, const Sink& sink) {
        return bdpt::Context<Sampler, Sink, Materials>{scene, params, sampler, sink, scheduler_.control(), scheduler_.simd(),
                                            s_.slotSample.data(), s_.eyeStored.data(), s_.lightStored.data(),
                                            s_.status.data(), s_.eyeVertices.data(), s_.lightVertices.data()};
    }

    /// The streaming schedule over work [first, first + count) with any sampler and sink.
    /// `decide(c)` runs in every connect phase after the connections and before regeneration,
    /// while the complete slots still hold their samples (MLT accepts or rejects there).
    /// `steer(seen, idle)` gets every control snapshot the host reads and may move the end of the
    /// work range (control()->work); `idle`: nothing is running any more, and the render ends
    /// unless steer returns true, having moved the end forward. `threshold`: the connect
    /// threshold of this render (negative: the driver's). `slotLimit` > 0: only that many of the
    /// slots take samples. Returns the final control block.
    template <class C, class Decide, class Steer>
    BdptControl renderStreaming(const C& c, std::uint64_t first, std::uint64_t count, const Decide& decide,
                                const Steer& steer, float threshold = -1.0f, int slotLimit = 0) {
        if (variant_ == BdptVariant::Naive) throw Error("the naive BDPT driver has no streaming schedule");
        const int active = slotLimit > 0 ? std::min(slotLimit, slots_) : slots_;
        scheduler_.reset(startControl(first, count, active));
        streamingLoop(c, decide, steer, threshold < 0.0f ? threshold_ : threshold, active);
        return collectCounters();
    }

    /// The naive schedule: one thread per sample, slot = sample - first (at most `slots` per launch).
    template <class C, class Budget>
    std::uint64_t renderNaive(const C& c, std::uint64_t first, std::uint64_t count, Budget& budget) {
        scheduler_.reset(startControl(first, count, slots_));
        std::uint64_t done = runChunked(exec_, first, count, std::uint64_t(slots_), std::uint64_t(c.params.numPixels), budget,
                                        [&](std::uint64_t offset, std::uint64_t n) {
                                            exec_.parallelFor("naive bdpt", int(n), bdpt::NaiveStage<C>{c, first + offset});
                                        });
        collectCounters();
        return done;
    }

    WorkRange* workRange() { return &scheduler_.control()->work; }
    /// Bytes per sample slot, as allocated (film excluded).
    std::size_t bytesPerSlot() const { return bytesPerSlot_; }
    int slots() const { return slots_; }

    std::uint64_t extensionRays() const { return extensionRays_; }
    /// Shadow rays of the walks (s = 1, t = 1) and of the connect phase.
    std::uint64_t shadowRays() const { return shadowRays_ + connections_; }
    std::uint64_t connections() const { return connections_; }
    std::uint64_t connectPhases() const { return connectPhases_; }

    /// Per counter slot: average active-lane fraction (negative where nothing was sampled).
    std::vector<double> simdEfficiency() { return scheduler_.simdEfficiency(); }
    /// SIMD occupancy of the random-walk and connect phases (the paper's Table 3 measure): lanes
    /// holding work whenever a walk step or a connection starts, over all walk or connect kernels
    /// (occupancy is counter slot 2k of kernel k).
    std::pair<double, double> phaseSimdEfficiency() {
        std::vector<unsigned long long> raw = scheduler_.simdCounts();
        if (variant_ == BdptVariant::Naive)
            return {simdFraction(raw, {2 * kBdptNaiveWalk}), simdFraction(raw, {2 * kBdptNaiveConnect})};
        return {simdFraction(raw, {2 * kBdptExtend, 2 * kBdptShade, 2 * kBdptTrace}), simdFraction(raw, {2 * kBdptConnect})};
    }

private:
    /// Every buffer a slot holds: the stored subpaths (both schedules), then the walk streams and
    /// the slot records of the streaming schedule.
    struct Slots {
        Buffer<PathVertex> eyeVertices, lightVertices;
        Buffer<Float4> eyeWalkWords[2], lightWalkWords[2];
        Buffer<Hit> eyeHits, lightHits;
        Buffer<Float4> shadowWords;  ///< s = 1 and t = 1 rays: up to two per slot and iteration
        Buffer<std::uint64_t> slotSample;
        Buffer<int> eyeStored, lightStored, status, counts, prefix;
    };
    static Slots allocateSlots(SlotAllocator<Exec>& a, BdptVariant variant, int maxDepth) {
        BdptParams p;
        p.maxDepth = maxDepth;
        Slots s;
        s.eyeVertices = a.template perSlot<PathVertex>(p.storedVertices());
        s.lightVertices = a.template perSlot<PathVertex>(p.storedVertices());
        if (variant == BdptVariant::Naive) return s;
        for (int b = 0; b < 2; ++b) {
            s.eyeWalkWords[b] = a.template perSlot<Float4>(SoaView<WalkState>::kWords);
            s.lightWalkWords[b] = a.template perSlot<Float4>(SoaView<WalkState>::kWords);
        }
        s.eyeHits = a.template perSlot<Hit>();
        s.lightHits = a.template perSlot<Hit>();
        s.shadowWords = a.template perSlot<Float4>(2 * SoaView<ShadowRay>::kWords);
        s.slotSample = a.template perSlot<std::uint64_t>();
        for (Buffer<int>* b : {&s.eyeStored, &s.lightStored, &s.status, &s.counts, &s.prefix}) *b = a.template perSlot<int>();
        return s;
    }
    BdptControl startControl(std::uint64_t first, std::uint64_t count, int active) const {
        BdptControl k{};
        k.work = WorkRange{first, first + count};
        k.activeSlots = active;  // every slot in use starts complete (with nothing to connect)
        k.complete = active;
        return k;
    }
    SoaView<WalkState> eyeWalks(int b) const { return SoaView<WalkState>{s_.eyeWalkWords[b].data(), slots_}; }
    SoaView<WalkState> lightWalks(int b) const { return SoaView<WalkState>{s_.lightWalkWords[b].data(), slots_}; }
    SoaView<ShadowRay> shadow() const { return SoaView<ShadowRay>{s_.shadowWords.data(), 2 * slots_}; }

    BdptControl collectCounters() {
        BdptControl k = scheduler_.read();
        extensionRays_ += k.extensionRays;
        shadowRays_ += k.shadowRays;
        connections_ += k.connections;
        return k;
    }

    /// Connect phase: count, scan, one thread per connection, the decision, then regeneration of
    /// complete slots at the end of the walk streams in buffer `cur`. Returns the control block
    /// afterwards.
    template <class C, class Decide>
    BdptControl connectPhase(const C& c, int cur, const Decide& decide) {
        ++connectPhases_;
        exec_.parallelFor("bdpt count", slots_, bdpt::CountStage{s_.status.data(), s_.eyeStored.data(), s_.lightStored.data(),
                                                                 s_.counts.data()});
        exec_.inclusiveScan(s_.counts.data(), s_.prefix.data(), slots_);
        int total = 0;
        exec_.download(&total, s_.prefix.data() + (slots_ - 1), 1);
        if (total > 0) exec_.parallelFor("bdpt connect", total, bdpt::ConnectStage<C>{c, s_.prefix.data(), slots_});
        decide(c);
        BdptControl* k = scheduler_.control();
        exec_.compactingFor("bdpt regenerate", ItemCount{slots_, nullptr},
                            bdpt::RegenerateStage<C>{c, eyeWalks(cur), lightWalks(cur), cur, {&k->regenerated}});
        exec_.parallelFor("bdpt bookkeeping", 1, bdpt::RegenerateBookkeepingStage<C>{c, cur});
        BdptControl now;
        exec_.download(&now, k, 1);
        return now;
    }
    static int walking(const BdptControl& k, int buffer) { return k.eyeCount[buffer] + k.lightCount[buffer]; }

    template <class C, class Decide, class Steer>
    void streamingLoop(const C& c, const Decide& decide, const Steer& steer, float threshold, int active) {
        exec_.fill(s_.status.data(), 0, active);  // every slot in use starts complete, with no connections
        if (active < slots_) exec_.fill(s_.status.data() + active, bdpt::kSlotIdle, slots_ - active);
        exec_.fill(s_.eyeStored.data(), 0, slots_);
        exec_.fill(s_.lightStored.data(), 0, slots_);
        BdptControl* k = scheduler_.control();
        int cur = 0;
        // The first phase only fills the slots: nothing is complete yet, so nothing to decide.
        BdptControl now = connectPhase(c, cur, [](const C&) {});
        ControlPoll<Exec, BdptControl> poll = scheduler_.poll();
        for (;;) {
            // Right after a connect phase: if nothing runs, the render ends unless the host adds work.
            while (walking(now, cur) == 0) {
                if (!steer(now, true)) return;
                now = connectPhase(c, cur, decide);
            }
            poll.post();  // a snapshot after the phase
            int postedBuffer = cur;
            // Between connect phases walks only end, so the last counts the host has seen bound
            // the grids: a phase's last iterations, with few walks left, launch few blocks.
            int eyeBound = now.eyeCount[cur], lightBound = now.lightCount[cur];
            for (;;) {
                exec_.parallelFor("bdpt bookkeeping", 1, bdpt::WalkBookkeepingStage<C>{c, cur});
                ItemCount eyes{eyeBound, &k->eyeCount[cur]}, lights{lightBound, &k->lightCount[cur]};
                exec_.parallelFor("bdpt extend", eyes, bdpt::ExtendStage<C>{c, eyeWalks(cur), s_.eyeHits.data()});
                exec_.parallelFor("bdpt extend", lights, bdpt::ExtendStage<C>{c, lightWalks(cur), s_.lightHits.data()});
                exec_.compactingFor("bdpt shade", eyes,
                                    bdpt::ShadeStage<true, C>{c, eyeWalks(cur), s_.eyeHits.data(), eyeWalks(cur ^ 1),
                                                              shadow(), {&k->eyeCount[cur ^ 1], &k->shadowCount},
                                                              coalesced_});
                exec_.compactingFor("bdpt shade", lights,
                                    bdpt::ShadeStage<false, C>{c, lightWalks(cur), s_.lightHits.data(), lightWalks(cur ^ 1),
                                                               shadow(), {&k->lightCount[cur ^ 1], &k->shadowCount},
                                                               coalesced_});
                exec_.parallelFor("bdpt trace", ItemCount{eyeBound + lightBound, &k->shadowCount},
                                  bdpt::TraceStage<C>{c, shadow()});
                cur ^= 1;
                // The decision uses the control block of the previous iteration (read asynchronously
                // while this one runs), so the host never stalls the GPU inside the walk phase.
                BdptControl seen;
                poll.take(seen);
                int seenBuffer = postedBuffer;
                poll.post();
                postedBuffer = cur;
                steer(seen, false);
                eyeBound = std::min(eyeBound, seen.eyeCount[seenBuffer]);
                lightBound = std::min(lightBound, seen.lightCount[seenBuffer]);
                if (walking(seen, seenBuffer) == 0 || double(seen.complete) >= double(threshold) * seen.activeSlots) break;
            }
            now = connectPhase(c, cur, decide);
            steer(now, false);
        }
    }

    Exec& exec_;
    BdptVariant variant_;
    int slots_;
    float threshold_;
    bool coalesced_;
    StreamScheduler<Exec, BdptControl> scheduler_;
    Slots s_;
    std::size_t bytesPerSlot_ = 0;
    std::uint64_t extensionRays_ = 0, shadowRays_ = 0, connections_ = 0, connectPhases_ = 0;
};

}  // namespace wavefront
