// What the scene's checks share: how a vector reads in a one-line error, and the test of a colour
// or coefficient (finite, no negative component).
#pragma once
#include <cmath>
#include <sstream>
#include <string>

#include <glm/glm.hpp>

namespace wavefront {

/// "(x, y, z)" for messages.
inline std::string formatVector(const glm::vec3& v) {
    std::ostringstream out;
    out << '(' << v.x << ", " << v.y << ", " << v.z << ')';
    return out.str();
}

inline bool isNonNegativeFinite(const glm::vec3& v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z) && v.x >= 0 && v.y >= 0 && v.z >= 0;
}

}  // namespace wavefront
