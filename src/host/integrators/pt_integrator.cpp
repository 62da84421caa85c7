// The path tracer's registry row: its options and rules (pt_integrator.h).
#include "host/integrators/pt_integrator.h"

#include "host/integrators/registry.h"
#include "wavefront/error.h"

namespace wavefront {

IntegratorSpec PtIntegrator::spec() {
    IntegratorSpec s{kType, "PathTracer", "pt", "path tracing: camera paths with next-event estimation and MIS (van Antwerpen 2011, 4)"};
    s.options = {
        {"variant", "--variant", "path-tracer schedule: megakernel, pt-r, spt or spt-r",
         [](RenderOptions& o, const std::string& v) { o.pt.variant = parsePtVariant(v); },
         [](const RenderOptions& o) { return std::string(toString(o.pt.variant)); }},
        {"nee", "--nee", "next-event estimation (light sampling with MIS), on or off",
         [](RenderOptions& o, const std::string& v) { o.pt.nextEventEstimation = options::parseOnOff("--nee", v); },
         [](const RenderOptions& o) { return options::onOff(o.pt.nextEventEstimation); }},
    };
    s.validate = [](const RenderOptions& o) {
        if (int(o.pt.variant) < int(PtVariant::Megakernel) || int(o.pt.variant) > int(PtVariant::SptR))
            throw InputError("path-tracer variant " + std::to_string(int(o.pt.variant)) + " is not a PtVariant value");
    };
    return s;
}

}  // namespace wavefront
