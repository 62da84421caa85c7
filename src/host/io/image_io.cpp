// Film resolution and image files: PNG (display), EXR and PFM (linear HDR).
#include <wavefront/error.h>
#include <wavefront/image.h>

#include "host/io/texture_io.h"

#include <stb_image_write.h>
#include <tinyexr.h>

#include "host/io/input_file.h"
#include "kernels/scene/film_resolve.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
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

/// Throws InputError (prefixed by `what`) unless `image.rgb` holds exactly width x height x 3
/// floats: Image is a plain struct, so a caller can hand one whose buffer does not match.
void checkPixelBuffer(const std::string& what, const Image& image) {
    if (image.width < 0 || image.height < 0)
        throw InputError(what + ": the image size " + std::to_string(image.width) + " x " +
                         std::to_string(image.height) + " is negative");
    const std::size_t expected = std::size_t(image.width) * std::size_t(image.height) * 3;
    if (image.rgb.size() != expected)
        throw InputError(what + ": the pixel buffer holds " + std::to_string(image.rgb.size()) + " floats, not " +
                         std::to_string(image.width) + " x " + std::to_string(image.height) + " x 3 = " +
                         std::to_string(expected));
}

void checkImage(const std::string& path, const Image& image) {
    if (image.width <= 0 || image.height <= 0)
        throw InputError("cannot write '" + path + "': the image is empty (" + std::to_string(image.width) + " x " +
                         std::to_string(image.height) + ")");
    checkPixelBuffer("cannot write '" + path + "'", image);
}

float linearToSrgb(float v) {
    return v <= 0.0031308f ? 12.92f * v : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f;
}

// Writes `bytes` so that no failure goes unnoticed and none leaves a partial file behind: to a
// temporary file next to the target, renamed over it once every byte is written and the file is
// closed (a PNG to /dev/full used to print "wrote"). A target that is not a regular file (a FIFO
// blocked until something read it; a device) is refused, here and before the render by
// checkImagePath.
void writeFileChecked(const std::string& path, const char* format, const std::vector<unsigned char>& bytes) {
    const std::string what = std::string("cannot write ") + format + " file '" + path + "'";
    auto failure = [&](int error) { return InputError(what + ": " + std::strerror(error)); };
    auto writeAll = [&](int fd) {
        for (std::size_t done = 0; done < bytes.size();) {
            const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return n < 0 ? errno : EIO;
            done += std::size_t(n);
        }
        return 0;
    };
    std::error_code ec;
    std::filesystem::path target = path;
    if (std::filesystem::is_symlink(target, ec)) {  // write through the link, not over it
        std::filesystem::path resolved = std::filesystem::weakly_canonical(target, ec);
        if (!ec) target = resolved;
    }
    const std::string special = specialFileKind(target);
    if (!special.empty()) throw InputError(what + ": it is " + special + ", not a regular file");
    static std::atomic<unsigned> counter{0};
    const std::string temp = target.string() + ".wavefront-" + std::to_string(::getpid()) + "-" +
                             std::to_string(counter++) + ".tmp";
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) throw failure(errno);
    int error = writeAll(fd);
    if (::close(fd) != 0 && error == 0) error = errno;
    if (error == 0 && ::rename(temp.c_str(), target.c_str()) != 0) error = errno;
    if (error) {
        ::unlink(temp.c_str());
        throw failure(error);
    }
}

float toneMapped(float v, ToneMap toneMap) {
    if (!(v > 0.0f)) return 0.0f;
    if (toneMap == ToneMap::Reinhard) return std::isinf(v) ? 1.0f : v / (1.0f + v);
    if (toneMap == ToneMap::Aces) {  // Narkowicz 2015
        if (std::isinf(v)) return 1.0f;
        const double x = v;
        return float(std::clamp(x * (2.51 * x + 0.03) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0));
    }
    return std::min(v, 1.0f);
}

