// Write-time compaction measured in isolation: the production scheme
// (exec.compactingFor: block scan + one atomic per block) against a plain copy of every item (the
// bandwidth ceiling) and, on CUDA, a flag pass plus cub::DeviceSelect::Flagged. Also used by the
// tests to check that compactingFor keeps exactly the active items.
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

#include "kernels/core/sampler.h"
#include "host/backends/buffer.h"

namespace wavefront {

struct CompactionItem {
    Float4 a, b;  ///< 32 bytes, like DESIGN's measurement
};

namespace compaction {

WF_CPU_GPU WF_INLINE bool kept(int i, float keepFraction) {
    return float(mix64(std::uint64_t(i)) >> 40) * (1.0f / 16777216.0f) < keepFraction;
}

struct MakeItems {
    CompactionItem* items;
    WF_CPU_GPU void operator()(int i) const {
        items[i].a = Float4(float(i), 1.0f, 2.0f, 3.0f);
        items[i].b = Float4(4.0f, 5.0f, 6.0f, intAsFloat(i));
    }
};

struct WriteTimeStage {
    static constexpr int kStreams = 1;
    struct Output {
        CompactionItem item;
        bool keep;
        WF_CPU_GPU bool active(int) const { return keep; }
    };
    const CompactionItem* in;
    CompactionItem* out;
    float keepFraction;
    int* outCounter[kStreams];
    WF_CPU_GPU Output evaluate(int i) const { return Output{in[i], kept(i, keepFraction)}; }
    WF_CPU_GPU void emit(int, int slot, const Output& o, int) const { out[slot] = o.item; }
};

struct CopyStage {
    const CompactionItem* in;
    CompactionItem* out;
    WF_CPU_GPU void operator()(int i) const { out[i] = in[i]; }
};

/// The ideal scatter: destinations precomputed (untimed), so it moves the same bytes as write-time
/// compaction without the block scan and the atomics. The difference is what compaction costs.
struct IdealScatterStage {
    const CompactionItem* in;
    const int* destination;  ///< -1 for dropped items
    CompactionItem* out;
    WF_CPU_GPU void operator()(int i) const {
        int d = destination[i];
        if (d >= 0) out[d] = in[i];
    }
};

struct FlagStage {
    float keepFraction;
    char* flags;
    WF_CPU_GPU void operator()(int i) const { flags[i] = kept(i, keepFraction) ? 1 : 0; }
};

}  // namespace compaction

struct CompactionTimes {
    double writeTimeMs = 0, copyMs = 0, flaggedMs = -1;  ///< best of the repetitions
    double idealScatterMs = 0;  ///< same bytes as write-time compaction, no scan or atomics
    int kept = 0;
    std::vector<int> keptIds;  ///< ids of the kept items, in output order (write-time scheme)
};

template <class Exec, class Flagged>
CompactionTimes measureCompaction(Exec& exec, int n, float keepFraction, int repetitions, const Flagged& flagged) {
    Buffer<CompactionItem> in = exec.template allocate<CompactionItem>(n);
    Buffer<CompactionItem> out = exec.template allocate<CompactionItem>(n);
    Buffer<int> counter = exec.template allocate<int>(1);
    Buffer<char> flags = exec.template allocate<char>(n);
    exec.parallelFor("make items", n, compaction::MakeItems{in.data()});
    std::vector<int> hostDestination(n);
    for (int i = 0, next = 0; i < n; ++i) hostDestination[i] = compaction::kept(i, keepFraction) ? next++ : -1;
    Buffer<int> destination = exec.template allocate<int>(n);
    exec.upload(destination.data(), hostDestination.data(), n);
    CompactionTimes t;
    t.writeTimeMs = t.copyMs = t.idealScatterMs = 1e30;
    auto time = [&](auto&& body) {
        exec.synchronize();
        auto start = std::chrono::steady_clock::now();
        body();
        exec.synchronize();
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    };
    for (int r = 0; r < repetitions; ++r) {
        exec.fill(counter.data(), 0, 1);
        t.writeTimeMs = std::min(t.writeTimeMs, time([&] {
            exec.compactingFor("write-time compaction", ItemCount{n, nullptr},
                               compaction::WriteTimeStage{in.data(), out.data(), keepFraction, {counter.data()}});
        }));
        t.copyMs = std::min(t.copyMs, time([&] { exec.parallelFor("plain copy", n, compaction::CopyStage{in.data(), out.data()}); }));
        t.idealScatterMs = std::min(t.idealScatterMs, time([&] {
            exec.parallelFor("ideal scatter", n, compaction::IdealScatterStage{in.data(), destination.data(), out.data()});
        }));
        double f = time([&] {
            exec.parallelFor("flags", n, compaction::FlagStage{keepFraction, flags.data()});
            flagged(in.data(), flags.data(), out.data(), counter.data() , n);
        });
        if (Exec::kIsGpu) t.flaggedMs = t.flaggedMs < 0 ? f : std::min(t.flaggedMs, f);
    }
    // Final write-time run whose output is returned for checking.
    exec.fill(counter.data(), 0, 1);
    exec.compactingFor("write-time compaction", ItemCount{n, nullptr},
                       compaction::WriteTimeStage{in.data(), out.data(), keepFraction, {counter.data()}});
    exec.download(&t.kept, counter.data(), 1);
    std::vector<CompactionItem> host(t.kept);
    exec.download(host.data(), out.data(), host.size());
    for (auto& item : host) t.keptIds.push_back(floatAsInt(item.b.w));
    return t;
}

/// `data` uploaded into the exec's memory and downloaded again (uploadRoundTrip).
template <class Exec>
std::vector<unsigned char> uploadRoundTripOn(Exec& exec, const std::vector<unsigned char>& data) {
    Buffer<unsigned char> device = exec.template allocate<unsigned char>(data.size());
    exec.upload(device.data(), data.data(), data.size());
    std::vector<unsigned char> back(data.size());
    exec.download(back.data(), device.data(), back.size());
    return back;
}

}  // namespace wavefront
