// glTF 2.0, PLY and the other formats Assimp reads. Assimp parses and triangulates; we walk its
// node tree ourselves (rather than aiProcess_PreTransformVertices) so that the camera's node
// transform is applied the same way as the meshes', and map its materials onto ours. Whatever
// cannot be taken over becomes a Scene warning, never a silent loss.
//
// Assimp never opens a file itself (issue 18): the model is read through readInputFile, and every
// file Assimp asks for goes through ConfinedIOSystem below, which serves the model from memory and
// reads what it references (glTF .bin buffers) through resolveReferencedFile and readInputFile.
// Texture images are read by the loader, through the same two functions.
#include <wavefront/error.h>
#include <wavefront/scene.h>

#include "host/io/input_file.h"
#include "host/io/texture_io.h"
#include "host/scene/scene_files.h"

#include <nlohmann/json.hpp>
#include <assimp/IOStream.hpp>
#include <assimp/IOSystem.hpp>
#include <assimp/Importer.hpp>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/GltfMaterial.h>
#include <assimp/scene.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace wavefront {

namespace {

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

// Assimp 5.2.5's PLY reader reserves room for as many instances of an element as the header
// declares before it reads one: a 300-byte file declaring 2e9 vertices took over 20 s and 9 GB.
// Every instance takes some bytes after the header (binary: its fixed-size properties and list
// counts; ASCII: at least two characters per value), so counts the rest of the file cannot hold are
// refused here. This bounds what Assimp allocates by the file's size (itself capped).
void checkPlyCounts(const std::string& bytes, const std::string& path) {
    if (bytes.size() < 3 || std::tolower(static_cast<unsigned char>(bytes[0])) != 'p' ||
        std::tolower(static_cast<unsigned char>(bytes[1])) != 'l' || std::tolower(static_cast<unsigned char>(bytes[2])) != 'y')
        return;
    struct Element {
        std::string name;
        std::uint64_t count = 0, minBytes = 0;
    };
    const auto typeSize = [](const std::string& type) -> std::uint64_t {
        if (type == "short" || type == "ushort" || type == "int16" || type == "uint16") return 2;
        if (type == "int" || type == "uint" || type == "float" || type == "int32" || type == "uint32" || type == "float32")
            return 4;
        if (type == "double" || type == "float64") return 8;
        return 1;  // char, uchar, int8, uint8
    };
    const auto known = [](const std::string& type) {
        static const char* const types[] = {"char",  "uchar", "short",  "ushort",  "int",    "uint",   "float",   "double",
                                            "int8",  "uint8", "int16",  "uint16",  "int32",  "uint32", "float32", "float64"};
        return std::find_if(std::begin(types), std::end(types), [&](const char* t) { return type == t; }) != std::end(types);
    };
    // Assimp 5.2.5's header parser hangs on some broken headers (a truncated one, an unknown
    // keyword, a NUL byte: fuzzing found 126 of 667 PLY cases hanging): the header is checked
    // strictly here, which every well-formed PLY file passes.
    const auto refuse = [&](int lineNumber, const std::string& why) {
        throw InputError("scene file '" + path + "': PLY header line " + std::to_string(lineNumber) + ": " + why);
    };
    std::vector<Element> elements;
    bool binary = false, format = false;
    std::size_t pos = 0;
    for (int lineNumber = 1;; ++lineNumber) {
        const std::size_t end = pos < bytes.size() ? bytes.find('\n', pos) : std::string::npos;
        if (end == std::string::npos)
            throw InputError("scene file '" + path + "': PLY header has no end_header line");
        if (end - pos > 65536)
            refuse(lineNumber, "longer than 64 KiB");
        std::string text = bytes.substr(pos, end - pos);
        pos = end + 1;
        if (!text.empty() && text.back() == '\r')
            text.pop_back();
        for (unsigned char c : text)
            if ((c < 0x20 && c != '\t') || c == 0x7f)
                refuse(lineNumber, "holds the control character " + std::to_string(int(c)));
        std::istringstream line(text);
        std::string word, extra;
        line >> word;
        if (lineNumber == 1) {
            if (word != "ply" || (line >> extra))
                refuse(1, "must be 'ply'");
            continue;
        }
        if (word == "comment" || word == "obj_info")
            continue;
        if (word == "end_header")
            break;
        if (word == "format") {
            std::string kind, version;
            line >> kind >> version;
            if ((kind != "ascii" && kind != "binary_little_endian" && kind != "binary_big_endian") || version.empty())
                refuse(lineNumber, "format '" + kind + "' is not ascii, binary_little_endian or binary_big_endian with a version");
            binary = kind != "ascii";
            format = true;
        } else if (word == "element") {
            Element e;
            std::string count;
            line >> e.name >> count;
            if (e.name.empty() || count.empty() || count.find_first_not_of("0123456789") != std::string::npos || (line >> extra))
                refuse(lineNumber, "an element needs a name and a count");
            for (char c : count)
                e.count = std::min<std::uint64_t>(e.count * 10 + std::uint64_t(c - '0'), std::uint64_t(1) << 62);
            elements.push_back(e);
        } else if (word == "property") {
            if (elements.empty())
                refuse(lineNumber, "a property before any element");
            std::string type, name;
            line >> type;
            if (type == "list") {
                std::string countType, itemType;
                line >> countType >> itemType >> name;
                if (!known(countType) || !known(itemType) || name.empty())
                    refuse(lineNumber, "a list property needs a count type, an item type and a name");
                type = countType;  // a list holds at least its count
            } else {
                line >> name;
                if (!known(type) || name.empty())
                    refuse(lineNumber, "property type '" + type + "' is unknown or the name is missing");
            }
            elements.back().minBytes += binary ? typeSize(type) : 2;
        } else {
            refuse(lineNumber, "unknown keyword '" + word + "'");
        }
    }
    if (!format)
        throw InputError("scene file '" + path + "': PLY header has no format line");
    // The last ASCII value may end the file without a separator: one byte of slack.
    const std::uint64_t available = std::uint64_t(bytes.size() - pos) + (binary ? 0 : 1);
    std::uint64_t needed = 0;
    for (const Element& e : elements) {
        const std::uint64_t each = std::max<std::uint64_t>(e.minBytes, 1);
        if (e.count > (available - needed) / each)
            throw InputError("scene file '" + path + "': PLY element '" + e.name + "' declares " + std::to_string(e.count) +
                             " instances of at least " + std::to_string(each) + " bytes each, but " +
                             std::to_string(bytes.size() - pos) + " bytes follow the header" +
                             (needed > 0 ? " (" + std::to_string(needed) + " of them taken by the elements before)" : ""));
        needed += e.count * each;
    }
}

glm::mat4 toGlm(const aiMatrix4x4& m) {
    glm::mat4 out;  // glm is column-major, aiMatrix4x4 row-major
    for (int row = 0; row < 4; ++row)
        for (int col = 0; col < 4; ++col)
            out[col][row] = m[row][col];
    return out;
}

glm::vec3 toGlm(const aiVector3D& v) { return glm::vec3(v.x, v.y, v.z); }

glm::mat4 globalTransform(const aiNode* node) {
    glm::mat4 m(1.0f);
    for (int depth = 0; node && depth < 4096; node = node->mParent, ++depth)
        m = toGlm(node->mTransformation) * m;
    return m;
}

// What Assimp 5.2.5's glTF importers do with hostile JSON that parses, measured: its JSON parser
// recurses per nesting level (1,000,000 nested '[' crash the process), it imports the node graph by
// recursion (a chain of 200,000 nodes crashes it) and imports a node once per parent listing (40
// nodes each listing the next one twice: over 20 s and 9 GB). The file is checked before Assimp
// sees it: JSON nested at most kMaxJsonDepth levels, every node the child of at most one node,
// scenes listing each root once, and node chains at most kMaxNodeDepth deep (the walk below refuses
// deeper ones anyway). The graph is read with nlohmann::json; malformed JSON is left to Assimp's
// parser to report.
constexpr int kMaxJsonDepth = 256;
constexpr int kMaxNodeDepth = 1024;

// The JSON of a .gltf, or the JSON chunk of a .glb; refuses a .glb whose first chunk claims more
// bytes than the file holds (Assimp allocates the claimed length first: 0xfffffff0 bytes took 4 GB
// and 18 s before it noticed).
std::string_view gltfJson(const std::string& bytes, const std::string& path) {
    if (bytes.size() >= 12 && bytes.compare(0, 4, "glTF") == 0) {
        if (bytes.size() < 20)
            throw InputError("scene file '" + path + "': a binary glTF file of " + std::to_string(bytes.size()) +
                             " bytes, too short for its headers");
        std::uint32_t length = 0;  // glTF 2: the first chunk's length; glTF 1: the scene's
        std::memcpy(&length, bytes.data() + 12, 4);
        if (length > bytes.size() - 20)
            throw InputError("scene file '" + path + "': its JSON chunk claims " + std::to_string(length) +
                             " bytes, but the file holds " + std::to_string(bytes.size() - 20) + " after the headers");
        return std::string_view(bytes).substr(20, length);
    }
    return bytes;
}

// Per glTF material (by index, as Assimp's glTF2 importer keeps them): the values of extensions
// Debian's Assimp 5.2.5 reads past, NaN where a material has none.
struct GltfMaterialExtensions {
    std::vector<float> emissiveStrength;  ///< KHR_materials_emissive_strength
    std::vector<float> ior;               ///< KHR_materials_ior
    std::vector<std::string> ignored;     ///< names in extensionsUsed that nothing here reads
};

// The glTF extensions the importer reads (KHR_lights_punctual gets a warning of its own).
bool isReadGltfExtension(const std::string& name) {
    return name == "KHR_materials_emissive_strength" || name == "KHR_materials_transmission" ||
           name == "KHR_materials_ior" || name == "KHR_lights_punctual";
}

// Checks the node graph of a glTF file (trees, bounded depth) and reads the material extensions
// Assimp leaves out.
GltfMaterialExtensions checkGltfStructure(const std::string& bytes, const std::string& path) {
    GltfMaterialExtensions extensions;
    const std::string_view json = gltfJson(bytes, path);
    // Nesting, outside strings: a linear pass that needs no well-formed input.
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (++depth > kMaxJsonDepth)
                throw InputError("scene file '" + path + "': its JSON nests deeper than " + std::to_string(kMaxJsonDepth) +
                                 " levels");
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    // nlohmann's parser recurses too, but only as deep as the nesting check above allows.
    const nlohmann::json doc = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        return extensions;  // malformed: Assimp's parser says where
    if (doc.contains("extensionsUsed") && doc["extensionsUsed"].is_array())
        for (const nlohmann::json& name : doc["extensionsUsed"])
            if (name.is_string() && !isReadGltfExtension(name.get<std::string>()))
                extensions.ignored.push_back(name.get<std::string>());
    if (doc.contains("materials") && doc["materials"].is_array())
        for (const nlohmann::json& material : doc["materials"]) {
            auto number = [&](const char* extension, const char* key) {
                const nlohmann::json* e = nullptr;
                if (material.is_object() && material.contains("extensions") && material["extensions"].is_object() &&
                    material["extensions"].contains(extension))
                    e = &material["extensions"][extension];
                return e && e->is_object() && e->contains(key) && (*e)[key].is_number() ? (*e)[key].get<float>()
                                                                                       : std::nanf("");
            };
            extensions.emissiveStrength.push_back(number("KHR_materials_emissive_strength", "emissiveStrength"));
            extensions.ior.push_back(number("KHR_materials_ior", "ior"));
        }
    // The integers of `object[key]` (an array), -1 for anything else in it (Assimp reports it).
    auto indices = [](const nlohmann::json& object, const char* key) {
        std::vector<long long> out;
        if (!object.is_object() || !object.contains(key) || !object[key].is_array())
            return out;
        for (const nlohmann::json& v : object[key])
            out.push_back(v.is_number_unsigned() ? (long long)v.get<std::uint64_t>() : -1);
        return out;
    };
    std::vector<std::vector<long long>> children, roots;  // per node, per scene
    if (doc.contains("nodes") && doc["nodes"].is_array())
        for (const nlohmann::json& node : doc["nodes"]) children.push_back(indices(node, "children"));
    if (doc.contains("scenes") && doc["scenes"].is_array())
        for (const nlohmann::json& scene : doc["scenes"]) roots.push_back(indices(scene, "nodes"));
    const std::size_t count = children.size();
    std::vector<long long> parent(count, -1);
    for (std::size_t n = 0; n < count; ++n)
        for (long long c : children[n]) {
            if (c < 0 || std::size_t(c) >= count)
                continue;  // Assimp refuses indices out of range
            if (parent[std::size_t(c)] >= 0)
                throw InputError("scene file '" + path + "': glTF node " + std::to_string(c) + " is a child of node " +
                                 std::to_string(parent[std::size_t(c)]) + " and again of node " + std::to_string(n) +
                                 "; glTF nodes must form trees (each node at most one parent)");
            parent[std::size_t(c)] = (long long)n;
        }
    // Depth of every node by its parent chain, each chain walked once (memoised); a chain longer
    // than the node count is a cycle.
    std::vector<int> nodeDepth(count, -1);
    std::vector<std::size_t> chain;
    for (std::size_t n = 0; n < count; ++n) {
        chain.clear();
        std::size_t at = n;
        while (nodeDepth[at] < 0 && parent[at] >= 0 && chain.size() <= count) {
            chain.push_back(at);
            at = std::size_t(parent[at]);
        }
        if (chain.size() > count)
            throw InputError("scene file '" + path + "': glTF node " + std::to_string(n) + " is its own ancestor");
        int d = nodeDepth[at] >= 0 ? nodeDepth[at] : (nodeDepth[at] = 0);
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            nodeDepth[*it] = ++d;
            if (d > kMaxNodeDepth)
                throw InputError("scene file '" + path + "': node hierarchy deeper than " + std::to_string(kMaxNodeDepth) +
                                 " levels");
        }
    }
    for (std::size_t s = 0; s < roots.size(); ++s) {
        std::vector<long long> sorted = roots[s];
        std::sort(sorted.begin(), sorted.end());
        const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
        if (twice != sorted.end())
            throw InputError("scene file '" + path + "': glTF scene " + std::to_string(s) + " lists node " +
                             std::to_string(*twice) + " more than once");
    }
    return extensions;
}

