// The film in one exec's memory.
#pragma once
#include "host/backends/buffer.h"
#include "kernels/scene/aov.h"
#include "kernels/scene/scene_view.h"

namespace wavefront {

/// A film in one exec's memory, cleared: per-pixel sums and sample counts, and the count of
/// non-finite contributions dropped.
template <class Exec>
struct FilmBuffers {
    Buffer<double> sum;
    Buffer<unsigned> counts;
    Buffer<unsigned long long> nonFinite;
    FilmBuffers(Exec& exec, int numPixels)
        : sum(exec.template allocate<double>(std::size_t(3) * numPixels)),
          counts(exec.template allocate<unsigned>(numPixels)),
          nonFinite(exec.template allocate<unsigned long long>(1)) {
        exec.fill(sum.data(), 0.0, std::size_t(3) * numPixels);
        exec.fill(counts.data(), 0u, numPixels);
        exec.fill(nonFinite.data(), 0ull, 1);
    }
    /// `window`: the part of the frame this film holds (kernels name full-frame pixels).
    FilmView view(FilmWindow window = FilmWindow{}) const {
        return FilmView{sum.data(), counts.data(), nonFinite.data(), window};
    }
};

/// What RenderOptions::aovs adds beside the film (kernels/scene/aov.h): first-hit sums and the
/// film's per-pass moments, with the film's state after the last pass.
template <class Exec>
struct AovBuffers {
    Buffer<double> sums;           ///< kAovWords per pixel
    Buffer<double> previous;       ///< 3 per pixel
    Buffer<unsigned> previousCounts;
    Buffer<double> moments;        ///< 6 per pixel
    std::uint32_t passes = 0;      ///< first-hit passes on the film
    std::uint32_t momentPasses = 0;
    AovBuffers(Exec& exec, int numPixels)
        : sums(exec.template allocate<double>(std::size_t(kAovWords) * numPixels)),
          previous(exec.template allocate<double>(std::size_t(3) * numPixels)),
          previousCounts(exec.template allocate<unsigned>(numPixels)),
          moments(exec.template allocate<double>(std::size_t(6) * numPixels)) {
        clear(exec, numPixels);
    }
    void clear(Exec& exec, int numPixels) {
        exec.fill(sums.data(), 0.0, std::size_t(kAovWords) * numPixels);
        exec.fill(previous.data(), 0.0, std::size_t(3) * numPixels);
        exec.fill(previousCounts.data(), 0u, numPixels);
        exec.fill(moments.data(), 0.0, std::size_t(6) * numPixels);
        passes = momentPasses = 0;
    }
};

}  // namespace wavefront
