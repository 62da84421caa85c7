// Scene construction and validation: every check on caller input happens here, on the host, so
// that the backends can assume well-formed data.
#include <wavefront/error.h>
#include <wavefront/scene.h>

#include "host/scene/check_text.h"
#include "host/scene/index_check.h"
#include "host/loaders/loaders.h"
#include "host/scene/material_kinds.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>

namespace wavefront {

namespace {

bool isFinite(const glm::vec3& v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

// Finite and within +-Scene::kMaxCoordinate.
bool inCoordinateRange(const glm::vec3& v) {
    return std::fabs(v.x) <= Scene::kMaxCoordinate && std::fabs(v.y) <= Scene::kMaxCoordinate &&
           std::fabs(v.z) <= Scene::kMaxCoordinate;
}

std::string format(const glm::vec3& v) { return formatVector(v); }

std::string format(float v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

// A triangle is degenerate when its area vanishes relative to its size (or is not finite).
// Double precision so that the relative threshold means something for float input.
bool isDegenerate(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c) {
    glm::dvec3 e0 = glm::dvec3(b) - glm::dvec3(a);
    glm::dvec3 e1 = glm::dvec3(c) - glm::dvec3(a);
    glm::dvec3 e2 = glm::dvec3(c) - glm::dvec3(b);
    double crossLength = glm::length(glm::cross(e0, e1));
    double scale = std::max({glm::dot(e0, e0), glm::dot(e1, e1), glm::dot(e2, e2)});
    if (!std::isfinite(crossLength) || !std::isfinite(scale))
        return true;
    return crossLength == 0.0 || crossLength <= 1e-12 * scale;
}

}  // namespace

void Scene::checkMaterial(const Material& material, std::size_t index) const {
    const MaterialKindSpec* kind = materialKind(material.type);
    if (!kind) throw InputError("material " + std::to_string(index) + " has an unknown type");
    const std::string what = std::string(kind->phrase) + " material " + std::to_string(index);
    if (!isNonNegativeFinite(material.diffuse))
        throw InputError(what + ": diffuse colour " + format(material.diffuse) + " must be finite and non-negative");
    if (!isNonNegativeFinite(material.specular))
        throw InputError(what + ": specular colour " + format(material.specular) + " must be finite and non-negative");
    if (!isNonNegativeFinite(material.emission))
        throw InputError(what + ": emission " + format(material.emission) + " must be finite and non-negative");
    if (!std::isfinite(material.ior) || material.ior <= 0.0f)
        throw InputError(what + ": ior " + std::to_string(material.ior) + " must be positive");
    if (!std::isfinite(material.exponent) || material.exponent < 0.0f)
        throw InputError(what + ": exponent " + std::to_string(material.exponent) + " must be non-negative");
    if (kind->check) kind->check(material, what);  // its own parameters (material_kinds.cpp)
    // Every texture must exist; data textures must be linear; only emission may exceed 1 (HDR).
    enum Use { Colour, Data, Emission };
    auto checkTexture = [&](int index, const char* kind, Use use) {
        if (index < -1 || index >= int(textures_.size()))
            throw InputError(what + ": " + kind + " texture " + std::to_string(index) + " is out of range (the scene has " +
                             std::to_string(textures_.size()) + " textures)");
        if (index < 0) return;
        if (use == Data && !textures_[index].rgba8.empty() && textures_[index].srgb)
            throw InputError(what + ": " + kind + " texture " + std::to_string(index) +
                             " holds data, not colour: it must be linear (Texture::srgb = false)");
        if (use != Emission && textureLargest_[index] > 1.0f)
            throw InputError(what + ": " + kind + " texture " + std::to_string(index) + " has texel values up to " +
                             std::to_string(textureLargest_[index]) + "; it must lie in [0, 1] (only emission may be HDR)");
    };
    checkTexture(material.baseColorTexture, "base colour", Colour);
    checkTexture(material.metallicRoughnessTexture, "metallic-roughness", Data);
    checkTexture(material.normalTexture, "normal", Data);
    checkTexture(material.emissionTexture, "emission", Emission);
    if (!(std::isfinite(material.normalScale) && std::fabs(material.normalScale) <= 1e3f))
        throw InputError(what + ": normal scale " + std::to_string(material.normalScale) +
                         " must be finite and at most 1000 in magnitude");
}

int Scene::addMaterial(const Material& material) {
    checkMaterial(material, materials_.size());
    if (materials_.size() >= std::size_t(std::numeric_limits<int>::max()))
        throw InputError("too many materials");
    materials_.push_back(material);
    validated_ = false;
    return int(materials_.size() - 1);
}

float Scene::checkTexture(Texture& texture, std::size_t index) {
    const std::string what = "texture " + std::to_string(index);
    if (texture.width < 1 || texture.height < 1 || texture.width > (1 << 16) || texture.height > (1 << 16))
        throw InputError(what + ": size " + std::to_string(texture.width) + "x" + std::to_string(texture.height) +
                         " must lie between 1x1 and 65536x65536");
    const std::size_t texels = std::size_t(texture.width) * std::size_t(texture.height);
    if (!texture.rgba8.empty()) {
        if (texture.rgba8.size() != 4 * texels)
            throw InputError(what + ": " + std::to_string(texture.rgba8.size()) + " bytes for " + std::to_string(texels) +
                             " RGBA texels");
        texture.rgbaFloat.clear();
    } else {
        if (texture.rgbaFloat.size() != 4 * texels)
            throw InputError(what + ": " + std::to_string(texture.rgbaFloat.size()) + " floats for " +
                             std::to_string(texels) + " RGBA texels");
        for (float v : texture.rgbaFloat)
            if (!(v >= 0.0f && v < std::numeric_limits<float>::infinity()))
                throw InputError(what + ": a texel value " + std::to_string(v) +
                                 " that is negative or not finite (textures hold colours or data)");
    }
    // Above 1 only an emission texture may go (an HDR image of a screen or a lamp); addMaterial
    // refuses it where it would scale reflectance or hold data.
    float largest = texture.rgbaFloat.empty() ? 1.0f : 0.0f;
    for (std::size_t i = 0; i < texture.rgbaFloat.size(); ++i)
        if (i % 4 != 3) largest = std::max(largest, texture.rgbaFloat[i]);
    return largest;
}

int Scene::addTexture(Texture texture) {
    const float largest = checkTexture(texture, textures_.size());
    if (textures_.size() >= std::size_t(std::numeric_limits<int>::max() - 1))
        throw InputError("too many textures");
    textures_.push_back(std::move(texture));
    textureLargest_.push_back(largest);
    return int(textures_.size() - 1);
}

void Scene::checkMesh(const TriangleMesh& mesh) const {
    const std::size_t vertexCount = mesh.positions.size();
    if (mesh.indices.size() % 3 != 0)
        throw InputError("mesh has " + std::to_string(mesh.indices.size()) +
                         " indices, which is not a multiple of 3");
    if (mesh.material < 0 || std::size_t(mesh.material) >= materials_.size())
        throw InputError("mesh material index " + std::to_string(mesh.material) + " is out of range (the scene has " +
                         std::to_string(materials_.size()) + " materials)");
    checkMediumIndex(mesh.mediumInside, "mesh's inside");
    checkMediumIndex(mesh.mediumOutside, "mesh's outside");
    if (!mesh.normals.empty() && mesh.normals.size() != vertexCount)
        throw InputError("mesh has " + std::to_string(mesh.normals.size()) + " normals for " +
                         std::to_string(vertexCount) + " positions; give one normal per position or none");
    if (!mesh.uvs.empty() && mesh.uvs.size() != vertexCount)
        throw InputError("mesh has " + std::to_string(mesh.uvs.size()) + " texture coordinates for " +
                         std::to_string(vertexCount) + " positions; give one per position or none");
    for (std::size_t i = 0; i < mesh.uvs.size(); ++i)
        if (!std::isfinite(mesh.uvs[i].x) || !std::isfinite(mesh.uvs[i].y))
            throw InputError("mesh vertex " + std::to_string(i) + " has non-finite texture coordinates");

    const std::size_t faceCount = mesh.indices.size() / 3;
    for (std::size_t f = 0; f < faceCount; ++f) {
        for (int k = 0; k < 3; ++k) {
            std::uint32_t index = mesh.indices[3 * f + k];
            if (index >= vertexCount)
                throw InputError("face " + std::to_string(f) + " has vertex index " + std::to_string(index) +
                                 ", out of range (the mesh has " + std::to_string(vertexCount) + " vertices)");
        }
    }
    for (std::size_t f = 0; f < faceCount; ++f) {
        for (int k = 0; k < 3; ++k) {
            std::uint32_t index = mesh.indices[3 * f + k];
            if (inCoordinateRange(mesh.positions[index]))
                continue;
            // Name the first face that uses the bad vertex, and how many more do.
            std::size_t others = 0;
            for (std::size_t g = f + 1; g < faceCount; ++g)
                for (int j = 0; j < 3; ++j)
                    if (mesh.indices[3 * g + j] == index) {
                        ++others;
                        break;
                    }
            const glm::vec3& p = mesh.positions[index];
            std::string message = "face " + std::to_string(f) + " uses vertex " + std::to_string(index) +
                                  (isFinite(p) ? " at " + format(p) + ", beyond the coordinate range +-" + format(Scene::kMaxCoordinate)
                                               : " with a non-finite position " + format(p));
            if (others > 0)
                message += " (and " + std::to_string(others) + " more face" + (others > 1 ? "s" : "") + " use it)";
            throw InputError(message);
        }
    }
}

namespace {

/// The arrays a checked mesh is appended to: the scene's own, or an object's.
struct GeometryArrays {
    std::vector<glm::vec3>& positions;
    std::vector<glm::vec3>& normals;
    std::vector<glm::vec2>& uvs;
    std::vector<glm::uvec3>& triangles;
    std::vector<int>& triangleMaterials;
    std::vector<std::uint8_t>& triangleHasNormals;
};

/// Whether a given vertex normal can be interpolated: finite, with a finite, non-zero length. A
/// triangle with a vertex whose normal cannot falls back to its geometric normal (addMesh and
/// setMeshPositions alike); the normal is stored as zero.
bool usableNormal(const glm::vec3& n) {
    const float length = glm::length(n);
    return isFinite(n) && length > 0.0f && std::isfinite(length);
}

/// Appends a mesh Scene::checkMesh accepted; returns the index of its first vertex.
std::uint32_t appendMesh(const TriangleMesh& mesh, GeometryArrays g) {
    const std::size_t vertexCount = mesh.positions.size();
    const bool hasNormals = !mesh.normals.empty();
    // Triangles index the global array with 32-bit indices.
    if (g.positions.size() + vertexCount > std::numeric_limits<std::uint32_t>::max())
        throw InputError("scene exceeds 2^32 vertices");
    const std::uint32_t base = std::uint32_t(g.positions.size());
    // Unreferenced vertices may hold anything; store zeros so the vertex array stays finite.
    for (const glm::vec3& p : mesh.positions)
        g.positions.push_back(inCoordinateRange(p) ? p : glm::vec3(0.0f));

    // normals is either empty or as long as positions; vertices without normals get zeros.
    std::vector<std::uint8_t> usable;
    if (hasNormals) {
        if (g.normals.empty())
            g.normals.assign(base, glm::vec3(0.0f));
        usable.resize(vertexCount);
        for (std::size_t i = 0; i < vertexCount; ++i) {
            const glm::vec3& n = mesh.normals[i];
            usable[i] = usableNormal(n);
            g.normals.push_back(usable[i] ? n / glm::length(n) : glm::vec3(0.0f));
        }
    } else if (!g.normals.empty()) {
        g.normals.resize(g.positions.size(), glm::vec3(0.0f));
    }
    // uvs likewise: empty, or one per vertex (zeros for meshes without any).
    if (!mesh.uvs.empty()) {
        g.uvs.resize(base, glm::vec2(0.0f));
        g.uvs.insert(g.uvs.end(), mesh.uvs.begin(), mesh.uvs.end());
    } else if (!g.uvs.empty()) {
        g.uvs.resize(g.positions.size(), glm::vec2(0.0f));
    }

    const std::size_t faceCount = mesh.indices.size() / 3;
    // No reserve(size + faceCount) here: exact reserves defeat the vectors' geometric growth and
    // made adding many meshes quadratic (10,000 meshes took 20 s).
    for (std::size_t f = 0; f < faceCount; ++f) {
        glm::uvec3 local(mesh.indices[3 * f], mesh.indices[3 * f + 1], mesh.indices[3 * f + 2]);
        g.triangles.push_back(local + glm::uvec3(base));
        g.triangleMaterials.push_back(mesh.material);
        // A zero or non-finite normal would poison interpolation: fall back to the geometric one.
        bool normalsOk = hasNormals && usable[local.x] && usable[local.y] && usable[local.z];
        g.triangleHasNormals.push_back(normalsOk ? 1 : 0);
    }
    return base;
}

/// Drops the zero-area triangles of `g`; returns how many.
std::size_t dropDegenerateTriangles(GeometryArrays g) {
    std::size_t kept = 0;
    for (std::size_t t = 0; t < g.triangles.size(); ++t) {
        const glm::uvec3& tri = g.triangles[t];
        if (isDegenerate(g.positions[tri.x], g.positions[tri.y], g.positions[tri.z]))
            continue;
        g.triangles[kept] = tri;
        g.triangleMaterials[kept] = g.triangleMaterials[t];
        g.triangleHasNormals[kept] = g.triangleHasNormals[t];
        ++kept;
    }
    const std::size_t dropped = g.triangles.size() - kept;
    g.triangles.resize(kept);
    g.triangleMaterials.resize(kept);
    g.triangleHasNormals.resize(kept);
    return dropped;
}

/// Widens [lo, hi] by every vertex the triangles use.
void extendByTriangles(const std::vector<glm::vec3>& positions, const std::vector<glm::uvec3>& triangles, glm::vec3& lo,
                       glm::vec3& hi) {
    for (const glm::uvec3& t : triangles)
        for (int k = 0; k < 3; ++k) {
            lo = glm::min(lo, positions[t[k]]);
            hi = glm::max(hi, positions[t[k]]);
        }
}

GeometryArrays arraysOf(ObjectGeometry& o) {
    return GeometryArrays{o.positions, o.normals, o.uvs, o.triangles, o.triangleMaterials, o.triangleHasNormals};
}

}  // namespace

int Scene::addMesh(const TriangleMesh& mesh) {
    checkMesh(mesh);
    const std::size_t firstTriangle = triangles_.size();
    const std::uint32_t base = appendMesh(
        mesh, GeometryArrays{positions_, normals_, uvs_, triangles_, triangleMaterials_, triangleHasNormals_});
    validated_ = false;
    meshes_.push_back(MeshRange{base, std::uint32_t(mesh.positions.size()), mesh.material, mesh.mediumInside,
                                mesh.mediumOutside, !mesh.normals.empty(), firstTriangle, mesh.indices.size() / 3});
    return int(meshes_.size() - 1);
}

int Scene::addObject(const std::vector<TriangleMesh>& meshes) {
    const std::string what = "object " + std::to_string(objects_.size());
    ObjectGeometry object;
    for (std::size_t k = 0; k < meshes.size(); ++k) {
        try {
            checkMesh(meshes[k]);
        } catch (const InputError& e) {
            throw InputError(what + " mesh " + std::to_string(k) + ": " + e.what());
        }
        if (materials_[std::size_t(meshes[k].material)].isEmissive())
            throw InputError(what + " mesh " + std::to_string(k) + " uses emissive material " +
                             std::to_string(meshes[k].material) +
                             ": instanced emitters are not sampled as lights; add emitters with addMesh");
        if (meshes[k].mediumInside != meshes[k].mediumOutside)
            throw InputError(what + " mesh " + std::to_string(k) +
                             " bounds a medium: instanced surfaces cannot bound media; add them with addMesh");
        appendMesh(meshes[k], arraysOf(object));
    }
    const std::size_t dropped = dropDegenerateTriangles(arraysOf(object));
    if (object.triangles.empty())
        throw InputError(what + " has no triangles" +
                         (dropped > 0 ? " (all " + std::to_string(dropped) + " were degenerate)" : std::string()));
    if (objects_.size() >= std::size_t(std::numeric_limits<int>::max()))
        throw InputError("too many objects");
    skippedDegenerate_ += dropped;
    object.boundsLo = glm::vec3(std::numeric_limits<float>::infinity());
    object.boundsHi = -object.boundsLo;
    extendByTriangles(object.positions, object.triangles, object.boundsLo, object.boundsHi);
    objects_.push_back(std::move(object));
    return int(objects_.size() - 1);
}

namespace {

/// The world box of `o` placed by `m`: its box's corners, transformed.
void placedBounds(const ObjectGeometry& o, const glm::mat4& m, glm::vec3& lo, glm::vec3& hi) {
    lo = glm::vec3(std::numeric_limits<float>::infinity());
    hi = -lo;
    for (int corner = 0; corner < 8; ++corner) {
        glm::vec3 c((corner & 1) ? o.boundsHi.x : o.boundsLo.x, (corner & 2) ? o.boundsHi.y : o.boundsLo.y,
                    (corner & 4) ? o.boundsHi.z : o.boundsLo.z);
        glm::vec3 w = glm::vec3(m * glm::vec4(c, 1.0f));
        lo = glm::min(lo, w);
        hi = glm::max(hi, w);
    }
}

}  // namespace

void Scene::checkPlacement(int object, const glm::mat4& m, const std::string& what) const {
    if (object < 0 || std::size_t(object) >= objects_.size())
        throw InputError(what + ": object " + std::to_string(object) + " is out of range (the scene has " +
                         std::to_string(objects_.size()) + " objects)");
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r)
            if (!std::isfinite(m[c][r])) throw InputError(what + ": its transform is not finite");
    if (m[0][3] != 0.0f || m[1][3] != 0.0f || m[2][3] != 0.0f || m[3][3] != 1.0f)
        throw InputError(what + ": its transform is not affine (the bottom row must be 0 0 0 1)");
    // Invertible, and not so close to singular that the inverse (rays into object space) overflows.
    const glm::dmat3 linear(m);
    const double det = glm::determinant(linear);
    const double scale = std::max({glm::length(linear[0]), glm::length(linear[1]), glm::length(linear[2])});
    if (!(std::fabs(det) > 1e-12 * scale * scale * scale) || !std::isfinite(det))
        throw InputError(what + ": its transform is singular (determinant " + format(float(det)) + ")");
    glm::vec3 lo, hi;
    placedBounds(objects_[std::size_t(object)], m, lo, hi);
    if (!inCoordinateRange(lo) || !inCoordinateRange(hi))
        throw InputError(what + " places object " + std::to_string(object) + " beyond the coordinate range +-" +
                         format(kMaxCoordinate));
}

int Scene::addInstance(int object, const glm::mat4& m) {
    checkPlacement(object, m, "instance " + std::to_string(instances_.size()));
    if (instances_.size() >= std::size_t(std::numeric_limits<int>::max()))
        throw InputError("too many instances");
    instances_.push_back(Instance{object, m});
    validated_ = false;
    return int(instances_.size() - 1);
}

void Scene::setInstanceTransform(int index, const glm::mat4& objectToWorld) {
    checkIndex(index, instances_.size(), "instance");
    Instance& instance = instances_[std::size_t(index)];
    checkPlacement(instance.object, objectToWorld, "instance " + std::to_string(index));
    instance.objectToWorld = objectToWorld;
}

void Scene::instanceBounds(int index, glm::vec3& lo, glm::vec3& hi) const {
    const Instance& instance = instances_.at(std::size_t(index));
    placedBounds(objects_[std::size_t(instance.object)], instance.objectToWorld, lo, hi);
}

void Scene::flattenInstances() {
    // Per object and material: its triangles as one mesh of the vertices they use.
    std::vector<std::vector<TriangleMesh>> parts(objects_.size());
    for (std::size_t k = 0; k < objects_.size(); ++k) {
        const ObjectGeometry& o = objects_[k];
        constexpr std::uint32_t kUnused = std::numeric_limits<std::uint32_t>::max();
        std::vector<std::vector<std::uint32_t>> remap;  // per part: each object vertex's index in it
        for (std::size_t t = 0; t < o.triangles.size(); ++t) {
            const int material = o.triangleMaterials[t];
            std::size_t g = 0;
            while (g < parts[k].size() && parts[k][g].material != material) ++g;
            if (g == parts[k].size()) {
                remap.emplace_back(o.positions.size(), kUnused);
                parts[k].emplace_back();
                parts[k].back().material = material;
            }
            TriangleMesh& mesh = parts[k][g];
            for (int c = 0; c < 3; ++c) {
                const std::uint32_t v = o.triangles[t][c];
                if (remap[g][v] == kUnused) {
                    remap[g][v] = std::uint32_t(mesh.positions.size());
                    mesh.positions.push_back(o.positions[v]);
                    if (!o.normals.empty() && o.triangleHasNormals[t]) mesh.normals.push_back(o.normals[v]);
                    if (!o.uvs.empty()) mesh.uvs.push_back(o.uvs[v]);
                }
                mesh.indices.push_back(remap[g][v]);
            }
        }
        // A mesh whose triangles mix vertices with and without normals keeps none (addMesh wants
        // one per position or none).
        for (TriangleMesh& mesh : parts[k])
            if (mesh.normals.size() != mesh.positions.size()) mesh.normals.clear();
    }
    const std::vector<Instance> instances = std::move(instances_);
    instances_.clear();
    for (const Instance& instance : instances) {
        const glm::mat4& m = instance.objectToWorld;
        const glm::mat3 normalMatrix = glm::transpose(glm::inverse(glm::mat3(m)));
        const bool mirrors = glm::determinant(glm::mat3(m)) < 0.0f;
        for (TriangleMesh mesh : parts[std::size_t(instance.object)]) {
            for (glm::vec3& p : mesh.positions) p = glm::vec3(m * glm::vec4(p, 1.0f));
            for (glm::vec3& n : mesh.normals) n = normalMatrix * n;
            if (mirrors)
                for (std::size_t f = 0; f < mesh.indices.size(); f += 3) std::swap(mesh.indices[f + 1], mesh.indices[f + 2]);
            addMesh(mesh);
        }
    }
    objects_.clear();
    validated_ = false;
}

bool Scene::bounds(glm::vec3& lo, glm::vec3& hi) const {
    lo = glm::vec3(std::numeric_limits<float>::infinity());
    hi = -lo;
    extendByTriangles(positions_, triangles_, lo, hi);
    for (const Sphere& s : spheres_) {
        lo = glm::min(lo, s.center - glm::vec3(s.radius));
        hi = glm::max(hi, s.center + glm::vec3(s.radius));
    }
    for (std::size_t k = 0; k < instances_.size(); ++k) {
        glm::vec3 a, b;
        instanceBounds(int(k), a, b);
        lo = glm::min(lo, a);
        hi = glm::max(hi, b);
    }
    return lo.x <= hi.x;
}

void Scene::setMaterial(int index, const Material& material) {
    checkIndex(index, materials_.size(), "material");
    checkMaterial(material, std::size_t(index));
    if (material.isEmissive())
        for (std::size_t k = 0; k < objects_.size(); ++k)
            for (int m : objects_[k].triangleMaterials)
                if (m == index)
                    throw InputError("material " + std::to_string(index) + " is used by object " + std::to_string(k) +
                                     ": it cannot become emissive (instanced emitters are not sampled as lights)");
    materials_[std::size_t(index)] = material;
}

void Scene::setTexture(int index, Texture texture) {
    checkIndex(index, textures_.size(), "texture");
    float largest = checkTexture(texture, std::size_t(index));
    // The materials that use it must still accept it: check them against the scene with it in
    // place, and put the old one back if one refuses.
    std::swap(textures_[std::size_t(index)], texture);
    std::swap(textureLargest_[std::size_t(index)], largest);
    try {
        for (std::size_t m = 0; m < materials_.size(); ++m) {
            const Material& mat = materials_[m];
            if (mat.baseColorTexture == index || mat.metallicRoughnessTexture == index || mat.normalTexture == index ||
                mat.emissionTexture == index)
                checkMaterial(mat, m);
        }
    } catch (...) {
        std::swap(textures_[std::size_t(index)], texture);
        std::swap(textureLargest_[std::size_t(index)], largest);
        throw;
    }
}

void Scene::setLight(int index, const Light& light) {
    checkIndex(index, lights_.size(), "light");
    checkMediumIndex(light.medium, "light " + std::to_string(index) + "'s");
    lights_[std::size_t(index)] = checkedLight(light, std::size_t(index));
}

void Scene::checkMeshPositions(int mesh, const glm::vec3* positions, std::size_t count) const {
    checkIndex(mesh, meshes_.size(), "mesh");
    const MeshRange& r = meshes_[std::size_t(mesh)];
    if (count != r.vertexCount)
        throw InputError("mesh " + std::to_string(mesh) + " has " + std::to_string(r.vertexCount) + " vertices; " +
                         std::to_string(count) + " positions were given (an edit keeps the topology)");
    if (!positions) return;  // the mesh and the count only
    // One branch-free pass first (it vectorises: a per-frame edit of a million vertices), then the
    // first bad vertex looked for only when there is one.
    static_assert(sizeof(glm::vec3) == 3 * sizeof(float), "positions are packed floats");
    unsigned allInRange = 1;
    const float* coordinates = reinterpret_cast<const float*>(positions);
    for (std::size_t k = 0; k < 3 * count; ++k) allInRange &= unsigned(std::fabs(coordinates[k]) <= kMaxCoordinate);
    for (std::size_t i = 0; !allInRange && i < count; ++i)
        if (!inCoordinateRange(positions[i]))
            throw InputError("mesh " + std::to_string(mesh) + " vertex " + std::to_string(i) + " at " + format(positions[i]) +
                             (isFinite(positions[i]) ? " is beyond the coordinate range +-" + format(kMaxCoordinate)
                                                     : " is not finite"));
}

void Scene::setMeshPositions(int mesh, const std::vector<glm::vec3>& positions, const std::vector<glm::vec3>& normals) {
    checkMeshPositions(mesh, positions.data(), positions.size());
    const MeshRange& r = meshes_[std::size_t(mesh)];
    if (!normals.empty()) {
        if (!r.hasNormals)
            throw InputError("mesh " + std::to_string(mesh) + " was added without normals; its edits cannot give any");
        if (normals.size() != r.vertexCount)
            throw InputError("mesh " + std::to_string(mesh) + " has " + std::to_string(r.vertexCount) + " vertices; " +
                             std::to_string(normals.size()) + " normals were given");
    }
    std::copy(positions.begin(), positions.end(), positions_.begin() + r.firstVertex);
    if (normals.empty()) return;
    // addMesh's rule: a zero or non-finite normal is stored as zero and the triangles using it
    // fall back to their geometric normal (refused here before, though addMesh took it).
    for (std::size_t i = 0; i < normals.size(); ++i)
        normals_[r.firstVertex + i] = usableNormal(normals[i]) ? glm::normalize(normals[i]) : glm::vec3(0.0f);
    for (std::size_t t = r.firstTriangle; t < r.firstTriangle + r.triangleCount; ++t) {
        const glm::uvec3& tri = triangles_[t];
        const bool usable = normals_[tri.x] != glm::vec3(0.0f) && normals_[tri.y] != glm::vec3(0.0f) &&
                            normals_[tri.z] != glm::vec3(0.0f);
        triangleHasNormals_[t] = usable ? 1 : 0;
    }
}

bool Scene::hasEmitter() const {
    if (!lights_.empty() || hasEnvironment()) return true;
    for (std::size_t t = 0; t < triangles_.size(); ++t)
        if (materials_[std::size_t(triangleMaterials_[t])].isEmissive() &&
            !isDegenerate(positions_[triangles_[t].x], positions_[triangles_[t].y], positions_[triangles_[t].z]))
            return true;  // one of zero area emits nothing
    for (const Sphere& s : spheres_)
        if (materials_[std::size_t(s.material)].isEmissive()) return true;
    return false;
}

Light Light::point(glm::vec3 position, glm::vec3 intensity) {
    Light l;
    l.type = LightType::Point;
    l.position = position;
    l.intensity = intensity;
    return l;
}

Light Light::spot(glm::vec3 position, glm::vec3 direction, glm::vec3 intensity, float innerConeDegrees,
                  float outerConeDegrees) {
    Light l;
    l.type = LightType::Spot;
    l.position = position;
    l.direction = direction;
    l.intensity = intensity;
    l.innerConeDegrees = innerConeDegrees;
    l.outerConeDegrees = outerConeDegrees;
    return l;
}

Light Light::directional(glm::vec3 direction, glm::vec3 irradiance) {
    Light l;
    l.type = LightType::Directional;
    l.direction = direction;
    l.intensity = irradiance;
    return l;
}

Light Scene::checkedLight(const Light& light, std::size_t index) {
    const std::string what = "light " + std::to_string(index);
    Light l = light;
    if (int(l.type) < int(LightType::Point) || int(l.type) > int(LightType::Directional))
        throw InputError(what + " has an unknown type " + std::to_string(int(l.type)));
    if (!isNonNegativeFinite(l.intensity))
        throw InputError(what + ": intensity " + format(l.intensity) + " must be finite and non-negative");
    if (l.type != LightType::Directional) {
        if (!isFinite(l.position) || !inCoordinateRange(l.position))
            throw InputError(what + ": position " + format(l.position) + " must be finite and within +-" +
                             format(kMaxCoordinate) + " (a light at infinity is a directional light)");
    }
    if (l.type != LightType::Point) {
        const double length = glm::length(glm::dvec3(l.direction));
        if (!isFinite(l.direction) || !(length > 0.0) || !std::isfinite(length))
            throw InputError(what + ": direction " + format(l.direction) + " must be finite and not zero");
        l.direction = glm::vec3(glm::dvec3(l.direction) / length);
    }
    if (l.type == LightType::Spot &&
        !(l.innerConeDegrees >= 0.0f && l.outerConeDegrees > 0.0f && l.innerConeDegrees <= l.outerConeDegrees &&
          l.outerConeDegrees <= 180.0f))
        throw InputError(what + ": spot cone angles inner " + format(l.innerConeDegrees) + " and outer " +
                         format(l.outerConeDegrees) + " degrees must satisfy 0 <= inner <= outer <= 180, outer > 0");
    return l;
}

int Scene::addLight(const Light& light) {
    checkMediumIndex(light.medium, "light " + std::to_string(lights_.size()) + "'s");
    lights_.push_back(checkedLight(light, lights_.size()));
    validated_ = false;
    return int(lights_.size() - 1);
}

void Scene::addSphere(const Sphere& sphere) {
    const std::string what = "sphere " + std::to_string(spheres_.size());
    if (!isFinite(sphere.center))
        throw InputError(what + " has a non-finite centre " + format(sphere.center));
    if (!inCoordinateRange(sphere.center))
        throw InputError(what + " has its centre at " + format(sphere.center) + ", beyond the coordinate range +-" +
                         format(kMaxCoordinate));
    if (!std::isfinite(sphere.radius) || sphere.radius <= 0.0f || sphere.radius > kMaxCoordinate)
        throw InputError(what + " has radius " + format(sphere.radius) + "; it must be positive and at most " +
                         format(kMaxCoordinate));
    if (sphere.material < 0 || std::size_t(sphere.material) >= materials_.size())
        throw InputError(what + " has material index " + std::to_string(sphere.material) +
                         ", out of range (the scene has " + std::to_string(materials_.size()) + " materials)");
    checkMediumIndex(sphere.mediumInside, what + "'s inside");
    checkMediumIndex(sphere.mediumOutside, what + "'s outside");
    spheres_.push_back(sphere);
    validated_ = false;
}

void Scene::validate(bool requireEmitter) {
    if (validated_)
        return;

    // Zero-area triangles can neither be hit nor emit, but they stay: setMeshPositions may give
    // them area (a mesh scaled from zero in its first frame); dropped, they never came back.
    meshDegenerate_ = 0;
    for (const glm::uvec3& t : triangles_) meshDegenerate_ += isDegenerate(positions_[t.x], positions_[t.y], positions_[t.z]);

    if (primitiveCount() == meshDegenerate_ && instances_.empty()) {
        std::string message = "scene has no primitives";
        if (skippedDegenerateTriangles() > 0)
            message += " (all " + std::to_string(skippedDegenerateTriangles()) + " triangles were degenerate)";
        throw InputError(message);
    }

    if (requireEmitter && !hasEmitter()) {
        std::set<int> used(triangleMaterials_.begin(), triangleMaterials_.end());
        for (const Sphere& s : spheres_) used.insert(s.material);
        throw InputError("scene has no emitter: none of the " + std::to_string(used.size()) +
                         " materials used by its primitives has a non-zero emission, and it has no point, spot or "
                         "directional light (and no environment map is given)");
    }

    checkCamera(camera_);
    checkMediumIndex(camera_.medium, "camera");
    validated_ = true;
}

void Scene::checkCamera(const Camera& c) {
    if (!isFinite(c.position) || !isFinite(c.target) || !isFinite(c.up))
        throw InputError("camera position, target and up must be finite");
    glm::vec3 forward = c.target - c.position;
    // Finite vectors can still have lengths beyond the float range: the camera basis would be NaN.
    if (!std::isfinite(glm::length(forward)) || !std::isfinite(glm::length(c.up)))
        throw InputError("camera position, target and up " + format(c.position) + ", " + format(c.target) + ", " +
                         format(c.up) + " are too large: their lengths overflow float");
    if (glm::length(forward) <= 0.0f)
        throw InputError("camera position and target coincide at " + format(c.position));
    if (glm::length(glm::cross(glm::normalize(forward), c.up)) <= 1e-6f)
        throw InputError("camera up vector " + format(c.up) + " is zero or parallel to the viewing direction");
    if (!(c.verticalFovDegrees > 0.0f && c.verticalFovDegrees < 180.0f))
        throw InputError("camera vertical field of view " + std::to_string(c.verticalFovDegrees) +
                         " degrees must lie in (0, 180)");
    if (!std::isfinite(c.lensRadius) || c.lensRadius < 0.0f)
        throw InputError("camera lens radius must be non-negative");
    if (c.lensRadius > 0.0f && !(std::isfinite(c.focusDistance) && c.focusDistance > 0.0f))
        throw InputError("camera focus distance must be positive for a thin-lens camera");
}

void Scene::setEnvironment(Image image, float scale) {
    if (!(scale >= 0.0f) || !std::isfinite(scale))
        throw InputError("environment scale must be a finite non-negative number");
    if (image.width < 1 || image.height < 1 || image.rgb.size() != std::size_t(image.width) * image.height * 3)
        throw InputError("environment image is empty or its size does not match its texels");
    for (float& v : image.rgb) {
        if (!std::isfinite(v) || v < 0.0f)
            throw InputError("environment image has negative or non-finite texels");
        v *= scale;
        if (!std::isfinite(v))
            throw InputError("environment texel times the scale " + std::to_string(scale) + " is beyond the float range");
    }
    environment_ = std::move(image);
    hasSky_ = false;
}

void Scene::setSkyGradient(const SkyGradient& sky) {
    for (glm::vec3 c : {sky.nadir, sky.zenith})
        if (!isFinite(c) || c.x < 0.0f || c.y < 0.0f || c.z < 0.0f)
            throw InputError("sky gradient colour " + format(c) + " must be finite and non-negative");
    sky_ = sky;
    hasSky_ = true;
    environment_ = Image{};
}

Scene Scene::fromNameOrPath(const std::string& nameOrPath, const SceneLoadOptions& options) {
    std::error_code ec;
    if (hasSceneFileExtension(nameOrPath) || std::filesystem::is_regular_file(nameOrPath, ec))
        return loadFile(nameOrPath, options);
    return builtin(nameOrPath);
}

}  // namespace wavefront
