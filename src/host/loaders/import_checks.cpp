// The pre-checks of models read through Assimp (import_checks.h).
#include "host/loaders/import_checks.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <cmath>
#include <sstream>
#include <string_view>

namespace wavefront {

// Assimp 5.2.5's PLY reader trusts the file's numbers: it reserves room for as many instances of
// an element as the header declares before it reads one (a 300-byte file declaring 2e9 vertices
// took over 20 s and 9 GB), and as many list items as a list's count says (a face list of length
// 10^9 in a 189-byte file took 14 GB). Its header parser hangs on truncated headers, unknown
// keywords and NUL bytes (fuzzing found 126 of 667 PLY cases hanging), and it reads ASCII
// instances line by line. So the file is read here first, every number checked against the bytes
// that follow, and Assimp is given a PLY that says only what was checked: the header rewritten
// (one line per keyword, unknown keywords dropped with a warning), the binary body as it is, the
// ASCII body one instance per line, its values as written.
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
        if (word == "comment" || word == "obj_info") {
            header.comments += text + "\n";  // Assimp reads "comment TextureFile NAME"
            continue;
        }
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
            // Readers keep counts in 32 bits: 18446744073709551619 must not read as 3.
            for (char c : count) {
                e.count = e.count * 10 + std::uint64_t(c - '0');
                if (e.count > 0xffffffffu)
                    refuse(lineNumber, "element '" + e.name + "' count " + count.substr(0, 40) + " is beyond 2^32 - 1");
            }
            header.elements.push_back(e);
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
            header.elements.back().minBytes += binary ? plyTypeSize(property.countType.empty() ? property.type : property.countType) : 2;
            header.elements.back().properties.push_back(property);
        } else {
            // Blender 2.47 wrote "Created by Blender3D 247 - www.blender.org, source file: ''" here.
            header.warnings.push_back("PLY header line " + std::to_string(lineNumber) + " '" + text.substr(0, 60) +
                                      "' begins with no PLY keyword; skipped");
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
        const std::uint64_t each = std::max<std::uint64_t>(e.minBytes, 1);
        if (e.count > (available - needed) / each)
            throw InputError("scene file '" + path + "': PLY element '" + e.name + "' declares " + std::to_string(e.count) +
                             " instances of at least " + std::to_string(each) + " bytes each, but " +
                             std::to_string(bytes.size() - pos) + " bytes follow the header" +
                             (needed > 0 ? " (" + std::to_string(needed) + " of them taken by the elements before)" : ""));
        needed += e.count * each;
    }
    return header;
}

namespace {

// A binary list count of `type` as Assimp reads it: converted to a 32-bit unsigned integer (a
// negative signed count wraps to billions).
std::uint64_t plyCount(const unsigned char* p, const std::string& type, bool bigEndian) {
    const std::uint64_t size = plyTypeSize(type);
    std::uint64_t raw = 0;
    for (std::uint64_t k = 0; k < size; ++k) raw |= std::uint64_t(p[bigEndian ? size - 1 - k : k]) << (8 * k);
    const bool isSigned = type == "char" || type == "int8" || type == "short" || type == "int16" || type == "int" ||
                          type == "int32";
    if (isSigned && (raw >> (8 * size - 1)) & 1) raw |= ~std::uint64_t(0) << (8 * size);  // sign-extend
    if (type == "float" || type == "float32" || type == "double" || type == "float64") {
        // Assimp converts a floating-point count to unsigned int; anything but a small whole number is refused.
        double value = 0;
        if (size == 4) {
            float f;
            std::uint32_t bits = std::uint32_t(raw);
            std::memcpy(&f, &bits, 4);
            value = f;
        } else {
            std::memcpy(&value, &raw, 8);
        }
        return value >= 0 && value < 4294967296.0 && value == std::floor(value) ? std::uint64_t(value) : ~std::uint64_t(0);
    }
    return std::uint32_t(raw);
}

}  // namespace

