// Write-time compaction vs a plain copy vs flags + cub::DeviceSelect::Flagged.
//   compaction_bench [--backend cuda|cpu]
// Effective bandwidth counts the bytes each scheme must move: all items read, the kept ones
// written (the copy writes all). Reported as a fraction of the plain copy's bandwidth.
#include <cstdio>
#include <string>

#include "bench_args.h"
#include "bvh_oracle.h"
#include "compaction.h"

using namespace wavefront;

static int run(int argc, char** argv) {
    BenchArgs args("compaction_bench",
                   "Write-time compaction vs a plain copy vs flags + cub::DeviceSelect::Flagged: times and effective "
                   "bandwidth");
    if (auto rc = args.parse(argc, argv)) return *rc;
    Backend backend = args.backend;
    std::printf("| items | kept | write-time ms | ideal scatter ms | copy ms | flags+Flagged ms | write-time GB/s | copy GB/s | write-time / copy | Flagged / copy | scan+atomic ns/item |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int n : {1 << 20, 4 << 20}) {
        for (float keep : {0.4f, 0.7f}) {
            CompactionTimes t = measureCompaction(backend, n, keep, backend == Backend::Cuda ? 20 : 3);
            double item = sizeof(CompactionItem);
            double moved = (double(n) + t.kept) * item;  // read all, write the kept
            double wt = moved / (t.writeTimeMs * 1e6), copy = 2.0 * n * item / (t.copyMs * 1e6);
            double fl = t.flaggedMs > 0 ? moved / (t.flaggedMs * 1e6) : -1;
            // What the block scan and the atomics add over moving the same bytes to known places.
            double overheadNs = (t.writeTimeMs - t.idealScatterMs) * 1e6 / n;
            std::printf("| %d | %.0f%% | %.4f | %.4f | %.4f | %.4f | %.0f | %.0f | %.0f%% | %s | %.4f |\n", n, 100.0 * t.kept / n,
                        t.writeTimeMs, t.idealScatterMs, t.copyMs, t.flaggedMs, wt, copy, 100 * wt / copy,
                        fl > 0 ? (std::to_string(int(100 * fl / copy + 0.5)) + "%").c_str() : "-", overheadNs);
        }
    }
    return 0;
}

int main(int argc, char** argv) { return benchMain("compaction_bench", argc, argv, run); }
