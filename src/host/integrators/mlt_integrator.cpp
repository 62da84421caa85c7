// MLT's registry row: its options, rules, figures (mlt_integrator.h).
#include "host/integrators/mlt_integrator.h"

#include "host/integrators/bdpt_integrator.h"
#include "host/integrators/bidirectional_options.h"

namespace wavefront {

void MltIntegrator::checkPoolCoversChains(const RenderOptions& o, int chains, const char* whose) {
    if (o.mlt.poolSize > 0 && chains > 0 && o.mlt.poolSize < chains)
        throw InputError("MLT start-up pool " + std::to_string(o.mlt.poolSize) + " is smaller than the " +
                         std::to_string(chains) + " chains " + whose + " (at least one sample per chain)");
}

IntegratorSpec MltIntegrator::spec() {
    IntegratorSpec s{kType, "mlt",
                     "Metropolis light transport: Kelemen's primary-sample-space chains on the streaming BDPT "
                     "(van Antwerpen 2011, 6)"};
    s.rendersSampleRanges = false;
    s.options = {
        {"large-step", "--large-step", "large-step probability in (0, 1]",
         [](RenderOptions& o, const std::string& v) { o.mlt.largeStepProbability = options::parseFloat("--large-step", v); },
         [](const RenderOptions& o) { return options::number(o.mlt.largeStepProbability); }},
        {"startup", "--startup", "chain start-up: resample (a pool of BDPT samples) or uniform",
         [](RenderOptions& o, const std::string& v) {
             if (v != "resample" && v != "uniform") throw InputError("--startup '" + v + "' is not resample or uniform");
             o.mlt.startupResampling = v == "resample";
         },
         [](const RenderOptions& o) { return std::string(o.mlt.startupResampling ? "resample" : "uniform"); }},
        {"chains", "--chains", "Markov chains (0: as many as the chain policy picks)",
         [](RenderOptions& o, const std::string& v) { o.mlt.chains = options::parseInt("--chains", v); },
         [](const RenderOptions& o) { return std::to_string(o.mlt.chains); }},
        {"pool", "--pool", "start-up pool samples, at least one per chain (0: as many as the pool policy picks)",
         [](RenderOptions& o, const std::string& v) { o.mlt.poolSize = options::parseInt("--pool", v); },
         [](const RenderOptions& o) { return std::to_string(o.mlt.poolSize); }},
    };
    for (OptionSpec& shared : bidirectionalOptions<MltOptions, &RenderOptions::mlt>()) s.options.push_back(shared);
    s.validate = [](const RenderOptions& o) {
        validateBidirectional(o.mlt);
        // Large steps keep improving b; without them the image scale stays that of the start-up pool.
        if (!(o.mlt.largeStepProbability > 0.0f && o.mlt.largeStepProbability <= 1.0f))
            throw InputError("large-step probability must be in (0, 1]");
        if (o.mlt.chains < 0) throw InputError("MLT chains must be positive (or 0 for the chain policy)");
        if (o.mlt.chains > 0 && o.streamCapacity > 0 && o.mlt.chains != o.streamCapacity)
            throw InputError("MLT chains " + std::to_string(o.mlt.chains) + " and stream capacity " +
                             std::to_string(o.streamCapacity) + " disagree: give one of the two");
        if (o.mlt.poolSize < 0 || o.mlt.poolSize > kMaxPool)
            throw InputError("MLT start-up pool must be 0 (the pool policy) to " + std::to_string(kMaxPool) + " samples");
        if (o.mlt.poolSize > 0 && !o.mlt.startupResampling)
            throw InputError("an MLT start-up pool needs --startup resample");
        checkPoolCoversChains(o, askedChains(o), "asked for");
        if (o.firstPass > 0)
            throw InputError("MLT renders no pass ranges (first pass must be 0); give each process its own seed instead");
    };
    s.figures = [](const RenderStats& st) {
        std::vector<std::pair<std::string, double>> f = {{"chains", double(st.streamCapacity)},
                                                         {"acceptance", st.mlt.acceptanceRate},
                                                         {"large steps", st.mlt.largeStepFraction},
                                                         {"normalisation b", st.mlt.normalization},
                                                         {"mutations per chain", st.mlt.mutationsPerChain},
                                                         {"start-up samples", double(st.mlt.startupSamples)},
                                                         {"pool samples", double(st.mlt.poolSamples)},
                                                         {"start-up seconds", st.mlt.startupSeconds}};
        for (auto& bdpt : bdptFigures(st)) f.push_back(bdpt);
        return f;
    };
    s.mergeDeviceStats = [](const std::vector<RenderStats>& perDevice, RenderStats& merged) {
        mergeBdptStats(perDevice, merged);
        // Weighted by each device's mutations.
        double accepted = 0.0, large = 0.0, b = 0.0, mutations = 0.0, chains = 0.0, startup = 0.0;
        std::uint64_t startupSamples = 0, poolSamples = 0;
        for (const RenderStats& d : perDevice) {
            chains += double(d.streamCapacity);
            startupSamples += d.mlt.startupSamples;
            poolSamples += d.mlt.poolSamples;
            startup = std::max(startup, d.mlt.startupSeconds);
            if (d.mlt.acceptanceRate < 0.0) continue;
            accepted += d.mlt.acceptanceRate * double(d.samples);
            large += d.mlt.largeStepFraction * double(d.samples);
            b += d.mlt.normalization * double(d.samples);
            mutations += double(d.samples);
        }
        if (mutations > 0.0)
            merged.mlt = MltStats{accepted / mutations, large / mutations, b / mutations, startupSamples, startup,
                                  chains > 0.0 ? mutations / chains : 0.0, poolSamples};
    };
    return s;
}

}  // namespace wavefront
