// Runs the built wavefront-render and checks its exit codes and error messages: bad input must
// exit with 2 and one clear "wavefront-render: ..." line on stderr.
#include <sys/wait.h>

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "test_support.h"
#include "wavefront/renderer.h"

namespace fs = std::filesystem;

#if defined(WAVEFRONT_RENDER_EXE)

namespace {

using wftest::TempDir;

/// A fresh directory under the system temp directory, removed when the test ends.

std::string shellQuote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

struct CliResult {
    int exitCode = -1;
    std::string err;  ///< all of stderr
    std::vector<std::string> errorLines;  ///< stderr lines starting with "wavefront-render:"
};

/// Runs wavefront-render with `args` (each one shell-quoted), stdout discarded, stderr captured.
std::string renderExe() {
    // The build path is baked in; a relocated test binary (the GPU machine) names it in the environment.
    const char* relocated = std::getenv("WAVEFRONT_RENDER_EXE");
    return relocated ? relocated : WAVEFRONT_RENDER_EXE;
}

/// Runs a shell command line, its output (stdout and stderr, as the command redirects them) captured.
CliResult runShell(const std::string& command) {
    CliResult result;
    FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe);
    char buffer[4096];
    for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) result.err.append(buffer, got);
    const int status = ::pclose(pipe);
    REQUIRE(WIFEXITED(status));
    result.exitCode = WEXITSTATUS(status);
    std::istringstream lines(result.err);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("wavefront-render:", 0) == 0) result.errorLines.push_back(line);
    return result;
}

CliResult runCli(const TempDir& dir, const std::vector<std::string>& args) {
    std::string command = shellQuote(renderExe());
    for (const auto& a : args) command += " " + shellQuote(a);
    const std::string errPath = dir.file("stderr.txt");
    command += " >/dev/null 2>" + shellQuote(errPath);
    INFO("command: " << command);

    CliResult result;
    int status = std::system(command.c_str());
    REQUIRE(status != -1);
    REQUIRE(WIFEXITED(status));
    result.exitCode = WEXITSTATUS(status);

    std::ifstream in(errPath);
    std::stringstream ss;
    ss << in.rdbuf();
    result.err = ss.str();
    std::istringstream lines(result.err);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("wavefront-render:", 0) == 0) result.errorLines.push_back(line);
    return result;
}

/// Exit code 2 and exactly one error line that mentions every one of `words` (case-insensitive).
void requireInputError(const CliResult& r, std::initializer_list<std::string> words) {
    INFO("stderr:\n" << r.err);
    CHECK(r.exitCode == 2);
    REQUIRE(r.errorLines.size() == 1);
    for (const auto& w : words) {
        INFO("expected the message to mention '" << w << "'");
        CHECK(lower(r.errorLines[0]).find(lower(w)) != std::string::npos);
    }
}

const std::string kTriangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";

}  // namespace

TEST_CASE("cli: a missing .obj file is reported", "[cli]") {
    TempDir dir;
    auto r = runCli(dir, {(dir.path() / "does-not-exist.obj").string(), "--backend", "cpu", "--out", dir.file("o.pfm")});
    requireInputError(r, {"does-not-exist.obj"});
}

TEST_CASE("cli: a malformed OBJ face is reported", "[cli]") {
    TempDir dir;
    std::string obj = dir.write("bad.obj", kTriangle + "f 1 2 99\n");
    auto r = runCli(dir, {obj, "--backend", "cpu", "--res", "8x8", "--spp", "1", "--out", dir.file("o.pfm")});
    requireInputError(r, {"face 1", "99"});
}