class AssimpImport {
public:
    AssimpImport(const std::string& path, const aiScene& ai, bool gltf, GltfMaterialExtensions extensions,
                 bool allowExternal, Scene& scene)
        : path_(path), ai_(ai), gltf_(gltf), ply_(lowercaseExtension(path) == ".ply"), allowExternal_(allowExternal),
          extensions_(std::move(extensions)), scene_(scene) {}

    void run() {
        for (const std::string& name : extensions_.ignored)
            warn("glTF extension " + oneLine(name).substr(0, 80) + " is not supported; the model is drawn without it");
        for (unsigned i = 0; i < ai_.mNumMaterials; ++i)
            materials_.push_back(-1);  // converted when a mesh uses it: unused ones cost nothing
        if (!ai_.mRootNode)
            throw InputError("scene file '" + path_ + "' has no node hierarchy");
        addNodes(ai_.mRootNode);
        if (triangles_ == 0)
            throw InputError("scene file '" + path_ + "' contains no triangles");
        if (skippedPrimitives_ > 0)
            warn(std::to_string(skippedPrimitives_) + " point and line primitives ignored (only triangles are rendered)");
        if (ai_.mNumLights > 0)
            warn(std::to_string(ai_.mNumLights) + " punctual light" + (ai_.mNumLights > 1 ? "s" : "") +
                 " (KHR_lights_punctual) ignored: wavefront has no point, spot or directional lights");
        if (!readCamera())
            scene_.frameCamera();
    }

private:
    void warn(const std::string& message) { scene_.addWarning(path_ + ": " + message); }

