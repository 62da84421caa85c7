// File resolution as pbrt-v4 does it, confined like every other scene reference.
#include "host/loaders/pbrt/files.h"

#include <wavefront/error.h>

namespace wavefront::pbrt {

namespace fs = std::filesystem;

fs::path FileResolver::resolve(const std::string& name, const FileLoc& where, const std::string& what) const {
    const std::string prefix = where.str() + ": " + what + " '" + name + "': ";
    if (name.empty()) throw InputError(where.str() + ": " + what + " names no file (an empty string)");
    try {
        const fs::path primary = resolveReferencedFile(mainFile_, name, allowExternal_);
        std::error_code ec;
        if (fs::exists(primary, ec) || !where.file || fs::path(name).is_absolute()) return primary;
        // Relative to the naming file's folder, as seen from the main file's folder, so that the
        // same confinement applies.
        const fs::path mainFolder = mainFile_.parent_path();
        const fs::path referrerFolder = fs::path(*where.file).parent_path();
        const fs::path relative = referrerFolder.lexically_relative(mainFolder);
        if (relative.empty() || relative == ".") return primary;
        const fs::path alternative = resolveReferencedFile(mainFile_, (relative / name).string(), allowExternal_);
        return fs::exists(alternative, ec) ? alternative : primary;
    } catch (const InputError& e) {
        // resolveReferencedFile's message starts with the quoted name.
        std::string reason = e.what();
        const std::string quoted = "'" + name + "' ";
        if (reason.compare(0, quoted.size(), quoted) == 0) reason.erase(0, quoted.size());
        throw InputError(prefix + reason);
    }
}

fs::path FileResolver::resolveOutput(const std::string& name) const {
    if (name.empty()) throw InputError("'' names no file");
    return resolveReferencedFile(mainFile_, name, allowExternal_);
}

std::string FileResolver::read(const fs::path& file, const FileLoc& where, const std::string& what, InputKind kind,
                               std::uint64_t limit) const {
    try {
        return readInputFile(file, kind, limit, root_);
    } catch (const InputError& e) {
        throw InputError(where.str() + ": " + what + ": " + e.what());
    }
}

}  // namespace wavefront::pbrt
