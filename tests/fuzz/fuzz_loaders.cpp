// A bounded mutation fuzzer for the loaders (issue 18): mutates seed OBJ, MTL, PFM, EXR, glTF, .glb,
// PLY and pbrt-v4 files (glTF, .glb and PLY through Assimp, Scene::loadFile; PLY also through a
// pbrt-v4 file's plymesh, which has its own reader),
// loads each case in a child process with a time and memory limit, and reports crashes, hangs,
// errors that are not InputError and messages longer than one line. The cases that failed are
// written to the failure folder (scripts/fuzz-loaders.sh: tests/data/regressions), where
// regressions_test.cpp loads every one of them.
//   wavefront_fuzz_loaders SEED_DIR FAILURE_DIR [--cases N] [--seed S] [--timeout SECONDS]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
    "end_header\n",
    // pbrt-v4
    "[", "]", "\"", "\\", "AttributeBegin\n", "AttributeEnd\n", "ObjectBegin \"pair\"\n", "ObjectInstance \"pair\"\n",
    "Include \"../../../../dev/zero\"\n", "Import \"/etc/passwd\"\n", "Include \"CASE\"\n", "\"integer levels\" 30 ",
    "\"float radius\" -1 ", "\"float fov\" 0 ", "Scale 0 0 0\n", "Scale 1e30 1e30 1e30\n", "Rotate 90 0 0 0\n",
    "ReverseOrientation\n", "\"rgb L\" [ 1e38 1e38 1e38 ] ", "\"blackbody L\" 0 ", "\"spectrum k\" [ 300 1 ] ",
    "\"texture tex\" \"half\" ", "WorldBegin\n", "\"point3 P\" [ nan 0 0 ] "};
const std::int32_t kInts[] = {0, -1, 1, 0x7fffffff, std::int32_t(0x80000000), 1000000, 65536, 16, 3};

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

void writeFile(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    return s;
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

enum Outcome { Ok = 0, Refused = 2, MultiLine = 3, OtherError = 4 };

// Loads `path` the way the renderer would; in the child process.
[[noreturn]] void loadAndExit(const fs::path& path, int fd) {
    int code = Ok;
    std::string message;
    try {
        const std::string ext = path.extension().string();
        if (ext == ".obj")
            wavefront::Scene::loadObj(path.string());
        else if (ext == ".gltf" || ext == ".glb" || ext == ".ply" || ext == ".pbrt")
            wavefront::Scene::loadFile(path.string());
        else
            wavefront::readImage(path.string());
        // A PLY case again through the pbrt-v4 loader's own PLY reader.
        if (ext == ".ply") wavefront::Scene::loadFile(fs::path(path).replace_extension(".pbrt").string());
    } catch (const wavefront::InputError& e) {
        message = e.what();
        code = message.find_first_of("\r\n") == std::string::npos ? Refused : MultiLine;
    } catch (const std::exception& e) {
        message = std::string("not an InputError: ") + e.what();
        code = OtherError;
    }
    if (write(fd, message.data(), message.size()) < 0) code = OtherError;
    _exit(code);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s SEED_DIR FAILURE_DIR [--cases N] [--seed S] [--timeout SECONDS]\n", argv[0]);
        return 2;
    }
    const fs::path seeds = argv[1], failures = argv[2];
    long cases = 1000, timeout = 5;
    unsigned long long seed = 1;
    for (int i = 3; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--cases") cases = std::atol(argv[i + 1]);
        else if (flag == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
        else if (flag == "--timeout") timeout = std::atol(argv[i + 1]);
        else {
            std::fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    std::vector<fs::path> inputs;
    for (const auto& entry : fs::directory_iterator(seeds))
        if (entry.is_regular_file()) inputs.push_back(entry.path());
    std::sort(inputs.begin(), inputs.end());
    if (inputs.empty()) {
        std::fprintf(stderr, "no seed files in %s\n", seeds.c_str());
        return 2;
    }
    fs::create_directories(failures);
    const fs::path work = fs::temp_directory_path() / ("wavefront-fuzz-" + std::to_string(getpid()));
    fs::create_directories(work);

    std::mt19937_64 rng(seed);
    std::map<std::string, long> tally;
    long failed = 0;
    for (long n = 0; n < cases; ++n) {
        const fs::path& input = inputs[std::size_t(n) % inputs.size()];
        const std::string ext = input.extension().string();
        const std::string bytes = mutate(readFile(input), rng);
        // An MTL case is loaded through an OBJ that names it, a PLY case also through a pbrt-v4 file.
        const std::string name = "case-" + std::to_string(seed) + "-" + std::to_string(n);
        const std::string obj = "mtllib " + name + ".mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
        const std::string pbrt = "WorldBegin\nAreaLightSource \"diffuse\"\nShape \"plymesh\" \"string filename\" \"" + name + ".ply\"\n";
        const fs::path file = work / (name + ext);
        writeFile(file, ext == ".pbrt" ? replaceAll(bytes, "CASE", name + ".pbrt") : bytes);
        fs::path load = file;
        if (ext == ".mtl") writeFile(load = work / (name + ".obj"), obj);
        if (ext == ".ply") writeFile(work / (name + ".pbrt"), pbrt);

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
        else if (WEXITSTATUS(status) == Refused) outcome = "refused";
        else if (WEXITSTATUS(status) == MultiLine) outcome = "multi-line error";
        else outcome = "other error";
        ++tally[ext + " " + outcome];
        if (outcome != "loaded" && outcome != "refused") {
            ++failed;
            std::printf("%s%s: %s: %s\n", name.c_str(), ext.c_str(), outcome.c_str(), message.c_str());
            fs::copy_file(file, failures / file.filename(), fs::copy_options::overwrite_existing);
            if (ext == ".mtl") writeFile(failures / (name + ".obj"), obj);
            if (ext == ".ply") writeFile(failures / (name + ".pbrt"), pbrt);
        }
        fs::remove(file);
        if (ext == ".mtl") fs::remove(load);
        if (ext == ".ply") fs::remove(work / (name + ".pbrt"));
    }
    fs::remove_all(work);
    for (const auto& [what, count] : tally) std::printf("%8ld  %s\n", count, what.c_str());
    std::printf("%ld cases, %ld failed\n", cases, failed);
    return failed ? 1 : 0;
}
