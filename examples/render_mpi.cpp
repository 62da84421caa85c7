// wavefront-render-mpi: one image rendered by every process of an MPI job (mpirun -np N ...), with
// wavefront-render's options. PT and BDPT: rank r of N renders passes [r*spp/N, (r+1)*spp/N) of
// the film (RenderOptions::firstPass), so the sum of the films is the film of one process, up to
// the order of the sums. MLT: each rank runs chains of its own, seeded seed + r; the sum of the
// films is the sample-weighted mean of the rank images. Rank 0 receives the sums (MPI_Reduce),
// writes the image and prints the report. docs/decisions.md has the reasons.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "render_cli.h"

namespace {

constexpr const char* kProgram = "wavefront-render-mpi";

struct Rank {
    int rank = 0, size = 1;
};

/// Every rank calls this after each step with its outcome (0, 1 for an error, 2 for bad input):
/// all learn the worst code, and the lowest failing rank prints its message, so a failure on one
/// rank (a scene file missing on one host) is one line and every rank stops, none waits forever.
int agree(const Rank& r, int code, const std::string& message) {
    int worst = 0, first = r.size;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst == 0) return 0;
    const int mine = code != 0 ? r.rank : r.size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (r.rank == first)
        std::fprintf(stderr, "%s: %s%s%s\n", kProgram, r.rank > 0 ? ("rank " + std::to_string(r.rank) + ": ").c_str() : "",
                     code == 1 ? "error: " : "", message.c_str());
    return worst;
}

/// Runs `step`, turning its exceptions into agree()'s codes (InputError: 2, others: 1).
template <class F>
int agreeOn(const Rank& r, F&& step) {
    int code = 0;
    std::string message;
    try {
        step();
    } catch (const wavefront::InputError& e) {
        code = 2;
        message = e.what();
    } catch (const std::exception& e) {
        code = 1;
        message = e.what();
    }
    return agree(r, code, message);
}

/// Reduces `count` values onto rank 0 (in place there), in pieces whose length fits MPI's int counts.
template <class T>
void reduceToRoot(const Rank& r, T* values, std::size_t count, MPI_Datatype type, MPI_Op op = MPI_SUM) {
    constexpr std::size_t kPiece = std::size_t(1) << 28;
    for (std::size_t at = 0; at < count; at += kPiece) {
        const int n = int(std::min(kPiece, count - at));
        if (r.rank == 0)
            MPI_Reduce(MPI_IN_PLACE, values + at, n, type, op, 0, MPI_COMM_WORLD);
        else
            MPI_Reduce(values + at, nullptr, n, type, op, 0, MPI_COMM_WORLD);
    }
}

/// This rank's share: PT and BDPT a range of passes, MLT its own chains (a seed of its own). A
/// time-limited rank starts its range 1/N of the index space after the rank before it, which no
/// render reaches (2^56 samples); the render checks it all the same.
/// Whether the integrator renders pass ranges (PT, BDPT) rather than Markov chains (MLT, MMLT).
bool rendersPassRanges(wavefront::IntegratorType type) {
    for (const wavefront::IntegratorInfo& info : wavefront::integrators())
        if (info.type == type) return info.rendersSampleRanges;
    return true;
}

struct Share {
    wavefront::RenderOptions options;
    std::uint64_t passLimit = 0;  ///< PT and BDPT: the first pass of the next rank's range
};

Share shareOf(const Rank& r, wavefront::RenderOptions o) {
    Share share;
    const std::uint64_t pixels = std::uint64_t(o.width) * std::uint64_t(o.height);
    if (o.timeLimitSeconds > 0.0) {
        const std::uint64_t stride = ((1ull << 56) / pixels) / std::uint64_t(r.size);
        if (rendersPassRanges(o.integrator)) o.firstPass = stride * std::uint64_t(r.rank);
        share.passLimit = o.firstPass + stride;
    } else {
        const std::uint64_t spp = std::uint64_t(o.samplesPerPixel), n = std::uint64_t(r.size);
        if (spp < n)
            throw wavefront::InputError("--spp " + std::to_string(spp) + " is fewer than the " + std::to_string(n) +
                                        " processes (each renders whole passes)");
        const std::uint64_t first = spp * std::uint64_t(r.rank) / n, end = spp * std::uint64_t(r.rank + 1) / n;
        o.samplesPerPixel = int(end - first);
        if (rendersPassRanges(o.integrator)) o.firstPass = first;
        share.passLimit = end;
    }
    // Chains of different seeds are independent; seed + rank keeps rank 0 the one-process render.
    if (!rendersPassRanges(o.integrator)) o.seed += std::uint32_t(r.rank);
    o.validate();
    share.options = o;
    return share;
}