/// PNG or, with `jpeg`, baseline JPEG at quality 95: 8-bit sRGB of the scaled, tone-mapped radiance.
void writeEightBit(const std::string& path, const Image& image, float exposure, ToneMap toneMap, bool jpeg) {
    const float scale = std::exp2(exposure);
    std::vector<std::uint8_t> pixels(image.rgb.size());
    for (std::size_t i = 0; i < image.rgb.size(); ++i) {
        float v = image.rgb[i] * scale;  // finite or +-inf: writeImage replaced NaN and inf
        v = std::isnan(v) ? 0.0f : toneMapped(v, toneMap);
        pixels[i] = std::uint8_t(linearToSrgb(v) * 255.0f + 0.5f);
    }
    std::vector<unsigned char> bytes;
    auto append = [](void* context, void* data, int size) {
        auto* out = static_cast<std::vector<unsigned char>*>(context);
        out->insert(out->end(), static_cast<unsigned char*>(data), static_cast<unsigned char*>(data) + size);
    };
    const bool encoded =
        jpeg ? stbi_write_jpg_to_func(append, &bytes, image.width, image.height, 3, pixels.data(), 95) != 0
             : stbi_write_png_to_func(append, &bytes, image.width, image.height, 3, pixels.data(), image.width * 3) != 0;
    if (!encoded) throw InputError("cannot write " + std::string(jpeg ? "JPEG" : "PNG") + " file '" + path + "': encoding failed");
    writeFileChecked(path, jpeg ? "JPEG" : "PNG", bytes);
}

/// One channel of an EXR file: its name and a plane of width x height floats.
struct ExrChannel {
    std::string name;
    std::vector<float> plane;
};

// As tinyexr's SaveEXR (ZIP from 16 pixels on a side), but into memory, so that the write is ours
// to check; channels sorted by name, as OpenEXR readers expect.
void writeExrChannels(const std::string& path, int width, int height, std::vector<ExrChannel> list) {
    std::sort(list.begin(), list.end(), [](const ExrChannel& a, const ExrChannel& b) { return a.name < b.name; });
    const int n = int(list.size());
    std::vector<unsigned char*> channelData(n);
    std::vector<EXRChannelInfo> channels(n);
    // 32-bit float: half float turns everything above 65504 into infinity.
    std::vector<int> types(n, TINYEXR_PIXELTYPE_FLOAT), requested(n, TINYEXR_PIXELTYPE_FLOAT);
    for (int c = 0; c < n; ++c) {
        channelData[c] = reinterpret_cast<unsigned char*>(list[c].plane.data());
        channels[c] = EXRChannelInfo{};
        std::snprintf(channels[c].name, sizeof(channels[c].name), "%s", list[c].name.c_str());
    }
    EXRImage exrImage;
    InitEXRImage(&exrImage);
    exrImage.images = channelData.data();
    exrImage.width = width;
    exrImage.height = height;
    exrImage.num_channels = n;
    EXRHeader header;
    InitEXRHeader(&header);
    header.num_channels = n;
    header.channels = channels.data();
    header.pixel_types = types.data();
    header.requested_pixel_types = requested.data();
    header.compression_type = width < 16 && height < 16 ? TINYEXR_COMPRESSIONTYPE_NONE : TINYEXR_COMPRESSIONTYPE_ZIP;
    unsigned char* memory = nullptr;
    const char* err = nullptr;
    const std::size_t size = SaveEXRImageToMemory(&exrImage, &header, &memory, &err);
    if (size == 0 || !memory) {
        std::string message = "cannot write EXR file '" + path + "': encoding failed";
        if (err) {
            message += ": " + oneLine(err);
            FreeEXRErrorMessage(err);
        }
        std::free(memory);
        throw InputError(message);
    }
    std::vector<unsigned char> bytes(memory, memory + size);
    std::free(memory);
    writeFileChecked(path, "EXR", bytes);
}

/// Channels `prefix` + names[c] from an RGB image's channel c (or only the first, for one name).
void addChannels(std::vector<ExrChannel>& list, const Image& image, const std::string& prefix,
                 std::initializer_list<const char*> names) {
    const std::size_t pixels = std::size_t(image.width) * image.height;
    int c = 0;
    for (const char* name : names) {
        ExrChannel ch{prefix + name, std::vector<float>(pixels)};
        for (std::size_t i = 0; i < pixels; ++i) ch.plane[i] = image.rgb[3 * i + c];
        list.push_back(std::move(ch));
        ++c;
    }
}