TEST_CASE("cli: a NaN vertex names the face that uses it", "[cli]") {
    TempDir dir;
    std::string obj = dir.write("nan.obj", "v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    auto r = runCli(dir, {obj, "--backend", "cpu", "--res", "8x8", "--spp", "1", "--out", dir.file("o.pfm")});
    requireInputError(r, {"face 1"});
}

TEST_CASE("cli: a scene without an emitter is reported", "[cli]") {
    TempDir dir;
    std::string obj = dir.write("dark.obj", kTriangle + "f 1 2 3\n");
    auto r = runCli(dir, {obj, "--backend", "cpu", "--res", "8x8", "--spp", "1", "--out", dir.file("o.pfm")});
    requireInputError(r, {"emitter"});
}

TEST_CASE("cli: an unknown scene name is reported", "[cli]") {
    TempDir dir;
    auto r = runCli(dir, {"no-such-scene", "--backend", "cpu", "--out", dir.file("o.pfm")});
    requireInputError(r, {"no-such-scene"});
}

TEST_CASE("cli: bad resolutions are reported", "[cli]") {
    TempDir dir;
    const std::string out = dir.file("o.pfm");
    SECTION("zero") { requireInputError(runCli(dir, {"--res", "0x10", "--backend", "cpu", "--out", out}), {"0x10"}); }
    SECTION("absurd") {
        requireInputError(runCli(dir, {"--res", "100000x100000", "--backend", "cpu", "--out", out}), {"100000x100000"});
    }
    SECTION("syntax") { requireInputError(runCli(dir, {"--res", "abc", "--backend", "cpu", "--out", out}), {"abc"}); }
}

TEST_CASE("cli: out-of-range numbers are refused before rendering", "[cli]") {
    // Each used to run forever, be ignored, wrap around or write a black image (issue 18).
    TempDir dir;
    auto render = [&](std::vector<std::string> extra, const std::string& out = "o.pfm") {
        std::vector<std::string> args = {"--backend", "cpu", "--res", "8x8", "--spp", "1", "--out", dir.file(out)};
        args.insert(args.end(), extra.begin(), extra.end());
        return runCli(dir, args);
    };
    requireInputError(runCli(dir, {"--res", "4294967312x16", "--backend", "cpu", "--out", dir.file("o.pfm")}),
                      {"4294967312x16"});
    requireInputError(runCli(dir, {"--time", "0", "--backend", "cpu", "--res", "8x8", "--out", dir.file("o.pfm")}),
                      {"--time"});
    requireInputError(runCli(dir, {"--time", "nan", "--backend", "cpu", "--res", "8x8", "--out", dir.file("o.pfm")}),
                      {"--time"});
    requireInputError(runCli(dir, {"--time", "inf", "--backend", "cpu", "--res", "8x8", "--out", dir.file("o.pfm")}),
                      {"--time"});
    requireInputError(render({"--exposure", "200"}, "o.png"), {"exposure"});
    requireInputError(render({"--exposure", "nan"}, "o.png"), {"exposure"});
    requireInputError(render({"--integrator", "bdpt", "--strategy", "99,99"}), {"strategy 99,99", "max depth"});
}

TEST_CASE("cli: an unknown variant is reported", "[cli]") {
    TempDir dir;
    auto r = runCli(dir, {"--variant", "warp-drive", "--backend", "cpu", "--out", dir.file("o.pfm")});
    requireInputError(r, {"variant", "warp-drive"});
}

TEST_CASE("cli: an unknown backend is reported", "[cli]") {
    TempDir dir;
    auto r = runCli(dir, {"--backend", "vulkan", "--out", dir.file("o.pfm")});
    requireInputError(r, {"backend", "vulkan"});
}

TEST_CASE("cli: --devices renders on CPU workers and refuses bad lists", "[cli][multidevice]") {
    TempDir dir;
    auto r = runCli(dir, {"cornell-box", "--res", "16x16", "--spp", "4", "--backend", "cpu", "--devices", "0,1", "--stats",
                          "--out", dir.file("o.pfm")});
    INFO("stderr:\n" << r.err);
    CHECK(r.exitCode == 0);
    CHECK(r.err.find("cpu (") != std::string::npos);
    requireInputError(runCli(dir, {"--devices", "0,x", "--backend", "cpu", "--out", dir.file("o.pfm")}), {"--devices", "0,x"});
    requireInputError(runCli(dir, {"--devices", "1,1", "--backend", "cpu", "--out", dir.file("o.pfm")}), {"device 1", "twice"});
    requireInputError(runCli(dir, {"--devices", "", "--backend", "cpu", "--out", dir.file("o.pfm")}), {"--devices"});
}

TEST_CASE("cli: mlt renders and reports its chains", "[cli][mlt]") {
    TempDir dir;
    auto r = runCli(dir, {"cornell-box", "--integrator", "mlt", "--backend", "cpu", "--res", "16x16", "--spp", "4",
                          "--stream-capacity", "64", "--large-step", "0.5", "--startup", "uniform",
                          "--camera-connections", "off", "--stats", "--out", dir.file("o.pfm")});
    CHECK(r.exitCode == 0);
    CHECK(std::filesystem::exists(dir.file("o.pfm")));
    CHECK(r.err.find("[wavefront] mlt") != std::string::npos);
}

TEST_CASE("cli: bad MLT options are reported", "[cli][mlt]") {
    TempDir dir;
    auto mlt = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = {"--integrator", "mlt", "--backend", "cpu", "--res", "8x8", "--spp", "1",
                                         "--out", dir.file("o.pfm")};
        args.insert(args.end(), extra.begin(), extra.end());
        return runCli(dir, args);
    };
    requireInputError(mlt({"--large-step", "-0.1"}), {"large-step probability"});
    requireInputError(mlt({"--small-step", "0.0009"}), {"small step"});
    requireInputError(mlt({"--small-step", "0.6"}), {"small step"});
    requireInputError(mlt({"--startup", "hot"}), {"--startup", "hot"});
    requireInputError(mlt({"--camera-connections", "maybe"}), {"--camera-connections", "maybe"});
}

