// The registry rows of the Metropolis integrators (registry.h): MLT and multiplexed MLT, one
// runner (MltRunner) and one option table over their own option blocks.
#pragma once
#include "wavefront/renderer.h"

namespace wavefront {

struct IntegratorSpec;
template <class Exec>
class MltRunner;

/// Which Metropolis integrator a row runs on their shared runner (MltRunner): MLT, or multiplexed
/// MLT, whose samples each evaluate one path length and strategy (MltSettings::multiplexed).
enum class MetropolisMode { Mlt, Mmlt };
/// "MLT" or "MMLT", for messages.
inline const char* metropolisLabel(MetropolisMode mode) { return mode == MetropolisMode::Mmlt ? "MMLT" : "MLT"; }

struct MltIntegrator {
    static constexpr IntegratorType kType = IntegratorType::Mlt;
    static constexpr MltOptions RenderOptions::*kBlock = &RenderOptions::mlt;
    static constexpr MetropolisMode kMode = MetropolisMode::Mlt;
    /// The largest start-up pool (MltOptions::poolSize): 2 GiB of pool weights.
    static constexpr int kMaxPool = 1 << 28;
    /// The chains the user asked for: MltOptions::chains or the stream capacity (validate()
    /// refuses two different counts); 0: the chain policy picks.
    static int askedChains(const MltOptions& m, const RenderOptions& o) { return m.chains > 0 ? m.chains : o.streamCapacity; }
    /// InputError unless an explicit pool (MltOptions::poolSize > 0) has a sample for each of
    /// `chains` chains; `whose` names where the count came from.
    static void checkPoolCoversChains(const MltOptions& m, MetropolisMode mode, int chains, const char* whose);
    static IntegratorSpec spec();  ///< mlt_integrator.cpp
    template <class Exec>
    using Runner = MltRunner<Exec>;
};

/// Multiplexed MLT (Hachisuka, Kaplanyan and Dachsbacher 2014): MLT's chains, each sample one
/// path length and strategy (kernels/mlt/mlt.h).
struct MmltIntegrator {
    static constexpr IntegratorType kType = IntegratorType::Mmlt;
    static constexpr MltOptions RenderOptions::*kBlock = &RenderOptions::mmlt;
    static constexpr MetropolisMode kMode = MetropolisMode::Mmlt;
    static IntegratorSpec spec();  ///< mlt_integrator.cpp
    template <class Exec>
    using Runner = MltRunner<Exec>;
};

}  // namespace wavefront
