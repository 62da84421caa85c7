#include "host/loaders/pbrt/warnings.h"

#include <wavefront/scene.h>

namespace wavefront::pbrt {

void Warnings::add(const FileLoc& loc, const std::string& message) {
    auto [it, inserted] = index_.emplace(message, entries_.size());
    if (inserted)
        entries_.push_back(Entry{loc.file ? loc.str() : std::string(), message, 0});
    else
        ++entries_[it->second].repeats;
}

void Warnings::add(const std::string& message) { add(FileLoc{}, message); }

void Warnings::flush(Scene& scene) const {
    for (const Entry& e : entries_) {
        std::string line = (e.where.empty() ? "" : e.where + ": ") + e.message;
        if (e.repeats > 0)
            line += " (and " + std::to_string(e.repeats) + " more place" + (e.repeats > 1 ? "s" : "") + ")";
        scene.addWarning(line);
    }
}

}  // namespace wavefront::pbrt
