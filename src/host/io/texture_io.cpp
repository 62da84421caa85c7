// Images decoded through stb_image (libstb): 8-bit textures and Radiance .hdr environment maps.
// Sizes are checked from the header before anything is decoded, so a hostile header cannot ask
// for gigabytes.
#include "host/io/texture_io.h"
#include "host/io/input_file.h"

#include <wavefront/error.h>

#include <stb_image.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

namespace wavefront {

namespace {

// At most 2^28 texels (1 GiB of RGBA8 or 3 GiB of float RGB), each side at most 65536.
void checkSize(int width, int height, const std::string& what) {
    if (width < 1 || height < 1 || width > (1 << 16) || height > (1 << 16) ||
        std::size_t(width) * std::size_t(height) > (std::size_t(1) << 28))
        throw InputError(what + ": image size " + std::to_string(width) + "x" + std::to_string(height) +
                         " is out of range (each side 1..65536, at most 2^28 texels)");
}

std::string failureReason() {
    const char* reason = stbi_failure_reason();
    return reason ? reason : "unknown error";
}

/// Through the one reader of input files: regular files only, within the image size cap.
std::vector<unsigned char> readBytes(const std::string& path) {
    const std::string bytes = readInputFile(path, InputKind::Image);
    return std::vector<unsigned char>(bytes.begin(), bytes.end());
}

struct StbFree {
    void operator()(void* p) const { stbi_image_free(p); }
};

}  // namespace

Texture decodeTexture(const unsigned char* data, std::size_t size, const std::string& what) {
    if (size == 0 || size > std::size_t(INT_MAX))
        throw InputError(what + ": " + std::to_string(size) + " bytes is not a decodable image size");
    int width = 0, height = 0, channels = 0;
    if (!stbi_info_from_memory(data, int(size), &width, &height, &channels))
        throw InputError(what + ": cannot decode the image (" + failureReason() + ")");
    checkSize(width, height, what);
    std::unique_ptr<unsigned char, StbFree> texels(stbi_load_from_memory(data, int(size), &width, &height, &channels, 4));
    if (!texels)
        throw InputError(what + ": cannot decode the image (" + failureReason() + ")");
    Texture texture;
    texture.width = width;
    texture.height = height;
    texture.rgba8.assign(texels.get(), texels.get() + std::size_t(width) * height * 4);
    return texture;
}

Texture readTexture(const std::string& path) {
    const std::vector<unsigned char> bytes = readBytes(path);
    return decodeTexture(bytes.data(), bytes.size(), "texture '" + path + "'");
}

Image readHdr(const std::string& path) {
    const std::vector<unsigned char> bytes = readBytes(path);
    const std::string what = "HDR file '" + path + "'";
    if (bytes.empty() || bytes.size() > std::size_t(INT_MAX))
        throw InputError(what + ": " + std::to_string(bytes.size()) + " bytes is not a decodable image size");
    // stbi_loadf would also take a PNG and undo its gamma: an .hdr file must be Radiance HDR.
    if (!stbi_is_hdr_from_memory(bytes.data(), int(bytes.size())))
        throw InputError(what + " is not a Radiance RGBE file");
    int width = 0, height = 0, channels = 0;
    if (!stbi_info_from_memory(bytes.data(), int(bytes.size()), &width, &height, &channels))
        throw InputError("cannot read " + what + ": " + failureReason());
    checkSize(width, height, what);
    std::unique_ptr<float, StbFree> rgb(stbi_loadf_from_memory(bytes.data(), int(bytes.size()), &width, &height, &channels, 3));
    if (!rgb)
        throw InputError("cannot read " + what + ": " + failureReason());
    Image image(width, height);
    image.rgb.assign(rgb.get(), rgb.get() + std::size_t(width) * height * 3);
    return image;
}

}  // namespace wavefront