void writeExr(const std::string& path, const Image& image) {
    std::vector<ExrChannel> list;
    addChannels(list, image, "", {"R", "G", "B"});
    writeExrChannels(path, image.width, image.height, std::move(list));
}

void putFloatLittleEndian(std::vector<unsigned char>& out, float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    for (int k = 0; k < 4; ++k)
        out.push_back((unsigned char)((bits >> (8 * k)) & 0xffu));
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
    const std::string header = "PF\n" + std::to_string(image.width) + ' ' + std::to_string(image.height) + "\n-1.0\n";
    std::vector<unsigned char> data(header.begin(), header.end());
    data.reserve(header.size() + image.rgb.size() * 4);
    for (int y = image.height - 1; y >= 0; --y)
        for (int x = 0; x < image.width; ++x)
            for (int c = 0; c < 3; ++c)
                putFloatLittleEndian(data, image.pixel(x, y)[c]);
    writeFileChecked(path, "PFM", data);
}

// Decoded images are bounded too: a few hundred bytes of compressed EXR can declare a data window
// of gigabytes. 2^28 texels is a 16k x 16k map (3 GiB as float RGB).
constexpr std::uint64_t kMaxImageTexels = 1ull << 28;

void checkTexels(const std::string& what, std::int64_t width, std::int64_t height) {
    if (width <= 0 || height <= 0 || std::uint64_t(width) * std::uint64_t(height) > kMaxImageTexels)
        throw InputError(what + " declares " + std::to_string(width) + " x " + std::to_string(height) +
                         " texels (at most 2^28 in all are read)");
}

// No budget: readImage's 2^28 texels alone (checkTexels).
constexpr std::uint64_t kNoBudget = ~std::uint64_t(0);

Image readPfm(const std::string& path, const std::string& bytes, std::uint64_t texelsLeft = kNoBudget) {
    const std::string what = "PFM file '" + path + "'";
    // The header: "PF" or "Pf", width, height and scale, separated by whitespace; the last one
    // ends with a single whitespace character.
    std::size_t pos = 0;
    auto field = [&]() {
        pos = bytes.find_first_not_of(" \t\r\n", pos);
        if (pos == std::string::npos || pos > 256) throw InputError(what + " has no valid header");
        const std::size_t end = bytes.find_first_of(" \t\r\n", pos);
        if (end == std::string::npos) throw InputError(what + " has no valid header");
        std::string token = bytes.substr(pos, end - pos);
        pos = end + 1;
        return token;
    };
    const std::string magic = field();
    if (magic != "PF" && magic != "Pf") throw InputError("'" + path + "' is not a valid PFM file");
    long long width = 0, height = 0;
    double scale = 0.0;
    try {
        std::size_t used = 0;
        std::string w = field(), h = field(), sc = field();
        width = std::stoll(w, &used);
        if (used != w.size()) throw std::invalid_argument(w);
        height = std::stoll(h, &used);
        if (used != h.size()) throw std::invalid_argument(h);
        scale = std::stod(sc, &used);
        if (used != sc.size()) throw std::invalid_argument(sc);
    } catch (const std::logic_error&) {  // invalid_argument, out_of_range
        throw InputError("'" + path + "' is not a valid PFM file");
    }
    if (scale == 0.0 || !std::isfinite(scale)) throw InputError("'" + path + "' is not a valid PFM file");
    checkTexels(what, width, height);
    if (texelsLeft != kNoBudget) checkTextureSize(width, height, what, texelsLeft);
    const int channels = magic == "PF" ? 3 : 1;
    const std::size_t size = std::size_t(width) * std::size_t(height) * channels * 4;
    if (bytes.size() - pos < size) throw InputError(what + " is truncated");

    Image image{int(width), int(height)};
    const bool littleEndian = scale < 0;
    const unsigned char* p = reinterpret_cast<const unsigned char*>(bytes.data()) + pos;
    for (int y = image.height - 1; y >= 0; --y)
        for (int x = 0; x < image.width; ++x) {
            float* out = image.pixel(x, y);
            for (int c = 0; c < channels; ++c, p += 4)
                out[c] = getFloat(p, littleEndian);
            if (channels == 1)
                out[1] = out[2] = out[0];
        }
    return image;
}

