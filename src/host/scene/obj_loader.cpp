// OBJ/MTL loading. The OBJ is parsed here, in one linear pass over the file's bytes: tinyobjloader
// reads "nan" as 0, wraps indices through atoi, triangulates in quadratic time and keeps at most
// 255 corners per face, and we want none of that. MTL files go through tinyobjloader's LoadMtl,
// from memory. Both are read through readInputFile (regular files, size caps).
#include <wavefront/error.h>
#include <wavefront/scene.h>

#include <tiny_obj_loader.h>

#include "host/io/input_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>

namespace wavefront {

namespace {

glm::vec3 toVec3(const tinyobj::real_t* v) { return glm::vec3(float(v[0]), float(v[1]), float(v[2])); }

float maxComponent(const glm::vec3& v) { return std::max({v.x, v.y, v.z}); }

Material convertMaterial(const tinyobj::material_t& m) {
    const glm::vec3 kd = toVec3(m.diffuse), ks = toVec3(m.specular);
    const bool hasSpecular = maxComponent(ks) > 0.0f;
    // Ni defaults to 1 when absent, which would make glass invisible: read that as "not given".
    const float ior = (m.ior > 0 && m.ior != 1) ? float(m.ior) : 1.5f;
    Material out;
    if (m.illum == 3 || m.illum == 5) {
        out = Material::mirror(hasSpecular ? ks : kd);
    } else if (m.illum == 4 || m.illum == 6 || m.illum == 7 || (m.dissolve < 1 && m.ior != 1)) {
        out = Material::dielectric(ior);
    } else if (m.roughness > 0 || m.metallic > 0) {
        // PBR extension (Pr roughness, Pm metallic; the loader cannot tell an explicit 0 from an
        // absent value, so a non-zero one selects it): glTF-style metallic-roughness.
        auto unit = [](double v) { return std::isfinite(v) ? std::clamp(float(v), 0.0f, 1.0f) : 0.0f; };
        glm::vec3 base = glm::clamp(kd, glm::vec3(0.0f), glm::vec3(1.0f));
        out = Material::metallicRoughness(base, unit(m.metallic), unit(m.roughness));
    } else if (hasSpecular) {
        // Exported materials often have Kd + Ks > 1: scale the lobe down rather than reject
        // the file, so that the material does not gain energy.
        glm::vec3 diffuse = glm::min(kd, glm::vec3(1.0f));
        float scale = 1.0f;
        for (int c = 0; c < 3; ++c)
            if (ks[c] > 0 && diffuse[c] + ks[c] > 1.0f)
                scale = std::min(scale, (1.0f - diffuse[c]) / ks[c]);
        out = Material::glossy(diffuse, ks * std::max(scale, 0.0f), std::max(float(m.shininess), 0.0f));
    } else {
        out = Material::lambertian(kd);
    }
    out.emission = toVec3(m.emission);
    return out;
}

// A group of faces sharing a material and whether they carry normals; vertices are shared per
// unique (position, normal) pair.
struct MeshGroup {
    TriangleMesh mesh;
    std::unordered_map<std::uint64_t, std::uint32_t> vertexOf;
};

// Lines end at "\n", "\r\n" or a lone "\r" (old Mac exports), as tinyobjloader reads them.
class LineReader {
public:
    explicit LineReader(std::string_view text) : text_(text) {}
    bool next(std::string_view& line) {
        if (pos_ >= text_.size()) return false;
        std::size_t end = text_.find_first_of("\r\n", pos_);
        if (end == std::string_view::npos) end = text_.size();
        line = text_.substr(pos_, end - pos_);
        pos_ = end + (end < text_.size() && text_[end] == '\r' && end + 1 < text_.size() && text_[end + 1] == '\n' ? 2 : 1);
        ++number_;
        return true;
    }
    std::size_t number() const { return number_; }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t number_ = 0;
};

std::vector<std::string_view> tokens(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t pos = 0;
    while (true) {
        pos = line.find_first_not_of(" \t", pos);
        if (pos == std::string_view::npos) break;
        std::size_t end = std::min(line.find_first_of(" \t", pos), line.size());
        out.push_back(line.substr(pos, end - pos));
        pos = end;
    }
    return out;
}

// The whole token as a number ("nan" and "inf" included: the caller decides); false when it is
// none. Out of the double range reads as an infinity of its sign.
bool parseNumber(std::string_view token, double& value) {
    if (!token.empty() && token[0] == '+') token.remove_prefix(1);  // from_chars takes no '+'
    if (token.empty() || token[0] == '+' || (token[0] == '-' && token.size() > 1 && token[1] == '+')) return false;
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (end != token.data() + token.size()) return false;
    if (ec == std::errc::result_out_of_range) {
        // from_chars leaves `value` alone then; underflow to zero is harmless, overflow is not.
        const bool negative = token[0] == '-';
        const std::size_t e = token.find_first_of("eE");
        const bool tiny = e != std::string_view::npos && e + 1 < token.size() && token[e + 1] == '-';
        value = tiny ? 0.0 : negative ? -HUGE_VAL : HUGE_VAL;
        return true;
    }
    return ec == std::errc();
}

// A vertex index as written: an optional sign and decimal digits. `tooLarge` when its magnitude
// exceeds what any scene can address (2^32 vertices), so that the message can quote the token.
bool parseIndex(std::string_view token, std::int64_t& value, bool& tooLarge) {
    const bool negative = !token.empty() && token[0] == '-';
    if (!token.empty() && (token[0] == '-' || token[0] == '+')) token.remove_prefix(1);
    if (token.empty()) return false;
    std::uint64_t magnitude = 0;
    tooLarge = false;
    for (char c : token) {
        if (c < '0' || c > '9') return false;
        if (magnitude <= (1ull << 32)) magnitude = magnitude * 10 + std::uint64_t(c - '0');
    }
    tooLarge = magnitude > (1ull << 32);
    value = negative ? -std::int64_t(std::min<std::uint64_t>(magnitude, 1ull << 33)) : std::int64_t(std::min<std::uint64_t>(magnitude, 1ull << 33));
    return true;
}

// A face corner: 0-based vertex and normal indices (normal -1: none), resolved at the end of the
// file, when every index can be checked against the counts.
struct Corner {
    std::int64_t vertex;
    std::int64_t normal;
};

struct Face {
    std::size_t firstCorner, corners;
    std::size_t line;
    int materialName;  // index into the usemtl names, -1: none
};

// A vertex a face must not use: where it was defined and why.
struct BadVertex {
    std::size_t line;
    std::string reason;
};

}  // namespace

Scene Scene::loadObj(const std::string& path, const SceneLoadOptions& options) {
    const std::string text = readInputFile(path, InputKind::Obj);

    std::vector<glm::vec3> positions, normals;
    std::unordered_map<std::size_t, BadVertex> badVertices;
    std::vector<Corner> corners;
    std::vector<Face> faces;
    std::vector<std::string> materialNames;  // as written after usemtl, by first use
    std::vector<std::size_t> materialNameLine;  // the line of that first use
    std::map<std::string, int> materialNameIndex;
    std::vector<tinyobj::material_t> materials;
    std::map<std::string, int> materialOf;  // name -> index into materials
    std::vector<std::string> libraries;      // as written after mtllib, each read once
    int currentMaterial = -1;

    LineReader reader(text);
    std::string_view line;
    while (reader.next(line)) {
        const std::string at = path + ":" + std::to_string(reader.number()) + ": ";
        const std::size_t hash = line.find('#');
        const std::vector<std::string_view> words = tokens(line.substr(0, hash));
        if (words.empty()) continue;
        const std::string_view key = words[0];
        if (key == "v" || key == "vn") {
            if (words.size() < 4)
                throw InputError(at + "'" + std::string(key) + "' needs three coordinates");
            double xyz[3];
            for (int k = 0; k < 3; ++k)
                if (!parseNumber(words[k + 1], xyz[k]))
                    throw InputError(at + "'" + std::string(words[k + 1]) + "' is not a number");
            if (key == "vn") {
                // Scene::addMesh replaces unusable normals by the geometric one.
                normals.emplace_back(float(xyz[0]), float(xyz[1]), float(xyz[2]));
                continue;
            }
            const std::string written = std::string(words[1]) + " " + std::string(words[2]) + " " + std::string(words[3]);
            const double largest = std::max({std::fabs(xyz[0]), std::fabs(xyz[1]), std::fabs(xyz[2])});
            // Only a face that uses such a vertex is an error: unused vertices may hold anything.
            if (!(largest <= double(kMaxCoordinate))) {
                std::ostringstream reason;
                if (std::isfinite(xyz[0]) && std::isfinite(xyz[1]) && std::isfinite(xyz[2]))
                    reason << "at (" << written << ") (line " << reader.number() << "): coordinates must lie within +-"
                           << kMaxCoordinate;
                else
                    reason << "with a non-finite position (" << written << ") (line " << reader.number() << ")";
                badVertices[positions.size()] = BadVertex{reader.number(), reason.str()};
                positions.emplace_back(0.0f);
            } else {
                positions.emplace_back(float(xyz[0]), float(xyz[1]), float(xyz[2]));
            }
        } else if (key == "f") {
            Face face{corners.size(), 0, reader.number(), currentMaterial};
            const std::string faceAt = at + "face " + std::to_string(faces.size() + 1) + " ";
            for (std::size_t k = 1; k < words.size(); ++k) {
                // v, v/t, v//n or v/t/n; texture coordinates are not used.
                const std::string_view word = words[k];
                const std::size_t slash = word.find('/');
                const std::size_t slash2 = slash == std::string_view::npos ? slash : word.find('/', slash + 1);
                Corner corner{0, -1};
                auto index = [&](std::string_view token, std::size_t count, const char* what) -> std::int64_t {
                    std::int64_t value = 0;
                    bool tooLarge = false;
                    if (!parseIndex(token, value, tooLarge))
                        throw InputError(faceAt + "corner '" + std::string(word) + "' is not of the form v, v/t, v//n or v/t/n");
                    if (tooLarge)
                        throw InputError(faceAt + "references " + what + " " + std::string(token) +
                                         ", beyond the 2^32 any scene can hold");
                    if (value == 0)
                        throw InputError(faceAt + "references " + what + " 0 (OBJ indices start at 1)");
                    if (value > 0) return value - 1;  // checked at the end, against the final count
                    // Negative: relative to the end of what is defined so far.
                    if (std::int64_t(count) + value < 0)
                        throw InputError(faceAt + "references " + what + " " + std::string(token) + ", before the first (" +
                                         std::to_string(count) + " defined so far)");
                    return std::int64_t(count) + value;
                };
                corner.vertex = index(word.substr(0, slash), positions.size(), "vertex");
                if (slash2 != std::string_view::npos && slash2 + 1 < word.size())
                    corner.normal = index(word.substr(slash2 + 1), normals.size(), "normal");
                else if (slash2 != std::string_view::npos)
                    throw InputError(faceAt + "corner '" + std::string(word) + "' ends in '/' without a normal index");
                corners.push_back(corner);
            }
            face.corners = corners.size() - face.firstCorner;
            if (face.corners < 3) {  // points and lines have no area
                corners.resize(face.firstCorner);
                continue;
            }
            faces.push_back(face);
        } else if (key == "usemtl") {
            if (words.size() < 2)
                throw InputError(at + "'usemtl' needs a material name");
            auto [it, inserted] = materialNameIndex.emplace(std::string(words[1]), int(materialNames.size()));
            if (inserted) {
                materialNames.emplace_back(words[1]);
                materialNameLine.push_back(reader.number());
            }
            currentMaterial = it->second;
        } else if (key == "mtllib") {
            for (std::size_t k = 1; k < words.size(); ++k) {
                const std::string name(words[k]);
                if (std::find(libraries.begin(), libraries.end(), name) != libraries.end()) continue;
                libraries.push_back(name);
                std::filesystem::path file;
                std::istringstream in;
                try {
                    file = resolveReferencedFile(path, name, options.allowExternalFiles);
                } catch (const InputError& e) {
                    throw InputError(at + "mtllib " + e.what());
                }
                try {
                    in.str(readInputFile(file, InputKind::Mtl));
                } catch (const InputError& e) {
                    throw InputError(at + e.what());
                }
                std::string warning, error;
                tinyobj::LoadMtl(&materialOf, &materials, &in, &warning, &error);
                if (!error.empty())
                    throw InputError("material library '" + file.string() + "': " + oneLine(error));
            }
        }
        // Everything else (vt, o, g, s, l, p, curves) does not change what is rendered.
    }
    if (faces.empty())
        throw InputError("OBJ file '" + path + "' contains no faces");

    Scene scene;
    std::vector<int> materialIndex;
    for (const tinyobj::material_t& m : materials) {
        try {
            materialIndex.push_back(scene.addMaterial(convertMaterial(m)));
        } catch (const InputError& e) {
            throw InputError(path + ": material '" + m.name + "': " + e.what());
        }
    }
    int defaultMaterial = -1;

    std::map<std::pair<int, bool>, MeshGroup> groups;
    glm::vec3 lower(std::numeric_limits<float>::infinity()), upper(-std::numeric_limits<float>::infinity());
    const std::size_t vertexCount = positions.size(), normalCount = normals.size();
    for (std::size_t f = 0; f < faces.size(); ++f) {
        const Face& face = faces[f];
        const Corner* corner = corners.data() + face.firstCorner;
        const std::string where = path + ":" + std::to_string(face.line) + ": face " + std::to_string(f + 1);
        bool hasNormals = true;
        for (std::size_t k = 0; k < face.corners; ++k) {
            const Corner& c = corner[k];
            if (c.vertex < 0 || std::uint64_t(c.vertex) >= vertexCount)
                throw InputError(where + " references vertex " + std::to_string(c.vertex + 1) + ", but the file has " +
                                 std::to_string(vertexCount) + " vertices");
            if (c.normal >= 0 && std::uint64_t(c.normal) >= normalCount)
                throw InputError(where + " references normal " + std::to_string(c.normal + 1) + ", but the file has " +
                                 std::to_string(normalCount) + " normals");
            auto bad = badVertices.find(std::size_t(c.vertex));
            if (bad != badVertices.end())
                throw InputError(where + " uses vertex " + std::to_string(c.vertex + 1) + " " + bad->second.reason);
            hasNormals = hasNormals && c.normal >= 0;
        }

        int material = -1;
        if (face.materialName >= 0) {
            auto it = materialOf.find(materialNames[std::size_t(face.materialName)]);
            if (it != materialOf.end() && std::size_t(it->second) < materialIndex.size())
                material = materialIndex[std::size_t(it->second)];
            else if (!libraries.empty())
                // A typo here would otherwise surface as "scene has no emitter".
                throw InputError(where + " uses material '" + materialNames[std::size_t(face.materialName)] +
                                 "' (usemtl on line " + std::to_string(materialNameLine[std::size_t(face.materialName)]) +
                                 "), which no material library of the file defines");
        }
        if (material < 0) {
            if (defaultMaterial < 0) defaultMaterial = scene.addMaterial(Material::lambertian(glm::vec3(0.8f)));
            material = defaultMaterial;
        }

        MeshGroup& group = groups[{material, hasNormals}];
        group.mesh.material = material;
        auto vertex = [&](const Corner& c) {
            std::uint64_t key = (std::uint64_t(c.vertex) << 32) | std::uint32_t(hasNormals ? c.normal : 0);
            auto [it, inserted] = group.vertexOf.emplace(key, std::uint32_t(group.mesh.positions.size()));
            if (inserted) {
                const glm::vec3 p = positions[std::size_t(c.vertex)];
                group.mesh.positions.push_back(p);
                if (hasNormals) group.mesh.normals.push_back(normals[std::size_t(c.normal)]);
                lower = glm::min(lower, p);
                upper = glm::max(upper, p);
            }
            return it->second;
        };
        auto triangle = [&](std::size_t a, std::size_t b, std::size_t c) {
            group.mesh.indices.insert(group.mesh.indices.end(), {vertex(corner[a]), vertex(corner[b]), vertex(corner[c])});
        };
        if (face.corners == 4) {
            // Along the shorter diagonal, as tinyobjloader splits quads (the same triangles as before).
            const glm::vec3 p[4] = {positions[std::size_t(corner[0].vertex)], positions[std::size_t(corner[1].vertex)],
                                    positions[std::size_t(corner[2].vertex)], positions[std::size_t(corner[3].vertex)]};
            const glm::vec3 d02 = p[2] - p[0], d13 = p[3] - p[1];
            if (glm::dot(d02, d02) < glm::dot(d13, d13)) {
                triangle(0, 1, 2);
                triangle(0, 2, 3);
            } else {
                triangle(0, 1, 3);
                triangle(1, 2, 3);
            }
        } else {
            // A fan: linear in the corners (exact for convex polygons).
            for (std::size_t k = 1; k + 1 < face.corners; ++k) triangle(0, k, k + 1);
        }
    }

    for (auto& [key, group] : groups) {
        group.vertexOf.clear();
        scene.addMesh(group.mesh);
    }

    // OBJ has no camera: frame the bounding box (its bounding sphere fits 40 degrees vertically).
    scene.frameCamera();
    return scene;
}

}  // namespace wavefront
