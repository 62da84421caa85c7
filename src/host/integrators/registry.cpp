// The registry's tables and the public functions over them (registry.h, renderer.h).
#include "host/integrators/registry.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "wavefront/error.h"

namespace wavefront {

const OptionSpec* IntegratorSpec::option(const std::string& optionName) const {
    for (const OptionSpec& o : options)
        if (optionName == o.name) return &o;
    return nullptr;
}

const std::vector<IntegratorSpec>& integratorSpecs() {
    static const std::vector<IntegratorSpec> specs = [] {
        std::vector<IntegratorSpec> all;
        IntegratorRows::forEach([&](auto row) { all.push_back(decltype(row)::spec()); });
        return all;
    }();
    return specs;
}

const IntegratorSpec& integratorSpec(IntegratorType type) {
    for (const IntegratorSpec& s : integratorSpecs())
        if (s.type == type) return s;
    throw InputError("integrator " + std::to_string(int(type)) + " is not an IntegratorType value");
}

namespace options {

std::string onOff(bool value) { return value ? "on" : "off"; }

bool parseOnOff(const std::string& what, const std::string& value) {
    if (value == "on") return true;
    if (value == "off") return false;
    throw InputError(what + " '" + value + "' is not on or off");
}

std::string number(float value) {
    // The shortest text that reads back as the same float: "0.3", not "0.300000012".
    char text[32];
    for (int digits = 1; digits <= 9; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, double(value));
        if (std::strtof(text, nullptr) == value) break;
    }
    return text;
}

float parseFloat(const std::string& what, const std::string& value) {
    char* end = nullptr;
    const float v = std::strtof(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !std::isfinite(v))
        throw InputError(what + " '" + value + "' is not a finite number");
    return v;
}

int parseInt(const std::string& what, const std::string& value) {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX)
        throw InputError(what + " '" + value + "' is not a whole number");
    return int(v);
}

}  // namespace options

namespace {

/// `name` of the chosen integrator, or one line naming the integrators that have it.
const OptionSpec& optionOf(const RenderOptions& options, const std::string& name) {
    const IntegratorSpec& spec = integratorSpec(options.integrator);
    if (const OptionSpec* o = spec.option(name)) return *o;
    std::string owners;
    for (const IntegratorSpec& s : integratorSpecs())
        if (s.option(name)) owners += std::string(owners.empty() ? "" : ", ") + s.name;
    std::string known;
    for (const OptionSpec& o : spec.options) known += std::string(known.empty() ? "" : ", ") + o.name;
    if (!owners.empty())
        throw InputError("option '" + name + "' is one of " + owners + ", not of integrator " + spec.name);
    throw InputError("integrator " + std::string(spec.name) + " has no option '" + name + "' (" +
                     (known.empty() ? "it has none" : "it has " + known) + ")");
}

}  // namespace

const std::vector<IntegratorInfo>& integrators() {
    static const std::vector<IntegratorInfo> infos = [] {
        std::vector<IntegratorInfo> all;
        for (const IntegratorSpec& s : integratorSpecs()) {
            IntegratorInfo info{s.type, s.name, s.description, {}, s.workSplit == WorkSplit::SampleRanges, s.typeName};
            RenderOptions defaults;
            defaults.integrator = s.type;
            for (const OptionSpec& o : s.options) info.options.push_back({o.name, o.flag, o.help, o.get(defaults)});
            all.push_back(std::move(info));
        }
        return all;
    }();
    return infos;
}

void setIntegratorOption(RenderOptions& options, const std::string& name, const std::string& value) {
    optionOf(options, name).set(options, value);
}

std::string integratorOption(const RenderOptions& options, const std::string& name) {
    return optionOf(options, name).get(options);
}

std::vector<std::pair<std::string, double>> integratorFigures(IntegratorType integrator, const RenderStats& stats) {
    const IntegratorSpec& spec = integratorSpec(integrator);
    return spec.figures ? spec.figures(stats) : std::vector<std::pair<std::string, double>>{};
}

/// Every other integrator's options at their defaults: an option that does not apply to the
/// chosen integrator is refused, not ignored.
void checkOtherIntegratorsAtDefaults(const RenderOptions& options) {
    const RenderOptions defaults;
    const char* chosen = integratorSpec(options.integrator).name;
    for (const IntegratorSpec& s : integratorSpecs()) {
        if (s.type == options.integrator) continue;
        for (const OptionSpec& o : s.options) {
            const std::string value = o.get(options);
            if (value != o.get(defaults))
                throw InputError(std::string("option '") + o.name + "' (" + (*o.flag ? o.flag : "the API's") + " " +
                                 value + ") is one of " + s.name + "; it does not apply to integrator " + chosen);
        }
    }
}

}  // namespace wavefront
