// The pre-checks of models read through Assimp (import_checks.h).
#include "host/scene/import_checks.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <sstream>
#include <string_view>

namespace wavefront {

std::uint64_t plyTypeSize(const std::string& type) {
    if (type == "short" || type == "ushort" || type == "int16" || type == "uint16") return 2;
    if (type == "int" || type == "uint" || type == "float" || type == "int32" || type == "uint32" || type == "float32")
        return 4;
    if (type == "double" || type == "float64") return 8;
    return 1;  // char, uchar, int8, uint8
}

// Assimp 5.2.5's PLY reader reserves room for as many instances of an element as the header
// declares before it reads one: a 300-byte file declaring 2e9 vertices took over 20 s and 9 GB.
// Every instance takes some bytes after the header (binary: its fixed-size properties and list
// counts; ASCII: at least two characters per value), so counts the rest of the file cannot hold are
// refused here. This bounds what a reader allocates by the file's size (itself capped).
PlyHeader readPlyHeader(const std::string& bytes, const std::string& path) {
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
    PlyHeader header;
    std::vector<std::uint64_t> minBytes;  // per element: the fewest bytes an instance takes
    bool format = false;
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
            header.format = kind == "ascii"                  ? PlyHeader::Ascii
                            : kind == "binary_little_endian" ? PlyHeader::BinaryLittleEndian
                                                             : PlyHeader::BinaryBigEndian;
            format = true;
        } else if (word == "element") {
            PlyElement e;
            std::string count;
            line >> e.name >> count;
            if (e.name.empty() || count.empty() || count.find_first_not_of("0123456789") != std::string::npos || (line >> extra))
                refuse(lineNumber, "an element needs a name and a count");
            for (char c : count)
                e.count = std::min<std::uint64_t>(e.count * 10 + std::uint64_t(c - '0'), std::uint64_t(1) << 62);
            header.elements.push_back(e);
            minBytes.push_back(0);
        } else if (word == "property") {
            if (header.elements.empty())
                refuse(lineNumber, "a property before any element");
            PlyProperty property;
            line >> property.type;
            if (property.type == "list") {
                line >> property.countType >> property.type >> property.name;
                if (!known(property.countType) || !known(property.type) || property.name.empty())
                    refuse(lineNumber, "a list property needs a count type, an item type and a name");
            } else {
                line >> property.name;
                if (!known(property.type) || property.name.empty())
                    refuse(lineNumber, "property type '" + property.type + "' is unknown or the name is missing");
            }
            // A list holds at least its count.
            const bool binary = format && header.format != PlyHeader::Ascii;
            minBytes.back() += binary ? plyTypeSize(property.countType.empty() ? property.type : property.countType) : 2;
            header.elements.back().properties.push_back(property);
        } else {
            refuse(lineNumber, "unknown keyword '" + word + "'");
        }
    }
    if (!format)
        throw InputError("scene file '" + path + "': PLY header has no format line");
    header.dataOffset = pos;
    // The last ASCII value may end the file without a separator: one byte of slack.
    const bool binary = header.format != PlyHeader::Ascii;
    const std::uint64_t available = std::uint64_t(bytes.size() - pos) + (binary ? 0 : 1);
    std::uint64_t needed = 0;
    for (std::size_t i = 0; i < header.elements.size(); ++i) {
        const PlyElement& e = header.elements[i];
        const std::uint64_t each = std::max<std::uint64_t>(minBytes[i], 1);
        if (e.count > (available - needed) / each)
            throw InputError("scene file '" + path + "': PLY element '" + e.name + "' declares " + std::to_string(e.count) +
                             " instances of at least " + std::to_string(each) + " bytes each, but " +
                             std::to_string(bytes.size() - pos) + " bytes follow the header" +
                             (needed > 0 ? " (" + std::to_string(needed) + " of them taken by the elements before)" : ""));
        needed += e.count * each;
    }
    return header;
}

void checkPlyCounts(const std::string& bytes, const std::string& path) {
    // Assimp skips leading whitespace before "ply" (and then hung on a broken header: fuzzing
    // found "\nply ..."), so the check must not stop at it; readPlyHeader refuses it.
    const std::size_t start = std::min(bytes.find_first_not_of(" \t\r\n"), bytes.size());
    if (bytes.size() - start < 3 || std::tolower(static_cast<unsigned char>(bytes[start])) != 'p' ||
        std::tolower(static_cast<unsigned char>(bytes[start + 1])) != 'l' ||
        std::tolower(static_cast<unsigned char>(bytes[start + 2])) != 'y')
        return;
    readPlyHeader(bytes, path);
}

namespace {

// What Assimp 5.2.5's glTF importers do with hostile JSON that parses, measured: its JSON parser
// recurses per nesting level (1,000,000 nested '[' crash the process), it imports the node graph by
// recursion (a chain of 200,000 nodes crashes it) and imports a node once per parent listing (40
// nodes each listing the next one twice: over 20 s and 9 GB). The file is checked before Assimp
// sees it: JSON nested at most kMaxJsonDepth levels, every node the child of at most one node,
// scenes listing each root once, and node chains at most kMaxNodeDepth deep (the walk below refuses
// deeper ones anyway). The graph is read with nlohmann::json; malformed JSON is left to Assimp's
// parser to report.
constexpr int kMaxJsonDepth = 256;

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

// The glTF extensions the importer reads.
bool isReadGltfExtension(const std::string& name) {
    return name == "KHR_materials_emissive_strength" || name == "KHR_materials_transmission" ||
           name == "KHR_materials_ior" || name == "KHR_lights_punctual";
}

}  // namespace

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

}  // namespace wavefront