    // Every node's meshes under its global transform, depth first with a stack of our own: a
    // recursion 1024 levels deep (the depth checkGltfStructure allows) overflowed the stack of an
    // ASan build, and would a small thread stack.
    void addNodes(const aiNode* root) {
        struct Pending {
            const aiNode* node;
            glm::mat4 parent;
            int depth;
        };
        std::vector<Pending> stack{{root, glm::mat4(1.0f), 0}};
        while (!stack.empty()) {
            const Pending at = stack.back();
            stack.pop_back();
            if (at.depth > kMaxNodeDepth)
                throw InputError("scene file '" + path_ + "': node hierarchy deeper than " +
                                 std::to_string(kMaxNodeDepth) + " levels");
            const glm::mat4 transform = at.parent * toGlm(at.node->mTransformation);
            for (unsigned i = 0; i < at.node->mNumMeshes; ++i) {
                if (at.node->mMeshes[i] >= ai_.mNumMeshes)
                    throw InputError("scene file '" + path_ + "': node '" + at.node->mName.C_Str() + "' names mesh " +
                                     std::to_string(at.node->mMeshes[i]) + " of " + std::to_string(ai_.mNumMeshes));
                addMesh(*ai_.mMeshes[at.node->mMeshes[i]], transform);
            }
            // Children pushed last to first, so that they are visited in the file's order.
            for (unsigned i = at.node->mNumChildren; i-- > 0;)
                stack.push_back({at.node->mChildren[i], transform, at.depth + 1});
        }
    }

