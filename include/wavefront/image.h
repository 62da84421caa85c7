// HDR images and the film a render accumulates into.
#pragma once
#include "config.h"
#include <cstdint>
#include <string>
#include <vector>

namespace wavefront {

/// A linear RGB float image, rows top to bottom.
struct Image {
    int width = 0;
    int height = 0;
    std::vector<float> rgb;  ///< width * height * 3

    Image() = default;
    Image(int w, int h) : width(w), height(h), rgb(std::size_t(w) * h * 3, 0.0f) {}
    float* pixel(int x, int y) { return &rgb[(std::size_t(y) * width + x) * 3]; }
    const float* pixel(int x, int y) const { return &rgb[(std::size_t(y) * width + x) * 3]; }
};

struct AovImages;

/// Accumulated radiance: per-pixel RGB sums (double, so that sums of large finite estimates do
/// not overflow) and per-pixel sample counts.
struct WAVEFRONT_API Film {
    int width = 0;
    int height = 0;
    std::vector<double> sum;            ///< width * height * 3
    std::vector<std::uint32_t> samples; ///< width * height
    /// RenderOptions::aovs: per pixel, sums of first-hit albedo (3), shading normal (3) and depth
    /// (1) over `aovPasses` camera samples; empty otherwise.
    std::vector<double> aovSums;
    std::uint32_t aovPasses = 0;
    /// RenderOptions::aovs with PT or BDPT: per pixel, the sums of the passes' estimates (3) and of
    /// their squares (3) over `variancePasses` passes of one sample per pixel; empty otherwise.
    std::vector<double> passMoments;
    std::uint32_t variancePasses = 0;

    /// The estimate: sum / samples per pixel (black where a pixel has no samples), as float. A
    /// value beyond the float range is clamped to +-FLT_MAX (a NaN, which a film filled by a
    /// renderer cannot hold, becomes 0); when `clamped` is given it receives how many values
    /// were changed so. The image is always finite.
    Image resolve(std::uint64_t* clamped = nullptr) const;
    /// The AOVs (empty images where the film has none; see AovImages).
    AovImages resolveAovs() const;
};

/// What a render with RenderOptions::aovs gives beside the colour, each as wide as the film; an
/// image is empty (width 0) where it was not rendered.
struct AovImages {
    Image albedo;    ///< first-hit albedo in [0, 1] (firstHitAlbedo: diffuse colour, mirror tint, glass 1, ...)
    Image normal;    ///< first-hit shading normal, world space, facing the camera, averaged (not renormalised)
    Image depth;     ///< distance from the camera (lens point) to the first hit, in all three channels; 0: none
    /// Variance of the pixel's estimate (of the mean over passes, per channel): the sample variance
    /// of the per-pass estimates over the passes. PT and BDPT with at least two passes; empty
    /// for MLT, whose passes are correlated states of Markov chains.
    Image variance;
};

/// The pixel filter an image is resolved with (RenderOptions::filter, Renderer::image()).
enum class PixelFilter {
    Box,       ///< each pixel its own samples' mean (the default; what the correctness tests compare)
    Gaussian,  ///< a Gaussian of standard deviation 0.5 pixel, cut off at a radius of 1.5
    Mitchell,  ///< Mitchell-Netravali (B = C = 1/3), radius 2: slightly sharpening
};

/// How PNG output maps radiance to [0, 1] before the sRGB curve (writeImage).
enum class ToneMap {
    Clamp,     ///< clip at 1 (the default)
    Reinhard,  ///< x / (1 + x) per channel
    Aces,      ///< Narkowicz's fit of the ACES filmic curve
};

/// `image` (a film's box-filtered estimate) filtered by `filter`: each output pixel a weighted
/// mean of its neighbours, each weight the filter integrated over that neighbour's pixel area
/// (the box image convolved with the filter, sampled at pixel centres), the weights of the
/// neighbours inside the image normalised to 1, so a constant image stays constant. Box: `image`
/// itself (pass a temporary or std::move to skip the copy). Throws InputError when `image.rgb`
/// does not hold width x height x 3 floats.
WAVEFRONT_API Image filterImage(Image image, PixelFilter filter);

/// Writes an image; the format follows the extension: .png or .jpg/.jpeg (sRGB, 8 bit, scaled by
/// 2^exposure, then `toneMap`; JPEG at quality 95; EXR and PFM ignore both),
/// .exr (32-bit float) or .pfm (32-bit float). No file ever holds a NaN or an infinity: an
/// infinity is written as +-FLT_MAX, a NaN as 0. Returns how many values were replaced so (0 for
/// any image resolved from a Film). Throws InputError for other extensions or unwritable paths,
/// and for any failed write: the file is written next to `path` and renamed over it only when
/// complete (a device such as /dev/full is written in place, every write checked).
WAVEFRONT_API std::uint64_t writeImage(const std::string& path, const Image& image, float exposure = 0.0f,
                                       ToneMap toneMap = ToneMap::Clamp);
/// Throws InputError, as writeImage would, for a path it cannot write to: an unknown extension, a
/// folder that does not exist or is not writable, a directory. Creates nothing (for checking an
/// output path before rendering).
WAVEFRONT_API void checkImagePath(const std::string& path);
/// Writes `image` with the AOV layers that are not empty into one .exr: channels R, G, B,
/// albedo.{R,G,B}, normal.{X,Y,Z}, Z (depth) and variance.{R,G,B}, 32-bit float, non-finite
/// values replaced as writeImage does (the count returned). Throws InputError for other
/// extensions, layers of another size (or whose pixel buffer does not match their size), and what
/// writeImage throws for.
WAVEFRONT_API std::uint64_t writeImageWithAovs(const std::string& path, const Image& image, const AovImages& aovs);
/// Reads one layer of such a file: "" (the colour), "albedo", "normal", "depth" (Z in all three
/// channels) or "variance". Throws InputError for other names, other files and missing channels.
WAVEFRONT_API Image readImageLayer(const std::string& path, const std::string& layer);
/// Reads an .exr, .pfm or Radiance .hdr file (used by the tests and for environment maps).
WAVEFRONT_API Image readImage(const std::string& path);

}  // namespace wavefront