// tinyexr's header and image, freed on every path. When decoding fails, tinyexr 1.0.1 calls
// FreeEXRImage itself, which frees the channels only up to image.num_channels, still 0 then (48 MB
// leaked per failed load of a 761-byte file), and leaves `images` dangling. So the channel count is
// set before loading, and a failed image is not freed again.
struct ExrData {
    EXRHeader header;
    EXRImage image;
    bool loaded = false;
    ExrData() {
        InitEXRHeader(&header);
        InitEXRImage(&image);
    }
    ~ExrData() {
        if (loaded) FreeEXRImage(&image);
        FreeEXRHeader(&header);
    }
};

/// `names`: the three channels to read (R, G, B; an AOV layer's: writeImageWithAovs).
Image readExr(const std::string& path, const std::string& bytes, const std::string (&names)[3] = {"R", "G", "B"},
              std::uint64_t texelsLeft = kNoBudget) {
    const std::string what = "EXR file '" + path + "'";
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    const auto fail = [&](const char* step, const char* err) {
        std::string message = "cannot read " + what + ": " + step;
        if (err) {
            message += ": " + oneLine(err);
            FreeEXRErrorMessage(err);
        }
        return InputError(message);
    };
    EXRVersion version;
    if (ParseEXRVersionFromMemory(&version, data, bytes.size()) != TINYEXR_SUCCESS)
        throw InputError("'" + path + "' is not an EXR file");
    if (version.multipart || version.non_image)
        throw InputError("cannot read " + what + ": multi-part and deep images are not supported");
    ExrData exr;
    const char* err = nullptr;
    if (ParseEXRHeaderFromMemory(&exr.header, &version, data, bytes.size(), &err) != TINYEXR_SUCCESS)
        throw fail("bad header", err);
    const EXRBox2i& window = exr.header.data_window;
    const std::int64_t width = std::int64_t(window.max_x) - window.min_x + 1, height = std::int64_t(window.max_y) - window.min_y + 1;
    checkTexels(what, width, height);
    if (texelsLeft != kNoBudget) checkTextureSize(width, height, what, texelsLeft);
    // No more texels than the compression can give from the file's bytes (a fuzzed 4.9 KB ZIP EXR
    // declared 4194324 x 20 and took 1.6 GB and 4 s before tinyexr found nothing to decode):
    // deflate gives at most 1032:1, run lengths 128:1, B44 under 16:1, no compression 1:1.
    std::uint64_t bytesPerTexel = 0;
    for (int c = 0; c < exr.header.num_channels; ++c)
        bytesPerTexel += exr.header.pixel_types[c] == TINYEXR_PIXELTYPE_HALF ? 2 : 4;
    const int compression = exr.header.compression_type;
    const std::uint64_t ratio = compression == TINYEXR_COMPRESSIONTYPE_NONE ? 1
                                : compression == TINYEXR_COMPRESSIONTYPE_RLE ? 128
                                : compression == 6 || compression == 7     ? 16  // B44, B44A
                                                                           : 2048;
    if (std::uint64_t(width) * std::uint64_t(height) * bytesPerTexel > ratio * bytes.size() + 65536)
        throw InputError(what + " declares " + std::to_string(width) + " x " + std::to_string(height) +
                         " texels, more than its " + std::to_string(bytes.size()) +
                         " bytes can hold in its compression (damaged or hostile)");
    int idx[3] = {-1, -1, -1};
    for (int c = 0; c < exr.header.num_channels; ++c) {
        if (exr.header.pixel_types[c] == TINYEXR_PIXELTYPE_HALF)
            exr.header.requested_pixel_types[c] = TINYEXR_PIXELTYPE_FLOAT;
        const std::string name = exr.header.channels[c].name;
        for (int k = 0; k < 3; ++k)
            if (name == names[k]) idx[k] = c;
    }
    if (exr.header.num_channels == 1) idx[0] = idx[1] = idx[2] = 0;  // grey
    if (idx[0] < 0 || idx[1] < 0 || idx[2] < 0)
        throw InputError("cannot read " + what + ": it has no " + names[0] + ", " + names[1] + " and " + names[2] +
                         " channels (nor a single grey one)");
    for (int k = 0; k < 3; ++k)
        if (exr.header.pixel_types[idx[k]] == TINYEXR_PIXELTYPE_UINT)
            throw InputError("cannot read " + what + ": integer colour channels are not supported");
    exr.image.num_channels = exr.header.num_channels;
    if (LoadEXRImageFromMemory(&exr.image, &exr.header, data, bytes.size(), &err) != TINYEXR_SUCCESS)
        throw fail("bad image data", err);
    exr.loaded = true;

    const EXRImage& in = exr.image;
    Image image(in.width, in.height);
    auto channel = [&](unsigned char** images, int k) { return reinterpret_cast<const float*>(images[idx[k]]); };
    if (exr.header.tiled) {
        const int tw = exr.header.tile_size_x, th = exr.header.tile_size_y;
        for (int t = 0; t < in.num_tiles; ++t) {
            const EXRTile& tile = in.tiles[t];
            for (int j = 0; j < th; ++j)
                for (int i = 0; i < tw; ++i) {
                    const std::int64_t x = std::int64_t(tile.offset_x) * tw + i, y = std::int64_t(tile.offset_y) * th + j;
                    if (x < 0 || y < 0 || x >= in.width || y >= in.height) continue;
                    for (int k = 0; k < 3; ++k)
                        image.pixel(int(x), int(y))[k] = channel(tile.images, k)[std::size_t(j) * tw + i];
                }
        }
    } else {
        for (std::size_t i = 0; i < std::size_t(in.width) * in.height; ++i)
            for (int k = 0; k < 3; ++k)
                image.rgb[3 * i + k] = channel(in.images, k)[i];
    }
    return image;
}

}  // namespace

