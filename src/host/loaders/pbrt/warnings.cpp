#include "host/loaders/pbrt/warnings.h"

#include <wavefront/scene.h>

namespace wavefront::pbrt {

void Warnings::add(const FileLoc& loc, const std::string& message) {
    if (auto it = index_.find(message); it != index_.end()) {
        ++entries_[it->second].repeats;
    } else if (entries_.size() >= kMaxListedWarnings) {
        ++unlisted_;
    } else {
        index_.emplace(message, entries_.size());
        entries_.push_back(Entry{loc.file ? loc.str() : std::string(), message, 0});
    }
}

void Warnings::add(const std::string& message) { add(FileLoc{}, message); }

void Warnings::flush(Scene& scene) const {
    for (const Entry& e : entries_) {
        std::string line = (e.where.empty() ? "" : e.where + ": ") + e.message;
        if (e.repeats > 0)
            line += " (and " + std::to_string(e.repeats) + " more place" + (e.repeats > 1 ? "s" : "") + ")";
        scene.addWarning(line);
    }
    if (unlisted_ > 0)
        scene.addWarning("... and " + std::to_string(unlisted_) + " more warning" + (unlisted_ > 1 ? "s" : "") +
                         " of other kinds, not listed (the first " + std::to_string(kMaxListedWarnings) + " kinds are)");
}

}  // namespace wavefront::pbrt