    void addMesh(const aiMesh& mesh, const glm::mat4& transform) {
        if (!(mesh.mPrimitiveTypes & (aiPrimitiveType_TRIANGLE | aiPrimitiveType_POLYGON)) || !mesh.mVertices) {
            skippedPrimitives_ += mesh.mNumFaces;
            return;
        }
        // Meshes are copied once per node that uses them: a few nodes instancing a large mesh could
        // ask for any amount of memory. The cap is the most a file of the 2 GiB cap can hold as
        // an OBJ ("f 1 2 3\n" is 8 bytes: 2^28 triangles), vertices likewise.
        if (mesh.mNumFaces > kMaxTriangles - triangles_ || mesh.mNumVertices > kMaxTriangles - vertices_)
            throw InputError("scene file '" + path_ + "': more than " + std::to_string(kMaxTriangles) +
                             " triangles or vertices once every node's meshes are counted (mesh '" +
                             mesh.mName.C_Str() + "'), the most one scene file may give");
        vertices_ += mesh.mNumVertices;
        TriangleMesh out;
        out.material = material(mesh.mMaterialIndex);
        const glm::mat3 linear(transform);
        const glm::mat3 normalMatrix = glm::transpose(glm::inverse(linear));
        out.positions.reserve(mesh.mNumVertices);
        for (unsigned i = 0; i < mesh.mNumVertices; ++i)
            out.positions.push_back(glm::vec3(transform * glm::vec4(toGlm(mesh.mVertices[i]), 1.0f)));
        if (mesh.mNormals) {
            out.normals.reserve(mesh.mNumVertices);
            for (unsigned i = 0; i < mesh.mNumVertices; ++i)
                out.normals.push_back(normalMatrix * toGlm(mesh.mNormals[i]));
        }
        if (mesh.mTextureCoords[0]) {
            // Assimp turns glTF's top-left origin into OpenGL's bottom-left one: turn it back.
            out.uvs.reserve(mesh.mNumVertices);
            for (unsigned i = 0; i < mesh.mNumVertices; ++i)
                out.uvs.emplace_back(mesh.mTextureCoords[0][i].x, 1.0f - mesh.mTextureCoords[0][i].y);
        }
        // A mirroring transform turns counter-clockwise faces clockwise: swap two corners back.
        const bool mirrored = glm::determinant(linear) < 0.0f;
        out.indices.reserve(3 * std::size_t(mesh.mNumFaces));
        for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
            const aiFace& face = mesh.mFaces[f];
            if (face.mNumIndices < 3 || !face.mIndices) {  // points and lines left in a mixed mesh
                ++skippedPrimitives_;
                continue;
            }
            // Triangles, or (formats other than glTF, which Assimp does not triangulate: see
            // loadAssimp) polygons as a fan from their first corner, as OBJ polygons are.
            for (unsigned k = 1; k + 1 < face.mNumIndices; ++k)
                out.indices.insert(out.indices.end(), {face.mIndices[0], face.mIndices[mirrored ? k + 1 : k],
                                                       face.mIndices[mirrored ? k : k + 1]});
            if (out.indices.size() / 3 > kMaxTriangles - triangles_)
                throw InputError("scene file '" + path_ + "': more than " + std::to_string(kMaxTriangles) +
                                 " triangles once every node's meshes are counted (mesh '" + mesh.mName.C_Str() +
                                 "'), the most one scene file may give");
        }
        triangles_ += out.indices.size() / 3;
        try {
            scene_.addMesh(out);
        } catch (const InputError& e) {
            throw InputError("scene file '" + path_ + "': mesh '" + mesh.mName.C_Str() + "': " + e.what());
        }
    }

    int material(unsigned index) {
        if (index >= materials_.size())
            throw InputError("scene file '" + path_ + "': a mesh names material " + std::to_string(index) + " of " +
                             std::to_string(materials_.size()));
        if (materials_[index] < 0) {
            const aiMaterial& m = *ai_.mMaterials[index];
            try {
                materials_[index] = scene_.addMaterial(gltf_ ? gltfMaterial(m, index) : otherMaterial(m));
            } catch (const InputError& e) {
                throw InputError("scene file '" + path_ + "': material '" + m.GetName().C_Str() + "': " + e.what());
            }
        }
        return materials_[index];
    }

    static float unit(float v) { return std::isfinite(v) ? std::clamp(v, 0.0f, 1.0f) : 0.0f; }
    static glm::vec3 unit(const aiColor4D& c) { return glm::vec3(unit(c.r), unit(c.g), unit(c.b)); }

    // The value of a material extension Assimp did not read (`index`: Assimp's material, the
    // glTF material of that index), or `fallback`.
    static float extensionValue(const std::vector<float>& values, unsigned index, float fallback) {
        return index < values.size() && std::isfinite(values[index]) ? values[index] : fallback;
    }

    Material gltfMaterial(const aiMaterial& m, unsigned index) {
        const std::string name = m.GetName().C_Str();
        aiColor4D base(1.0f, 1.0f, 1.0f, 1.0f);
        if (m.Get(AI_MATKEY_BASE_COLOR, base) != AI_SUCCESS)
            m.Get(AI_MATKEY_COLOR_DIFFUSE, base);
        float metallic = 1.0f, roughness = 1.0f;  // the glTF defaults
        m.Get(AI_MATKEY_METALLIC_FACTOR, metallic);
        m.Get(AI_MATKEY_ROUGHNESS_FACTOR, roughness);

        Material out;
        float transmission = 0.0f;
        if (m.Get(AI_MATKEY_TRANSMISSION_FACTOR, transmission) == AI_SUCCESS && transmission > 0.0f) {
            // All or nothing: we have no blend of glass and the opaque base.
            if (transmission < 1.0f)
                warn("material '" + name + "': transmission " + std::to_string(transmission) + " rendered as full glass");
            float ior = 1.5f;  // KHR_materials_ior's default
            if (m.Get(AI_MATKEY_REFRACTI, ior) != AI_SUCCESS)
                ior = extensionValue(extensions_.ior, index, 1.5f);
            if (!(std::isfinite(ior) && std::fabs(ior - 1.0f) >= 1e-3f && ior > 0.0f))
                ior = 1.5f;
            out = Material::roughDielectric(ior, unit(roughness) * unit(roughness));  // GGX alpha = roughness^2
        } else {
            out = Material::metallicRoughness(unit(base), unit(metallic), unit(roughness));
            out.baseColorTexture = texture(m, aiTextureType_BASE_COLOR, name, true);
            if (out.baseColorTexture < 0)
                out.baseColorTexture = texture(m, aiTextureType_DIFFUSE, name, true);
            // Assimp 5.2 files the one metallicRoughnessTexture under several types.
            for (aiTextureType type : {aiTextureType_METALNESS, aiTextureType_UNKNOWN, aiTextureType_DIFFUSE_ROUGHNESS})
                if (out.metallicRoughnessTexture < 0)
                    out.metallicRoughnessTexture = texture(m, type, name, false);
        }
        out.normalTexture = texture(m, aiTextureType_NORMALS, name, false);
        if (out.normalTexture >= 0) {
            float scale = 1.0f;
            m.Get(AI_MATKEY_GLTF_TEXTURE_SCALE(aiTextureType_NORMALS, 0), scale);
            out.normalScale = std::isfinite(scale) ? std::clamp(scale, -1e3f, 1e3f) : 1.0f;
        }

        aiColor4D emissive(0.0f, 0.0f, 0.0f, 1.0f);
        m.Get(AI_MATKEY_COLOR_EMISSIVE, emissive);
        float strength = 1.0f;  // KHR_materials_emissive_strength
        if (m.Get(AI_MATKEY_EMISSIVE_INTENSITY, strength) != AI_SUCCESS)
            strength = extensionValue(extensions_.emissiveStrength, index, 1.0f);
        if (!(std::isfinite(strength) && strength >= 0.0f))
            strength = 1.0f;
        out.emission = glm::vec3(std::max(emissive.r, 0.0f), std::max(emissive.g, 0.0f), std::max(emissive.b, 0.0f)) * strength;
        if (out.isEmissive())
            out.emissionTexture = texture(m, aiTextureType_EMISSIVE, name, true);
        return out;
    }

    // PLY and the like: no physically based material. A diffuse colour, if the file has a
    // material of its own (PLY has none: Assimp makes up an unnamed one), else grey.
    Material otherMaterial(const aiMaterial& m) {
        const std::string name = m.GetName().C_Str();
        const bool madeUp = ply_ || name.empty() || name == AI_DEFAULT_MATERIAL_NAME;
        glm::vec3 albedo(0.8f);
        aiColor4D diffuse;
        if (!madeUp && m.Get(AI_MATKEY_COLOR_DIFFUSE, diffuse) == AI_SUCCESS)
            albedo = unit(diffuse);
        Material out = Material::lambertian(albedo);
        aiColor4D emissive(0.0f, 0.0f, 0.0f, 1.0f);
        if (m.Get(AI_MATKEY_COLOR_EMISSIVE, emissive) == AI_SUCCESS)
            out.emission = glm::max(glm::vec3(emissive.r, emissive.g, emissive.b), glm::vec3(0.0f));
        out.baseColorTexture = texture(m, aiTextureType_DIFFUSE, name, true);
        return out;
    }

    // The material's first texture of `type` as a Scene texture (each image added once per
    // encoding: colour is sRGB, data linear), or -1 with a warning when it cannot be read.
    int texture(const aiMaterial& m, aiTextureType type, const std::string& materialName, bool srgb) {
        if (m.GetTextureCount(type) == 0)
            return -1;
        aiString file;
        unsigned uvIndex = 0;
        if (m.GetTexture(type, 0, &file, nullptr, &uvIndex) != AI_SUCCESS)
            return -1;
        if (uvIndex != 0)
            warn("material '" + materialName + "': texture coordinate set " + std::to_string(uvIndex) +
                 " used as set 0 (only the first set is read)");
        const std::string name = file.C_Str();
        const std::string key = std::string(srgb ? "srgb:" : "linear:") + name;
        auto known = textures_.find(key);
        if (known != textures_.end())
            return known->second;
        int index = -1;
        try {
            Texture t;
            if (const aiTexture* embedded = ai_.GetEmbeddedTexture(file.C_Str())) {
                const std::string what = "embedded texture '" + name + "'";
                if (embedded->mHeight == 0) {  // a compressed file (PNG, JPEG) of mWidth bytes
                    t = decodeTexture(reinterpret_cast<const unsigned char*>(embedded->pcData), embedded->mWidth, what);
                } else {
                    t.width = int(embedded->mWidth);
                    t.height = int(embedded->mHeight);
                    const std::size_t texels = std::size_t(embedded->mWidth) * embedded->mHeight;
                    t.rgba8.reserve(4 * texels);
                    for (std::size_t i = 0; i < texels; ++i) {
                        const aiTexel& p = embedded->pcData[i];
                        t.rgba8.insert(t.rgba8.end(), {p.r, p.g, p.b, p.a});
                    }
                }
            } else {
                // Confined to the model's folder like its buffers, then read as an image file.
                std::filesystem::path file;
                try {
                    file = resolveReferencedFile(path_, name, allowExternal_);
                } catch (const InputError& e) {
                    throw InputError(std::string("texture ") + e.what());
                }
                t = readTexture(file.string());
            }
            t.srgb = srgb;
            index = scene_.addTexture(std::move(t));
        } catch (const InputError& e) {
            warn("material '" + materialName + "': " + e.what() + "; the material is drawn without it");
        }
        textures_.emplace(key, index);
        return index;
    }

    // The first camera, with its node's transform; false when there is none we can use.
    bool readCamera() {
        if (ai_.mNumCameras == 0)
            return false;
        if (ai_.mNumCameras > 1)
            warn(std::to_string(ai_.mNumCameras) + " cameras; the first is used");
        const aiCamera& c = *ai_.mCameras[0];
        if (!gltf_) {
            warn("cameras are read from glTF files only; the camera frames the model");
            return false;
        }
        if (!(c.mHorizontalFOV > 0.0f)) {
            warn("orthographic cameras are not supported; the camera frames the model");
            return false;
        }
        // Assimp stores glTF's yfov times the aspect ratio (or times 1 when none is given).
        const float yfov = c.mHorizontalFOV / (c.mAspect > 0.0f ? c.mAspect : 1.0f);
        const aiNode* node = ai_.mRootNode->FindNode(c.mName);
        const glm::mat4 m = node ? globalTransform(node) : glm::mat4(1.0f);
        const glm::mat3 linear(m);
        // A glTF camera sits at its node's origin looking down -z with +y up. Assimp 5.2 also
        // copies the node's translation into mPosition, which would count it twice: use the spec.
        Camera camera;
        camera.position = glm::vec3(m * glm::vec4(0.0f, 0.0f, 0.0f, 1.0f));
        const glm::vec3 forward = linear * glm::vec3(0.0f, 0.0f, -1.0f);
        camera.up = linear * glm::vec3(0.0f, 1.0f, 0.0f);
        const float length = glm::length(forward);
        if (!(length > 0.0f) || !std::isfinite(length)) {
            warn("camera '" + std::string(c.mName.C_Str()) + "' has no viewing direction; the camera frames the model");
            return false;
        }
        camera.target = camera.position + forward / length;
        camera.verticalFovDegrees = glm::degrees(yfov);
        scene_.setCamera(camera);
        return true;
    }

    std::string path_;
    const aiScene& ai_;
    bool gltf_, ply_, allowExternal_;
    GltfMaterialExtensions extensions_;
    Scene& scene_;
    std::vector<int> materials_;
    std::map<std::string, int> textures_;
    static constexpr std::size_t kMaxTriangles = std::size_t(1) << 28;
    std::size_t triangles_ = 0, vertices_ = 0;
    std::size_t skippedPrimitives_ = 0;
};

}  // namespace