Image Film::resolve(std::uint64_t* clamped) const {
    const std::size_t pixels = std::size_t(width) * height;
    if (width < 0 || height < 0 || sum.size() != pixels * 3 || samples.size() != pixels)
        throw Error("film buffers do not match its size");
    Image image(width, height);
    std::uint64_t changed = 0;
    for (std::size_t i = 0; i < pixels; ++i)
        changed += std::uint64_t(resolvePixel(sum.data() + 3 * i, samples[i], image.rgb.data() + 3 * i));
    if (clamped)
        *clamped = changed;
    return image;
}

namespace {

/// The filter's 1D profile at x pixels from the centre (separable: f(x) f(y)), and its radius.
double filterProfile(PixelFilter filter, double x) {
    x = std::fabs(x);
    if (filter == PixelFilter::Gaussian) {
        constexpr double sigma = 0.5, radius = 1.5;
        return x >= radius ? 0.0 : std::exp(-x * x / (2 * sigma * sigma)) - std::exp(-radius * radius / (2 * sigma * sigma));
    }
    // Mitchell-Netravali, B = C = 1/3, stretched to radius 2 (pbrt's convention: argument 2x / radius).
    constexpr double B = 1.0 / 3.0, C = 1.0 / 3.0;
    if (x >= 2.0) return 0.0;
    if (x >= 1.0)
        return ((-B - 6 * C) * x * x * x + (6 * B + 30 * C) * x * x + (-12 * B - 48 * C) * x + (8 * B + 24 * C)) / 6.0;
    return ((12 - 9 * B - 6 * C) * x * x * x + (-18 + 12 * B + 6 * C) * x * x + (6 - 2 * B)) / 6.0;
}

}  // namespace

