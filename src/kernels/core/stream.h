// Structure-of-arrays storage for stream items made of 16-byte words: word k of item i lives at
// words[k * capacity + i], so a warp reading one field makes one coalesced 16-byte-per-lane load.
// The item struct is declared once (PathState, ShadowRay); this template is the only SoA code.
#pragma once
#include "kernels/core/math.h"

namespace wavefront {

template <class T>
struct SoaView {
    static_assert(sizeof(T) % sizeof(Float4) == 0, "SoA items are made of whole 16-byte words");
    static constexpr int kWords = int(sizeof(T) / sizeof(Float4));
    Float4* words = nullptr;
    int capacity = 0;

    WF_CPU_GPU WF_INLINE T load(int i) const {
        T item;
        Float4* w = reinterpret_cast<Float4*>(&item);
        for (int k = 0; k < kWords; ++k) w[k] = words[std::size_t(k) * capacity + i];
        return item;
    }
    WF_CPU_GPU WF_INLINE void store(int i, const T& item) const {
        const Float4* w = reinterpret_cast<const Float4*>(&item);
        for (int k = 0; k < kWords; ++k) words[std::size_t(k) * capacity + i] = w[k];
    }
};

}  // namespace wavefront