TEST_CASE("cli: bdpt renders with both schedules", "[cli][bdpt]") {
    TempDir dir;
    for (const char* variant : {"streaming", "naive"}) {
        auto r = runCli(dir, {"cornell-box", "--integrator", "bdpt", "--bdpt-variant", variant, "--backend", "cpu", "--res",
                              "16x16", "--spp", "2", "--out", dir.file("o.pfm")});
        CHECK(r.exitCode == 0);
        CHECK(std::filesystem::exists(dir.file("o.pfm")));
    }
}

TEST_CASE("cli: bad BDPT options are reported", "[cli][bdpt]") {
    TempDir dir;
    auto bdpt = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = {"--integrator", "bdpt", "--backend", "cpu", "--res", "8x8", "--spp", "1",
                                         "--out", dir.file("o.pfm")};
        args.insert(args.end(), extra.begin(), extra.end());
        return runCli(dir, args);
    };
    requireInputError(bdpt({"--connect-threshold", "1.5"}), {"connect threshold"});
    requireInputError(bdpt({"--connect-threshold", "0"}), {"connect threshold"});
    requireInputError(bdpt({"--strategy", "2"}), {"strategy", "S,T"});
    requireInputError(bdpt({"--strategy", "1,0"}), {"t >= 1"});
    requireInputError(bdpt({"--bdpt-variant", "fast"}), {"BDPT variant", "fast"});
    requireInputError(runCli(dir, {"--strategy", "1,1", "--backend", "cpu", "--out", dir.file("o.pfm")}),
                      {"--integrator bdpt"});
}

TEST_CASE("cli: --backend cuda without a CUDA device is reported", "[cli]") {
    if (wavefront::cudaDeviceCount() > 0) {
        WARN("a CUDA device is present; nothing to check");
        return;
    }
    TempDir dir;
    auto r = runCli(dir, {"--backend", "cuda", "--res", "8x8", "--spp", "1", "--out", dir.file("o.pfm")});
    requireInputError(r, {"CUDA"});
    // "no CUDA device is available", or "no CUDA support" in a build without the CUDA backend.
    CHECK((lower(r.errorLines.at(0)).find("device") != std::string::npos ||
           lower(r.errorLines.at(0)).find("support") != std::string::npos));
}

