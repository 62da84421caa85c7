// Images decoded through stb_image: 8-bit textures (PNG, JPEG, ...) and Radiance .hdr files.
#pragma once
#include <wavefront/image.h>
#include <wavefront/scene.h>

#include <cstddef>
#include <string>

namespace wavefront {

/// Decodes an 8-bit image held in memory to an RGBA8 texture (bytes kept as they are: sRGB for
/// colour). 16-bit files are reduced to 8 bits. `what` names the image in errors. Throws
/// InputError, one line, for data stb_image cannot decode and for sizes beyond a Texture's.
Texture decodeTexture(const unsigned char* data, std::size_t size, const std::string& what);
/// Reads and decodes an 8-bit image file (decodeTexture).
Texture readTexture(const std::string& path);
/// Reads a Radiance RGBE (.hdr) file as linear RGB. Throws InputError for files that are not
/// Radiance HDR or that stb_image cannot decode.
Image readHdr(const std::string& path);

}  // namespace wavefront
