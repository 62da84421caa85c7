// Image files and film resolution.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "test_support.h"

#include <wavefront/error.h>
#include <wavefront/image.h>

#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

using namespace wavefront;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

using wftest::TempDir;
using wftest::inputErrorOf;

std::vector<unsigned char> readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A non-square image with distinct values, so that flips and transposes show.
Image testImage() {
    Image image(5, 3);
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x)
            for (int c = 0; c < 3; ++c)
                image.pixel(x, y)[c] = 0.1f * x + 1.7f * y - 0.3f * c + 0.01f * x * y;
    image.pixel(4, 2)[0] = 1234.5f;
    image.pixel(0, 0)[2] = -0.75f;
    return image;
}

std::uint32_t bigEndian32(const std::vector<unsigned char>& b, std::size_t offset) {
    return std::uint32_t(b[offset]) << 24 | std::uint32_t(b[offset + 1]) << 16 | std::uint32_t(b[offset + 2]) << 8 |
           std::uint32_t(b[offset + 3]);
}

}  // namespace

TEST_CASE("PFM round-trips exactly, stored bottom row first", "[io]") {
    TempDir dir;
    const Image image = testImage();
    const std::string path = dir.file("image.pfm");
    writeImage(path, image);

    std::vector<unsigned char> bytes = readBytes(path);
    const std::string header = "PF\n5 3\n-1.0\n";
    REQUIRE(bytes.size() == header.size() + 5 * 3 * 3 * 4);
    CHECK(std::string(bytes.begin(), bytes.begin() + header.size()) == header);
    float first;
    std::memcpy(&first, bytes.data() + header.size(), 4);  // the test host is little-endian
    CHECK(first == image.pixel(0, 2)[0]);

    Image back = readImage(path);
    REQUIRE(back.width == 5);
    REQUIRE(back.height == 3);
    CHECK(back.rgb == image.rgb);

    // The extension is matched without regard to case.
    const std::string upper = dir.file("IMAGE.PFM");
    writeImage(upper, image);
    CHECK(readImage(upper).rgb == image.rgb);
}

TEST_CASE("EXR round-trips 32-bit floats exactly, far beyond half range", "[io]") {
    // Half float would store 1e6 (and anything above 65504) as infinity.
    TempDir dir;
    Image image = testImage();
    image.pixel(1, 1)[1] = 1e6f;
    image.pixel(2, 0)[0] = 1.2345678e6f;
    image.pixel(3, 2)[2] = 1e38f;
    const std::string path = dir.file("image.exr");
    CHECK(writeImage(path, image) == 0);
    Image back = readImage(path);
    REQUIRE(back.width == image.width);
    REQUIRE(back.height == image.height);
    CHECK(back.pixel(1, 1)[1] == 1e6f);
    CHECK(back.rgb == image.rgb);
}

TEST_CASE("PNG writing produces a PNG of the right size, even with non-finite pixels", "[io]") {
    TempDir dir;
    Image image = testImage();
    image.pixel(1, 1)[0] = std::numeric_limits<float>::quiet_NaN();
    image.pixel(2, 1)[1] = std::numeric_limits<float>::infinity();
    const std::string path = dir.file("image.png");
    writeImage(path, image, 1.5f);

    std::vector<unsigned char> bytes = readBytes(path);
    REQUIRE(bytes.size() > 24);
    const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    CHECK(std::equal(signature, signature + 8, bytes.begin()));
    CHECK(std::string(bytes.begin() + 12, bytes.begin() + 16) == "IHDR");
    CHECK(bigEndian32(bytes, 16) == 5);
    CHECK(bigEndian32(bytes, 20) == 3);
}