TEST_CASE("cli: a tiny CPU render succeeds and writes its image", "[cli]") {
    TempDir dir;
    const std::string out = (dir.path() / "x.pfm").string();
    auto r = runCli(dir, {"cornell-box", "--res", "32x32", "--spp", "2", "--backend", "cpu", "--out", out});
    INFO("stderr:\n" << r.err);
    CHECK(r.exitCode == 0);
    CHECK(r.errorLines.empty());
    REQUIRE(fs::exists(out));
    CHECK(fs::file_size(out) > 32u * 32u * 3u * sizeof(float));
}

TEST_CASE("cli: estimates beyond the float range are clamped with one warning line", "[cli][overflow]") {
    // An emitter of 3e38 seen head on: MLT's pixel estimates scatter around 3e38, and some land
    // above FLT_MAX (3.4e38); resolve clamps them and the CLI says so once. The file is finite.
    TempDir dir;
    dir.write("hot.mtl", "newmtl hot\nKd 0.5 0.5 0.5\nKe 3e38 3e38 3e38\n");
    std::string obj = dir.write("hot.obj", "mtllib hot.mtl\nv -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nusemtl hot\n"
                                           "f 1 2 3\nf 1 3 4\n");
    const std::string out = dir.file("hot.pfm");
    auto r = runCli(dir,
                    {obj, "--integrator", "mlt", "--res", "32x32", "--spp", "16", "--backend", "cpu", "--out", out});
    INFO("stderr:\n" << r.err);
    CHECK(r.exitCode == 0);
    std::istringstream lines(r.err);
    int warnings = 0;
    for (std::string line; std::getline(lines, line);)
        warnings += line.find("warning") != std::string::npos && line.find("clamped") != std::string::npos;
    CHECK(warnings == 1);
    REQUIRE(fs::exists(out));
    CHECK(wftest::allFinite(wavefront::readImage(out)));
}

TEST_CASE("cli: the output is checked before rendering and every write verified", "[cli][hardening]") {
    TempDir dir;
    // An unknown extension (x.jpg, before JPEG output) was refused only after the render: this one
    // would run for minutes.
    auto start = std::chrono::steady_clock::now();
    requireInputError(runCli(dir, {"--backend", "cpu", "--spp", "100000", "--out", dir.file("x.gif")}), {"x.gif", ".gif"});
    requireInputError(runCli(dir, {"--backend", "cpu", "--spp", "100000", "--out", dir.file("no/such/x.png")}),
                      {"does not exist"});
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 2.0);
    // A write to /dev/full exited 0 and printed "wrote" (PNG, EXR); a FIFO blocked until something
    // read it (issue 37). Neither is a regular file: refused before the render.
    REQUIRE(::mkfifo(dir.file("pipe.png").c_str(), 0600) == 0);
    for (const char* name : {"full.png", "full.exr", "full.pfm", "pipe.png"}) {
        if (std::string(name) != "pipe.png") fs::create_symlink("/dev/full", dir.path() / name);
        auto r = runCli(dir, {"--backend", "cpu", "--res", "8x8", "--spp", "100000", "--out", dir.file(name)});
        requireInputError(r, {name, "not a regular file"});
        CHECK(r.err.find("wrote") == std::string::npos);
    }
    // A write that fails on a regular file (here: the file size limit, EFBIG) is reported, and
    // nothing is left behind.
    for (const char* name : {"big.png", "big.exr", "big.pfm"}) {
        const std::string command = "trap '' XFSZ; ulimit -f 0; " + shellQuote(renderExe()) +
                                    " --backend cpu --res 8x8 --spp 1 --out " + shellQuote(dir.file(name)) + " 2>&1";
        const CliResult r = runShell(command);
        INFO(r.err);
        CHECK(r.exitCode == 2);
        CHECK(lower(r.err).find("file too large") != std::string::npos);
        CHECK(r.err.find("wrote") == std::string::npos);
        CHECK_FALSE(fs::exists(dir.path() / name));
    }
    std::size_t left = 0;
    for (const auto& entry : fs::directory_iterator(dir.path())) left += entry.path().extension() == ".tmp";
    CHECK(left == 0);
}

