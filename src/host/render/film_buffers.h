// The film in one exec's memory.
#pragma once
#include "host/backends/buffer.h"
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
    FilmView view() const { return FilmView{sum.data(), counts.data(), nonFinite.data()}; }
};

}  // namespace wavefront
