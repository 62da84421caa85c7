// OBJ/MTL loading through tinyobjloader, with our own checks on top: the loader tolerates
// out-of-range indices (with a warning) and reads "nan" as 0, and we want neither.
#include <wavefront/error.h>
#include <wavefront/scene.h>

#include <tiny_obj_loader.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <unordered_map>

namespace wavefront {

namespace {

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
    return s;
}

std::string format(const glm::vec3& v) {
    std::ostringstream out;
    out << '(' << v.x << ", " << v.y << ", " << v.z << ')';
    return out.str();
}

glm::vec3 toVec3(const tinyobj::real_t* v) { return glm::vec3(float(v[0]), float(v[1]), float(v[2])); }

float maxComponent(const glm::vec3& v) { return std::max({v.x, v.y, v.z}); }

// tinyobjloader parses "nan" and "inf" as 0, so scan the 'v' lines ourselves to find the
// positions that are really non-finite. Returns them by 0-based vertex index.
std::unordered_map<std::size_t, glm::vec3> findNonFiniteVertices(const std::string& path, std::size_t vertexCount) {
    std::unordered_map<std::size_t, glm::vec3> bad;
    std::ifstream in(path);
    std::string line;
    std::size_t index = 0;
    while (std::getline(in, line)) {
        std::size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || (line.compare(start, 2, "v ") != 0 && line.compare(start, 2, "v\t") != 0))
            continue;
        const char* cursor = line.c_str() + start + 2;
        glm::vec3 p(0.0f);
        for (int k = 0; k < 3; ++k) {
            char* end = nullptr;
            p[k] = std::strtof(cursor, &end);
            cursor = end;
        }
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z))
            bad[index] = p;
        ++index;
    }
    // A count that disagrees with the loader means we misread the file: trust the loader then.
    if (index != vertexCount)
        bad.clear();
    return bad;
}

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

}  // namespace

Scene Scene::loadObj(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) || !std::ifstream(path))
        throw InputError("cannot open OBJ file '" + path + "'");

    tinyobj::ObjReaderConfig config;
    config.triangulate = true;
    config.vertex_color = false;
    tinyobj::ObjReader reader;
    if (!reader.ParseFromFile(path, config))
        throw InputError("cannot parse OBJ file '" + path + "': " + trim(reader.Error()));

    const tinyobj::attrib_t& attrib = reader.GetAttrib();
    const std::size_t vertexCount = attrib.vertices.size() / 3;
    const std::size_t normalCount = attrib.normals.size() / 3;
    const auto nonFinite = findNonFiniteVertices(path, vertexCount);

    Scene scene;
    std::vector<int> materialIndex;
    for (const tinyobj::material_t& m : reader.GetMaterials()) {
        try {
            materialIndex.push_back(scene.addMaterial(convertMaterial(m)));
        } catch (const InputError& e) {
            throw InputError(path + ": material '" + m.name + "': " + e.what());
        }
    }
    int defaultMaterial = -1;

    std::map<std::pair<int, bool>, MeshGroup> groups;
    std::size_t faceNumber = 0;  // 1-based in messages, counting triangles in file order
    for (const tinyobj::shape_t& shape : reader.GetShapes()) {
        const tinyobj::mesh_t& mesh = shape.mesh;
        std::size_t offset = 0;
        for (std::size_t f = 0; f < mesh.num_face_vertices.size(); ++f) {
            const std::size_t corners = mesh.num_face_vertices[f];
            const tinyobj::index_t* face = mesh.indices.data() + offset;
            offset += corners;
            if (corners < 3)
                continue;
            ++faceNumber;
            const std::string where = path + ": face " + std::to_string(faceNumber);

            bool hasNormals = true;
            for (std::size_t k = 0; k < corners; ++k) {
                const tinyobj::index_t& idx = face[k];
                if (idx.vertex_index < 0 || std::size_t(idx.vertex_index) >= vertexCount)
                    throw InputError(where + " references vertex " + std::to_string(idx.vertex_index + 1) +
                                     ", but the file has " + std::to_string(vertexCount) + " vertices");
                if (idx.normal_index >= 0 && std::size_t(idx.normal_index) >= normalCount)
                    throw InputError(where + " references normal " + std::to_string(idx.normal_index + 1) +
                                     ", but the file has " + std::to_string(normalCount) + " normals");
                auto bad = nonFinite.find(std::size_t(idx.vertex_index));
                if (bad != nonFinite.end())
                    throw InputError(where + " uses vertex " + std::to_string(idx.vertex_index + 1) +
                                     " with a non-finite position " + format(bad->second));
                hasNormals = hasNormals && idx.normal_index >= 0;
            }

            int material = f < mesh.material_ids.size() ? mesh.material_ids[f] : -1;
            if (material >= 0 && std::size_t(material) < materialIndex.size()) {
                material = materialIndex[material];
            } else {
                if (defaultMaterial < 0)
                    defaultMaterial = scene.addMaterial(Material::lambertian(glm::vec3(0.8f)));
                material = defaultMaterial;
            }

            MeshGroup& group = groups[{material, hasNormals}];
            group.mesh.material = material;
            auto vertex = [&](const tinyobj::index_t& idx) {
                std::uint64_t key = (std::uint64_t(std::uint32_t(idx.vertex_index)) << 32) |
                                    std::uint32_t(hasNormals ? idx.normal_index : 0);
                auto [it, inserted] = group.vertexOf.emplace(key, std::uint32_t(group.mesh.positions.size()));
                if (inserted) {
                    glm::vec3 p = toVec3(&attrib.vertices[3 * std::size_t(idx.vertex_index)]);
                    group.mesh.positions.push_back(p);
                    if (hasNormals)
                        group.mesh.normals.push_back(toVec3(&attrib.normals[3 * std::size_t(idx.normal_index)]));
                }
                return it->second;
            };
            // Triangulation is on, so this is one triangle; a fan covers anything larger.
            for (std::size_t k = 1; k + 1 < corners; ++k)
                group.mesh.indices.insert(group.mesh.indices.end(),
                                          {vertex(face[0]), vertex(face[k]), vertex(face[k + 1])});
        }
    }
    if (faceNumber == 0)
        throw InputError("OBJ file '" + path + "' contains no faces");

    for (auto& [key, group] : groups) {
        group.vertexOf.clear();
        scene.addMesh(group.mesh);
    }

    // OBJ has no camera: frame the bounding box (its bounding sphere fits 40 degrees vertically).
    scene.frameCamera();
    return scene;
}

}  // namespace wavefront
