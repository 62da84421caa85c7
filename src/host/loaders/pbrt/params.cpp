// Parameter lookups with pbrt-v4's types, lenient where nothing is lost: an integer serves where
// a float is asked for, and a float with an integral value where an integer is.
#include "host/loaders/pbrt/params.h"

#include <wavefront/error.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace wavefront::pbrt {

namespace {

bool isOneOf(const std::string& type, std::initializer_list<std::string_view> types) {
    return std::find(types.begin(), types.end(), type) != types.end();
}

}  // namespace

namespace {

// The parameter of that name: the directive's own, else the Attribute default.
const Param* lookup(const ParamList& list, std::string_view name) {
    for (const Param& p : list.params)
        if (p.name == name) return &p;
    if (list.defaults)
        for (const Param& p : *list.defaults)
            if (p.name == name) return &p;
    return nullptr;
}

}  // namespace

const Param* ParamList::find(std::string_view name) const {
    const Param* p = lookup(*this, name);
    if (p) p->used = true;
    return p;
}

const Param& ParamList::expect(const Param& p, std::initializer_list<std::string_view> types, const char* expected) const {
    if (!isOneOf(p.type, types))
        throw InputError(p.loc.str() + ": parameter " + p.declaration() + " has the wrong type: " + expected +
                         " expected");
    return p;
}

std::vector<float> ParamList::getFloats(std::string_view name) const {
    const Param* p = find(name);
    if (!p) return {};
    expect(*p, {"float", "integer"}, "float");
    if (!p->ints.empty()) return std::vector<float>(p->ints.begin(), p->ints.end());
    return p->numbers;
}

std::vector<int> ParamList::getInts(std::string_view name) const {
    const Param* p = find(name);
    if (!p) return {};
    expect(*p, {"integer", "float"}, "integer");
    if (p->type == "integer") return p->ints;
    std::vector<int> out;
    for (float v : p->numbers) {
        // 2147483647 is not a float: float(INT_MAX) is 2^31, which int() would wrap to INT_MIN.
        char text[64];
        std::snprintf(text, sizeof text, v == std::floor(v) ? "%.0f" : "%.9g", double(v));
        if (v != std::floor(v))
            throw InputError(p->loc.str() + ": parameter " + p->declaration() + ": " + text + " is not an integer");
        if (!(v >= -2147483648.0f && v < 2147483648.0f))
            throw InputError(p->loc.str() + ": parameter " + p->declaration() + ": " + text +
                             " is beyond the 32-bit integer range");
        out.push_back(int(v));
    }
    return out;
}

std::vector<std::string> ParamList::getStrings(std::string_view name) const {
    const Param* p = find(name);
    if (!p) return {};
    return expect(*p, {"string"}, "string").strings;
}

namespace {

template <typename T>
T single(const Param& p, const std::vector<T>& values) {
    if (values.empty()) throw InputError(p.loc.str() + ": parameter " + p.declaration() + " has no value");
    return values[0];
}

}  // namespace

float ParamList::getFloat(std::string_view name, float fallback) const {
    const Param* p = find(name);
    return p ? single(*p, getFloats(name)) : fallback;
}

int ParamList::getInt(std::string_view name, int fallback) const {
    const Param* p = find(name);
    return p ? single(*p, getInts(name)) : fallback;
}

bool ParamList::getBool(std::string_view name, bool fallback) const {
    const Param* p = find(name);
    if (!p) return fallback;
    // pbrt-v3 wrote booleans as strings: "bool twosided" "true".
    if (p->type == "bool" && !p->strings.empty()) {
        if (p->strings[0] == "true") return true;
        if (p->strings[0] == "false") return false;
    }
    return single(*p, expect(*p, {"bool"}, "bool").bools);
}

std::string ParamList::getString(std::string_view name, const std::string& fallback) const {
    const Param* p = find(name);
    return p ? single(*p, getStrings(name)) : fallback;
}

std::vector<glm::vec3> ParamList::getVec3s(std::string_view name) const {
    const Param* p = find(name);
    if (!p) return {};
    expect(*p, {"point3", "vector3", "normal", "normal3"}, "point3, vector3 or normal");
    if (p->numbers.size() % 3 != 0)
        throw InputError(p->loc.str() + ": parameter " + p->declaration() + " has " + std::to_string(p->numbers.size()) +
                         " values, not a multiple of 3");
    std::vector<glm::vec3> out(p->numbers.size() / 3);
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = glm::vec3(p->numbers[3 * i], p->numbers[3 * i + 1], p->numbers[3 * i + 2]);
    return out;
}

std::vector<glm::vec2> ParamList::getVec2s(std::string_view name) const {
    const Param* p = find(name);
    if (!p) return {};
    // pbrt-v3 wrote texture coordinates as "float uv" (and "float st").
    expect(*p, {"point2", "vector2", "float"}, "point2 or vector2");
    if (p->numbers.size() % 2 != 0)
        throw InputError(p->loc.str() + ": parameter " + p->declaration() + " has " + std::to_string(p->numbers.size()) +
                         " values, not a multiple of 2");
    std::vector<glm::vec2> out(p->numbers.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = glm::vec2(p->numbers[2 * i], p->numbers[2 * i + 1]);
    return out;
}

std::string ParamList::getTexture(std::string_view name) const {
    const Param* p = lookup(*this, name);
    if (!p || p->type != "texture") return "";
    p->used = true;
    return single(*p, p->strings);
}

std::vector<const Param*> ParamList::unused() const {
    std::vector<const Param*> out;
    for (const Param& p : params)
        if (!p.used) out.push_back(&p);
    return out;
}

}  // namespace wavefront::pbrt