Image filterImage(Image image, PixelFilter filter) {
    if (int(filter) < int(PixelFilter::Box) || int(filter) > int(PixelFilter::Mitchell))
        throw InputError("pixel filter " + std::to_string(int(filter)) + " is not a PixelFilter value");
    checkPixelBuffer("cannot filter the image", image);
    if (filter == PixelFilter::Box) return image;
    // Weight of the neighbour d pixels away: the profile integrated over that pixel's extent.
    constexpr int kReach = 2;  // both filters end within 2.5 pixels of a centre
    double w[2 * kReach + 1];
    for (int d = -kReach; d <= kReach; ++d) {
        constexpr int steps = 256;
        double sum = 0.0;
        for (int k = 0; k < steps; ++k) sum += filterProfile(filter, d - 0.5 + (k + 0.5) / steps);
        w[d + kReach] = sum / steps;
    }
    // Separable: rows, then columns, each renormalised over the taps inside the image.
    auto pass = [&](const Image& in, bool horizontal) {
        Image out(in.width, in.height);
        for (int y = 0; y < in.height; ++y)
            for (int x = 0; x < in.width; ++x) {
                double acc[3] = {0, 0, 0}, total = 0.0;
                for (int d = -kReach; d <= kReach; ++d) {
                    int sx = horizontal ? x + d : x, sy = horizontal ? y : y + d;
                    if (sx < 0 || sy < 0 || sx >= in.width || sy >= in.height) continue;
                    total += w[d + kReach];
                    for (int c = 0; c < 3; ++c) acc[c] += w[d + kReach] * in.pixel(sx, sy)[c];
                }
                for (int c = 0; c < 3; ++c) out.pixel(x, y)[c] = float(acc[c] / total);
            }
        return out;
    };
    return pass(pass(image, true), false);
}

AovImages Film::resolveAovs() const {
    const std::size_t pixels = std::size_t(width) * height;
    AovImages out;
    auto clampFloat = [](double v) { return float(std::isnan(v) ? 0.0 : std::clamp(v, -double(FLT_MAX), double(FLT_MAX))); };
    if (aovPasses > 0 && aovSums.size() == pixels * 7) {
        out.albedo = Image(width, height);
        out.normal = Image(width, height);
        out.depth = Image(width, height);
        const double inv = 1.0 / aovPasses;
        for (std::size_t i = 0; i < pixels; ++i)
            for (int c = 0; c < 3; ++c) {
                out.albedo.rgb[3 * i + c] = clampFloat(aovSums[7 * i + c] * inv);
                out.normal.rgb[3 * i + c] = clampFloat(aovSums[7 * i + 3 + c] * inv);
                out.depth.rgb[3 * i + c] = clampFloat(aovSums[7 * i + 6] * inv);
            }
    }
    if (variancePasses >= 2 && passMoments.size() == pixels * 6) {
        // Sample variance of the B pass estimates, over B: the variance of their mean.
        out.variance = Image(width, height);
        const double b = variancePasses;
        for (std::size_t i = 0; i < pixels; ++i)
            for (int c = 0; c < 3; ++c) {
                const double s1 = passMoments[6 * i + c], s2 = passMoments[6 * i + 3 + c];
                const double v = std::max(0.0, (s2 - s1 * s1 / b) / (b - 1.0)) / b;
                out.variance.rgb[3 * i + c] = clampFloat(v);
            }
    }
    return out;
}

void checkImagePath(const std::string& path) {
    const std::string ext = lowercaseExtension(path);
    if (ext != ".png" && ext != ".jpg" && ext != ".jpeg" && ext != ".exr" && ext != ".pfm")
        throw InputError("cannot write '" + path + "': unknown image extension '" + ext +
                         "' (use .png, .jpg, .exr or .pfm)");
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    const std::string folder = parent.empty() ? "." : parent.string();
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw InputError("cannot write '" + path + "': the folder '" + folder + "' does not exist");
    if (::access(folder.c_str(), W_OK) != 0)
        throw InputError("cannot write '" + path + "': the folder '" + folder + "' is not writable (" +
                         std::strerror(errno) + ")");
    const std::string special = specialFileKind(path);
    if (!special.empty())
        throw InputError("cannot write '" + path + "': it is " + special + ", not a regular file");
}

std::uint64_t writeImage(const std::string& path, const Image& image, float exposure, ToneMap toneMap) {
    checkImagePath(path);
    if (int(toneMap) < int(ToneMap::Clamp) || int(toneMap) > int(ToneMap::Aces))
        throw InputError("tone map " + std::to_string(int(toneMap)) + " is not a ToneMap value");
    const std::string ext = lowercaseExtension(path);
    checkImage(path, image);
    // 2^64 already saturates any radiance a float holds; beyond it (or NaN) every pixel would be
    // black or white.
    const bool jpeg = ext == ".jpg" || ext == ".jpeg";
    if ((ext == ".png" || jpeg) && !(std::fabs(exposure) <= 64.0f))
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
    if (ext == ".png" || jpeg)
        writeEightBit(path, out, exposure, toneMap, jpeg);
    else if (ext == ".exr")
        writeExr(path, out);
    else
        writePfm(path, out);
    return replaced;
}

