// BDPT's registry row: its options, rules, figures (bdpt_integrator.h).
#include "host/integrators/bdpt_integrator.h"

#include <cstdint>
#include <cstdio>

#include "host/integrators/bidirectional_options.h"

namespace wavefront {

std::vector<std::pair<std::string, double>> bdptFigures(const RenderStats& st) {
    return {{"connections", double(st.bdpt.connections)},
            {"connect phases", double(st.bdpt.connectPhases)},
            {"random-walk SIMD occupancy", st.bdpt.walkSimdEfficiency},
            {"connect SIMD occupancy", st.bdpt.connectSimdEfficiency}};
}

void mergeBdptStats(const std::vector<RenderStats>& perDevice, RenderStats& merged) {
    merged.bdpt.connections = merged.bdpt.connectPhases = 0;
    for (const RenderStats& s : perDevice) {
        merged.bdpt.connections += s.bdpt.connections;
        merged.bdpt.connectPhases += s.bdpt.connectPhases;
    }
}

IntegratorSpec BdptIntegrator::spec() {
    IntegratorSpec s{kType, "Bdpt", "bdpt",
                     "bidirectional path tracing: streaming eye and light walks, one thread per connection (van "
                     "Antwerpen 2011, 5)"};
    s.options = {
        {"variant", "--bdpt-variant", "BDPT schedule: streaming or naive",
         [](RenderOptions& o, const std::string& v) { o.bdpt.variant = parseBdptVariant(v); },
         [](const RenderOptions& o) { return std::string(toString(o.bdpt.variant)); }},
        {"strategy", "--strategy", "render only the MIS-weighted strategy S,T (S light vertices, T eye vertices)",
         [](RenderOptions& o, const std::string& v) {
             if (v == "all") {
                 o.bdpt.strategyS = o.bdpt.strategyT = -1;
                 return;
             }
             long long sv = 0, tv = 0;
             char extra = 0;
             // Read wide, so that 4294967297,2 is refused rather than wrapped to 1,2; the ranges are
             // validate()'s.
             if (std::sscanf(v.c_str(), "%lld,%lld%c", &sv, &tv, &extra) != 2)
                 throw InputError("strategy '" + v + "' is not of the form S,T (or all)");
             if (sv < -1 || tv < -1 || sv > 1000 || tv > 1000)
                 throw InputError("strategy '" + v + "' is out of range (s and t at most the max depth + 1)");
             o.bdpt.strategyS = int(sv);
             o.bdpt.strategyT = int(tv);
         },
         [](const RenderOptions& o) {
             return o.bdpt.strategyS < 0 ? std::string("all")
                                         : std::to_string(o.bdpt.strategyS) + "," + std::to_string(o.bdpt.strategyT);
         }},
    };
    for (OptionSpec& shared : bidirectionalOptions<BdptOptions, &RenderOptions::bdpt>()) s.options.push_back(shared);
    s.validate = [](const RenderOptions& o) {
        const BdptOptions& b = o.bdpt;
        if (int(b.variant) < int(BdptVariant::Streaming) || int(b.variant) > int(BdptVariant::Naive))
            throw InputError("BDPT variant " + std::to_string(int(b.variant)) + " is not a BdptVariant value");
        validateBidirectional(b);
        if (b.connectThreshold && b.variant == BdptVariant::Naive)
            throw InputError("the connect threshold applies to the streaming BDPT only (naive BDPT has no connect phase)");
        if ((b.strategyS < 0) != (b.strategyT < 0) || (b.strategyS >= 0 && b.strategyT < 1))
            throw InputError("a BDPT strategy needs s >= 0 and t >= 1 (or neither)");
        // Summed in 64 bits: in int, s = INT_MAX wrapped the length negative and passed.
        const std::int64_t segments = std::int64_t(b.strategyS) + std::int64_t(b.strategyT) - 1;
        if (b.strategyS >= 0 && segments > o.maxDepth)
            throw InputError("strategy " + std::to_string(b.strategyS) + "," + std::to_string(b.strategyT) +
                             " makes paths of " + std::to_string(segments) + " segments, more than the max depth " +
                             std::to_string(o.maxDepth));
    };
    s.figures = bdptFigures;
    s.mergeDeviceStats = mergeBdptStats;
    return s;
}

}  // namespace wavefront
