// MLT's registry row (registry.h).
#pragma once
#include "wavefront/renderer.h"

namespace wavefront {

struct IntegratorSpec;
template <class Exec>
class MltRunner;

struct MltIntegrator {
    static constexpr IntegratorType kType = IntegratorType::Mlt;
    /// The largest start-up pool (MltOptions::poolSize): 2 GiB of pool weights.
    static constexpr int kMaxPool = 1 << 28;
    /// The chains the user asked for: MltOptions::chains or the stream capacity (validate()
    /// refuses two different counts); 0: the chain policy picks.
    static int askedChains(const RenderOptions& o) { return o.mlt.chains > 0 ? o.mlt.chains : o.streamCapacity; }
    /// InputError unless an explicit pool (MltOptions::poolSize > 0) has a sample for each of
    /// `chains` chains; `whose` names where the count came from.
    static void checkPoolCoversChains(const RenderOptions& o, int chains, const char* whose);
    static IntegratorSpec spec();  ///< mlt_integrator.cpp
    template <class Exec>
    using Runner = MltRunner<Exec>;
};

}  // namespace wavefront
