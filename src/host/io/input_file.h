// The one place that opens files the library reads (scenes, material libraries, images): regular
// files only, a size cap per kind, and a read bounded by that cap even if the file grows while it
// is read. Loaders parse from the returned bytes, never from the path.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

namespace wavefront {

/// What a file is read as; each kind has its own size cap (docs/hardening.md).
enum class InputKind {
    Obj,
    Mtl,
    Image,
    Model,      ///< a scene file read through Assimp (glTF, .glb, PLY, ...)
    ModelData,  ///< a file such a scene references other than an image (a glTF .bin buffer)
};

/// The size cap of a kind, in bytes: OBJ 2 GiB, MTL 256 MiB, images 1 GiB, Assimp scene files and
/// the buffers they reference 2 GiB each.
std::uint64_t inputSizeLimit(InputKind kind);

/// What `path` names when it exists and is not a regular file once links are followed ("a FIFO
/// (named pipe)", "a directory", "a character device", ...); empty otherwise.
std::string specialFileKind(const std::filesystem::path& path);

/// Reads the whole file. Throws InputError, one line naming the file and the reason, for a path
/// that does not exist, is not a regular file (directory, FIFO, device, socket), is larger than
/// `limit` bytes (0: the kind's cap), or cannot be read. With `within` (a folder, as
/// confinementRoot gives it), the file as opened must lie inside that folder: checked on the open
/// file itself (where /proc/self/fd says it is), so that a symbolic link swapped after
/// resolveReferencedFile checked the name cannot lead the read out of it.
std::string readInputFile(const std::filesystem::path& path, InputKind kind, std::uint64_t limit = 0,
                          const std::filesystem::path& within = {});

/// Whether `bytes` begin as a gzip stream (the magic bytes 1f 8b).
bool isGzip(const std::string& bytes);

/// The bytes of a gzip stream (zlib), refused with one InputError naming `what` when the stream is
/// corrupt or truncated, or when it would unpack to more than `limit` bytes (a decompression bomb
/// stops at the limit, before more memory is taken).
std::string gunzip(const std::string& bytes, std::uint64_t limit, const std::string& what);

/// The folder `referrer`'s references must stay in, symbolic links resolved once (the `within` of
/// readInputFile); empty when `allowExternal`.
std::filesystem::path confinementRoot(const std::filesystem::path& referrer, bool allowExternal);

/// The bytes of a text file (OBJ, MTL) as UTF-8: UTF-16 with a byte order mark (some Windows
/// exporters write it) is converted, a UTF-8 byte order mark dropped. Throws InputError naming
/// `what` for a NUL byte (a binary or sparse file: a 255 MiB sparse MTL took 40 s to parse).
std::string textOfFile(std::string bytes, const std::string& what);

/// `name` as written in `referrer` (an `mtllib` line), resolved against `referrer`'s folder. Unless
/// `allowExternal`, the result must stay inside that folder once symbolic links are resolved: no
/// absolute paths, no `..` out of it. Throws InputError otherwise, naming `name` and where it
/// leads (the caller names the referrer).
std::filesystem::path resolveReferencedFile(const std::filesystem::path& referrer, const std::string& name,
                                            bool allowExternal);

/// The extension of `path` with its dot, in lower case (".obj", ".gltf"; "" when none).
std::string lowercaseExtension(const std::string& path);

/// `message` folded onto one line: line breaks become "; ", surrounding whitespace goes.
std::string oneLine(const std::string& message);

}  // namespace wavefront