std::string preparePly(const std::string& bytes, const std::string& path, std::vector<std::string>& warnings) {
    const std::string file = "scene file '" + path + "': ";
    // The header, its counts against the size (readPlyHeader), then instance by instance.
    const PlyHeader parsed = readPlyHeader(bytes, path);
    warnings.insert(warnings.end(), parsed.warnings.begin(), parsed.warnings.end());
    const std::vector<PlyElement>& elements = parsed.elements;
    const std::size_t pos = parsed.dataOffset;
    const bool binary = parsed.format != PlyHeader::Ascii, bigEndian = parsed.format == PlyHeader::BinaryBigEndian;
    const char* format = !binary ? "ascii" : bigEndian ? "binary_big_endian" : "binary_little_endian";
    std::string header = std::string("ply\nformat ") + format + " 1.0\n" + parsed.comments;  // Assimp wants the format first
    for (const PlyElement& e : elements) {
        if (e.properties.empty()) continue;  // no data: left out
        header += "element " + e.name + " " + std::to_string(e.count) + "\n";
        for (const PlyProperty& p : e.properties)
            header += p.countType.empty() ? "property " + p.type + " " + p.name + "\n"
                                          : "property list " + p.countType + " " + p.type + " " + p.name + "\n";
    }
    header += "end_header\n";
    const auto ends = [&](const PlyElement& e, std::uint64_t i) {
        return InputError(file + "the PLY data ends in instance " + std::to_string(i + 1) + " of " +
                          std::to_string(e.count) + " of element '" + e.name + "'");
    };
    const auto tooLong = [&](const PlyElement& e, std::uint64_t i, const PlyProperty& p, const std::string& count,
                             const std::string& left) {
        return InputError(file + "PLY element '" + e.name + "' instance " + std::to_string(i + 1) + ": list '" + p.name +
                          "' claims " + count + " items, but " + left);
    };
    if (binary) {
        const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
        std::size_t at = pos;
        for (const PlyElement& e : elements)
            for (std::uint64_t i = 0; i < e.count; ++i)
                for (const PlyProperty& p : e.properties) {
                    const std::uint64_t left = bytes.size() - at;
                    if (p.countType.empty()) {
                        if (plyTypeSize(p.type) > left) throw ends(e, i);
                        at += plyTypeSize(p.type);
                        continue;
                    }
                    if (plyTypeSize(p.countType) > left) throw ends(e, i);
                    const std::uint64_t count = plyCount(data + at, p.countType, bigEndian);
                    at += plyTypeSize(p.countType);
                    if (count > (left - plyTypeSize(p.countType)) / plyTypeSize(p.type))
                        throw tooLong(e, i, p, count == ~std::uint64_t(0) ? "an unreadable number of" : std::to_string(count),
                                      std::to_string(left - plyTypeSize(p.countType)) + " bytes are left in the file");
                    at += count * plyTypeSize(p.type);
                }
        return header + bytes.substr(pos);
    }
    // ASCII: values are separated by whitespace (any control character counts as such).
    std::string body;
    body.reserve(bytes.size() - pos + 16);
    std::size_t at = pos;
    const auto token = [&]() -> std::string_view {
        while (at < bytes.size() && static_cast<unsigned char>(bytes[at]) <= 0x20) ++at;
        const std::size_t start = at;
        while (at < bytes.size() && static_cast<unsigned char>(bytes[at]) > 0x20) ++at;
        return std::string_view(bytes).substr(start, at - start);
    };
    for (const PlyElement& e : elements)
        for (std::uint64_t i = 0; i < e.count && !e.properties.empty(); ++i) {
            for (const PlyProperty& p : e.properties) {
                const std::string_view value = token();
                if (value.empty()) throw ends(e, i);
                if (!p.countType.empty()) {
                    if (value.find_first_not_of("0123456789") != std::string_view::npos)
                        throw InputError(file + "PLY element '" + e.name + "' instance " + std::to_string(i + 1) +
                                         ": list '" + p.name + "' has the count '" + std::string(value.substr(0, 40)) +
                                         "', not a whole number");
                    // At least two bytes per item follow (a digit and a separator, the last one's optional).
                    const std::uint64_t left = (bytes.size() - at + 1) / 2;
                    std::uint64_t count = 0;
                    for (char c : value)
                        if ((count = count * 10 + std::uint64_t(c - '0')) > left)
                            throw tooLong(e, i, p, std::string(value.substr(0, 40)),
                                          "the file has room for " + std::to_string(left) + " more values");
                    body.append(value.data(), value.size());
                    for (std::uint64_t k = 0; k < count; ++k) {
                        const std::string_view item = token();
                        if (item.empty()) throw ends(e, i);
                        body += ' ';
                        body.append(item.data(), item.size());
                    }
                } else {
                    body.append(value.data(), value.size());
                }
                body += ' ';
            }
            body.back() = '\n';
        }
    return header + body;
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
// The most JSON read: a 300 MiB data URI took 60 s and 1.6 GB in Assimp and nlohmann together.
constexpr std::size_t kMaxJsonBytes = std::size_t(256) << 20;

// The JSON of a .gltf, or the JSON chunk of a .glb; refuses a .glb whose first chunk claims more
// bytes than the file holds (Assimp allocates the claimed length first: 0xfffffff0 bytes took 4 GB
// and 18 s before it noticed).
std::string_view gltfJson(const std::string& bytes, const std::string& path) {
    std::string_view json = bytes;
    if (bytes.size() >= 12 && bytes.compare(0, 4, "glTF") == 0) {
        if (bytes.size() < 20)
            throw InputError("scene file '" + path + "': a binary glTF file of " + std::to_string(bytes.size()) +
                             " bytes, too short for its headers");
        std::uint32_t length = 0;  // glTF 2: the first chunk's length; glTF 1: the scene's
        std::memcpy(&length, bytes.data() + 12, 4);
        if (length > bytes.size() - 20)
            throw InputError("scene file '" + path + "': its JSON chunk claims " + std::to_string(length) +
                             " bytes, but the file holds " + std::to_string(bytes.size() - 20) + " after the headers");
        if (bytes[4] != 2 || bytes[5] != 0 || bytes[6] != 0 || bytes[7] != 0)
            throw InputError("scene file '" + path + "': binary glTF version " + std::to_string(std::uint8_t(bytes[4])) +
                             " is not read (glTF 2.0 only)");
        json = json.substr(20, length);
    } else if (lowercaseExtension(path) == ".glb") {
        throw InputError("scene file '" + path + "' is not a binary glTF file (it does not begin with 'glTF' and 20 bytes of headers)");
    }
    if (json.size() > kMaxJsonBytes)
        throw InputError("scene file '" + path + "': its JSON takes " + std::to_string(json.size() >> 20) +
                         " MiB, over the " + std::to_string(kMaxJsonBytes >> 20) +
                         " MiB read (data URIs included: keep large buffers in a .bin file or a .glb)");
    return json;
}

// Buffers, buffer views and accessors: every offset, length and stride within what it points
// into, checked with no overflow before Assimp 5.2.5 adds them up (a bufferView byteOffset of
// 2^64 - 8 made it read 8 bytes before a heap block, and the render went on with garbage).
void checkGltfData(const nlohmann::json& doc, const std::string& path) {
    using Json = nlohmann::json;
    const auto collection = [&](const char* key) -> const Json* {
        return doc.contains(key) && doc[key].is_array() ? &doc[key] : nullptr;
    };
    const Json *buffers = collection("buffers"), *views = collection("bufferViews"), *accessors = collection("accessors");
    const auto fail = [&](const std::string& what, const std::string& why) {
        return InputError("scene file '" + path + "': glTF " + what + ": " + why);
    };
    // The item a reference (an index) names.
    const auto find = [&](const Json* in, const Json& ref, const std::string& what, const char* kind) -> const Json& {
        if (in && ref.is_number_unsigned() && ref.get<std::uint64_t>() < in->size()) return (*in)[ref.get<std::size_t>()];
        throw fail(what, std::string("refers to ") + kind + " " + ref.dump().substr(0, 40) + ", which the file does not have");
    };
    // A non-negative whole number, or `fallback` when absent (`required`: then an error).
    const auto whole = [&](const Json& object, const char* key, const std::string& what, bool required,
                           std::uint64_t fallback = 0) -> std::uint64_t {
        if (!object.is_object() || !object.contains(key)) {
            if (required) throw fail(what, std::string("has no ") + key);
            return fallback;
        }
        const Json& v = object[key];
        if (v.is_number_unsigned()) return v.get<std::uint64_t>();
        if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return std::uint64_t(v.get<std::int64_t>());
        throw fail(what, std::string(key) + " " + v.dump().substr(0, 40) + " is not a whole number of 0 or more");
    };
    // `offset` + `length` within `size`, without overflow.
    const auto within = [](std::uint64_t offset, std::uint64_t length, std::uint64_t size) {
        return offset <= size && length <= size - offset;
    };
    const auto name = [](const char* kind, const Json& index) { return std::string(kind) + " " + index.dump().substr(0, 40); };
    const auto each = [&](const Json* in, const auto& check) {
        for (std::size_t i = 0; in && i < in->size(); ++i) check(Json(i), (*in)[i]);
    };
    each(views, [&](const Json& key, const Json& view) {
        const std::string what = name("bufferView", key);
        if (!view.is_object() || !view.contains("buffer")) return;  // Assimp reports it
        const Json& buffer = find(buffers, view["buffer"], what, "buffer");
        const std::uint64_t size = whole(buffer, "byteLength", name("buffer", view["buffer"]), false);
        const std::uint64_t offset = whole(view, "byteOffset", what, false), length = whole(view, "byteLength", what, true);
        if (!within(offset, length, size))
            throw fail(what, "byteOffset " + std::to_string(offset) + " and byteLength " + std::to_string(length) +
                                 " reach beyond the " + std::to_string(size) + " bytes of its buffer");
        const std::uint64_t stride = whole(view, "byteStride", what, false);
        if (view.contains("byteStride") && (stride < 4 || stride > 252 || stride % 4 != 0))
            throw fail(what, "byteStride " + std::to_string(stride) + " is not a multiple of 4 in 4..252");
    });
    const auto componentSize = [](std::uint64_t type) -> std::uint64_t {
        return type == 5120 || type == 5121 ? 1 : type == 5122 || type == 5123 ? 2 : type == 5125 || type == 5126 ? 4 : 0;
    };
    // Bytes per element, matrix columns padded to 4 bytes as the spec lays them out; 0: unknown.
    const auto elementSize = [&](const Json& accessor) -> std::uint64_t {
        const std::uint64_t size = componentSize(whole(accessor, "componentType", "accessor", false));
        const std::string type = accessor.contains("type") && accessor["type"].is_string() ? accessor["type"].get<std::string>() : "";
        const auto column = [&](std::uint64_t rows) { return (rows * size + 3) / 4 * 4; };
        if (type == "SCALAR") return size;
        if (type == "VEC2") return 2 * size;
        if (type == "VEC3") return 3 * size;
        if (type == "VEC4") return 4 * size;
        if (type == "MAT2") return 2 * column(2);
        if (type == "MAT3") return 3 * column(3);
        if (type == "MAT4") return 4 * column(4);
        return 0;
    };
    // `count` elements of `bytes` each, `stride` apart, from `offset` of `view`.
    const auto fits = [&](const std::string& what, const Json& viewRef, std::uint64_t offset, std::uint64_t count,
                          std::uint64_t bytes, std::uint64_t stride) {
        const Json& view = find(views, viewRef, what, "bufferView");
        const std::uint64_t length = whole(view, "byteLength", name("bufferView", viewRef), true);
        if (stride == 0) stride = whole(view, "byteStride", name("bufferView", viewRef), false, bytes);
        if (stride == 0) stride = bytes;
        const bool ok = count == 0 || (offset <= length && bytes <= length - offset &&
                                       (count - 1) <= (length - offset - bytes) / std::max<std::uint64_t>(stride, 1));
        if (!ok)
            throw fail(what, std::to_string(count) + " elements of " + std::to_string(bytes) + " bytes, " +
                                 std::to_string(stride) + " apart, from byteOffset " + std::to_string(offset) +
                                 " reach beyond the " + std::to_string(length) + " bytes of " + name("bufferView", viewRef));
    };
    each(accessors, [&](const Json& key, const Json& accessor) {
        const std::string what = name("accessor", key);
        const std::uint64_t bytes = elementSize(accessor);
        if (!accessor.is_object() || bytes == 0) return;  // Assimp reports the type
        const std::uint64_t count = whole(accessor, "count", what, true);
        if (accessor.contains("bufferView"))
            fits(what, accessor["bufferView"], whole(accessor, "byteOffset", what, false), count, bytes, 0);
        if (!accessor.contains("sparse")) return;
        const Json& sparse = accessor["sparse"];
        const std::uint64_t changed = whole(sparse, "count", what + " sparse", true);
        if (changed > count)
            throw fail(what, "sparse count " + std::to_string(changed) + " is above its count " + std::to_string(count));
        for (const char* part : {"indices", "values"}) {
            if (!sparse.is_object() || !sparse.contains(part) || !sparse[part].is_object() || !sparse[part].contains("bufferView"))
                continue;
            const Json& p = sparse[part];
            const std::string where = what + " sparse " + part;
            const std::uint64_t size = std::string(part) == "values" ? bytes : componentSize(whole(p, "componentType", where, true));
            if (size == 0) throw fail(where, "componentType is not 5121, 5123 or 5125");
            fits(where, p["bufferView"], whole(p, "byteOffset", where, false), changed, size, size);
        }
    });
    // Skins: Assimp 5.2.5 reads a skin's inverseBindMatrices without checking that the skin has
    // them (the spec makes them optional: identity matrices); two fuzzed files crashed it.
    const Json* nodes = collection("nodes");
    each(collection("skins"), [&](const Json& key, const Json& skin) {
        const std::string what = name("skin", key);
        if (!skin.is_object() || !skin.contains("inverseBindMatrices"))
            throw fail(what, "has no inverseBindMatrices, which Assimp 5.2.5 needs (it crashed without them)");
        const Json& matrices = find(accessors, skin["inverseBindMatrices"], what, "accessor");
        const std::size_t joints = skin.contains("joints") && skin["joints"].is_array() ? skin["joints"].size() : 0;
        if (!matrices.is_object() || !matrices.contains("type") || matrices["type"] != "MAT4" ||
            whole(matrices, "componentType", what, true) != 5126 || whole(matrices, "count", what, true) < joints)
            throw fail(what, "inverseBindMatrices must be " + std::to_string(joints) + " or more MAT4 float matrices");
        for (std::size_t j = 0; j < joints; ++j) find(nodes, skin["joints"][j], what + " joint", "node");
    });
    // Images: Assimp 5.2.5 takes the file type after the '/' of an embedded image's MIME type
    // without checking there is one (a fuzzed .glb with "imageepng" crashed it in strcmp).
    each(collection("images"), [&](const Json& key, const Json& image) {
        if (!image.is_object()) return;
        const std::string what = name("image", key);
        if (image.contains("bufferView")) find(views, image["bufferView"], what, "bufferView");
        std::string type;
        if (image.contains("mimeType"))
            type = image["mimeType"].is_string() ? image["mimeType"].get<std::string>() : image["mimeType"].dump();
        else if (image.contains("uri") && image["uri"].is_string() && image["uri"].get<std::string>().rfind("data:", 0) == 0)
            type = image["uri"].get<std::string>().substr(5, image["uri"].get<std::string>().find_first_of(";,") - 5);
        else if (!image.contains("bufferView"))
            return;
        if (type.find('/') == std::string::npos || type.find('/') + 1 == type.size())
            throw fail(what, "MIME type '" + type.substr(0, 40) + "' is not of the form image/png");
    });
}

// The glTF extensions the importer reads (KHR_lights_punctual gets a warning of its own).
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
    // nlohmann's parser recurses too, but only as deep as the nesting check above allows. Assimp's
    // own message for malformed JSON is "No suitable reader found": this one says where.
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(json.begin(), json.end());
    } catch (const nlohmann::json::exception& e) {
        std::string why = e.what();
        if (why.rfind("[json.exception.", 0) == 0 && why.find("] ") != std::string::npos)
            why.erase(0, why.find("] ") + 2);
        throw InputError("scene file '" + path + "': its JSON is malformed: " + oneLine(why));
    }
    if (!doc.is_object())
        throw InputError("scene file '" + path + "': its JSON is not an object");
    // glTF 1.0 goes to Assimp's older importer, which crashed on a fuzzed file (an accessor
    // without a bufferView) and is not pre-checked.
    const nlohmann::json* version = doc.contains("asset") && doc["asset"].is_object() && doc["asset"].contains("version")
                                        ? &doc["asset"]["version"]
                                        : nullptr;
    if (!version || !version->is_string() || version->get<std::string>().rfind("2.", 0) != 0)
        throw InputError("scene file '" + path + "': glTF " +
                         (version && version->is_string() ? "version '" + version->get<std::string>().substr(0, 20) + "'"
                                                          : std::string("without asset.version")) +
                         " is not read (glTF 2.0 only; convert it, e.g. 'assimp export " +
                         std::filesystem::path(path).filename().string() + " model.glb' from assimp-utils)");
    checkGltfData(doc, path);
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
