// wavefront-render-mpi under `mpirun -np 2` on the CPU backend against one wavefront-render process:
// PT and BDPT render the same samples (only the order of the sums differs), MLT the same image in
// distribution; a failure on any rank is one line, exit 2, and no hang. Built only with MPI.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

#if defined(WAVEFRONT_RENDER_MPI_EXE) && defined(WAVEFRONT_RENDER_EXE) && defined(WAVEFRONT_MPIEXEC)

using wftest::TempDir;
using Catch::Matchers::Contains;

namespace {

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string exe(const char* variable, const char* built) {
    const char* relocated = std::getenv(variable);  // a relocated test binary names them
    return quote(relocated ? relocated : built);
}

/// Open MPI on a loaded 2-core CI machine, perhaps as root: two processes may share a core
/// (--oversubscribe), their threads are not pinned to one core each (--bind-to none), and they
/// talk through shared memory without probing the network (btl self,vader).
/// Under AddressSanitizer (scripts/sanitize.sh) the MPI processes run without leak detection:
/// Open MPI's own allocations, many from components it has unloaded by then, outlive MPI_Finalize
/// and would fail every run; ASan's other checks stay on.
std::string mpirun(int processes) {
    const char* asan = std::getenv("ASAN_OPTIONS");
    const std::string noLeakCheck =
        asan ? " ASAN_OPTIONS=" + quote(std::string(asan) + ":detect_leaks=0") : std::string();
    return "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader" + noLeakCheck + " " +
           quote(WAVEFRONT_MPIEXEC) + " --oversubscribe --bind-to none -np " + std::to_string(processes) + " ";
}

/// Whether mpiexec and the MPI program are here: a test binary carried to another machine (the
/// GPU machine has no Open MPI) skips these cases rather than failing them.
bool haveMpi() {
    const char* relocated = std::getenv("WAVEFRONT_RENDER_MPI_EXE");
    if (std::ifstream(WAVEFRONT_MPIEXEC).good() && std::ifstream(relocated ? relocated : WAVEFRONT_RENDER_MPI_EXE).good())
        return true;
    WARN("mpiexec or wavefront-render-mpi not found on this machine: skipped");
    return false;
}

std::string args(const std::vector<std::string>& list) {
    std::string s;
    for (const std::string& a : list) s += " " + quote(a);
    return s;
}

struct Run {
    int exitCode = -1;
    std::string err;
    std::vector<std::string> errorLines;  ///< stderr lines starting with "wavefront-render-mpi:"
};

/// Runs `command` (killed after two minutes: a hang fails, it does not stall the suite).
Run run(const TempDir& dir, const std::string& command) {
    const std::string full = "timeout 120 " + command + " >/dev/null 2>" + quote(dir.file("stderr.txt"));
    INFO("command: " << full);
    const int status = std::system(full.c_str());
    REQUIRE(WIFEXITED(status));
    Run r;
    r.exitCode = WEXITSTATUS(status);
    std::ifstream in(dir.file("stderr.txt"));
    r.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::istringstream lines(r.err);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("wavefront-render-mpi:", 0) == 0) r.errorLines.push_back(line);
    return r;
}

/// The same render by one wavefront-render process and by two wavefront-render-mpi processes.
std::pair<wavefront::Image, wavefront::Image> renderBoth(const TempDir& dir, const std::vector<std::string>& options,
                                                         const std::string& samplesLine) {
    const Run one = run(dir, exe("WAVEFRONT_RENDER_EXE", WAVEFRONT_RENDER_EXE) + args(options) +
                                 args({"--out", dir.file("one.pfm")}));
    INFO("wavefront-render stderr:\n" << one.err);
    REQUIRE(one.exitCode == 0);
    const Run two = run(dir, mpirun(2) + exe("WAVEFRONT_RENDER_MPI_EXE", WAVEFRONT_RENDER_MPI_EXE) + args(options) +
                                 args({"--out", dir.file("two.pfm")}));
    INFO("wavefront-render-mpi stderr:\n" << two.err);
    REQUIRE(two.exitCode == 0);
    CHECK_THAT(two.err, Contains(samplesLine) && Contains("x 2 processes"));
    return {wavefront::readImage(dir.file("one.pfm")), wavefront::readImage(dir.file("two.pfm"))};
}

const std::vector<std::string> kBox = {"cornell-box", "--backend", "cpu", "--res", "32x32", "--spp", "8"};

}  // namespace