TEST_CASE("image I/O rejects bad paths and images", "[io]") {
    TempDir dir;
    const Image image = testImage();

    CHECK_THAT([&] {
        try {
            writeImage(dir.file("image.bmp"), image);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string();
    }(),
               Contains("image.bmp") && Contains("extension"));
    CHECK_THROWS_AS(writeImage(dir.file("noextension"), image), InputError);
    CHECK_THROWS_AS(writeImage(dir.file("empty.pfm"), Image()), InputError);
    CHECK_THROWS_AS(writeImage(dir.file("empty.png"), Image(0, 4)), InputError);

    const std::string unwritable = dir.file("no/such/dir/image.pfm");
    CHECK_THROWS_WITH(writeImage(unwritable, image), Contains(unwritable));
    CHECK_THROWS_AS(writeImage(dir.file("no/such/dir/image.png"), image), InputError);
    CHECK_THROWS_AS(writeImage(dir.file("no/such/dir/image.exr"), image), InputError);

    const std::string missing = dir.file("missing.pfm");
    CHECK_THROWS_WITH(readImage(missing), Contains(missing));
    CHECK_THROWS_WITH(readImage(dir.file("missing.exr")), Contains("missing.exr"));
    CHECK_THROWS_AS(readImage(dir.file("image.png")), InputError);

    const std::string garbage = dir.file("garbage.pfm");
    std::ofstream(garbage) << "P6\n1 1\n255\nxyz";
    CHECK_THROWS_WITH(readImage(garbage), Contains(garbage));
    const std::string truncated = dir.file("truncated.pfm");
    std::ofstream(truncated) << "PF\n2 2\n-1.0\nabc";
    CHECK_THROWS_AS(readImage(truncated), InputError);
}

TEST_CASE("Film::resolve averages the samples and leaves unsampled pixels black", "[io]") {
    Film film;
    film.width = 2;
    film.height = 1;
    film.sum = {4.0, 8.0, 12.0, 5.0, 5.0, 5.0};
    film.samples = {4, 0};
    Image image = film.resolve();
    REQUIRE(image.width == 2);
    REQUIRE(image.height == 1);
    CHECK(image.rgb == std::vector<float>{1.0f, 2.0f, 3.0f, 0.0f, 0.0f, 0.0f});

    Film empty;
    CHECK(empty.resolve().rgb.empty());
}

TEST_CASE("Film::resolve clamps beyond the float range and counts what it changed", "[io]") {
    Film film;
    film.width = 3;
    film.height = 1;
    film.sum = {1e39, -1e39, 6.0, 1e300, 2.0, std::nan(""), 5.0, 5.0, 5.0};
    film.samples = {2, 2, 0};
    std::uint64_t clamped = 0;
    Image image = film.resolve(&clamped);
    CHECK(clamped == 4);
    CHECK(image.rgb == std::vector<float>{FLT_MAX, -FLT_MAX, 3.0f, FLT_MAX, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f});
    CHECK(film.resolve().rgb == image.rgb);  // the count is optional
}

TEST_CASE("writeImage replaces infinities and NaN and says how many", "[io]") {
    TempDir dir;
    Image image(2, 2);
    image.rgb = {1.0f, INFINITY, -INFINITY, std::nanf(""), 2.0f, 3.0f, 1e30f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f};
    const std::vector<float> expected = {1.0f, FLT_MAX, -FLT_MAX, 0.0f, 2.0f, 3.0f, 1e30f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f};
    for (const char* name : {"bad.pfm", "bad.exr"}) {
        INFO(name);
        CHECK(writeImage(dir.file(name), image) == 3);
        Image back = readImage(dir.file(name));
        CHECK(back.rgb == expected);
    }
    CHECK(writeImage(dir.file("bad.png"), image) == 3);
}

TEST_CASE("every image write is verified and leaves no partial file", "[io][hardening]") {
    wftest::TempDir dir;
    Image image(4, 3);
    image.pixel(1, 1)[0] = 0.5f;
    // PNG and EXR writes to /dev/full used to succeed silently; a FIFO blocked until something
    // read it. Neither is a regular file: refused before anything is written (the CLI test
    // "every write verified" checks a write that fails on a regular file).
    ::mkfifo(dir.file("pipe.png").c_str(), 0600);
    for (const char* name : {"full.png", "full.exr", "full.pfm", "pipe.png"}) {
        if (std::string(name) != "pipe.png") std::filesystem::create_symlink("/dev/full", dir.path() / name);
        std::string message;
        try {
            writeImage(dir.file(name), image);
        } catch (const InputError& e) {
            message = e.what();
        }
        INFO(name);
        CHECK_THAT(message, Contains(name) && Contains("not a regular file"));
        CHECK(message.find('\n') == std::string::npos);
    }
    // A successful write replaces the file and leaves nothing else behind.
    const std::string out = dir.write("image.exr", "old contents");
    writeImage(out, image);
    CHECK(readImage(out).pixel(1, 1)[0] == 0.5f);
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) files += entry.is_regular_file();
    CHECK(files == 1);
}

TEST_CASE("checkImagePath refuses what writeImage would, before anything is rendered", "[io][hardening]") {
    wftest::TempDir dir;
    CHECK_NOTHROW(checkImagePath(dir.file("a.png")));
    CHECK_NOTHROW(checkImagePath(dir.file("a.EXR")));
    CHECK_NOTHROW(checkImagePath(dir.file("a.jpg")));
    CHECK_NOTHROW(checkImagePath(dir.file("a.JPEG")));
    CHECK_THAT(wftest::inputErrorOf([&] { checkImagePath(dir.file("a.gif")); }), Contains("'.gif'"));
    CHECK_THAT(wftest::inputErrorOf([&] { checkImagePath(dir.file("no/such/a.png")); }), Contains("does not exist"));
    std::filesystem::create_directory(dir.path() / "folder.png");
    CHECK_THAT(wftest::inputErrorOf([&] { checkImagePath(dir.file("folder.png")); }), Contains("directory"));
    CHECK(std::filesystem::is_empty(dir.path() / "folder.png"));
    CHECK(!std::filesystem::exists(dir.path() / "a.png"));  // nothing created
}
