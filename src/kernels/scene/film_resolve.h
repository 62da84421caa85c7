// A film pixel's estimate, the mean of its samples: Film::resolve computes it on the host and
// Renderer::deviceImage() in the exec's memory, with this one function.
#pragma once
#include <cfloat>
#include <cmath>
#include <cstddef>

#include "kernels/core/device.h"

namespace wavefront {

/// Writes the mean of the `count` samples summed in sum[0..2] to out[0..2] (black without a
/// sample); a mean beyond the float range becomes the largest float of its sign and NaN becomes 0.
/// Returns how many channels were changed so.
WF_CPU_GPU inline int resolvePixel(const double* sum, unsigned count, float* out) {
    int changed = 0;
    const double inv = count > 0 ? 1.0 / double(count) : 0.0;
    for (int c = 0; c < 3; ++c) {
        // Checked before the conversion: a double beyond the float range has no float value (and
        // a NaN fails the test too).
        const double v = count > 0 ? sum[c] * inv : 0.0;
        if (std::fabs(v) <= double(FLT_MAX)) {
            out[c] = float(v);
        } else {
            ++changed;
            out[c] = std::isnan(v) ? 0.0f : v > 0.0 ? FLT_MAX : -FLT_MAX;
        }
    }
    return changed;
}

/// How a film's sums become estimates: by each pixel's own sample count, or (MLT, whose samples
/// land anywhere on the frame) by one count for every pixel after scaling the sums.
struct FilmScale {
    unsigned samplesPerPixel = 0;  ///< 0: each pixel's own count
    double sumScale = 1.0;
};

/// One thread per pixel: the film's estimate as 3 floats per pixel (Renderer::deviceImage()),
/// with the host's arithmetic (Film::resolve after the runner's FilmScale).
struct FilmResolveStage {
    const double* sum;
    const unsigned* counts;
    FilmScale scale;
    float* rgb;
    WF_CPU_GPU void operator()(int i) const {
        const std::size_t p = std::size_t(i);
        if (scale.samplesPerPixel == 0) {
            resolvePixel(sum + 3 * p, counts[p], rgb + 3 * p);
            return;
        }
        const double scaled[3] = {sum[3 * p] * scale.sumScale, sum[3 * p + 1] * scale.sumScale, sum[3 * p + 2] * scale.sumScale};
        resolvePixel(scaled, scale.samplesPerPixel, rgb + 3 * p);
    }
};

}  // namespace wavefront