TEST_CASE("mpi: two processes render the PT and BDPT image of one, pixel for pixel", "[mpi][cli][pt][bdpt]") {
    if (!haveMpi()) return;
    TempDir dir;
    for (const char* integrator : {"pt", "bdpt"}) {
        INFO(integrator);
        std::vector<std::string> options = kBox;
        options.insert(options.end(), {"--integrator", integrator});
        auto [one, two] = renderBoth(dir, options, " 8192 samples in ");
        REQUIRE(one.rgb.size() == two.rgb.size());
        // Double sums added in another order, then rounded to float: a few float ulps at most.
        const double scale = wftest::imageMean(one);
        REQUIRE(scale > 0.0);
        std::size_t worst = 0;
        double worstError = 0.0;
        for (std::size_t i = 0; i < one.rgb.size(); ++i) {
            const double error = std::fabs(double(one.rgb[i]) - two.rgb[i]) / (std::fabs(one.rgb[i]) + 1e-6 * scale);
            if (error > worstError) worstError = error, worst = i;
        }
        INFO("worst value " << worst << ": " << one.rgb[worst] << " vs " << two.rgb[worst]);
        CHECK(worstError < 1e-5);
    }
}

TEST_CASE("mpi: two processes of MLT chains render the image of one in distribution", "[mpi][cli][mlt]") {
    if (!haveMpi()) return;
    // Each rank's chains (seed + rank) give an estimate of their own; the image is their
    // sample-weighted mean. Its mean over the image is compared with one process's against the
    // spread of the image mean over seeds, measured in process at the ranks' mutation count.
    TempDir dir;
    std::vector<std::string> options = kBox;
    options.back() = "16";  // --spp
    options.insert(options.end(), {"--integrator", "mlt"});
    auto [one, two] = renderBoth(dir, options, " 16384 samples in ");
    wavefront::RenderOptions rank = wftest::smallRender(wavefront::IntegratorType::Mlt, wavefront::Backend::Cpu, 32, 8);
    const wftest::MeanEstimate spread = wftest::imageMeanOverSeeds(wavefront::Scene::builtin("cornell-box"), rank, 8, 101);
    const int seeds = 8;
    // One render at 8 spp varies by sigma = standardError x sqrt(seeds); the two-rank image and the
    // one-process image (16 spp) each by about sigma / sqrt(2).
    const double sigma = spread.standardError * std::sqrt(double(seeds));
    const double z = std::fabs(wftest::imageMean(one) - wftest::imageMean(two)) / sigma;
    INFO("image means " << wftest::imageMean(one) << " (one process), " << wftest::imageMean(two)
                        << " (two); per-rank sigma " << sigma << ", over seeds " << spread.mean);
    REQUIRE(sigma > 0.0);
    CHECK(z < 5.0);  // |one - two| has standard deviation sigma: 5 sigma, not a flake
}

TEST_CASE("mpi: a failure on any rank is one line, exit 2, every rank stops", "[mpi][cli]") {
    if (!haveMpi()) return;
    TempDir dir;
    const std::string mpi = exe("WAVEFRONT_RENDER_MPI_EXE", WAVEFRONT_RENDER_MPI_EXE);
    const std::string out = dir.file("o.pfm");
    auto refused = [&](const Run& r, const std::string& words) {
        INFO("stderr:\n" << r.err);
        CHECK(r.exitCode == 2);
        REQUIRE(r.errorLines.size() == 1);
        CHECK_THAT(r.errorLines[0], Contains(words));
    };
    SECTION("on every rank (bad arguments)") {
        refused(run(dir, mpirun(2) + mpi + args({"--spp", "1", "--backend", "cpu", "--res", "8x8", "--out", out})),
                "fewer than the 2 processes");
        refused(run(dir, mpirun(2) + mpi + args({"--warp", "--out", out})), "--warp");
        refused(run(dir, mpirun(2) + mpi + args({"cornell-box", "--backend", "cpu", "--res", "8x8", "--spp", "1",
                                                 "--aov-files", "--out", out})),
                "not supported by wavefront-render-mpi");
    }
    SECTION("on one rank (its scene is missing): the others do not wait for it") {
        const auto start = std::chrono::steady_clock::now();
        const std::vector<std::string> common = {"--backend", "cpu", "--res", "8x8", "--spp", "2", "--out", out};
        refused(run(dir, mpirun(1) + mpi + args({"cornell-box"}) + args(common) + " : -np 1 " + mpi +
                             args({dir.file("missing.obj")}) + args(common)),
                "rank 1: ");
        CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 60.0);
    }
}

#endif
