// Images: 8-bit textures through stb_image (libstb), Radiance .hdr here. Sizes are checked from
// the header before anything is decoded, so a hostile header cannot ask for gigabytes, and against
// the scene's texture budget, so that many textures cannot either.
#include "host/io/texture_io.h"
#include "host/io/input_file.h"

#include <wavefront/error.h>

#include <stb_image.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <memory>
#include <string_view>
#include <vector>

namespace wavefront {

namespace {

constexpr std::uint64_t kMaxImageTexels = std::uint64_t(1) << 28;

std::string failureReason() {
    const char* reason = stbi_failure_reason();
    return reason ? reason : "unknown error";
}

struct StbFree {
    void operator()(void* p) const { stbi_image_free(p); }
};

std::uint32_t bigEndian32(const unsigned char* p) {
    return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}

// A PNG's size from its IHDR chunk: stb_image refuses PNGs of more than 2^30 bytes decoded, and
// then tries its other decoders, so its reason becomes "unknown image type".
bool pngSize(const unsigned char* data, std::size_t size, std::int64_t& width, std::int64_t& height) {
    static const unsigned char signature[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (size < 24 || std::memcmp(data, signature, 8) != 0 || std::memcmp(data + 12, "IHDR", 4) != 0)
        return false;
    width = bigEndian32(data + 16);
    height = bigEndian32(data + 20);
    return true;
}

// The most texels `size` bytes of this image format can decode to: what the format's best
// compression gives (deflate's 1032:1 on 1-bit PNG rows; a progressive JPEG's DC scan still costs a
// bit per 8x8 block; LZW strings of at most 4096; run lengths of 128 in a 2-byte TGA, PSD or BMP
// packet), so that a few hundred bytes declaring 13357 x 12336 texels (a fuzzed TGA: 28 s and
// 2.6 GB, decoding nothing) are refused before stb_image allocates.
std::uint64_t texelsPossible(const unsigned char* data, std::size_t size) {
    const std::string_view head(reinterpret_cast<const char*>(data), std::min<std::size_t>(size, 8));
    std::uint64_t perByte = 128;  // TGA, BMP, PSD: run-length packets; PNM: 8 a byte
    if (head.substr(0, 4) == "\x89PNG") perByte = 8300;
    else if (head.substr(0, 2) == "\xff\xd8") perByte = 512;
    else if (head.substr(0, 3) == "GIF") perByte = 4096;
    else if (head.substr(0, 4) == "\x53\x80\xf6\x34") perByte = 1 << 16;  // Softimage PIC: 16-bit run lengths
    return std::uint64_t(size) * perByte + 4096;
}

// Radiance RGBE (.hdr), decoded here rather than by stb_image, whose run-length decoder makes no
// progress on a run of length 0 past the end of the data: a 49-byte file looped forever, as an
// environment map and as a texture of any name (stb_image picks its decoder by content). The
// layout is the one stb_image reads: "#?RADIANCE" or "#?RGBE", header lines up to an empty one
// with FORMAT=32-bit_rle_rgbe, "-Y height +X width", then scanlines top to bottom, each either
// run-length encoded per component (new-style: 2, 2, width) or flat RGBE texels.
bool isRadiance(const unsigned char* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    return text.substr(0, 11) == "#?RADIANCE\n" || text.substr(0, 7) == "#?RGBE\n";
}

Image decodeRadiance(const unsigned char* data, std::size_t size, const std::string& what, std::uint64_t texelsLeft) {
    std::size_t pos = 0;
    const auto fail = [&](const std::string& why) { return InputError(what + ": " + why); };
    const auto line = [&]() {
        const void* end = pos < size ? std::memchr(data + pos, '\n', size - pos) : nullptr;
        if (!end) throw fail("the header does not end");
        const std::size_t stop = std::size_t(static_cast<const unsigned char*>(end) - data);
        std::string text(reinterpret_cast<const char*>(data) + pos, stop - pos);
        pos = stop + 1;
        return text;
    };
    line();  // the signature (isRadiance)
    bool rgbe = false;
    for (std::string text; !(text = line()).empty();)
        rgbe = rgbe || text == "FORMAT=32-bit_rle_rgbe";
    if (!rgbe) throw fail("not FORMAT=32-bit_rle_rgbe (the only Radiance format read)");
    const std::string resolution = line();
    long long height = 0, width = 0;
    char extra = 0;
    if (std::sscanf(resolution.c_str(), "-Y %lld +X %lld%c", &height, &width, &extra) != 2)
        throw fail("resolution line '" + resolution.substr(0, 40) + "' is not '-Y HEIGHT +X WIDTH' (the only layout read)");
    checkTextureSize(width, height, what, texelsLeft);

    // New-style run-length encoding exists for widths 8..32767 and starts every scanline with
    // 2, 2 and the width; a file whose first scanline does not is flat throughout.
    const bool encoded = width >= 8 && width < 32768 && size - pos >= 4 && data[pos] == 2 && data[pos + 1] == 2 &&
                         !(data[pos + 2] & 0x80);
    // The fewest bytes the texels can take (a run covers at most 127), checked before allocating.
    const std::uint64_t least = std::uint64_t(height) * (encoded ? 4 + 8 * ((std::uint64_t(width) + 126) / 127)
                                                                 : 4 * std::uint64_t(width));
    if (size - pos < least)
        throw fail(std::to_string(width) + "x" + std::to_string(height) + " texels take at least " + std::to_string(least) +
                   " bytes, but " + std::to_string(size - pos) + " follow the header");
    Image image{int(width), int(height)};
    std::vector<unsigned char> scanline(std::size_t(width) * 4);
    const auto truncated = [&](long long y) {
        return fail("the data ends in scanline " + std::to_string(y + 1) + " of " + std::to_string(height));
    };
    const auto convert = [&](const unsigned char* rgbe4, float* out) {
        // As stb_image: mantissa times 2^(exponent - 136); exponent 0 is black.
        const float scale = rgbe4[3] ? std::ldexp(1.0f, int(rgbe4[3]) - 136) : 0.0f;
        for (int c = 0; c < 3; ++c) out[c] = float(rgbe4[c]) * scale;
    };
    for (long long y = 0; y < height; ++y) {
        float* row = image.pixel(0, int(y));
        if (!encoded) {
            if (size - pos < std::size_t(width) * 4) throw truncated(y);
            for (long long x = 0; x < width; ++x, pos += 4) convert(data + pos, row + 3 * x);
            continue;
        }
        if (size - pos < 4) throw truncated(y);
        if (data[pos] != 2 || data[pos + 1] != 2 || ((data[pos + 2] << 8) | data[pos + 3]) != width)
            throw fail("scanline " + std::to_string(y + 1) + " does not start with the run-length marker 2, 2, " +
                       std::to_string(width));
        pos += 4;
        for (int c = 0; c < 4; ++c)
            for (long long x = 0; x < width;) {
                if (pos >= size) throw truncated(y);
                const unsigned count = data[pos++];
                const bool run = count > 128;
                const long long length = run ? count - 128 : count;
                if (length == 0 || length > width - x)
                    throw fail("scanline " + std::to_string(y + 1) + " has a run of " + std::to_string(length) +
                               " where " + std::to_string(width - x) + " texels are left");
                if (size - pos < std::size_t(run ? 1 : length)) throw truncated(y);
                for (long long k = 0; k < length; ++k)
                    scanline[std::size_t(x + k) * 4 + std::size_t(c)] = data[run ? pos : pos + std::size_t(k)];
                pos += std::size_t(run ? 1 : length);
                x += length;
            }
        for (long long x = 0; x < width; ++x) convert(&scanline[std::size_t(x) * 4], row + 3 * x);
    }
    return image;
}

}  // namespace

std::uint64_t texelsLeft(const Scene& scene, std::uint64_t budget) {
    std::uint64_t used = 0;
    for (const Texture& t : scene.textures()) used += std::uint64_t(t.width) * std::uint64_t(t.height);
    return used < budget ? budget - used : 0;
}

void checkTextureSize(std::int64_t width, std::int64_t height, const std::string& what, std::uint64_t texelsLeft) {
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    if (width < 1 || height < 1 || width > (1 << 16) || height > (1 << 16) ||
        std::uint64_t(width) * std::uint64_t(height) > kMaxImageTexels)
        throw InputError(what + ": image size " + size + " is out of range (each side 1..65536, at most 2^28 texels)");
    if (std::uint64_t(width) * std::uint64_t(height) > texelsLeft)
        throw InputError(what + ": image size " + size + " is over what is left of the scene's texture budget (" +
                         std::to_string(texelsLeft) + " texels; SceneLoadOptions::maxTextureTexels)");
}

Texture decodeTexture(const unsigned char* data, std::size_t size, const std::string& what, std::uint64_t texelsLeft) {
    if (size == 0 || size > std::size_t(INT_MAX))
        throw InputError(what + ": " + std::to_string(size) + " bytes is not a decodable image size");
    Texture texture;
    if (isRadiance(data, size)) {
        const Image image = decodeRadiance(data, size, what, texelsLeft);
        texture.width = image.width;
        texture.height = image.height;
        texture.rgbaFloat.reserve(std::size_t(image.width) * image.height * 4);
        for (std::size_t i = 0; i < image.rgb.size(); i += 3)
            texture.rgbaFloat.insert(texture.rgbaFloat.end(), {image.rgb[i], image.rgb[i + 1], image.rgb[i + 2], 1.0f});
        texture.srgb = false;
        return texture;
    }
    std::int64_t declaredWidth = 0, declaredHeight = 0;
    if (pngSize(data, size, declaredWidth, declaredHeight))
        checkTextureSize(declaredWidth, declaredHeight, what, texelsLeft);
    int width = 0, height = 0, channels = 0;
    if (!stbi_info_from_memory(data, int(size), &width, &height, &channels))
        throw InputError(what + ": cannot decode the image (" + oneLine(failureReason()) + ")");
    checkTextureSize(width, height, what, texelsLeft);
    if (std::uint64_t(width) * std::uint64_t(height) > texelsPossible(data, size))
        throw InputError(what + ": image size " + std::to_string(width) + "x" + std::to_string(height) +
                         " is more than " + std::to_string(size) + " bytes of its format can hold (damaged or hostile)");
    std::unique_ptr<unsigned char, StbFree> texels(stbi_load_from_memory(data, int(size), &width, &height, &channels, 4));
    if (!texels)
        throw InputError(what + ": cannot decode the image (" + oneLine(failureReason()) + ")");
    texture.width = width;
    texture.height = height;
    texture.rgba8.assign(texels.get(), texels.get() + std::size_t(width) * height * 4);
    return texture;
}

Texture readTexture(const std::string& path, std::uint64_t texelsLeft, const std::filesystem::path& within) {
    const std::string bytes = readInputFile(path, InputKind::Image, 0, within);
    return decodeTexture(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), "texture '" + path + "'",
                         texelsLeft);
}

Image readHdr(const std::string& path, std::uint64_t texelsLeft, const std::filesystem::path& within) {
    const std::string bytes = readInputFile(path, InputKind::Image, 0, within);
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    // Not stbi_loadf, which would also take a PNG and undo its gamma: an .hdr file must be Radiance.
    if (!isRadiance(data, bytes.size()))
        throw InputError("HDR file '" + path + "' is not a Radiance RGBE file");
    return decodeRadiance(data, bytes.size(), "HDR file '" + path + "'", std::min(texelsLeft, kMaxImageTexels));
}

}  // namespace wavefront
