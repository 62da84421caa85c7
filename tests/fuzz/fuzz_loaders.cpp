// A bounded mutation fuzzer for the loaders (issues 18, 35 and 37): mutates seed OBJ, MTL, PFM, EXR,
// Radiance HDR, texture images (PNG, JPEG, BMP, TGA, and HDR content under a .png name: decoded
// through an OBJ whose MTL names them as map_Kd), glTF, .glb, external .bin buffers (through the
// seed glTF that names them), PLY files (also through a pbrt-v4 file's plymesh, which has its own
// reader) and pbrt-v4 files, and real models given with --model (assimp-testmodels:
// each case is written next to copies of its model's files, so that its buffers and textures
// resolve). Each case is loaded in a child process with a time and memory limit, and what loads is
// rendered (8x8, one sample, CPU; image files as the environment of a built-in scene). Reported
// as failures: crashes, hangs, errors that are not InputError, messages of more than one line or
// with a control character, and renders with non-finite samples or film values. Renders that come
// out black are counted (a fuzzed camera may well see nothing). The cases that failed are written
// to the failure folder (scripts/fuzz-loaders.sh: tests/data/regressions), where
// regressions_test.cpp loads every one of them.
//   wavefront_fuzz_loaders SEED_DIR FAILURE_DIR [--cases N] [--seed S] [--timeout SECONDS] [--model FILE]... [--only .EXT]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "wavefront/wavefront.h"

namespace fs = std::filesystem;