Scene Scene::loadAssimp(const std::string& path, const SceneLoadOptions& options) {
    // Only the formats whose Assimp readers we pre-check and fuzz (docs/hardening.md): Assimp's
    // other readers hung, aborted or crashed on fuzzed PLY files before the checks existed.
    const std::string ext = lowercaseExtension(path);
    const bool gltf = ext == ".gltf" || ext == ".glb";
    if (!gltf && ext != ".ply")
        throw InputError("scene file '" + path + "': unsupported format '" + ext +
                         "' (wavefront reads .obj, .gltf, .glb and .ply; convert others to glTF, e.g. "
                         "'assimp export model.fbx model.glb' from assimp-utils)");
    // Regular files only, at most 2 GiB; Assimp parses these bytes, never the path.
    const auto bytes = std::make_shared<const std::string>(readInputFile(path, InputKind::Model));
    checkPlyCounts(*bytes, path);
    GltfMaterialExtensions extensions;
    if (gltf || bytes->compare(0, 4, "glTF") == 0)
        extensions = checkGltfStructure(*bytes, path);

    Assimp::Importer importer;
    auto* io = new ConfinedIOSystem(path, bytes, options.allowExternalFiles, gltf ? "glTF buffer" : "file");
    importer.SetIOHandler(io);  // the importer owns it
    // Points and lines are counted and dropped by us, not by Assimp, so that we can say so.
    unsigned flags = aiProcess_SortByPType | aiProcess_ValidateDataStructure;
    // glTF without normals means flat shading (the spec); other formats (PLY scans) mostly
    // leave them out and look best smooth. Assimp triangulates glTF; other formats' polygons are
    // fanned by us: Debian's Assimp 5.2.5 keeps its assertions, and aiProcess_Triangulate aborts
    // the process on PLY faces the file's data leaves short (15 of 667 fuzzed PLY cases).
    if (gltf)
        flags |= aiProcess_Triangulate;
    else
        flags |= aiProcess_JoinIdenticalVertices | aiProcess_GenSmoothNormals;
    // Validated before any other step runs: Assimp's steps trust the data (a short line in an
    // ASCII PLY gave a face without corners that crashed a step with SIGBUS), and ReadFile would
    // run them before its own validation.
    const auto failed = [&] {
        // A refused file's reason says more than Assimp's "could not open referenced file".
        const std::string why = io->failure().empty() ? oneLine(importer.GetErrorString()) : io->failure();
        return InputError("cannot read scene file '" + path + "': " + why);
    };
    const aiScene* ai = nullptr;
    try {
        ai = importer.ReadFile(path, aiProcess_ValidateDataStructure);
    } catch (const std::exception& e) {  // Assimp catches its own; anything else still is one line
        throw InputError("cannot read scene file '" + path + "': " + oneLine(e.what()));
    }
    if (!ai)
        throw failed();
    // Assimp's validation lets faces without corners through, and aiProcess_SortByPType then
    // reads out of bounds: refused here.
    for (unsigned m = 0; m < ai->mNumMeshes; ++m) {
        const aiMesh* mesh = ai->mMeshes[m];
        for (unsigned f = 0; mesh && f < mesh->mNumFaces; ++f)
            if (mesh->mFaces[f].mNumIndices == 0 || !mesh->mFaces[f].mIndices)
                throw InputError("scene file '" + path + "': mesh '" + mesh->mName.C_Str() + "' face " + std::to_string(f) +
                                 " has no corners (the file's data is short or misaligned)");
    }
    try {
        ai = importer.ApplyPostProcessing(flags & ~unsigned(aiProcess_ValidateDataStructure));
    } catch (const std::exception& e) {
        throw InputError("cannot read scene file '" + path + "': " + oneLine(e.what()));
    }
    if (!ai)
        throw failed();
    if (ai->mFlags & AI_SCENE_FLAGS_INCOMPLETE)
        throw InputError("scene file '" + path + "' is incomplete (it holds no meshes Assimp could read)");

    Scene scene;
    AssimpImport(path, *ai, gltf, std::move(extensions), options.allowExternalFiles, scene).run();
    return scene;
}

bool hasSceneFileExtension(const std::string& name) {
    const std::string ext = lowercaseExtension(name);
    return ext == ".obj" || (ext.size() > 1 && Assimp::Importer().IsExtensionSupported(ext));
}

Scene Scene::loadFile(const std::string& path, const SceneLoadOptions& options) {
    if (lowercaseExtension(path) == ".obj")
        return loadObj(path, options);
    return loadAssimp(path, options);
}

}  // namespace wavefront
