// A directive's parameter list: `"float fov" [ 39 ]`, `"rgb L" [ 17 12 4 ]`, `"string filename"
// "a.png"`. Values are kept as written (numbers, strings, booleans) with the declared type; the
// lookups check the type, convert, and mark the parameter used, so that whatever nobody asked
// for can be named in a warning.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "host/loaders/pbrt/tokenizer.h"

namespace wavefront::pbrt {

struct Param {
    std::string type;  ///< "float", "integer", "point3", "rgb", "spectrum", "texture", ... (v3 aliases renamed)
    std::string name;
    std::vector<float> numbers;        ///< every numeric type but "integer"
    std::vector<int> ints;             ///< "integer"
    std::vector<std::string> strings;  ///< "string", "texture", and a "spectrum" given by name or file
    std::vector<bool> bools;           ///< "bool"
    FileLoc loc;
    mutable bool used = false;

    /// `"type name"`, as declared, for messages.
    std::string declaration() const { return "\"" + type + " " + name + "\""; }
    std::size_t size() const { return numbers.size() + ints.size() + strings.size() + bools.size(); }
};

/// What a spectrum is used for: pbrt-v4 bounds reflectances to [0, 1], leaves indices of
/// refraction unbounded and normalises emission to a luminance of 1 (spectra.h).
enum class SpectrumUse { Albedo, Unbounded, Illuminant };

class ParamList {
public:
    std::vector<Param> params;
    /// `Attribute` values in force where the directive was given: shared by every directive
    /// under them (never copied per directive), they count only where `params` has no parameter
    /// of the same name, and may go unused without a warning.
    std::shared_ptr<const std::vector<Param>> defaults;

    /// The first parameter of that name (any type), marked used; null when there is none.
    const Param* find(std::string_view name) const;
    /// One value of a numeric, bool or string parameter, or `fallback` when it is absent. Throws
    /// InputError, naming the parameter's place, when it has another type or no value.
    float getFloat(std::string_view name, float fallback) const;
    int getInt(std::string_view name, int fallback) const;
    bool getBool(std::string_view name, bool fallback) const;
    std::string getString(std::string_view name, const std::string& fallback) const;
    /// Every value, empty when absent (the same checks).
    std::vector<float> getFloats(std::string_view name) const;
    std::vector<int> getInts(std::string_view name) const;
    std::vector<std::string> getStrings(std::string_view name) const;
    /// point3, vector3 and normal values, by threes; point2 and vector2 by twos.
    std::vector<glm::vec3> getVec3s(std::string_view name) const;
    std::vector<glm::vec2> getVec2s(std::string_view name) const;
    /// The texture a "texture" parameter names, "" when the parameter is absent or of another
    /// type (then it is a value: rgb, spectrum, float, ...).
    std::string getTexture(std::string_view name) const;

    /// Parameters no lookup asked for, other than Attribute defaults.
    std::vector<const Param*> unused() const;

private:
    const Param& expect(const Param& p, std::initializer_list<std::string_view> types, const char* expected) const;
};

}  // namespace wavefront::pbrt
