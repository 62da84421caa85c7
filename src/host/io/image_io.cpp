// Film resolution and image files: PNG (display), EXR and PFM (linear HDR).
#include <wavefront/error.h>
#include <wavefront/image.h>

#include "host/io/texture_io.h"

#include <stb_image_write.h>
#include <tinyexr.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace wavefront {

namespace {

std::string lowercaseExtension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

void checkImage(const std::string& path, const Image& image) {
    if (image.width <= 0 || image.height <= 0)
        throw InputError("cannot write '" + path + "': the image is empty (" + std::to_string(image.width) + " x " +
                         std::to_string(image.height) + ")");
    if (image.rgb.size() != std::size_t(image.width) * image.height * 3)
        throw InputError("cannot write '" + path + "': the pixel buffer does not match the image size");
}

float linearToSrgb(float v) {
    return v <= 0.0031308f ? 12.92f * v : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f;
}

void writePng(const std::string& path, const Image& image, float exposure) {
    const float scale = std::exp2(exposure);
    std::vector<std::uint8_t> bytes(image.rgb.size());
    for (std::size_t i = 0; i < image.rgb.size(); ++i) {
        float v = image.rgb[i] * scale;  // finite or +-inf: writeImage replaced NaN and inf
        v = std::isnan(v) ? 0.0f : std::clamp(v, 0.0f, 1.0f);
        bytes[i] = std::uint8_t(linearToSrgb(v) * 255.0f + 0.5f);
    }
    if (!stbi_write_png(path.c_str(), image.width, image.height, 3, bytes.data(), image.width * 3))
        throw InputError("cannot write PNG file '" + path + "'");
}

void writeExr(const std::string& path, const Image& image) {
    // Check the path first: SaveEXR leaks its header allocations when it cannot open the file.
    if (!std::ofstream(path, std::ios::binary))
        throw InputError("cannot write EXR file '" + path + "'");
    const char* err = nullptr;
    // 32-bit float: half float turns everything above 65504 into infinity.
    int rc = SaveEXR(image.rgb.data(), image.width, image.height, 3, /*save_as_fp16=*/0, path.c_str(), &err);
    if (rc != TINYEXR_SUCCESS) {
        std::string message = "cannot write EXR file '" + path + "'";
        if (err) {
            message += ": " + std::string(err);
            FreeEXRErrorMessage(err);
        }
        throw InputError(message);
    }
}

void putFloatLittleEndian(std::vector<char>& out, float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    for (int k = 0; k < 4; ++k)
        out.push_back(char((bits >> (8 * k)) & 0xffu));
}

float getFloat(const unsigned char* p, bool littleEndian) {
    std::uint32_t bits = 0;
    for (int k = 0; k < 4; ++k)
        bits |= std::uint32_t(p[littleEndian ? k : 3 - k]) << (8 * k);
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// PFM: a text header, then float rows from the bottom of the image to the top. A negative scale
// marks little-endian data.
void writePfm(const std::string& path, const Image& image) {
    std::ostringstream header;
    header << "PF\n" << image.width << ' ' << image.height << "\n-1.0\n";
    std::vector<char> data;
    data.reserve(image.rgb.size() * 4);
    for (int y = image.height - 1; y >= 0; --y)
        for (int x = 0; x < image.width; ++x)
            for (int c = 0; c < 3; ++c)
                putFloatLittleEndian(data, image.pixel(x, y)[c]);
    std::ofstream out(path, std::ios::binary);
    out << header.str();
    out.write(data.data(), std::streamsize(data.size()));
    if (!out)
        throw InputError("cannot write PFM file '" + path + "'");
}

Image readPfm(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError("cannot open PFM file '" + path + "'");
    std::string magic;
    int width = 0, height = 0;
    double scale = 0.0;
    in >> magic >> width >> height >> scale;
    if (!in || (magic != "PF" && magic != "Pf") || width <= 0 || height <= 0 || scale == 0.0 || !std::isfinite(scale))
        throw InputError("'" + path + "' is not a valid PFM file");
    in.get();  // the single whitespace character that ends the header
    const int channels = magic == "PF" ? 3 : 1;
    const std::size_t bytes = std::size_t(width) * std::size_t(height) * channels * 4;
    // Compare with the file size before allocating, so a corrupt header cannot ask for gigabytes.
    const std::streamoff dataStart = in.tellg();
    in.seekg(0, std::ios::end);
    const std::streamoff available = in.tellg() - dataStart;
    in.seekg(dataStart);
    if (available < 0 || std::size_t(available) < bytes)
        throw InputError("PFM file '" + path + "' is truncated");
    std::vector<unsigned char> data(bytes);
    in.read(reinterpret_cast<char*>(data.data()), std::streamsize(data.size()));
    if (std::size_t(in.gcount()) != data.size())
        throw InputError("cannot read PFM file '" + path + "'");

    Image image(width, height);
    const bool littleEndian = scale < 0;
    const unsigned char* p = data.data();
    for (int y = height - 1; y >= 0; --y)
        for (int x = 0; x < width; ++x) {
            float* out = image.pixel(x, y);
            for (int c = 0; c < channels; ++c, p += 4)
                out[c] = getFloat(p, littleEndian);
            if (channels == 1)
                out[1] = out[2] = out[0];
        }
    return image;
}

Image readExr(const std::string& path) {
    float* rgba = nullptr;
    int width = 0, height = 0;
    const char* err = nullptr;
    int rc = LoadEXR(&rgba, &width, &height, path.c_str(), &err);
    if (rc != TINYEXR_SUCCESS) {
        std::string message = "cannot read EXR file '" + path + "'";
        if (err) {
            message += ": " + std::string(err);
            FreeEXRErrorMessage(err);
        }
        throw InputError(message);
    }
    Image image(width, height);
    for (std::size_t i = 0; i < std::size_t(width) * height; ++i)
        for (int c = 0; c < 3; ++c)
            image.rgb[3 * i + c] = rgba[4 * i + c];
    std::free(rgba);
    return image;
}

}  // namespace

Image Film::resolve(std::uint64_t* clamped) const {
    const std::size_t pixels = std::size_t(width) * height;
    if (width < 0 || height < 0 || sum.size() != pixels * 3 || samples.size() != pixels)
        throw Error("film buffers do not match its size");
    Image image(width, height);
    std::uint64_t changed = 0;
    for (std::size_t i = 0; i < pixels; ++i) {
        if (samples[i] == 0)
            continue;  // no estimate yet: black
        const double inv = 1.0 / double(samples[i]);
        for (int c = 0; c < 3; ++c) {
            // Checked before the conversion: a double beyond the float range has no float value.
            const double v = sum[3 * i + c] * inv;
            const bool outside = std::isnan(v) || std::fabs(v) > double(FLT_MAX);
            changed += outside;
            image.rgb[3 * i + c] = !outside ? float(v) : std::isnan(v) ? 0.0f : v > 0.0 ? FLT_MAX : -FLT_MAX;
        }
    }
    if (clamped)
        *clamped = changed;
    return image;
}

std::uint64_t writeImage(const std::string& path, const Image& image, float exposure) {
    const std::string ext = lowercaseExtension(path);
    if (ext != ".png" && ext != ".exr" && ext != ".pfm")
        throw InputError("cannot write '" + path + "': unknown image extension '" + ext +
                         "' (use .png, .exr or .pfm)");
    checkImage(path, image);
    // 2^64 already saturates any radiance a float holds; beyond it (or NaN) every pixel would be
    // black or white.
    if (ext == ".png" && !(std::fabs(exposure) <= 64.0f))
        throw InputError("exposure " + std::to_string(exposure) + " must be a finite number of stops in [-64, 64]");
    // No NaN or infinity reaches a file: they would poison every tool that reads it.
    std::uint64_t replaced = 0;
    for (float v : image.rgb)
        replaced += !std::isfinite(v);
    Image finite;
    if (replaced) {
        finite = image;
        for (float& v : finite.rgb)
            if (std::isnan(v))
                v = 0.0f;
            else if (std::isinf(v))
                v = v > 0.0f ? FLT_MAX : -FLT_MAX;
    }
    const Image& out = replaced ? finite : image;
    if (ext == ".png")
        writePng(path, out, exposure);
    else if (ext == ".exr")
        writeExr(path, out);
    else
        writePfm(path, out);
    return replaced;
}

Image readImage(const std::string& path) {
    const std::string ext = lowercaseExtension(path);
    if (ext == ".pfm")
        return readPfm(path);
    if (ext == ".exr")
        return readExr(path);
    if (ext == ".hdr")
        return readHdr(path);
    throw InputError("cannot read '" + path + "': unknown image extension '" + ext + "' (use .exr, .pfm or .hdr)");
}

}  // namespace wavefront
