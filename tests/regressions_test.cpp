// Inputs that once crashed, hung, leaked or gave a bad message (issue 18's probe, and whatever
// scripts/fuzz-loaders.sh finds): each must now load, or be refused with one InputError line, fast.
// MTL files are loaded through the OBJ that names them; glTF, .glb, PLY and pbrt-v4 files through
// Scene::loadFile (a PLY case of the pbrt-v4 loader's own reader comes with the .pbrt file naming it).
#include <catch2/catch.hpp>

#include "test_support.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

using namespace wavefront;
namespace fs = std::filesystem;

namespace {

fs::path regressionsDir() {
    // The source tree's, or the working directory's (a relocated test binary run from the repository root).
    fs::path dir = fs::path(WAVEFRONT_TEST_DATA_DIR) / "regressions";
    if (!fs::is_directory(dir)) dir = fs::path("tests/data/regressions");
    return dir;
}

}  // namespace

TEST_CASE("every kept regression input loads or is refused with one line", "[io][hardening][regression]") {
    const fs::path dir = regressionsDir();
    REQUIRE(fs::is_directory(dir));
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().extension() != ".mtl") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    CHECK(files.size() >= 10);
    for (const fs::path& file : files) {
        std::string message;
        const auto start = std::chrono::steady_clock::now();
        try {
            const std::string ext = file.extension().string();
            if (ext == ".obj")
                Scene::loadObj(file.string());
            else if (ext == ".gltf" || ext == ".glb" || ext == ".ply" || ext == ".pbrt")
                Scene::loadFile(file.string());
            else
                readImage(file.string());
        } catch (const InputError& e) {
            message = e.what();
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        INFO(file.filename().string() << ": " << (message.empty() ? "loaded" : message));
        CHECK(message.find_first_of("\r\n") == std::string::npos);
        // No control character reaches a terminal (issue 37: an OBJ number holding "\033[2J").
        CHECK(std::none_of(message.begin(), message.end(), [](char c) { return (unsigned char)c < 0x20 || c == 0x7f; }));
        CHECK(seconds < 0.5 * wftest::timeScale());
    }
}
