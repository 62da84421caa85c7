// OBJ/MTL loading. The OBJ is parsed here, in one linear pass over the file's bytes: tinyobjloader
// reads "nan" as 0, wraps indices through atoi, triangulates in quadratic time and keeps at most
// 255 corners per face, and we want none of that. MTL files go through tinyobjloader's LoadMtl,
// from memory. Both are read through readInputFile (regular files, size caps, UTF-16 decoded,
// NUL bytes refused), and so are the textures the materials name (map_Kd, map_Ke, norm), through
// readTexture. Polygons are triangulated by triangulatePolygon, the rule PLY polygons follow too.
#include <wavefront/error.h>
#include <wavefront/scene.h>

#include <tiny_obj_loader.h>

#include "host/io/input_file.h"
#include "host/io/texture_io.h"
#include "host/loaders/triangulate.h"

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
#include <tuple>
#include <unordered_map>

namespace wavefront {

namespace {

glm::vec3 toVec3(const tinyobj::real_t* v) { return glm::vec3(float(v[0]), float(v[1]), float(v[2])); }

float maxComponent(const glm::vec3& v) { return std::max({v.x, v.y, v.z}); }

// `implicitKd`: the material has a map_Kd and no Kd line. Its texture then stands alone: Kd = 1,
// or 1 - max(Ks) for a glossy material, so that the specular lobe keeps the strength written in the
// file (an explicit Kd + Ks above 1 scales Ks down instead).
Material convertMaterial(const tinyobj::material_t& m, bool implicitKd = false) {
    const glm::vec3 ks = toVec3(m.specular);
    const bool hasSpecular = maxComponent(ks) > 0.0f;
    glm::vec3 kd = toVec3(m.diffuse);
    if (implicitKd) kd = glm::vec3(1.0f);
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
        if (implicitKd) kd = glm::vec3(std::max(1.0f - maxComponent(ks), 0.0f));
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

// A mesh vertex as the faces name it: position, texture coordinate and normal indices (0 for a
// part the group does not carry).
struct VertexKey {
    std::uint32_t position, texcoord, normal;
    bool operator==(const VertexKey& o) const {
        return position == o.position && texcoord == o.texcoord && normal == o.normal;
    }
};

struct VertexKeyHash {
    std::size_t operator()(const VertexKey& k) const {
        std::uint64_t h = (std::uint64_t(k.position) << 32 | k.normal) * 0x9E3779B97F4A7C15ull;
        h ^= (std::uint64_t(k.texcoord) + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull;
        return std::size_t(h ^ (h >> 31));
    }
};

// A group of faces sharing a material and whether they carry normals and texture coordinates;
// vertices are shared per unique (position, texture coordinate, normal) triple, so that a vertex
// on a texture seam stays one vertex per texture coordinate.
struct MeshGroup {
    TriangleMesh mesh;
    std::unordered_map<VertexKey, std::uint32_t, VertexKeyHash> vertexOf;
};

// Checks an MTL file's numbers and says which materials have a Kd line, in the order
// tinyobjloader's LoadMtl adds them (one per `newmtl` line; a Kd before the first belongs to
// none). LoadMtl cannot tell: it gives an absent Kd 0, or 0.6 when map_Kd comes first and no Kd
// appeared earlier in the file. It also reads a value that is not a number ("nan", "1,5") as 0:
// colour and scalar lines whose values are not finite numbers throw InputError, naming the line.
std::vector<bool> scanMtl(std::string_view text, const std::string& file);

// How a material's base colour texture maps (map_Kd's -s and -o, in OBJ's convention, v upwards).
struct TextureMapping {
    glm::vec2 scale{1.0f}, offset{0.0f};
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

// A face corner: 0-based vertex, texture coordinate and normal indices (-1: none), resolved at the
// end of the file, when every index can be checked against the counts.
struct Corner {
    std::int64_t vertex;
    std::int64_t texcoord;
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

// A texture an MTL names (`keyword`: map_Kd, map_Ke or norm, with its options) as a scene texture
// (added once per file and colour space: `cache` maps the canonical path and sRGB-ness to its
// index), and how it maps (-s, -o). Options that do not apply are named in a warning.
struct TextureLoad {
    Scene& scene;
    const SceneLoadOptions& options;
    std::map<std::pair<std::string, bool>, int>& cache;
};

int loadMtlTexture(TextureLoad& load, const tinyobj::material_t& m, const std::string& library, const char* keyword,
                   const std::string& name, const tinyobj::texture_option_t& o, bool colour, TextureMapping* mapping) {
    namespace fs = std::filesystem;
    Scene& scene = load.scene;
    const std::string material = "material library '" + library + "': material '" + m.name + "': " + keyword;
    const std::string where = material + " '" + name + "'";
    for (int k = 0; k < 2; ++k)
        if (!std::isfinite(double(o.scale[k])) || !std::isfinite(double(o.origin_offset[k])))
            throw InputError(where + ": -s and -o must be finite numbers");
    if (mapping) {
        mapping->scale = glm::vec2(float(o.scale[0]), float(o.scale[1]));
        mapping->offset = glm::vec2(float(o.origin_offset[0]), float(o.origin_offset[1]));
    } else if (o.scale[0] != 1 || o.scale[1] != 1 || o.origin_offset[0] != 0 || o.origin_offset[1] != 0) {
        scene.addWarning(where + ": -s and -o apply to map_Kd only (the texture coordinates are shared); ignored");
    }
    bool srgb = colour;  // colour textures are sRGB, data (normal maps) linear, unless -colorspace says
    if (o.colorspace == "linear")
        srgb = false;
    else if (o.colorspace == "sRGB" || o.colorspace == "srgb")
        srgb = true;
    else if (!o.colorspace.empty())
        scene.addWarning(where + ": -colorspace '" + o.colorspace + "' is not known (sRGB or linear); ignored");
    if (o.clamp) scene.addWarning(where + ": -clamp is not supported; the texture repeats");
    if (o.brightness != 0 || o.contrast != 1) scene.addWarning(where + ": -mm is not supported; ignored");
    if (o.turbulence[0] != 0 || o.turbulence[1] != 0 || o.turbulence[2] != 0)
        scene.addWarning(where + ": -t is not supported; ignored");

    fs::path file;
    try {
        file = resolveReferencedFile(library, name, load.options.allowExternalFiles);
        // Windows exports write "textures\\wood.png": read the backslashes as separators when the
        // name as written names no file.
        if (name.find('\\') != std::string::npos) {
            std::error_code ec;
            if (!fs::exists(file, ec)) {
                std::string slashed = name;
                std::replace(slashed.begin(), slashed.end(), '\\', '/');
                file = resolveReferencedFile(library, slashed, load.options.allowExternalFiles);
            }
        }
    } catch (const InputError& e) {
        throw InputError(material + " " + e.what());
    }
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(fs::absolute(file, ec), ec);
    if (ec) canonical = file;
    auto [it, inserted] = load.cache.emplace(std::make_pair(canonical.string(), srgb), -1);
    if (!inserted) return it->second;
    try {
        Texture texture = readTexture(file.string(), texelsLeft(scene, load.options.maxTextureTexels));
        texture.srgb = srgb;
        it->second = scene.addTexture(std::move(texture));
    } catch (const InputError& e) {
        load.cache.erase(it);
        throw InputError(where + ": " + oneLine(e.what()));
    }
    return it->second;
}

// The textures of a material that faces use: map_Kd (base colour), map_Ke (emission) and norm
// (a tangent-space normal map) are read; the others are named in a warning, as they are ignored.
void loadMtlTextures(TextureLoad& load, const tinyobj::material_t& m, const std::string& library, Material& material,
                     TextureMapping& mapping) {
    const std::string prefix = "material library '" + library + "': material '" + m.name + "': ";
    if (!m.diffuse_texname.empty()) {
        if (material.type == MaterialType::Lambertian || material.type == MaterialType::Glossy ||
            material.type == MaterialType::MetallicRoughness)
            material.baseColorTexture =
                loadMtlTexture(load, m, library, "map_Kd", m.diffuse_texname, m.diffuse_texopt, true, &mapping);
        else
            load.scene.addWarning(prefix + "map_Kd '" + m.diffuse_texname +
                                  "' is not used (mirror and glass materials take no texture)");
    }
    if (!m.emissive_texname.empty()) {
        if (material.isEmissive())
            material.emissionTexture =
                loadMtlTexture(load, m, library, "map_Ke", m.emissive_texname, m.emissive_texopt, true, nullptr);
        else
            load.scene.addWarning(prefix + "map_Ke '" + m.emissive_texname +
                                  "' is not used: it scales Ke, which the material does not have");
    }
    if (!m.normal_texname.empty()) {
        material.normalTexture = loadMtlTexture(load, m, library, "norm", m.normal_texname, m.normal_texopt, false, nullptr);
        const float scale = float(m.normal_texopt.bump_multiplier);  // -bm
        material.normalScale = std::isfinite(scale) ? std::clamp(scale, -1e3f, 1e3f) : 1.0f;
    }
    const std::pair<const char*, const std::string*> ignored[] = {
        {"map_Ka", &m.ambient_texname},         {"map_Ks", &m.specular_texname}, {"map_Ns", &m.specular_highlight_texname},
        {"bump (a height map; a normal map goes in 'norm')", &m.bump_texname},   {"disp", &m.displacement_texname},
        {"map_d", &m.alpha_texname},            {"refl", &m.reflection_texname}, {"map_Pr", &m.roughness_texname},
        {"map_Pm", &m.metallic_texname},        {"map_Ps", &m.sheen_texname}};
    for (const auto& [keyword, name] : ignored)
        if (!name->empty())
            load.scene.addWarning(prefix + keyword + " '" + *name + "' is not supported; ignored");
}

std::vector<bool> scanMtl(std::string_view text, const std::string& file) {
    std::vector<bool> hasKd;
    LineReader reader(text);
    std::string_view line;
    while (reader.next(line)) {
        const std::size_t hash = line.find('#');
        if (hash != std::string_view::npos) line = line.substr(0, hash);
        const std::vector<std::string_view> words = tokens(line);
        if (words.empty()) continue;
        const std::string_view keyword = words[0];
        if (keyword == "newmtl") {
            hasKd.push_back(false);
            continue;
        }
        if (keyword == "Kd" && !hasKd.empty()) hasKd.back() = true;
        // Colours take one to three numbers, scalars one (what LoadMtl reads of them).
        const bool colour = keyword == "Ka" || keyword == "Kd" || keyword == "Ks" || keyword == "Ke" || keyword == "Kt" ||
                            keyword == "Tf";
        const bool scalar = keyword == "Ns" || keyword == "Ni" || keyword == "d" || keyword == "Tr" || keyword == "Pr" ||
                            keyword == "Pm" || keyword == "Ps" || keyword == "Pc" || keyword == "Pcr" || keyword == "aniso" ||
                            keyword == "anisor";
        if (!colour && !scalar) continue;
        const std::size_t count = std::min<std::size_t>(words.size() - 1, colour ? 3 : 1);
        const std::string at = file + ":" + std::to_string(reader.number()) + ": ";
        if (count == 0)
            throw InputError(at + std::string(keyword) + " has no value");
        for (std::size_t k = 1; k <= count; ++k) {
            double value = 0.0;
            if (!parseNumber(words[k], value) || !std::isfinite(value))
                throw InputError(at + std::string(keyword) + " value '" + std::string(words[k].substr(0, 40)) +
                                 "' is not a finite number");
        }
    }
    return hasKd;
}

}  // namespace

Scene Scene::loadObj(const std::string& path, const SceneLoadOptions& options) {
    const std::string text = textOfFile(readInputFile(path, InputKind::Obj), "OBJ file '" + path + "'");

    std::vector<glm::vec3> positions, normals;
    std::vector<glm::vec2> texcoords;  // as written: v upwards
    std::unordered_map<std::size_t, BadVertex> badVertices, badTexcoords;
    std::vector<Corner> corners;
    std::vector<Face> faces;
    std::vector<std::string> materialNames;  // as written after usemtl, by first use
    std::vector<std::size_t> materialNameLine;  // the line of that first use
    std::map<std::string, int> materialNameIndex;
    std::vector<tinyobj::material_t> materials;
    std::map<std::string, int> materialOf;  // name -> index into materials
    std::vector<std::string> materialLibrary;  // per material: the MTL file that defines it
    std::vector<bool> materialHasKd;           // per material: whether it has a Kd line
    std::vector<std::string> libraries;      // as written after mtllib, each read once
    int currentMaterial = -1;
    std::size_t emptyUsemtlLine = 0;  // the first usemtl without a name, 0: none

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
        } else if (key == "vt") {
            // u [v [w]]: v defaults to 0, w is not used.
            if (words.size() < 2)
                throw InputError(at + "'vt' needs a texture coordinate");
            double uvw[3] = {0.0, 0.0, 0.0};
            for (std::size_t k = 1; k < words.size() && k <= 3; ++k)
                if (!parseNumber(words[k], uvw[k - 1]))
                    throw InputError(at + "'" + std::string(words[k]) + "' is not a number");
            const double largest = std::max(std::fabs(uvw[0]), std::fabs(uvw[1]));
            // As for vertices, only a face that uses it makes a bad one an error.
            if (!(largest <= double(std::numeric_limits<float>::max()))) {
                std::string written(words[1]);
                if (words.size() > 2) written += " " + std::string(words[2]);
                const bool finite = std::isfinite(uvw[0]) && std::isfinite(uvw[1]);
                badTexcoords[texcoords.size()] =
                    BadVertex{reader.number(), "(" + written + ") (line " + std::to_string(reader.number()) + "), which is " +
                                                   (finite ? "beyond the float range" : "not finite")};
                texcoords.emplace_back(0.0f);
            } else {
                texcoords.emplace_back(float(uvw[0]), float(uvw[1]));
            }
        } else if (key == "f") {
            Face face{corners.size(), 0, reader.number(), currentMaterial};
            const std::string faceAt = at + "face " + std::to_string(faces.size() + 1) + " ";
            for (std::size_t k = 1; k < words.size(); ++k) {
                // v, v/t, v//n or v/t/n.
                const std::string_view word = words[k];
                const std::size_t slash = word.find('/');
                const std::size_t slash2 = slash == std::string_view::npos ? slash : word.find('/', slash + 1);
                Corner corner{0, -1, -1};
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
                if (slash != std::string_view::npos) {
                    // "v/" and "v//n" name no texture coordinate.
                    const std::string_view t = word.substr(slash + 1, slash2 == std::string_view::npos ? slash2 : slash2 - slash - 1);
                    if (!t.empty()) corner.texcoord = index(t, texcoords.size(), "texture coordinate");
                }
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
            // The name is the rest of the line, spaces included, as LoadMtl reads newmtl (exporters
            // write "usemtl Hard Shiny Plastic White"); a usemtl without one means the default.
            std::string_view rest = line.substr(0, hash);
            rest.remove_prefix(std::min(rest.size(), rest.find(key) + key.size()));
            const std::size_t first = rest.find_first_not_of(" \t"), last = rest.find_last_not_of(" \t");
            if (first == std::string_view::npos) {
                if (emptyUsemtlLine == 0) emptyUsemtlLine = reader.number();
                currentMaterial = -1;
                continue;
            }
            const std::string name(rest.substr(first, last - first + 1));
            auto [it, inserted] = materialNameIndex.emplace(name, int(materialNames.size()));
            if (inserted) {
                materialNames.push_back(name);
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
                    in.str(textOfFile(readInputFile(file, InputKind::Mtl), "material library '" + file.string() + "'"));
                } catch (const InputError& e) {
                    throw InputError(at + e.what());
                }
                std::string warning, error;
                const std::size_t before = materials.size();
                tinyobj::LoadMtl(&materialOf, &materials, &in, &warning, &error);
                if (!error.empty())
                    throw InputError("material library '" + file.string() + "': " + oneLine(error));
                std::vector<bool> hasKd = scanMtl(in.str(), file.string());
                if (hasKd.size() != materials.size() - before) {
                    // Not the materials LoadMtl made: go by value (0 and LoadMtl's 0.6 read as absent).
                    hasKd.clear();
                    for (std::size_t i = before; i < materials.size(); ++i) {
                        const glm::vec3 kd = toVec3(materials[i].diffuse);
                        hasKd.push_back(kd != glm::vec3(0.0f) && kd != glm::vec3(tinyobj::real_t(0.6)));
                    }
                }
                materialHasKd.insert(materialHasKd.end(), hasKd.begin(), hasKd.end());
                materialLibrary.resize(materials.size(), file.string());
            }
        }
        // Everything else (o, g, s, l, p, curves) does not change what is rendered.
    }
    if (faces.empty())
        throw InputError("OBJ file '" + path + "' contains no faces");

    // Textures are read for the materials that faces use only.
    std::vector<bool> nameUsed(materialNames.size(), false), materialUsed(materials.size(), false);
    for (const Face& face : faces)
        if (face.materialName >= 0) nameUsed[std::size_t(face.materialName)] = true;
    for (std::size_t n = 0; n < materialNames.size(); ++n) {
        auto it = materialOf.find(materialNames[n]);
        if (nameUsed[n] && it != materialOf.end() && std::size_t(it->second) < materials.size())
            materialUsed[std::size_t(it->second)] = true;
    }

    Scene scene;
    if (emptyUsemtlLine > 0)
        scene.addWarning(path + ":" + std::to_string(emptyUsemtlLine) +
                         ": usemtl without a material name; the faces after it take the default material");
    std::vector<int> materialIndex;
    // Per scene material: how its texture maps, and its name for warnings when it has one.
    std::vector<TextureMapping> mappingOf;
    std::vector<std::string> texturedName;
    std::map<std::pair<std::string, bool>, int> textureOf;
    TextureLoad textureLoad{scene, options, textureOf};
    for (std::size_t i = 0; i < materials.size(); ++i) {
        const tinyobj::material_t& m = materials[i];
        const bool hasMap = !m.diffuse_texname.empty();
        Material material = convertMaterial(m, hasMap && !materialHasKd[i]);
        TextureMapping mapping;
        if (materialUsed[i]) loadMtlTextures(textureLoad, m, materialLibrary[i], material, mapping);
        try {
            materialIndex.push_back(scene.addMaterial(material));
        } catch (const InputError& e) {
            throw InputError(path + ": material '" + m.name + "': " + e.what());
        }
        mappingOf.push_back(mapping);
        const bool textured = material.baseColorTexture >= 0 || material.emissionTexture >= 0 || material.normalTexture >= 0;
        texturedName.push_back(textured ? m.name : std::string());
    }
    int defaultMaterial = -1;

    std::map<std::tuple<int, bool, bool>, MeshGroup> groups;
    std::map<int, std::size_t> facesWithoutUvs;  // per textured scene material
    glm::vec3 lower(std::numeric_limits<float>::infinity()), upper(-std::numeric_limits<float>::infinity());
    const std::size_t vertexCount = positions.size(), normalCount = normals.size(), texcoordCount = texcoords.size();
    std::vector<glm::vec3> polygon;       // one face's corners
    std::vector<std::uint32_t> triangles;  // its triangles, as corner numbers
    std::size_t approximatePolygonLine = 0;  // the first face fanned in part, 0: none
    std::vector<bool> warnedName(materialNames.size(), false);  // per usemtl name that names no material
    for (std::size_t f = 0; f < faces.size(); ++f) {
        const Face& face = faces[f];
        const Corner* corner = corners.data() + face.firstCorner;
        const std::string where = path + ":" + std::to_string(face.line) + ": face " + std::to_string(f + 1);
        bool hasNormals = true, hasUvs = true;
        for (std::size_t k = 0; k < face.corners; ++k) {
            const Corner& c = corner[k];
            if (c.vertex < 0 || std::uint64_t(c.vertex) >= vertexCount)
                throw InputError(where + " references vertex " + std::to_string(c.vertex + 1) + ", but the file has " +
                                 std::to_string(vertexCount) + " vertices");
            if (c.normal >= 0 && std::uint64_t(c.normal) >= normalCount)
                throw InputError(where + " references normal " + std::to_string(c.normal + 1) + ", but the file has " +
                                 std::to_string(normalCount) + " normals");
            if (c.texcoord >= 0 && std::uint64_t(c.texcoord) >= texcoordCount)
                throw InputError(where + " references texture coordinate " + std::to_string(c.texcoord + 1) +
                                 ", but the file has " + std::to_string(texcoordCount) + " texture coordinates");
            auto bad = badVertices.find(std::size_t(c.vertex));
            if (bad != badVertices.end())
                throw InputError(where + " uses vertex " + std::to_string(c.vertex + 1) + " " + bad->second.reason);
            hasNormals = hasNormals && c.normal >= 0;
            // A face with a corner without one has none (as for normals).
            hasUvs = hasUvs && c.texcoord >= 0;
        }
        if (hasUvs)
            for (std::size_t k = 0; k < face.corners; ++k) {
                auto bad = badTexcoords.find(std::size_t(corner[k].texcoord));
                if (bad != badTexcoords.end())
                    throw InputError(where + " uses texture coordinate " + std::to_string(corner[k].texcoord + 1) + " " +
                                     bad->second.reason);
            }

        int material = -1;
        if (face.materialName >= 0) {
            auto it = materialOf.find(materialNames[std::size_t(face.materialName)]);
            if (it != materialOf.end() && std::size_t(it->second) < materialIndex.size())
                material = materialIndex[std::size_t(it->second)];
            else if (!warnedName[std::size_t(face.materialName)]) {
                // One rule, with or without mtllib: named in a warning (a typo would otherwise
                // surface as "scene has no emitter"), and the faces drawn.
                warnedName[std::size_t(face.materialName)] = true;
                scene.addWarning(path + ":" + std::to_string(materialNameLine[std::size_t(face.materialName)]) +
                                 ": usemtl '" + materialNames[std::size_t(face.materialName)] + "' names no material " +
                                 (libraries.empty() ? "(the file has no mtllib)" : "of the file's material libraries") +
                                 "; its faces take the default material");
            }
        }
        if (material < 0) {
            if (defaultMaterial < 0) defaultMaterial = scene.addMaterial(Material::lambertian(glm::vec3(0.8f)));
            material = defaultMaterial;
        }

        const bool textured = std::size_t(material) < texturedName.size() && !texturedName[std::size_t(material)].empty();
        if (textured && !hasUvs) ++facesWithoutUvs[material];
        const TextureMapping mapping =
            std::size_t(material) < mappingOf.size() ? mappingOf[std::size_t(material)] : TextureMapping{};

        MeshGroup& group = groups[{material, hasNormals, hasUvs}];
        group.mesh.material = material;
        auto vertex = [&](const Corner& c) {
            const VertexKey key{std::uint32_t(c.vertex), hasUvs ? std::uint32_t(c.texcoord) : 0u,
                                hasNormals ? std::uint32_t(c.normal) : 0u};
            auto [it, inserted] = group.vertexOf.emplace(key, std::uint32_t(group.mesh.positions.size()));
            if (inserted) {
                const glm::vec3 p = positions[std::size_t(c.vertex)];
                group.mesh.positions.push_back(p);
                if (hasNormals) group.mesh.normals.push_back(normals[std::size_t(c.normal)]);
                if (hasUvs) {
                    // map_Kd's -s and -o in OBJ's convention, then v flipped: (0, 0) is the top-left corner.
                    const glm::vec2 t = texcoords[std::size_t(c.texcoord)] * mapping.scale + mapping.offset;
                    const glm::vec2 uv(t.x, 1.0f - t.y);
                    if (!std::isfinite(uv.x) || !std::isfinite(uv.y))
                        throw InputError(where + " uses texture coordinate " + std::to_string(c.texcoord + 1) +
                                         ", which map_Kd's -s and -o take beyond the float range");
                    group.mesh.uvs.push_back(uv);
                }
                lower = glm::min(lower, p);
                upper = glm::max(upper, p);
            }
            return it->second;
        };
        polygon.clear();
        for (std::size_t k = 0; k < face.corners; ++k) polygon.push_back(positions[std::size_t(corner[k].vertex)]);
        triangles.clear();
        if (!triangulatePolygon(polygon, triangles) && approximatePolygonLine == 0) approximatePolygonLine = face.line;
        for (std::uint32_t k : triangles) group.mesh.indices.push_back(vertex(corner[k]));
    }
    if (approximatePolygonLine > 0)
        scene.addWarning(path + ":" + std::to_string(approximatePolygonLine) +
                         ": a polygon that intersects itself (or one too hostile to clip in bounded time) was "
                         "triangulated in part as a fan; so may be others");

    for (const auto& [material, count] : facesWithoutUvs)
        scene.addWarning(path + ": " + std::to_string(count) + (count == 1 ? " face uses" : " faces use") +
                         " the textured material '" + texturedName[std::size_t(material)] +
                         "' without texture coordinates; they show the texture's colour at (0, 0)");
    for (auto& [key, group] : groups) {
        group.vertexOf.clear();
        scene.addMesh(group.mesh);
    }

    // OBJ has no camera: frame the bounding box (its bounding sphere fits 40 degrees vertically).
    scene.frameCamera();
    return scene;
}

}  // namespace wavefront
