// Images decoded through stb_image (8-bit textures: PNG, JPEG, ...) and Radiance .hdr files,
// which are decoded here (stb_image's run-length decoder can loop forever on a truncated file).
#pragma once
#include <wavefront/image.h>
#include <wavefront/scene.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace wavefront {

/// What is left of `budget` texels (SceneLoadOptions::maxTextureTexels) once the textures `scene`
/// holds already are counted.
std::uint64_t texelsLeft(const Scene& scene, std::uint64_t budget);

/// Throws InputError naming `what` unless a width x height image fits: each side 1..65536, at
/// most 2^28 texels, and at most `texelsLeft` (the scene's texture budget).
void checkTextureSize(std::int64_t width, std::int64_t height, const std::string& what, std::uint64_t texelsLeft);

/// Decodes an image held in memory to a texture, checking its size (checkTextureSize) before
/// decoding: 8-bit images to RGBA8 (bytes kept as they are: sRGB for colour; 16-bit files reduced
/// to 8 bits), Radiance HDR content (whatever the file is called) to linear float RGBA. `what`
/// names the image in errors. Throws InputError, one line, for data that cannot be decoded.
Texture decodeTexture(const unsigned char* data, std::size_t size, const std::string& what, std::uint64_t texelsLeft);
/// Reads and decodes an image file (decodeTexture); `within`: readInputFile's confinement.
Texture readTexture(const std::string& path, std::uint64_t texelsLeft, const std::filesystem::path& within = {});
/// Reads a Radiance RGBE (.hdr) file as linear RGB. Throws InputError for files that are not
/// Radiance HDR, are truncated or malformed, or exceed 2^28 texels or `texelsLeft` (checked on
/// the header, before decoding).
Image readHdr(const std::string& path, std::uint64_t texelsLeft = std::uint64_t(1) << 28,
              const std::filesystem::path& within = {});
/// readImage (PFM, EXR, HDR by extension) with the size checked against `texelsLeft`
/// (checkTextureSize) on the header, before anything is decoded, and the file read with
/// readInputFile's `within`.
Image readFloatImage(const std::string& path, std::uint64_t texelsLeft, const std::filesystem::path& within = {});

}  // namespace wavefront
