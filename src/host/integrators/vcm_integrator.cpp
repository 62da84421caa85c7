// The merging integrators' registry rows, VCM, BPM and PPM: their options, rules, figures
// (vcm_integrator.h).
#include "host/integrators/vcm_integrator.h"

#include <algorithm>

#include "host/integrators/registry.h"
#include "wavefront/error.h"

namespace wavefront {

namespace {

template <class Row>
IntegratorSpec mergingSpec(const char* typeName, const char* name, const char* description) {
    IntegratorSpec s{Row::kType, typeName, name, description, WorkSplit::SampleRanges, {}};
    s.options = {
        {"radius", "--radius", "first merge radius in pixels (at the camera's target distance), in (0, 1000]",
         [](RenderOptions& o, const std::string& v) { (o.*Row::kBlock).radius = options::parseFloat("--radius", v); },
         [](const RenderOptions& o) { return options::number((o.*Row::kBlock).radius); }},
        {"alpha", "--alpha", "radius schedule: r_i = r_0 / (i + 1)^((1 - alpha) / 2), alpha in (0, 1)",
         [](RenderOptions& o, const std::string& v) { (o.*Row::kBlock).alpha = options::parseFloat("--alpha", v); },
         [](const RenderOptions& o) { return options::number((o.*Row::kBlock).alpha); }},
        {"light-paths", "--light-paths", "light subpaths per iteration (0: one per pixel)",
         [](RenderOptions& o, const std::string& v) { (o.*Row::kBlock).lightPaths = options::parseInt("--light-paths", v); },
         [](const RenderOptions& o) { return std::to_string((o.*Row::kBlock).lightPaths); }},
        {"variant", "--vcm-variant", "schedule: streaming (compacted walk streams, connections and merges of their own) or "
                                     "naive (a thread per subpath)",
         [](RenderOptions& o, const std::string& v) {
             if (v != "streaming" && v != "naive") throw InputError("unknown VCM variant '" + v + "' (streaming or naive)");
             (o.*Row::kBlock).variant = parseBdptVariant(v);
         },
         [](const RenderOptions& o) { return std::string(toString((o.*Row::kBlock).variant)); }},
    };
    s.validate = [](const RenderOptions& o) {
        const VcmOptions& v = o.*Row::kBlock;
        if (!(v.radius > 0.0f && v.radius <= 1000.0f)) throw InputError("merge radius must be in (0, 1000] pixels");
        if (!(v.alpha > 0.0f && v.alpha < 1.0f)) throw InputError("radius alpha must be in (0, 1)");
        if (v.lightPaths < 0 || v.lightPaths > VcmIntegrator::kMaxLightPaths)
            throw InputError("light paths per iteration must be 0 (one per pixel) to " +
                             std::to_string(VcmIntegrator::kMaxLightPaths));
        if (int(v.variant) < int(BdptVariant::Streaming) || int(v.variant) > int(BdptVariant::Naive))
            throw InputError("VCM variant " + std::to_string(int(v.variant)) + " is not a BdptVariant value");
        if (o.streamCapacity > 0)
            throw InputError("stream capacity does not apply to " + std::string(toString(Row::kType)) +
                             ": its streams hold a whole iteration (--light-paths sets the light pass's size)");
    };
    s.figures = [](const RenderStats& st) {
        return std::vector<std::pair<std::string, double>>{{"iterations", double(st.vcm.iterations)},
                                                           {"light paths", double(st.vcm.lightPaths)},
                                                           {"merges", double(st.vcm.merges)},
                                                           {"connections", double(st.vcm.connections)},
                                                           {"cached vertices", double(st.vcm.cachedVertices)},
                                                           {"last radius", st.vcm.lastRadius}};
    };
    s.mergeDeviceStats = [](const std::vector<RenderStats>& perDevice, RenderStats& merged) {
        merged.vcm = VcmStats{};
        for (const RenderStats& d : perDevice) {
            merged.vcm.iterations += d.vcm.iterations;
            merged.vcm.lightPaths += d.vcm.lightPaths;
            merged.vcm.merges += d.vcm.merges;
            merged.vcm.connections += d.vcm.connections;
            merged.vcm.cachedVertices += d.vcm.cachedVertices;
            merged.vcm.lastRadius = d.vcm.iterations ? std::max(merged.vcm.lastRadius, d.vcm.lastRadius) : merged.vcm.lastRadius;
        }
    };
    return s;
}

}  // namespace

IntegratorSpec VcmIntegrator::spec() {
    return mergingSpec<VcmIntegrator>(
        "Vcm", "vcm", "vertex connection and merging: BDPT's connections and photon merging under one MIS (Georgiev et "
               "al. 2012), a light vertex cache and hash grid per iteration");
}

IntegratorSpec BpmIntegrator::spec() {
    return mergingSpec<BpmIntegrator>("Bpm", "bpm", "bidirectional photon mapping: VCM's merges at every eye vertex, no connections");
}

IntegratorSpec PpmIntegrator::spec() {
    return mergingSpec<PpmIntegrator>(
        "Ppm", "ppm", "progressive photon mapping: one merge at the first non-specular eye vertex (Hachisuka et al. 2008)");
}

}  // namespace wavefront