int run(const Rank& r, int argc, char** argv) {
    CLI::App app{"wavefront-render-mpi: one image rendered by all processes of an MPI job (mpirun -np N)"};
    wfcli::Args args;
    wfcli::addOptions(app, args);
    bool help = false;
    int code = 0;
    std::string message;
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {  // --help, --version
        help = true;
        if (r.rank == 0) app.exit(e);
    } catch (const CLI::ParseError& e) {
        code = 2;
        message = wavefront::printable(e.what());
    }
    if (int worst = agree(r, code, message)) return worst;
    if (help) return 0;
    if (args.listScenes) {
        if (r.rank == 0)
            for (const auto& n : wavefront::Scene::builtinSceneNames()) std::printf("%s\n", n.c_str());
        return 0;
    }

    // Only rank 0 writes the image and shows its progress (its own share of the samples).
    wfcli::ProgressLine progress;
    wavefront::RenderOptions options;
    Share share;
    double loadSeconds = 0.0;
    std::unique_ptr<wavefront::Renderer> renderer;
    if (int worst = agreeOn(r, [&] {
            options = wfcli::renderOptions(args, r.rank == 0);
            // The processes' films are summed; their AOV passes are not (each process has its own).
            if (options.aovs)
                throw wavefront::InputError("--aovs and --aov-files are not supported by wavefront-render-mpi (use wavefront-render)");
            share = shareOf(r, options);
            if (r.rank == 0)
                share.options.progress = [&](std::uint64_t d, std::uint64_t t, double s) { progress(d, t, s); };
            renderer = std::make_unique<wavefront::Renderer>(wfcli::loadScene(args, loadSeconds), share.options);
        }))
        return worst;
    const int rendered = agreeOn(r, [&] {
        renderer->render();
        const wavefront::Film& film = renderer->film();
        if (rendersPassRanges(options.integrator) &&
            share.options.firstPass + film.samples[0] > share.passLimit)
            throw wavefront::Error("the time-limited render ran into the next rank's passes");
    });
    progress.finish();
    if (rendered) return rendered;

    // Sums and counts add up over the ranks; so do samples and rays; the time is the slowest rank's.
    wavefront::Film film = renderer->film();
    reduceToRoot(r, film.sum.data(), film.sum.size(), MPI_DOUBLE);
    reduceToRoot(r, film.samples.data(), film.samples.size(), MPI_UINT32_T);
    wavefront::RenderStats stats = renderer->stats();
    std::uint64_t counts[] = {stats.samples, stats.extensionRays, stats.shadowRays, stats.nonFiniteSamples};
    reduceToRoot(r, counts, 4, MPI_UINT64_T);
    double slowest = stats.seconds;
    reduceToRoot(r, &slowest, 1, MPI_DOUBLE, MPI_MAX);
    return agreeOn(r, [&] {
        if (r.rank != 0) return;
        stats.samples = counts[0];
        stats.extensionRays = counts[1];
        stats.shadowRays = counts[2];
        stats.nonFiniteSamples = counts[3];
        stats.seconds = slowest;
        stats.backend += " x " + std::to_string(r.size) + " processes";
        std::uint64_t clamped = 0;
        wavefront::Image image = film.resolve(&clamped);
        std::uint64_t replaced = wavefront::writeImage(args.out, image, args.exposure);
        wfcli::printSummary(wfcli::scheduleName(options), stats, image, args.out, clamped, replaced);
        if (args.stats) {
            std::printf("(sums over the %d processes: samples, rays, time of the slowest; the rest: rank 0's)\n", r.size);
            wfcli::printStats(options, stats, loadSeconds);
        }
    });
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    Rank r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.size);
    const int code = run(r, argc, argv);
    MPI_Finalize();
    return code;
}
