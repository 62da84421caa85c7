// The one-line error for an index into a scene's materials, textures, lights or meshes.
#pragma once
#include <cstddef>
#include <string>

#include "wavefront/error.h"

namespace wavefront {

/// Throws InputError unless 0 <= index < size; `what` names the list ("material", "mesh", ...).
inline void checkIndex(int index, std::size_t size, const char* what) {
    if (index < 0 || std::size_t(index) >= size)
        throw InputError(std::string(what) + " " + std::to_string(index) + " is out of range (the scene has " +
                         std::to_string(size) + ")");
}

}  // namespace wavefront
