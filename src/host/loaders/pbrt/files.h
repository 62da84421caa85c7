// File names in a pbrt-v4 scene: Include, Import, plymesh, imagemap, spectrum and light files.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

#include "host/io/input_file.h"
#include "host/loaders/pbrt/tokenizer.h"

namespace wavefront::pbrt {

/// Resolves the names a scene file writes. pbrt-v4 looks every relative name up in the folder of
/// the scene file it was given (not of the file that names it: the published scenes rely on
/// this); where no file of that name is there, the folder of the naming file is tried, so that
/// files written relative to themselves load too. Unless `allowExternal`, the result must lie in
/// the main file's folder (resolveReferencedFile).
class FileResolver {
public:
    /// The main file's folder is resolved here, once: every file read later must lie in it as
    /// opened (readInputFile's `within`), whatever links change meanwhile.
    FileResolver(std::filesystem::path mainFile, bool allowExternal)
        : mainFile_(std::move(mainFile)), allowExternal_(allowExternal), root_(confinementRoot(mainFile_, allowExternal)) {}
    /// `name` as written at `where`. Throws InputError "where: what 'name' ...: reason" when it
    /// leaves the folder.
    std::filesystem::path resolve(const std::string& name, const FileLoc& where, const std::string& what) const;
    /// Reads a resolved file through readInputFile (regular files, the size cap of `kind` or
    /// `limit`), a refusal naming `where` and `what`.
    std::string read(const std::filesystem::path& file, const FileLoc& where, const std::string& what, InputKind kind,
                     std::uint64_t limit = 0) const;
    /// Where the scene's Film "filename" is written: `name` against the main file's folder and,
    /// unless allowExternal, inside it (resolveReferencedFile: no absolute path, no `..` or link
    /// out of it). Throws InputError "'name' ...: reason".
    std::filesystem::path resolveOutput(const std::string& name) const;
    bool allowExternal() const { return allowExternal_; }
    /// The folder every file read must lie in (empty: allowExternal).
    const std::filesystem::path& root() const { return root_; }

private:
    std::filesystem::path mainFile_;
    bool allowExternal_;
    std::filesystem::path root_;
};

}  // namespace wavefront::pbrt
