// The loader's warnings, each said once: a large scene repeats the same unsupported parameter on
// thousands of shapes, and one line with the first place and a count says it better.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "host/loaders/pbrt/tokenizer.h"

namespace wavefront {
class Scene;
}

namespace wavefront::pbrt {

/// The most different warnings listed: a file can make each directive's warning different (an
/// unknown shape name per line), and one line per kind of problem is what helps; the rest are
/// counted.
constexpr std::size_t kMaxListedWarnings = 100;

class Warnings {
public:
    /// A warning about `loc`; the same message again only counts.
    void add(const FileLoc& loc, const std::string& message);
    /// A warning about the whole file.
    void add(const std::string& message);
    /// Hands them to the scene (Scene::addWarning), in the order they first came:
    /// "file:line:column: message (and 12 more places)", then "... N more warnings" for those
    /// beyond kMaxListedWarnings.
    void flush(Scene& scene) const;

private:
    struct Entry {
        std::string where, message;
        std::size_t repeats = 0;
    };
    std::vector<Entry> entries_;
    std::map<std::string, std::size_t> index_;
    std::size_t unlisted_ = 0;  ///< warnings beyond kMaxListedWarnings different ones
};

}  // namespace wavefront::pbrt