TEST_CASE("cli: hostile input files end in one line naming the cause", "[cli][hardening]") {
    TempDir dir;
    const std::string triangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    std::string obj = dir.write("up.obj", "mtllib ../../../../dev/zero\n" + triangle + "f 1 2 3\n");
    auto args = [&](const std::string& scene) {
        return std::vector<std::string>{scene, "--backend", "cpu", "--res", "8x8", "--spp", "1", "--out", dir.file("o.pfm")};
    };
    requireInputError(runCli(dir, args(obj)), {"up.obj:1", "outside", "--allow-external-files"});
    obj = dir.write("missing.obj", "mtllib missing.mtl\n" + triangle + "f 1 2 3\n");
    requireInputError(runCli(dir, args(obj)), {"missing.mtl", "no such file"});
    obj = dir.write("wrap.obj", triangle + "f 4294967297 2 3\n");
    requireInputError(runCli(dir, args(obj)), {"4294967297"});
    REQUIRE(::mkfifo(dir.file("pipe.pfm").c_str(), 0600) == 0);
    auto envmap = args("cornell-box");
    envmap.insert(envmap.end(), {"--envmap", dir.file("pipe.pfm")});
    requireInputError(runCli(dir, envmap), {"pipe.pfm", "FIFO"});
    // Issue 37: a 49-byte run-length encoded .hdr looped forever in stb_image, as --envmap.
    const std::string hdr = dir.write("trunc.hdr", std::string("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 8\n\2\2\0\10", 49));
    envmap = args("hdr-spheres");
    envmap.insert(envmap.end(), {"--envmap", hdr});
    const auto start = std::chrono::steady_clock::now();
    requireInputError(runCli(dir, envmap), {"trunc.hdr", "take at least"});
    // A 189-byte PLY whose face list claims 10^9 items took 14 GB.
    const std::string ply = dir.write("list.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                                                  "property float z\nelement face 1\nproperty list uint uint vertex_indices\n"
                                                  "end_header\n0 0 0\n1 0 0\n0 1 0\n1000000000 0 1 2\n");
    auto plyArgs = args(ply);
    plyArgs.insert(plyArgs.end(), {"--sky", "uniform"});
    requireInputError(runCli(dir, plyArgs), {"list.ply", "claims 1000000000 items"});
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 10.0 * wftest::timeScale());
}

TEST_CASE("cli: numbers that would wrap are refused, and messages say what is wrong", "[cli][hardening]") {
    TempDir dir;
    const std::vector<std::string> tiny = {"--backend", "cpu", "--res", "8x8", "--spp", "1", "--out", dir.file("o.pfm")};
    auto with = [&](std::vector<std::string> extra) {
        extra.insert(extra.end(), tiny.begin(), tiny.end());
        return extra;
    };
    // sscanf's %d read 4294967297 as 1 (issue 37): the render used strategy 1,2.
    requireInputError(runCli(dir, with({"--integrator", "bdpt", "--strategy", "4294967297,2"})), {"4294967297", "out of range"});
    requireInputError(runCli(dir, with({"--integrator", "bdpt", "--strategy", "1,-2"})), {"out of range"});
    requireInputError(runCli(dir, with({"--devices", "4294967296"})), {"out of range"});
    // A camera at 1e30 was "the up vector is zero or parallel to the viewing direction".
    requireInputError(runCli(dir, with({"--camera", "1e30,1e30,1e30,0,0,0,0,1,0,40"})), {"overflows float"});
}

