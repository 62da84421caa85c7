// PLY data after the header, in one pass: each value read by its declared type, in the file's
// byte order or as ASCII text.
#include "host/loaders/pbrt/ply_reader.h"

#include <wavefront/error.h>

#include "host/loaders/import_checks.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace wavefront::pbrt {

namespace {

class ValueReader {
public:
    ValueReader(const std::string& bytes, const PlyHeader& header, const std::string& path)
        : bytes_(bytes), pos_(header.dataOffset), ascii_(header.format == PlyHeader::Ascii),
          bigEndian_(header.format == PlyHeader::BinaryBigEndian), path_(path) {}

    double next(const std::string& type) { return ascii_ ? nextText() : nextBinary(type); }

    [[noreturn]] void fail(const std::string& why) const {
        throw InputError("PLY file '" + path_ + "': " + why + " (at byte " + std::to_string(pos_) + ")");
    }

private:
    double nextText() {
        const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
        while (pos_ < bytes_.size() && isSpace(bytes_[pos_])) ++pos_;
        const std::size_t start = pos_;
        while (pos_ < bytes_.size() && !isSpace(bytes_[pos_])) ++pos_;
        if (start == pos_) fail("the data ends before the header's elements do");
        const char* first = bytes_.data() + start;
        if (*first == '+') ++first;
        double value = 0.0;
        const auto [end, ec] = std::from_chars(first, bytes_.data() + pos_, value);
        if (ec != std::errc() || end != bytes_.data() + pos_ || !std::isfinite(value))
            fail("'" + bytes_.substr(start, std::min<std::size_t>(pos_ - start, 40)) + "' is not a finite number");
        return value;
    }

    double nextBinary(const std::string& type) {
        const std::size_t size = std::size_t(plyTypeSize(type));
        if (bytes_.size() - pos_ < size) fail("the data ends before the header's elements do");
        unsigned char raw[8];
        std::memcpy(raw, bytes_.data() + pos_, size);
        pos_ += size;
        // The host is little-endian (x86-64, aarch64).
        if (bigEndian_)
            for (std::size_t i = 0; i < size / 2; ++i) std::swap(raw[i], raw[size - 1 - i]);
        auto as = [&](auto value) {
            std::memcpy(&value, raw, sizeof value);
            return double(value);
        };
        if (type == "char" || type == "int8") return as(std::int8_t());
        if (type == "uchar" || type == "uint8") return as(std::uint8_t());
        if (type == "short" || type == "int16") return as(std::int16_t());
        if (type == "ushort" || type == "uint16") return as(std::uint16_t());
        if (type == "int" || type == "int32") return as(std::int32_t());
        if (type == "uint" || type == "uint32") return as(std::uint32_t());
        if (type == "float" || type == "float32") return as(float());
        return as(double());
    }

    const std::string& bytes_;
    std::size_t pos_;
    bool ascii_, bigEndian_;
    const std::string& path_;
};

// A list's length as stored: a non-negative integer.
std::size_t listLength(ValueReader& reader, const PlyProperty& p) {
    const double n = reader.next(p.countType);
    if (!(n >= 0.0 && n == std::floor(n) && n <= 1e9)) reader.fail("list '" + p.name + "' has a length of " + std::to_string(n));
    return std::size_t(n);
}

}  // namespace

PlyMesh readPlyMesh(const std::string& bytes, const std::string& path, std::size_t maxTriangles) {
    const PlyHeader header = readPlyHeader(bytes, path);
    ValueReader reader(bytes, header, path);
    PlyMesh mesh;
    mesh.warnings = header.warnings;
    // Where each vertex property goes: 0-2 position, 3-5 normal, 6-7 texture coordinates.
    const char* const names[][8] = {{"x", "y", "z", "nx", "ny", "nz", "u", "v"},
                                    {"x", "y", "z", "nx", "ny", "nz", "s", "t"},
                                    {"x", "y", "z", "nx", "ny", "nz", "texture_u", "texture_v"},
                                    {"x", "y", "z", "nx", "ny", "nz", "texture_s", "texture_t"}};
    std::vector<std::uint32_t> corners;
    bool sawVertices = false;
    for (const PlyElement& element : header.elements) {
        if (element.name == "vertex" && !sawVertices) {
            sawVertices = true;
            std::vector<int> slot(element.properties.size(), -1);
            bool present[8] = {};
            for (std::size_t p = 0; p < element.properties.size(); ++p)
                for (const auto& set : names)
                    for (int s = 0; s < 8; ++s)
                        if (element.properties[p].countType.empty() && element.properties[p].name == set[s] && slot[p] < 0 &&
                            !present[s]) {
                            slot[p] = s;
                            present[s] = true;
                        }
            if (!present[0] || !present[1] || !present[2]) reader.fail("element 'vertex' lacks x, y or z");
            const bool normals = present[3] && present[4] && present[5], uvs = present[6] && present[7];
            mesh.positions.resize(std::size_t(element.count));
            if (normals) mesh.normals.resize(std::size_t(element.count));
            if (uvs) mesh.uvs.resize(std::size_t(element.count));
            for (std::uint64_t i = 0; i < element.count; ++i) {
                double value[8] = {};
                for (std::size_t p = 0; p < element.properties.size(); ++p) {
                    const PlyProperty& property = element.properties[p];
                    if (!property.countType.empty()) {
                        for (std::size_t n = listLength(reader, property); n > 0; --n) reader.next(property.type);
                        continue;
                    }
                    const double v = reader.next(property.type);
                    if (slot[p] >= 0) value[slot[p]] = v;
                }
                mesh.positions[i] = glm::vec3(float(value[0]), float(value[1]), float(value[2]));
                if (normals) mesh.normals[i] = glm::vec3(float(value[3]), float(value[4]), float(value[5]));
                if (uvs) mesh.uvs[i] = glm::vec2(float(value[6]), float(value[7]));
            }
            continue;
        }
        const bool faces = element.name == "face";
        for (std::uint64_t i = 0; i < element.count; ++i) {
            for (const PlyProperty& property : element.properties) {
                const bool indexList = faces && !property.countType.empty() &&
                                       (property.name == "vertex_indices" || property.name == "vertex_index");
                if (property.countType.empty()) {
                    reader.next(property.type);
                    continue;
                }
                const std::size_t n = listLength(reader, property);
                corners.clear();
                for (std::size_t k = 0; k < n; ++k) {
                    const double v = reader.next(property.type);
                    if (!indexList) continue;
                    if (!(v >= 0.0 && v == std::floor(v) && v < 4294967296.0))
                        reader.fail("face " + std::to_string(i) + " has the vertex index " + std::to_string(v));
                    corners.push_back(std::uint32_t(v));
                }
                if (!indexList) continue;
                if (n != 3 && n != 4) {
                    ++mesh.skippedFaces;
                    continue;
                }
                mesh.indices.insert(mesh.indices.end(), {corners[0], corners[1], corners[2]});
                if (n == 4) mesh.indices.insert(mesh.indices.end(), {corners[0], corners[2], corners[3]});
                if (mesh.indices.size() / 3 > maxTriangles)
                    throw InputError("PLY file '" + path + "': more than " + std::to_string(maxTriangles) +
                                     " triangles, the most the scene may still take");
            }
        }
    }
    for (std::uint32_t index : mesh.indices)
        if (index >= mesh.positions.size())
            throw InputError("PLY file '" + path + "': a face uses vertex " + std::to_string(index) + " of " +
                             std::to_string(mesh.positions.size()));
    return mesh;
}

}  // namespace wavefront::pbrt
