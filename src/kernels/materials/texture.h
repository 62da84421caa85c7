// Image textures as kernels see them: bilinear lookups, repeated beyond [0, 1], rows top to
// bottom with (0, 0) at the top-left corner (scene.h's Texture). 8-bit texels are decoded from
// sRGB before filtering, so that the filter averages light rather than encoded values.
#pragma once
#include <cstdint>

#include "kernels/core/math.h"

namespace wavefront {

/// The sRGB transfer function's inverse (IEC 61966-2-1), exact rather than a gamma of 2.2.
WF_CPU_GPU WF_INLINE float srgbToLinear(float c) {
    return c <= 0.04045f ? c * (1.0f / 12.92f) : std::pow((c + 0.055f) * (1.0f / 1.055f), 2.4f);
}

struct TextureView {
    const std::uint32_t* rgba8 = nullptr;  ///< packed R | G << 8 | B << 16 | A << 24, or null
    const Float4* rgbaFloat = nullptr;     ///< used when rgba8 is null
    int width = 0, height = 0;
    int srgb = 0;                          ///< rgba8 holds sRGB-encoded colour

    WF_CPU_GPU vec3 texel(int x, int y) const {
        std::size_t i = std::size_t(y) * std::size_t(width) + std::size_t(x);
        if (!rgba8) return rgbaFloat[i].xyz();
        std::uint32_t p = rgba8[i];
        vec3 c(float(p & 0xffu), float((p >> 8) & 0xffu), float((p >> 16) & 0xffu));
        c *= 1.0f / 255.0f;
        if (srgb) c = vec3(srgbToLinear(c.x), srgbToLinear(c.y), srgbToLinear(c.z));
        return c;
    }

    /// Bilinear, texel centres at half-integer coordinates, wrapping at every edge.
    WF_CPU_GPU vec3 sample(vec2 uv) const {
        float x = (uv.x - std::floor(uv.x)) * float(width) - 0.5f;
        float y = (uv.y - std::floor(uv.y)) * float(height) - 0.5f;
        float fx = std::floor(x), fy = std::floor(y);
        float tx = x - fx, ty = y - fy;
        int x0 = int(fx), y0 = int(fy);
        auto wrap = [](int i, int n) { return i < 0 ? i + n : (i >= n ? i - n : i); };
        int x1 = wrap(x0 + 1, width), y1 = wrap(y0 + 1, height);
        x0 = wrap(x0, width);
        y0 = wrap(y0, height);
        vec3 top = (1.0f - tx) * texel(x0, y0) + tx * texel(x1, y0);
        vec3 bottom = (1.0f - tx) * texel(x0, y1) + tx * texel(x1, y1);
        return (1.0f - ty) * top + ty * bottom;
    }
};

/// Texture coordinates in 32 bits: the fractional parts of u and v, 16 bits each (lookups repeat,
/// so the integer parts do not matter; 1/65536 is finer than a texel of any allowed texture).
WF_CPU_GPU WF_INLINE float packTextureCoordinates(vec2 uv) {
    auto q = [](float t) {
        float f = t - std::floor(t);
        return std::uint32_t(glm::min(f * 65536.0f, 65535.0f));
    };
    return uintAsFloat(q(uv.x) | q(uv.y) << 16);
}
WF_CPU_GPU WF_INLINE vec2 unpackTextureCoordinates(float packed) {
    std::uint32_t bits = floatAsUint(packed);
    return vec2(float(bits & 0xffffu) + 0.5f, float(bits >> 16) + 0.5f) * (1.0f / 65536.0f);
}

}  // namespace wavefront