TEST_CASE("cli: --version prints the version", "[cli]") {
    const CliResult r = runShell(shellQuote(renderExe()) + " --version 2>&1");
    CHECK(r.exitCode == 0);
    CHECK(r.err.rfind("wavefront ", 0) == 0);
}

TEST_CASE("cli: control characters from files and paths are escaped in error lines", "[cli][hardening]") {
    TempDir dir;
    // An OBJ number holding "\033[2J" cleared the terminal; a path with a line break split the line.
    const std::string obj = dir.write("esc.obj", "v 0 0 0\nv 1\033[2J\v\f 0 0\nv 0 1 0\nf 1 2 3\n");
    CliResult r = runCli(dir, {obj, "--backend", "cpu", "--res", "8x8", "--spp", "1", "--out", dir.file("o.pfm")});
    requireInputError(r, {"esc.obj:2", "\\x1b[2J\\x0b\\x0c"});
    CHECK(r.err.find('\033') == std::string::npos);
    const std::string odd = dir.write("line\nbreak.obj", "v 0 0 0\n");
    r = runCli(dir, {odd, "--backend", "cpu", "--res", "8x8", "--spp", "1", "--out", dir.file("o.pfm")});
    requireInputError(r, {"line\\nbreak.obj"});
}

TEST_CASE("cli: threads that cannot be created end in one line, not an abort", "[cli][hardening][multidevice]") {
#if defined(__SANITIZE_ADDRESS__)
    WARN("AddressSanitizer reserves terabytes of address space: no ulimit -v under it; skipped");
    return;
#endif
    TempDir dir;
    // 64 CPU workers, each with its own pool, under a small address-space limit: std::thread threw
    // std::system_error, and the process aborted ("terminate called without an active exception").
    std::string devices = "0";
    for (int d = 1; d < 64; ++d) devices += "," + std::to_string(d);
    const CliResult r = runShell("ulimit -v 400000; " + shellQuote(renderExe()) + " --backend cpu --res 8x8 --spp 1 --devices " +
                                 devices + " --out " + shellQuote(dir.file("o.pfm")) + " 2>&1");
    INFO(r.err);
    if (r.exitCode == 0) {
        WARN("every thread started under the limit; nothing to check here");
        return;
    }
    CHECK(r.exitCode == 2);
    REQUIRE(r.errorLines.size() == 1);
    CHECK_THAT(r.errorLines[0], Catch::Matchers::Contains("cannot start a thread"));
}

TEST_CASE("cli: the CPU backend uses the CPUs of the process's affinity", "[cli]") {
    TempDir dir;
    if (std::system("command -v taskset >/dev/null 2>&1") != 0) {
        WARN("taskset is not installed; skipped");
        return;
    }
    const CliResult r = runShell("taskset -c 0 " + shellQuote(renderExe()) + " --backend cpu --res 8x8 --spp 1 --out " +
                                 shellQuote(dir.file("o.pfm")) + " 2>&1");
    INFO(r.err);
    CHECK(r.exitCode == 0);
    CHECK(r.err.find("(1 threads)") != std::string::npos);
}

