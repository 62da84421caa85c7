// The checks a model passes before Assimp parses it, and the file system Assimp reads through
// (docs/hardening.md). Assimp never opens a file itself: ConfinedIOSystem serves the model from the
// bytes already read and reads what it references through resolveReferencedFile and
// readInputFile. preparePly and checkGltfStructure refuse what made Debian's Assimp 5.2.5 hang,
// crash or allocate without bound, measured by fuzzing (scripts/fuzz-loaders.sh).
#pragma once
#include <assimp/IOStream.hpp>
#include <assimp/IOSystem.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "host/io/input_file.h"
#include "wavefront/error.h"

namespace wavefront {

// A file Assimp reads, held in memory.
class MemoryStream : public Assimp::IOStream {
public:
    explicit MemoryStream(std::shared_ptr<const std::string> bytes) : bytes_(std::move(bytes)) {}
    std::size_t Read(void* buffer, std::size_t size, std::size_t count) override {
        if (size == 0 || count == 0 || !buffer)
            return 0;
        const std::size_t items = std::min(count, (bytes_->size() - position_) / size);
        std::memcpy(buffer, bytes_->data() + position_, items * size);
        position_ += items * size;
        return items;
    }
    std::size_t Write(const void*, std::size_t, std::size_t) override { return 0; }
    aiReturn Seek(std::size_t offset, aiOrigin origin) override {
        std::size_t to = 0;
        switch (origin) {
        case aiOrigin_SET: to = offset; break;
        case aiOrigin_CUR:
            if (offset > bytes_->size() - position_)
                return aiReturn_FAILURE;
            to = position_ + offset;
            break;
        case aiOrigin_END: {
            // Assimp's own streams differ: fseek's negative offset, or a distance back from the end.
            const std::size_t back = std::ptrdiff_t(offset) < 0 ? std::size_t(-std::ptrdiff_t(offset)) : offset;
            if (back > bytes_->size())
                return aiReturn_FAILURE;
            to = bytes_->size() - back;
            break;
        }
        default: return aiReturn_FAILURE;
        }
        if (to > bytes_->size())
            return aiReturn_FAILURE;
        position_ = to;
        return aiReturn_SUCCESS;
    }
    std::size_t Tell() const override { return position_; }
    std::size_t FileSize() const override { return bytes_->size(); }
    void Flush() override {}

private:
    std::shared_ptr<const std::string> bytes_;
    std::size_t position_ = 0;
};

// Every file Assimp opens during one load. The model is served from the bytes already read. Any
// other name is one the model references: Assimp's glTF importer asks for the model's folder
// followed by the buffer's URI, so that prefix is taken off again to get the name as the file
// writes it, which is then resolved with resolveReferencedFile (confined to the model's folder
// unless allowExternal) and read with readInputFile (regular files only, 2 GiB each, 4 GiB in all).
// A refused name makes Open return nullptr, as for a missing file; the first reason is kept for
// the error message, since Assimp's own says only "could not open".
class ConfinedIOSystem : public Assimp::IOSystem {
public:
    ConfinedIOSystem(std::string modelPath, std::shared_ptr<const std::string> modelBytes, bool allowExternal,
                     std::string referenceKind)
        : modelPath_(std::move(modelPath)), modelBytes_(std::move(modelBytes)), allowExternal_(allowExternal),
          referenceKind_(std::move(referenceKind)) {
        const std::size_t slash = modelPath_.rfind('/');
        folderPrefix_ = slash == std::string::npos ? std::string() : modelPath_.substr(0, slash + 1);
    }

    bool Exists(const char* file) const override {
        if (!file)
            return false;
        if (file == modelPath_)
            return true;
        try {
            std::error_code ec;
            return std::filesystem::is_regular_file(resolveReferencedFile(modelPath_, writtenName(file), allowExternal_), ec);
        } catch (const InputError&) {
            return false;
        }
    }

    char getOsSeparator() const override { return '/'; }

