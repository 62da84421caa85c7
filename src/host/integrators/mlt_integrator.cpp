// The Metropolis integrators' registry rows, MLT and MMLT: their options, rules, figures (mlt_integrator.h).
#include "host/integrators/mlt_integrator.h"

#include <algorithm>
#include "host/integrators/bdpt_integrator.h"
#include "host/integrators/bidirectional_options.h"
#include "kernels/mlt/mlt.h"

namespace wavefront {

void MltIntegrator::checkPoolCoversChains(const MltOptions& m, MetropolisMode mode, int chains, const char* whose) {
    if (m.poolSize > 0 && chains > 0 && m.poolSize < chains)
        throw InputError(std::string(metropolisLabel(mode)) + " start-up pool " + std::to_string(m.poolSize) +
                         " is smaller than the " + std::to_string(chains) + " chains " + whose +
                         " (at least one sample per chain)");
}

namespace {

/// The row of a Metropolis integrator over its option block Row::kBlock: MLT's options, rules,
/// figures and device merge.
template <class Row>
IntegratorSpec metropolisSpec(const char* typeName, const char* name, const char* description) {
    IntegratorSpec s{Row::kType, typeName, name, description, WorkSplit::Chains};
    s.options = {
        {"large-step", "--large-step", "large-step probability in (0, 1]",
         [](RenderOptions& o, const std::string& v) { (o.*Row::kBlock).largeStepProbability = options::parseFloat("--large-step", v); },
         [](const RenderOptions& o) { return options::number((o.*Row::kBlock).largeStepProbability); }},
        {"small-step", "--small-step", "the small step's largest offset in (1/1024, 1/2]",
         [](RenderOptions& o, const std::string& v) { (o.*Row::kBlock).smallStep = options::parseFloat("--small-step", v); },
         [](const RenderOptions& o) { return options::number((o.*Row::kBlock).smallStep); }},
        {"startup", "--startup", "chain start-up: resample (a pool of BDPT samples) or uniform",
         [](RenderOptions& o, const std::string& v) {
             if (v != "resample" && v != "uniform") throw InputError("--startup '" + v + "' is not resample or uniform");
             (o.*Row::kBlock).startupResampling = v == "resample";
         },
         [](const RenderOptions& o) { return std::string((o.*Row::kBlock).startupResampling ? "resample" : "uniform"); }},
        {"importance", "--importance", "the chains' target function: luminance, or relative (over a BDPT pilot's brightness)",
         [](RenderOptions& o, const std::string& v) {
             if (v != "luminance" && v != "relative") throw InputError("--importance '" + v + "' is not luminance or relative");
             (o.*Row::kBlock).relativeImportance = v == "relative";
         },
         [](const RenderOptions& o) { return std::string((o.*Row::kBlock).relativeImportance ? "relative" : "luminance"); }},
        {"chains", "--chains", "Markov chains (0: as many as the chain policy picks)",
         [](RenderOptions& o, const std::string& v) { (o.*Row::kBlock).chains = options::parseInt("--chains", v); },
         [](const RenderOptions& o) { return std::to_string((o.*Row::kBlock).chains); }},
        {"pool", "--pool", "start-up pool samples, at least one per chain (0: as many as the pool policy picks)",
         [](RenderOptions& o, const std::string& v) { (o.*Row::kBlock).poolSize = options::parseInt("--pool", v); },
         [](const RenderOptions& o) { return std::to_string((o.*Row::kBlock).poolSize); }},
    };
    for (OptionSpec& shared : bidirectionalOptions<MltOptions, Row::kBlock>()) s.options.push_back(shared);
    s.validate = [](const RenderOptions& o) {
        const MltOptions& m = o.*Row::kBlock;
        const std::string label = metropolisLabel(Row::kMode);
        validateBidirectional(m);
        // Large steps keep improving b; without them the image scale stays that of the start-up pool.
        if (!(m.largeStepProbability > 0.0f && m.largeStepProbability <= 1.0f))
            throw InputError("large-step probability must be in (0, 1]");
        if (!(m.smallStep > KelemenStep::kSmallest && m.smallStep <= 0.5f))
            throw InputError("small step must be in (1/1024, 1/2]");
        if (m.chains < 0) throw InputError(label + " chains must be positive (or 0 for the chain policy)");
        if (m.chains > 0 && o.streamCapacity > 0 && m.chains != o.streamCapacity)
            throw InputError(label + " chains " + std::to_string(m.chains) + " and stream capacity " +
                             std::to_string(o.streamCapacity) + " disagree: give one of the two");
        if (m.poolSize < 0 || m.poolSize > MltIntegrator::kMaxPool)
            throw InputError(label + " start-up pool must be 0 (the pool policy) to " +
                             std::to_string(MltIntegrator::kMaxPool) + " samples");
        if (m.poolSize > 0 && !m.startupResampling)
            throw InputError("an " + label + " start-up pool needs --startup resample");
        // Its chains per length and their starts come from the bootstrap.
        if (Row::kMode == MetropolisMode::Mmlt && !m.startupResampling)
            throw InputError("MMLT starts its chains from its bootstrap: --startup uniform is MLT's only");
        MltIntegrator::checkPoolCoversChains(m, Row::kMode, MltIntegrator::askedChains(m, o), "asked for");
        if (o.firstPass > 0)
            throw InputError(label + " renders no pass ranges (first pass must be 0); give each process its own seed instead");
    };
    s.figures = [](const RenderStats& st) {
        std::vector<std::pair<std::string, double>> f = {{"chains", double(st.streamCapacity)},
                                                         {"acceptance", st.mlt.acceptanceRate},
                                                         {"large steps", st.mlt.largeStepFraction},
                                                         {"normalisation b", st.mlt.normalization},
                                                         {"mutations per chain", st.mlt.mutationsPerChain},
                                                         {"start-up samples", double(st.mlt.startupSamples)},
                                                         {"pool samples", double(st.mlt.poolSamples)},
                                                         {"pilot samples", double(st.mlt.pilotSamples)},
                                                         {"start-up seconds", st.mlt.startupSeconds}};
        for (std::size_t l = 0; l < st.mlt.lengthChains.size(); ++l)
            if (st.mlt.lengthChains[l] > 0)
                f.push_back({"chains of length " + std::to_string(l + 1), double(st.mlt.lengthChains[l])});
        for (std::size_t l = 0; l < st.mlt.lengthNormalization.size(); ++l)
            if (st.mlt.lengthNormalization[l] > 0.0)
                f.push_back({"b of length " + std::to_string(l + 1), st.mlt.lengthNormalization[l]});
        for (auto& bdpt : bdptFigures(st)) f.push_back(bdpt);
        return f;
    };
    s.mergeDeviceStats = [](const std::vector<RenderStats>& perDevice, RenderStats& merged) {
        mergeBdptStats(perDevice, merged);
        // Weighted by each device's mutations.
        double accepted = 0.0, large = 0.0, b = 0.0, mutations = 0.0, chains = 0.0, startup = 0.0;
        std::uint64_t startupSamples = 0, poolSamples = 0, pilotSamples = 0;
        // Multiplexed MLT: the chains per length summed, b_l weighted by each device's mutations.
        std::vector<std::uint64_t> lengthChains;
        std::vector<double> lengthB;
        for (const RenderStats& d : perDevice) {
            lengthChains.resize(std::max(lengthChains.size(), d.mlt.lengthChains.size()), 0);
            lengthB.resize(std::max(lengthB.size(), d.mlt.lengthNormalization.size()), 0.0);
            for (std::size_t l = 0; l < d.mlt.lengthChains.size(); ++l) lengthChains[l] += d.mlt.lengthChains[l];
            if (d.mlt.acceptanceRate >= 0.0)
                for (std::size_t l = 0; l < d.mlt.lengthNormalization.size(); ++l)
                    lengthB[l] += d.mlt.lengthNormalization[l] * double(d.samples);
            chains += double(d.streamCapacity);
            startupSamples += d.mlt.startupSamples;
            poolSamples += d.mlt.poolSamples;
            pilotSamples += d.mlt.pilotSamples;
            startup = std::max(startup, d.mlt.startupSeconds);
            if (d.mlt.acceptanceRate < 0.0) continue;
            accepted += d.mlt.acceptanceRate * double(d.samples);
            large += d.mlt.largeStepFraction * double(d.samples);
            b += d.mlt.normalization * double(d.samples);
            mutations += double(d.samples);
        }
        if (mutations > 0.0) {
            for (double& v : lengthB) v /= mutations;
            merged.mlt = MltStats{accepted / mutations, large / mutations, b / mutations, startupSamples, startup,
                                  chains > 0.0 ? mutations / chains : 0.0, poolSamples, pilotSamples,
                                  lengthChains, lengthB};
        }
    };
    return s;
}

}  // namespace

IntegratorSpec MltIntegrator::spec() {
    return metropolisSpec<MltIntegrator>(
        "Mlt", "mlt", "Metropolis light transport: Kelemen's primary-sample-space chains on the streaming BDPT "
               "(van Antwerpen 2011, 6)");
}

IntegratorSpec MmltIntegrator::spec() {
    return metropolisSpec<MmltIntegrator>(
        "Mmlt", "mmlt", "multiplexed MLT: chains over path length and BDPT strategy, one connection per mutation "
                "(Hachisuka, Kaplanyan and Dachsbacher 2014)");
}

}  // namespace wavefront