TEST_CASE("cli: a pbrt-v4 file's Film and Integrator settings apply unless the command line sets them", "[cli][pbrt]") {
    TempDir dir;
    // The file's name is written in the scene's folder, whatever the working directory.
    const std::string output = dir.file("from-file.pfm");
    const auto text = [](const std::string& name) {
        return R"(LookAt 0 0 5 0 0 0 0 1 0
Camera "perspective"
Film "rgb" "integer xresolution" 12 "integer yresolution" 6 "string filename" ")" + name + R"("
Integrator "volpath" "integer maxdepth" 3
WorldBegin
AreaLightSource "diffuse"
Shape "sphere"
)";
    };
    const std::string scene = dir.write("scene.pbrt", text("from-file.pfm"));
    auto r = runCli(dir, {scene, "--backend", "cpu", "--spp", "1"});
    INFO(r.err);
    CHECK(r.exitCode == 0);
    CHECK(r.err.find("Integrator \"volpath\"") != std::string::npos);  // reported
    REQUIRE(fs::exists(output));
    const wavefront::Image image = wavefront::readImage(output);
    CHECK(image.width == 12);
    CHECK(image.height == 6);
    // The command line wins.
    r = runCli(dir, {scene, "--backend", "cpu", "--spp", "1", "--res", "4x4", "--out", dir.file("o.pfm")});
    CHECK(r.exitCode == 0);
    CHECK(wavefront::readImage(dir.file("o.pfm")).width == 4);
    // The file's output name meets the same checks as --out's.
    requireInputError(runCli(dir, {scene, "--backend", "cpu", "--spp", "1", "--exposure", "1"}),
                      {"--exposure applies to PNG and JPEG output only", "from-file.pfm"});
    // --strict turns the reported settings into an error.
    requireInputError(runCli(dir, {scene, "--backend", "cpu", "--strict", "--out", dir.file("o.pfm")}),
                      {"--strict", "Integrator"});
    // A name out of the scene's folder (issue 58: it overwrote files anywhere) is a warning, and
    // the default output is used; --allow-external-files lets it be written there.
    fs::create_directories(dir.path() / "sub");
    const std::string nested = dir.write("sub/scene.pbrt", text("../escape.pfm"));
    requireInputError(runCli(dir, {nested, "--backend", "cpu", "--spp", "1", "--strict", "--out", dir.file("o.pfm")}),
                      {"--strict", "'../escape.pfm' resolves to"});
    r = runCli(dir, {nested, "--backend", "cpu", "--spp", "1", "--allow-external-files"});
    CHECK(r.exitCode == 0);
    CHECK(wavefront::readImage(dir.file("escape.pfm")).width == 12);
}

TEST_CASE("cli: film options are checked, AOVs written as layers and files", "[cli]") {
    TempDir dir;
    auto bad = [&](std::vector<std::string> extra, const char* message) {
        std::vector<std::string> args{"cornell-box", "--backend", "cpu", "--res", "8x8", "--spp", "1"};
        args.insert(args.end(), extra.begin(), extra.end());
        CliResult r = runCli(dir, args);
        CHECK(r.exitCode == 2);
        REQUIRE(r.errorLines.size() == 1);
        CHECK_THAT(r.errorLines[0], Catch::Contains(message));
    };
    bad({"--filter", "lanczos", "--out", dir.file("o.png")}, "unknown pixel filter 'lanczos'");
    bad({"--tonemap", "filmic", "--out", dir.file("o.png")}, "unknown tone map 'filmic'");
    bad({"--tonemap", "aces", "--out", dir.file("o.exr")}, "--tonemap applies to PNG and JPEG output only");
    bad({"--aovs", "--out", dir.file("o.png")}, "--aovs writes layers of an .exr --out");
    CliResult ok = runCli(dir, {"cornell-box", "--backend", "cpu", "--res", "8x8", "--spp", "2", "--filter", "gaussian",
                                "--aovs", "--aov-files", "--out", dir.file("o.exr")});
    REQUIRE(ok.exitCode == 0);
    CHECK(wavefront::readImageLayer(dir.file("o.exr"), "albedo").width == 8);
    CHECK(wavefront::readImage(dir.file("o.depth.exr")).width == 8);
    CHECK(wavefront::readImage(dir.file("o.variance.exr")).width == 8);
    CHECK(runCli(dir, {"cornell-box", "--backend", "cpu", "--res", "8x8", "--spp", "1", "--tonemap", "reinhard", "--out",
                       dir.file("o.png")}).exitCode == 0);
}

