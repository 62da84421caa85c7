// The pbrt-v4 scene-file grammar: directives, their arguments and parameter lists, Include and
// Import. The parser checks the syntax and hands each directive to the SceneBuilder.
#pragma once
#include <string>

#include "host/loaders/pbrt/builder.h"
#include "host/loaders/pbrt/files.h"

namespace wavefront::pbrt {

/// Include and Import nest at most this deep (a file that includes itself stops here).
constexpr int kMaxIncludeDepth = 32;
/// The most Include and Import directives one load follows, counting every time a file is
/// included (a file that includes the next one twice, and so on, doubles them at each level: 2^L).
constexpr std::uint64_t kMaxInclusions = 16384;
/// The most bytes of scene text one load parses, over the main file and every Include and
/// Import (a file included many times counts each time): twice the cap of one scene file.
constexpr std::uint64_t kMaxParsedBytes = std::uint64_t(4) << 30;

/// Parses `path` and the files it includes into `builder`; `files` resolves the names they use
/// and `description.fileNames` keeps the file names the tokens point to. Throws InputError,
/// "file:line:column: message", for any syntax error; unknown directives are warnings.
void parseScene(const std::string& path, const FileResolver& files, SceneBuilder& builder, Description& description,
                Warnings& warnings);

}  // namespace wavefront::pbrt