namespace {

/// The channels of an AOV layer in the files writeImageWithAovs writes.
void layerChannels(const std::string& layer, std::string (&names)[3]) {
    if (layer.empty()) {
        names[0] = "R", names[1] = "G", names[2] = "B";
    } else if (layer == "albedo" || layer == "variance") {
        for (int k = 0; k < 3; ++k) names[k] = layer + "." + "RGB"[k];
    } else if (layer == "normal") {
        for (int k = 0; k < 3; ++k) names[k] = std::string("normal.") + "XYZ"[k];
    } else if (layer == "depth") {
        names[0] = names[1] = names[2] = "Z";
    } else {
        throw InputError("unknown AOV layer '" + layer + "' (expected albedo, normal, depth or variance)");
    }
}

}  // namespace

std::uint64_t writeImageWithAovs(const std::string& path, const Image& image, const AovImages& aovs) {
    checkImagePath(path);
    if (lowercaseExtension(path) != ".exr")
        throw InputError("cannot write '" + path + "' with AOV layers: only .exr holds layers");
    checkImage(path, image);
    std::uint64_t replaced = 0;
    auto finite = [&](Image img) {
        for (float& v : img.rgb)
            if (!std::isfinite(v)) {
                ++replaced;
                v = std::isnan(v) ? 0.0f : v > 0.0f ? FLT_MAX : -FLT_MAX;
            }
        return img;
    };
    std::vector<ExrChannel> list;
    addChannels(list, finite(image), "", {"R", "G", "B"});
    const std::pair<const Image*, std::string> layers[] = {
        {&aovs.albedo, "albedo"}, {&aovs.normal, "normal"}, {&aovs.depth, "depth"}, {&aovs.variance, "variance"}};
    for (const auto& [layer, name] : layers) {
        if (layer->width == 0) continue;
        if (layer->width != image.width || layer->height != image.height)
            throw InputError("cannot write '" + path + "': the " + name + " layer is not as large as the image");
        checkPixelBuffer("cannot write '" + path + "': the " + name + " layer", *layer);
        std::string names[3];
        layerChannels(name, names);
        const Image f = finite(*layer);
        if (name == "depth") addChannels(list, f, "", {"Z"});
        else addChannels(list, f, "", {names[0].c_str(), names[1].c_str(), names[2].c_str()});
    }
    writeExrChannels(path, image.width, image.height, std::move(list));
    return replaced;
}

Image readImageLayer(const std::string& path, const std::string& layer) {
    if (lowercaseExtension(path) != ".exr") throw InputError("cannot read layer '" + layer + "' of '" + path + "': not an EXR file");
    std::string names[3];
    layerChannels(layer, names);
    return readExr(path, readInputFile(path, InputKind::Image), names);
}

namespace {

Image readImageWithin(const std::string& path, std::uint64_t texelsLeft, const std::filesystem::path& within) {
    const std::string ext = lowercaseExtension(path);
    static const std::string rgb[3] = {"R", "G", "B"};
    if (ext == ".pfm")
        return readPfm(path, readInputFile(path, InputKind::Image, 0, within), texelsLeft);
    if (ext == ".exr")
        return readExr(path, readInputFile(path, InputKind::Image, 0, within), rgb, texelsLeft);
    if (ext == ".hdr")
        return readHdr(path, texelsLeft, within);
    throw InputError("cannot read '" + path + "': unknown image extension '" + ext + "' (use .exr, .pfm or .hdr)");
}

}  // namespace

Image readImage(const std::string& path) { return readImageWithin(path, kNoBudget, {}); }

Image readFloatImage(const std::string& path, std::uint64_t texelsLeft, const std::filesystem::path& within) {
    return readImageWithin(path, std::min(texelsLeft, kNoBudget - 1), within);
}

}  // namespace wavefront