namespace {

// Values that broke or could break a parser: non-finite and huge numbers, indices that wrap, line
// endings, paths out of the folder.
const char* const kTokens[] = {
    "nan", "inf", "-inf", "1e39", "1e19", "-1e400", "4294967297", "99999999999", "-2147483649", "0", "-1", "//",
    "1/1/1", "1//", "\r", "\n", "\r\n", " ", "#", "\t", "mtllib ../../../../dev/zero\n", "mtllib /etc/passwd\n",
    "usemtl nope\n", "f 1 2 3 4 5 6 7 8 9\n", "f -1 -2 -3\n", "v 1e19 0 0\n", "vn nan 0 0\n", "newmtl x\n",
    "Kd 1e30 1 1\n", "Ke nan 1 1\n", "illum 7\n", "illum 3\n", "Ni 0\n", "Pr 2\n", "Pm -1\n", "Ks 2 2 2\n",
    "PF\n100000 100000\n-1.0\n", "Pf\n1 1\n1.0\n", "-0", "+5", "0x10", "1e-400",
    // glTF and PLY
    "\"../../../../dev/zero\"", "\"/etc/passwd\"", "4000000000", "[[[[[[[[", "]]]]", "{\"children\": [0, 0]}", "\"children\"",
    "\"count\": 1000000000", "\"byteLength\": 4294967295", "\"uri\": \"data:,\"", "null", "{}", "[]",
    "element vertex 2000000000\n", "property list uint uint vertex_indices\n", "format binary_big_endian 1.0\n",
    "end_header\n", "1000000000 0 1 2\n", "3 0 1 2\n", "4294967295", "Created by x\n", "\"byteOffset\": 18446744073709551608",
    "\"byteStride\": 3", "\"sparse\": {\"count\": 9}",
    // pbrt-v4
    "[", "]", "\"", "\\", "AttributeBegin\n", "AttributeEnd\n", "ObjectBegin \"pair\"\n", "ObjectInstance \"pair\"\n",
    "Include \"../../../../dev/zero\"\n", "Import \"/etc/passwd\"\n", "Include \"CASE\"\n", "\"integer levels\" 30 ",
    "\"float radius\" -1 ", "\"float fov\" 0 ", "Scale 0 0 0\n", "Scale 1e30 1e30 1e30\n", "Rotate 90 0 0 0\n",
    "ReverseOrientation\n", "\"rgb L\" [ 1e38 1e38 1e38 ] ", "\"blackbody L\" 0 ", "\"spectrum k\" [ 300 1 ] ",
    "\"texture tex\" \"half\" ", "WorldBegin\n", "\"point3 P\" [ nan 0 0 ] ",
    // pbrt-v4, issue 58: stray writes, include DAGs, wraps, values without a place, budgets
    "\"string filename\" \"/tmp/wavefront-fuzz-escape.png\" ", "\"string filename\" \"../escape.png\" ",
    "Include \"CASE\"\nInclude \"CASE\"\n", "\"float levels\" 2147483648 ", "\"float xresolution\" 2147483648 ",
    "\"integer maxdepth\" 255 ", "\"float focaldistance\" 0 ", "\"float scale\" 1e38 ", "Attribute \"shape\" \"float radius\" 2\n",
    "Attribute \"material\" \"float roughness\" 0.5\n", "Scale 1 2 1\n", "\"bool twosided\" true ", "\"integer levels\" 9 ",
    // pbrt-v4 media: grids past the limit or not matching their counts, negative values, names made twice or never
    "MediumInterface \"fog\" \"\"\n", "MediumInterface \"smoke\"\n", "\"integer nx\" 2147483647 ", "\"integer nz\" 65536 ",
    "\"float density\" [ -1 0 ] ", "\"string type\" \"rgbgrid\" ", "\"string type\" \"uniformgrid\" ", "\"float g\" 1 ",
    "\"string preset\" \"Ketchup\" ", "MakeNamedMedium \"fog\" \"string type\" \"homogeneous\"\n", "Material \"interface\"\n",
    // Radiance HDR and text: runs of 0 and 255, the resolution line, control characters in messages
    "\2\2\0\10", "\x80", "\xff", "-Y 100000 +X 100000\n", "FORMAT=32-bit_rle_xyze\n", "\033[2J", "\v", "\f",
    // OBJ polygons that are concave or cross themselves
    "f 1 2 3 4 5 6 7\n", "f 1 3 2 4\n", "usemtl \n", "map_Ke x.png\n", "norm x.png\n"};
const std::int32_t kInts[] = {0, -1, 1, 0x7fffffff, std::int32_t(0x80000000), 1000000, 65536, 16, 3};

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

void writeFile(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

std::string mutate(std::string s, std::mt19937_64& rng) {
    auto pick = [&](std::size_t n) { return n == 0 ? std::size_t(0) : std::size_t(rng() % n); };
    const int count = 1 + int(rng() % 4);
    for (int m = 0; m < count; ++m) {
        const std::size_t at = pick(s.size() + 1);
        switch (rng() % 8) {
        case 0:
            if (!s.empty()) s[pick(s.size())] ^= char(1u << (rng() % 8));
            break;
        case 1:
            if (!s.empty()) s[pick(s.size())] = "\0\xff\r\n /-#.e9"[rng() % 12];
            break;
        case 2: s.erase(at, 1 + pick(16)); break;
        case 3: {
            const std::size_t from = pick(s.size()), length = 1 + pick(64);
            s.insert(at, s.substr(from, length));
            break;
        }
        case 4:
        case 5: {  // a token, replacing the one under the cursor in text
            const std::string token = kTokens[rng() % std::size(kTokens)];
            std::size_t end = s.find_first_of(" \t\r\n", at);
            if (end == std::string::npos) end = s.size();
            s.replace(at, rng() % 2 ? end - at : 0, token);
            break;
        }
        case 6:
            if (s.size() >= 4) {
                const std::int32_t v = kInts[rng() % std::size(kInts)];
                std::memcpy(&s[pick(s.size() - 3)], &v, 4);
            }
            break;
        case 7: s.resize(pick(s.size() + 1)); break;
        }
    }
    return s;
}

enum Outcome { Ok = 0, Refused = 2, MultiLine = 3, OtherError = 4, Black = 5, NonFinite = 6, ControlCharacter = 7 };

bool isTexture(const std::string& ext) {
    return ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp" || ext == ".tga" || ext == ".gif";
}

bool isImage(const std::string& ext) { return ext == ".pfm" || ext == ".exr" || ext == ".hdr"; }

// Renders what loaded, tiny, on the CPU: the outcome for its samples and film.
Outcome render(wavefront::Scene scene) {
    bool lit = scene.hasEnvironment();
    for (int m : scene.triangleMaterials()) lit = lit || scene.materials()[std::size_t(m)].isEmissive();
    if (!lit) scene.setEnvironment(wavefront::skyEnvironment("uniform"));
    wavefront::RenderOptions options;
    options.backend = wavefront::Backend::Cpu;
    options.width = options.height = 8;
    options.samplesPerPixel = 1;
    wavefront::Renderer renderer(std::move(scene), options);
    renderer.render();
    const wavefront::Film& film = renderer.film();
    bool finite = renderer.stats().nonFiniteSamples == 0, black = true;
    for (double v : film.sum) {
        finite = finite && std::isfinite(v);
        black = black && v == 0.0;
    }
    return !finite ? NonFinite : black ? Black : Ok;
}

// Loads `path` the way the renderer would, then renders it; in the child process.
[[noreturn]] void loadAndExit(const fs::path& path, int fd) {
    int code = Ok;
    std::string message;
    try {
        const std::string ext = path.extension().string();
        if (isImage(ext)) {
            wavefront::Image image = wavefront::readImage(path.string());
            wavefront::Scene scene = wavefront::Scene::builtin("cornell-box");
            scene.setEnvironment(std::move(image));
            code = render(std::move(scene));
        } else if (ext == ".obj") {
            code = render(wavefront::Scene::loadObj(path.string()));
        } else {
            code = render(wavefront::Scene::loadFile(path.string()));
        }
        // A PLY case again through the pbrt-v4 loader's own PLY reader (its wrapper beside it).
        const fs::path pbrt = fs::path(path).replace_extension(".pbrt");
        if (ext == ".ply" && code != NonFinite && fs::exists(pbrt)) code = std::max(code, int(render(wavefront::Scene::loadFile(pbrt.string()))));
        if (code == NonFinite) message = "non-finite samples or film values";
    } catch (const wavefront::InputError& e) {
        message = e.what();
        code = message.find_first_of("\r\n") != std::string::npos ? MultiLine
               : std::any_of(message.begin(), message.end(), [](char c) { return (unsigned char)c < 0x20 || c == 0x7f; })
                   ? ControlCharacter
                   : Refused;
    } catch (const std::exception& e) {
        message = std::string("not an InputError: ") + e.what();
        code = OtherError;
    }
    if (write(fd, message.data(), message.size()) < 0) code = OtherError;
    _exit(code);
}

// A seed and the folder its cases are written to, next to copies of the seed's own folder (a
// model's buffers and textures; the other seeds).
struct Seed {
    fs::path file, work;
};

// Copies the regular files of `from` (up to 4 MiB each) into `to`.
void copySiblings(const fs::path& from, const fs::path& to) {
    fs::create_directories(to);
    for (const auto& entry : fs::directory_iterator(from))
        if (entry.is_regular_file() && entry.file_size() <= (4u << 20))
            fs::copy_file(entry.path(), to / entry.path().filename(), fs::copy_options::overwrite_existing);
}

// The text of `file` with every `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: %s SEED_DIR FAILURE_DIR [--cases N] [--seed S] [--timeout SECONDS] [--model FILE]... [--only .EXT]\n",
                     argv[0]);
        return 2;
    }
    const fs::path seeds = argv[1], failures = argv[2];
    long cases = 1000, timeout = 5;
    unsigned long long seed = 1;
    std::vector<fs::path> models;
    std::string only;  // --only .pbrt: fuzz the seeds of that extension alone (the others still lie beside them)
    for (int i = 3; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--cases") cases = std::atol(argv[i + 1]);
        else if (flag == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
        else if (flag == "--timeout") timeout = std::atol(argv[i + 1]);
        else if (flag == "--model") models.push_back(argv[i + 1]);
        else if (flag == "--only") only = argv[i + 1];
        else {
            std::fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    const fs::path work = fs::temp_directory_path() / ("wavefront-fuzz-" + std::to_string(getpid()));
    std::vector<Seed> inputs;
    copySiblings(seeds, work / "seeds");
    for (const auto& entry : fs::directory_iterator(seeds))
        // A .bin is a buffer: fuzzed through the seed glTF that names it.
        if (entry.is_regular_file() && (only.empty() || entry.path().extension() == only))
            inputs.push_back({entry.path(), work / "seeds"});
    for (std::size_t m = 0; m < models.size(); ++m) {
        if (!fs::is_regular_file(models[m])) {
            std::fprintf(stderr, "no model %s\n", models[m].c_str());
            return 2;
        }
        const fs::path folder = work / ("model-" + std::to_string(m));
        copySiblings(models[m].parent_path(), folder);
        inputs.push_back({models[m], folder});
    }
    std::sort(inputs.begin(), inputs.end(), [](const Seed& a, const Seed& b) { return a.file < b.file; });
    if (inputs.empty()) {
        std::fprintf(stderr, "no seed files in %s\n", seeds.c_str());
        return 2;
    }
    fs::create_directories(failures);

    std::mt19937_64 rng(seed);
    std::map<std::string, long> tally;
    long failed = 0;
    for (long n = 0; n < cases; ++n) {
        const Seed& input = inputs[std::size_t(n) % inputs.size()];
        const std::string ext = input.file.extension().string();
        const std::string bytes = mutate(readFile(input.file), rng);
        const std::string name = "case-" + std::to_string(seed) + "-" + std::to_string(n);
        const fs::path file = input.work / (name + ext);
        // A pbrt case may include itself (the token "Include \"CASE\""): bounded by the include depth.
        writeFile(file, ext == ".pbrt" ? replaced(bytes, "CASE", name + ".pbrt") : bytes);
        // What loads the case, when it is not a scene or image file itself: an OBJ naming an MTL
        // case or a texture case, or the glTF naming a buffer case. A PLY case is loaded itself and
        // also through a pbrt-v4 file naming it (loaded second, beside the PLY).
        std::vector<std::pair<fs::path, std::string>> wrappers;
        if (ext == ".ply") {
            writeFile(input.work / (name + ".pbrt"),
                      "WorldBegin\nAreaLightSource \"diffuse\"\nShape \"plymesh\" \"string filename\" \"" + name + ".ply\"\n");
        }
        if (ext == ".mtl") {
            wrappers.push_back({input.work / (name + ".obj"), "mtllib " + name + ".mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"});
        } else if (isTexture(ext)) {
            wrappers.push_back({input.work / (name + ".obj"),
                                "mtllib " + name + ".mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nusemtl t\nf 1/1 2/2 3/3\n"});
            wrappers.push_back({input.work / (name + ".mtl"), "newmtl t\nKe 1 1 1\nmap_Kd " + name + ext + "\n"});
        } else if (ext == ".bin") {
            for (const auto& entry : fs::directory_iterator(input.work)) {
                const std::string gltf = entry.path().extension() == ".gltf" ? readFile(entry.path()) : "";
                if (entry.path().filename().string().rfind("case-", 0) != 0 &&
                    gltf.find(input.file.filename().string()) != std::string::npos) {
                    wrappers.push_back({input.work / (name + ".gltf"), replaced(gltf, input.file.filename().string(), name + ".bin")});
                    break;
                }
            }
            if (wrappers.empty()) {
                fs::remove(file);
                ++tally[ext + " skipped (no glTF names it)"];
                continue;
            }
        }
        for (const auto& [path, text] : wrappers) writeFile(path, text);
        const fs::path load = wrappers.empty() ? file : wrappers.front().first;

        int pipeFds[2];
        if (pipe(pipeFds) != 0) return 1;
        const pid_t child = fork();
        if (child == 0) {
            close(pipeFds[0]);
            alarm(unsigned(timeout));
#if !defined(__SANITIZE_ADDRESS__)  // ASan reserves terabytes of address space for its shadow
            const rlim_t memory = rlim_t(4) << 30;  // runaway allocation is a failure, not a swap storm
            rlimit limit{memory, memory};
            setrlimit(RLIMIT_AS, &limit);
#endif
            loadAndExit(load, pipeFds[1]);
        }
        close(pipeFds[1]);
        std::string message;
        char buffer[4096];
        for (ssize_t got; (got = read(pipeFds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, std::size_t(got));
        close(pipeFds[0]);
        int status = 0;
        waitpid(child, &status, 0);

        std::string outcome;
        if (WIFSIGNALED(status))
            outcome = WTERMSIG(status) == SIGALRM ? "hang" : std::string("crash (") + strsignal(WTERMSIG(status)) + ")";
        else if (WEXITSTATUS(status) == Ok) outcome = "loaded";
        else if (WEXITSTATUS(status) == Black) outcome = "loaded, rendered black";
        else if (WEXITSTATUS(status) == Refused) outcome = "refused";
        else if (WEXITSTATUS(status) == MultiLine) outcome = "multi-line error";
        else if (WEXITSTATUS(status) == ControlCharacter) outcome = "control character in the error";
        else if (WEXITSTATUS(status) == NonFinite) outcome = "non-finite render";
        else outcome = "other error";
        const std::string kind = input.work.filename() == "seeds" ? ext : input.file.filename().string();
        ++tally[kind + " " + outcome];
        if (std::getenv("WAVEFRONT_FUZZ_VERBOSE"))  // every outcome, to review what is refused
            std::printf("%s%s (from %s): %s: %s\n", name.c_str(), ext.c_str(), input.file.c_str(), outcome.c_str(),
                        message.c_str());
        if (outcome != "loaded" && outcome != "refused" && outcome != "loaded, rendered black") {
            ++failed;
            std::printf("%s%s (from %s): %s: %s\n", name.c_str(), ext.c_str(), input.file.c_str(), outcome.c_str(),
                        message.c_str());
            fs::copy_file(file, failures / file.filename(), fs::copy_options::overwrite_existing);
            for (const auto& [path, text] : wrappers) writeFile(failures / path.filename(), text);
            if (ext == ".ply")
                fs::copy_file(input.work / (name + ".pbrt"), failures / (name + ".pbrt"), fs::copy_options::overwrite_existing);
        }
        fs::remove(file);
        for (const auto& wrapper : wrappers) fs::remove(wrapper.first);
        if (ext == ".ply") fs::remove(input.work / (name + ".pbrt"));
    }
    fs::remove_all(work);
    for (const auto& [what, count] : tally) std::printf("%8ld  %s\n", count, what.c_str());
    std::printf("%ld cases, %ld failed\n", cases, failed);
    return failed ? 1 : 0;
}