TEST_CASE("cli: -o, --outfile, -t and --nthreads are aliases, and .jpg writes a JPEG", "[cli]") {
    TempDir dir;
    auto bytesOf = [](const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    };
    CliResult jpeg = runCli(dir, {"cornell-box", "--backend", "cpu", "--res", "8x8", "--spp", "1", "-t", "1",
                                  "--exposure", "1", "-o", dir.file("o.jpg")});
    INFO(jpeg.err);
    REQUIRE(jpeg.exitCode == 0);
    CHECK(bytesOf(dir.file("o.jpg")).rfind("\xFF\xD8\xFF", 0) == 0);  // the JPEG start-of-image marker
    CliResult png = runCli(dir, {"cornell-box", "--backend", "cpu", "--res", "8x8", "--spp", "1", "--nthreads", "2",
                                 "--outfile", dir.file("o.png")});
    REQUIRE(png.exitCode == 0);
    CHECK(bytesOf(dir.file("o.png")).rfind("\x89PNG", 0) == 0);
    requireInputError(runCli(dir, {"cornell-box", "--backend", "cpu", "--res", "8x8", "--spp", "1", "-o",
                                   dir.file("o.gif")}),
                      {".gif", ".jpg"});
}

TEST_CASE("cli: --crop renders the window of the frame, and bad windows are refused", "[cli][crop]") {
    TempDir dir;
    auto bad = [&](const std::string& crop, const char* message) {
        CliResult r = runCli(dir, {"cornell-box", "--backend", "cpu", "--res", "16x8", "--spp", "1", "--crop", crop,
                                   "--out", dir.file("o.pfm")});
        INFO("--crop " << crop << "\n" << r.err);
        CHECK(r.exitCode == 2);
        REQUIRE(r.errorLines.size() == 1);
        CHECK_THAT(r.errorLines[0], Catch::Contains(message));
    };
    bad("1,2,3", "is not of the form x0,y0,x1,y1");
    bad("a,0,4,4", "is not of the form x0,y0,x1,y1");
    bad("-1,0,4,4", "out of range");
    bad("4,0,4,4", "crop window 4,0,4,4 must be a non-empty pixel rectangle");   // empty
    bad("6,0,2,4", "crop window 6,0,2,4 must be a non-empty");                   // inverted
    bad("0,0,17,4", "0 <= x0 < x1 <= 16");                                       // outside the frame
    CliResult ok = runCli(dir, {"cornell-box", "--backend", "cpu", "--res", "16x8", "--spp", "2", "--crop", "3,1,11,6",
                                "--out", dir.file("crop.pfm")});
    REQUIRE(ok.exitCode == 0);
    CliResult full = runCli(dir, {"cornell-box", "--backend", "cpu", "--res", "16x8", "--spp", "2", "--out",
                                  dir.file("full.pfm")});
    REQUIRE(full.exitCode == 0);
    const wavefront::Image crop = wavefront::readImage(dir.file("crop.pfm"));
    const wavefront::Image frame = wavefront::readImage(dir.file("full.pfm"));
    REQUIRE(crop.width == 8);
    REQUIRE(crop.height == 5);
    double worst = 0.0;
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 8; ++x)
            for (int c = 0; c < 3; ++c) {
                const float a = crop.rgb[3 * (y * 8 + x) + c], b = frame.rgb[3 * ((y + 1) * 16 + x + 3) + c];
                worst = std::max(worst, std::fabs(double(a) - b) / std::max(std::fabs(double(b)), 1e-3));
            }
    CHECK(worst < 1e-5);  // the same samples (PT), summed in another order
}

#else

TEST_CASE("cli: wavefront-render is not built", "[cli]") {
    WARN("WAVEFRONT_RENDER_EXE is not defined (built without examples); CLI tests skipped");
}

#endif