    Assimp::IOStream* Open(const char* file, const char* mode) override {
        if (!file || !mode || std::strpbrk(mode, "wa+"))
            return nullptr;  // nothing is written
        if (file == modelPath_)
            return new MemoryStream(modelBytes_);
        const std::string written = writtenName(file);
        std::filesystem::path resolved;
        try {
            resolved = resolveReferencedFile(modelPath_, written, allowExternal_);
        } catch (const InputError& e) {
            return refuse(referenceKind_ + " " + e.what());  // "'name' resolves to ..., outside ..."
        }
        try {
            auto bytes = std::make_shared<const std::string>(readInputFile(resolved, InputKind::ModelData));
            referencedBytes_ += bytes->size();
            if (referencedBytes_ > kReferencedBudget)
                return refuse(referenceKind_ + " '" + written + "': the files the model references add up to more than " +
                              std::to_string(kReferencedBudget >> 30) + " GiB");
            return new MemoryStream(std::move(bytes));
        } catch (const InputError& e) {
            return refuse(referenceKind_ + " '" + written + "': " + e.what());
        }
    }

    void Close(Assimp::IOStream* stream) override { delete stream; }

    bool ComparePaths(const char* one, const char* second) const override {
        return one && second && std::strcmp(one, second) == 0;
    }

    /// Why the first refused file was refused, or empty.
    const std::string& failure() const { return failure_; }

private:
    static constexpr std::uint64_t kReferencedBudget = 4ull << 30;

    std::string writtenName(const std::string& file) const {
        if (!folderPrefix_.empty() && file.compare(0, folderPrefix_.size(), folderPrefix_) == 0)
            return file.substr(folderPrefix_.size());
        return file;
    }

    Assimp::IOStream* refuse(const std::string& reason) {
        if (failure_.empty())
            failure_ = oneLine(reason);
        return nullptr;
    }

    std::string modelPath_, folderPrefix_;
    std::shared_ptr<const std::string> modelBytes_;
    bool allowExternal_;
    std::string referenceKind_;
    std::uint64_t referencedBytes_ = 0;
    std::string failure_;
};

struct PlyProperty {
    std::string name, type;  ///< type: the value type (a list's item type)
    std::string countType;   ///< a list's count type; empty: not a list
};

struct PlyElement {
    std::string name;
    std::uint64_t count = 0;
    std::uint64_t minBytes = 0;  ///< the fewest bytes an instance takes (binary: fixed sizes and list counts; ASCII: 2 per value)
    std::vector<PlyProperty> properties;
};

struct PlyHeader {
    enum Format { Ascii, BinaryLittleEndian, BinaryBigEndian } format = Ascii;
    std::vector<PlyElement> elements;
    std::size_t dataOffset = 0;  ///< where the data after end_header starts
    std::string comments;        ///< the `comment` and `obj_info` lines, each with its newline
    std::vector<std::string> warnings;  ///< lines skipped (no PLY keyword: old Blender's "Created by ...")
};

/// The size in bytes of a PLY value type ("float": 4, "uchar": 1, ...).
std::uint64_t plyTypeSize(const std::string& type);

/// A PLY file's header, checked strictly (first line `ply`; `format`, `element`, `property`,
/// `comment`, `obj_info`; no control characters; an `end_header` line; a line that begins with no
/// keyword is skipped with a warning). Throws InputError, one line naming `path`, for a malformed
/// header, counts beyond 2^32 - 1, or element counts the bytes after it cannot hold. The one
/// reader of PLY headers: the pbrt-v4 loader's PLY reader and preparePly use it.
PlyHeader readPlyHeader(const std::string& bytes, const std::string& path);

/// The PLY file `bytes` as Assimp is to read it, once checked: its header (readPlyHeader, whose
/// warnings join `warnings`) and every list's count within the data that follows it. The header is rewritten and an ASCII body
/// laid out one instance per line (the way Assimp reads it); a binary body is kept. Throws
/// InputError, one line, otherwise.
std::string preparePly(const std::string& bytes, const std::string& path, std::vector<std::string>& warnings);

// Per glTF material (by index, as Assimp's glTF2 importer keeps them): the values of extensions
// Debian's Assimp 5.2.5 reads past, NaN where a material has none.
struct GltfMaterialExtensions {
    std::vector<float> emissiveStrength;  ///< KHR_materials_emissive_strength
    std::vector<float> ior;               ///< KHR_materials_ior
    std::vector<std::string> ignored;     ///< names in extensionsUsed that nothing here reads
};

/// The deepest glTF node hierarchy accepted (checkGltfStructure; the importer's walk too).
constexpr int kMaxNodeDepth = 1024;

/// Checks the node graph of a glTF file (.gltf or .glb: trees, bounded depth, JSON nested at most
/// 256 levels) and reads the material extensions Assimp leaves out.
GltfMaterialExtensions checkGltfStructure(const std::string& bytes, const std::string& path);

}  // namespace wavefront
