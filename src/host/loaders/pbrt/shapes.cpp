// pbrt-v4's shapes as triangles. Each shape is built in object space with its triangles wound the
// way pbrt's object-space normal points, then placed in the world by `place`, which keeps them
// facing where pbrt's world-space normal points: that side is the one an area light emits to.
#include "host/loaders/pbrt/shapes.h"

#include <wavefront/error.h>

#include "host/loaders/loaders.h"
#include "host/loaders/pbrt/ply_reader.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace wavefront::pbrt {

namespace {

constexpr double kPi = 3.14159265358979323846;
// Quadrics are tessellated this finely: 96 segments around, 48 from pole to pole (a sphere's
// silhouette then deviates from the true one by 0.05% of its radius).
constexpr int kSegments = 96;
constexpr int kRings = 48;
// A subdivision surface gives at most this many triangles (a million: a second of subdivision).
constexpr std::size_t kMaxSubdividedTriangles = std::size_t(1) << 20;

struct LocalMesh {
    std::vector<glm::vec3> positions, normals;
    std::vector<glm::vec2> uvs;
    std::vector<std::uint32_t> indices;
    std::size_t triangles() const { return indices.size() / 3; }
};

// How a shape's world-space normal follows from its object-space one (pbrt-v4, shapes.h).
enum class Facing {
    /// Triangle meshes without normals: the winding, turned by ReverseOrientation.
    Winding,
    /// Meshes with normals: pbrt turns the geometric normal to the shading normal's side.
    TowardsNormals,
    /// Quadrics: the outward normal, turned by ReverseOrientation and again by a transform that
    /// swaps handedness (pbrt-v4 flips it for both).
    Quadric,
};

void swapWinding(std::vector<std::uint32_t>& indices) {
    for (std::size_t t = 0; t + 2 < indices.size(); t += 3) std::swap(indices[t + 1], indices[t + 2]);
}

// Each triangle wound to face the sum of its corners' normals (where that sum is usable).
void windTowardsNormals(std::vector<std::uint32_t>& indices, const std::vector<glm::vec3>& positions,
                        const std::vector<glm::vec3>& normals) {
    for (std::size_t t = 0; t + 2 < indices.size(); t += 3) {
        const glm::vec3 &a = positions[indices[t]], &b = positions[indices[t + 1]], &c = positions[indices[t + 2]];
        const glm::vec3 n = normals[indices[t]] + normals[indices[t + 1]] + normals[indices[t + 2]];
        if (glm::dot(glm::cross(b - a, c - a), n) < 0.0f) std::swap(indices[t + 1], indices[t + 2]);
    }
}

MeshShape place(LocalMesh&& local, const glm::dmat4& m, Facing facing, bool reverse, const ShapeContext& context,
                const FileLoc& loc) {
    const bool mirrors = glm::determinant(glm::dmat3(m)) < 0.0;
    const bool flip = facing == Facing::Quadric ? reverse != mirrors : reverse;
    MeshShape mesh;
    mesh.positions = std::move(local.positions);
    mesh.normals = std::move(local.normals);
    mesh.uvs = std::move(local.uvs);
    mesh.indices = std::move(local.indices);
    if (facing == Facing::Quadric && flip)
        for (glm::vec3& n : mesh.normals) n = -n;
    mesh.material = context.material;
    mesh.areaLight = context.areaLight;
    mesh.mediumInside = context.mediumInside;
    mesh.mediumOutside = context.mediumOutside;
    mesh.loc = loc;
    transformMesh(mesh, m);
    if (facing == Facing::TowardsNormals && !mesh.normals.empty())
        windTowardsNormals(mesh.indices, mesh.positions, mesh.normals);
    else if (flip)
        swapWinding(mesh.indices);
    return mesh;
}

struct SurfacePoint {
    glm::dvec3 position, normal;
};

// What a tessellation charges its triangles to, before it makes them.
using Charge = std::function<void(std::size_t triangles)>;

// A surface of revolution about z over a (u, v) grid of (rows + 1) x (columns + 1) vertices, u
// and v in [0, 1] (pbrt's parametrisation, `at` giving the point there), each triangle facing its
// corners' normals; triangles without area (at a pole, at a disk's centre: two corners a rounding
// error apart) are left out.
template <typename At>
LocalMesh revolve(int rows, int columns, const Charge& charge, At at) {
    charge(2 * std::size_t(rows) * std::size_t(columns));
    LocalMesh mesh;
    for (int i = 0; i <= rows; ++i)
        for (int j = 0; j <= columns; ++j) {
            const double u = double(j) / columns, v = double(i) / rows;
            const SurfacePoint p = at(u, v);
            mesh.positions.push_back(glm::vec3(p.position));
            mesh.normals.push_back(glm::vec3(p.normal));
            mesh.uvs.emplace_back(float(u), float(v));
        }
    auto vertex = [&](int i, int j) { return std::uint32_t(i * (columns + 1) + j); };
    auto add = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) {
        const glm::vec3 ab = mesh.positions[b] - mesh.positions[a], ac = mesh.positions[c] - mesh.positions[a];
        const float longest = std::max({glm::dot(ab, ab), glm::dot(ac, ac), glm::dot(ac - ab, ac - ab)});
        if (glm::length(glm::cross(ab, ac)) <= 1e-6f * longest) return;
        mesh.indices.insert(mesh.indices.end(), {a, b, c});
    };
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < columns; ++j) {
            add(vertex(i, j), vertex(i, j + 1), vertex(i + 1, j + 1));
            add(vertex(i, j), vertex(i + 1, j + 1), vertex(i + 1, j));
        }
    windTowardsNormals(mesh.indices, mesh.positions, mesh.normals);
    return mesh;
}

int segmentsFor(double phiMax) { return std::max(3, int(std::ceil(kSegments * phiMax / (2.0 * kPi)))); }

// pbrt-v4's sphere: z from zMin to zMax, phi from 0 to phiMax; u = phi / phiMax, v from zMin's
// polar angle to zMax's.
LocalMesh sphereMesh(double radius, double zMin, double zMax, double phiMax, const Charge& charge) {
    const double thetaZMin = std::acos(std::clamp(std::min(zMin, zMax) / radius, -1.0, 1.0));
    const double thetaZMax = std::acos(std::clamp(std::max(zMin, zMax) / radius, -1.0, 1.0));
    const int rows = std::max(2, int(std::ceil(kRings * (thetaZMin - thetaZMax) / kPi)));
    return revolve(rows, segmentsFor(phiMax), charge, [&](double u, double v) {
        const double theta = thetaZMin + v * (thetaZMax - thetaZMin), phi = u * phiMax;
        const glm::dvec3 n(std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta));
        return SurfacePoint{radius * n, n};
    });
}

// pbrt-v4's disk at z = height, facing +z: u = phi / phiMax, v = 0 at the outer radius, 1 at the inner.
LocalMesh diskMesh(double height, double radius, double innerRadius, double phiMax, const Charge& charge) {
    return revolve(1, segmentsFor(phiMax), charge, [&](double u, double v) {
        const double rho = radius + v * (innerRadius - radius), phi = u * phiMax;
        return SurfacePoint{glm::dvec3(rho * std::cos(phi), rho * std::sin(phi), height), glm::dvec3(0.0, 0.0, 1.0)};
    });
}

// pbrt-v4's open cylinder about z, facing out: u = phi / phiMax, v = (z - zMin) / (zMax - zMin).
LocalMesh cylinderMesh(double radius, double zMin, double zMax, double phiMax, const Charge& charge) {
    return revolve(1, segmentsFor(phiMax), charge, [&](double u, double v) {
        const double phi = u * phiMax;
        const glm::dvec3 n(std::cos(phi), std::sin(phi), 0.0);
        return SurfacePoint{glm::dvec3(radius * n.x, radius * n.y, zMin + v * (zMax - zMin)), n};
    });
}

// The edges of a triangle mesh, found by sorting its half-edges (no hash map: subdivision
// surfaces reach a million triangles).
struct EdgeTable {
    std::vector<std::uint32_t> edgeOf;  ///< per corner t * 3 + k: the edge from corner k to corner k + 1
    std::vector<std::uint32_t> a, b;    ///< per edge: its vertices
    std::vector<std::uint32_t> faces;   ///< per edge: how many triangles share it
    std::vector<std::uint32_t> opposite[2];  ///< per edge: the corners across it in its first two triangles

    EdgeTable(const std::vector<std::uint32_t>& indices) {
        const std::size_t corners = indices.size();
        std::vector<std::pair<std::uint64_t, std::uint32_t>> half(corners);
        for (std::size_t i = 0; i < corners; ++i) {
            const std::size_t t = i / 3 * 3;
            const std::uint32_t u = indices[i], v = indices[t + (i - t + 1) % 3];
            half[i] = {(std::uint64_t(std::min(u, v)) << 32) | std::max(u, v), std::uint32_t(i)};
        }
        std::sort(half.begin(), half.end());
        edgeOf.resize(corners);
        for (std::size_t i = 0; i < corners; ++i) {
            if (i == 0 || half[i].first != half[i - 1].first) {
                a.push_back(std::uint32_t(half[i].first >> 32));
                b.push_back(std::uint32_t(half[i].first & 0xffffffffu));
                faces.push_back(0);
                opposite[0].push_back(0);
                opposite[1].push_back(0);
            }
            const std::size_t e = faces.size() - 1;
            const std::uint32_t corner = half[i].second;
            const std::size_t t = corner / 3 * 3;
            if (faces[e] < 2) opposite[faces[e]][e] = indices[t + (corner - t + 2) % 3];
            ++faces[e];
            edgeOf[corner] = std::uint32_t(e);
        }
    }
};

// Per vertex: its valence and the sum of its neighbours, and across edges without exactly two
// triangles (boundaries, non-manifold edges) how many neighbours and the first two of them.
struct VertexRings {
    std::vector<std::uint32_t> valence, boundaryCount;
    std::vector<glm::dvec3> sum;
    std::vector<std::uint32_t> boundary[2];

    VertexRings(const EdgeTable& edges, const std::vector<glm::vec3>& positions)
        : valence(positions.size(), 0), boundaryCount(positions.size(), 0), sum(positions.size(), glm::dvec3(0.0)) {
        boundary[0].assign(positions.size(), 0);
        boundary[1].assign(positions.size(), 0);
        for (std::size_t e = 0; e < edges.a.size(); ++e) {
            const std::uint32_t ends[2] = {edges.a[e], edges.b[e]};
            for (int s = 0; s < 2; ++s) {
                const std::uint32_t v = ends[s], other = ends[1 - s];
                ++valence[v];
                sum[v] += glm::dvec3(positions[other]);
                if (edges.faces[e] != 2) {
                    if (boundaryCount[v] < 2) boundary[boundaryCount[v]][v] = other;
                    ++boundaryCount[v];
                }
            }
        }
    }

    // Loop's vertex rule (`limit`: the limit position's): interior vertices from their ring; a
    // vertex on one boundary curve from its two boundary neighbours; any other stays.
    glm::vec3 smooth(std::size_t v, const std::vector<glm::vec3>& positions, bool limit) const {
        const glm::dvec3 p(positions[v]);
        if (boundaryCount[v] == 0 && valence[v] > 0) {
            const double n = double(valence[v]), beta = valence[v] == 3 ? 3.0 / 16.0 : 3.0 / (8.0 * n);
            const double w = limit ? 1.0 / (n + 3.0 / (8.0 * beta)) : beta;
            return glm::vec3((1.0 - n * w) * p + w * sum[v]);
        }
        if (boundaryCount[v] == 2) {
            const glm::dvec3 ends = glm::dvec3(positions[boundary[0][v]]) + glm::dvec3(positions[boundary[1][v]]);
            return glm::vec3(limit ? 0.6 * p + 0.2 * ends : 0.75 * p + 0.125 * ends);
        }
        return positions[v];
    }
};

// Loop subdivision (Loop 1987, as pbrt-v4's loopsubdiv): `levels` rounds of splitting each
// triangle in four, then every vertex moved to its limit position; normals are the area-weighted
// mean of the faces around a vertex.
LocalMesh loopSubdivide(std::vector<glm::vec3> positions, std::vector<std::uint32_t> indices, int levels) {
    for (int level = 0; level < levels; ++level) {
        const EdgeTable edges(indices);
        const VertexRings rings(edges, positions);
        std::vector<glm::vec3> next(positions.size() + edges.a.size());
        for (std::size_t v = 0; v < positions.size(); ++v) next[v] = rings.smooth(v, positions, false);
        for (std::size_t e = 0; e < edges.a.size(); ++e) {
            const glm::dvec3 pa(positions[edges.a[e]]), pb(positions[edges.b[e]]);
            glm::dvec3 m = 0.5 * (pa + pb);
            if (edges.faces[e] == 2)
                m = 0.375 * (pa + pb) +
                    0.125 * (glm::dvec3(positions[edges.opposite[0][e]]) + glm::dvec3(positions[edges.opposite[1][e]]));
            next[positions.size() + e] = glm::vec3(m);
        }
        const std::uint32_t first = std::uint32_t(positions.size());
        std::vector<std::uint32_t> split;
        split.reserve(indices.size() * 4);
        for (std::size_t t = 0; t < indices.size(); t += 3) {
            const std::uint32_t a = indices[t], b = indices[t + 1], c = indices[t + 2];
            const std::uint32_t ab = first + edges.edgeOf[t], bc = first + edges.edgeOf[t + 1], ca = first + edges.edgeOf[t + 2];
            split.insert(split.end(), {a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca});
        }
        positions = std::move(next);
        indices = std::move(split);
    }
    LocalMesh mesh;
    {
        const EdgeTable edges(indices);
        const VertexRings rings(edges, positions);
        mesh.positions.resize(positions.size());
        for (std::size_t v = 0; v < positions.size(); ++v) mesh.positions[v] = rings.smooth(v, positions, true);
    }
    mesh.normals.assign(positions.size(), glm::vec3(0.0f));
    for (std::size_t t = 0; t < indices.size(); t += 3) {
        const glm::vec3 &a = mesh.positions[indices[t]], &b = mesh.positions[indices[t + 1]], &c = mesh.positions[indices[t + 2]];
        const glm::vec3 n = glm::cross(b - a, c - a);  // length: twice the area
        for (int k = 0; k < 3; ++k) mesh.normals[indices[t + k]] += n;
    }
    mesh.indices = std::move(indices);
    return mesh;
}

// A mesh's optional per-vertex array: kept when it has one value per position, else dropped with
// pbrt-v4's message.
template <typename T>
void checkPerVertex(std::vector<T>& values, std::size_t positions, const char* name, const std::string& shape,
                    const FileLoc& loc, Warnings& warnings) {
    if (values.empty() || values.size() == positions) return;
    warnings.add(loc, "Shape \"" + shape + "\": " + std::to_string(values.size()) + " \"" + name + "\" values for " +
                          std::to_string(positions) + " positions: discarded (as pbrt-v4 does)");
    values.clear();
}

// Indices for `positions` positions, `corners` per face; false (and a warning) when pbrt-v4 would
// discard the mesh. Left-over indices (not a whole face) are dropped, as pbrt drops them.
bool checkIndices(std::vector<int>& indices, std::size_t positions, std::size_t corners, const std::string& shape,
                  const FileLoc& loc, Warnings& warnings) {
    if (indices.empty()) {
        if (positions != corners) {
            warnings.add(loc, "Shape \"" + shape + "\" without \"indices\" must have exactly " + std::to_string(corners) +
                                  " positions: not drawn");
            return false;
        }
        for (std::size_t i = 0; i < corners; ++i) indices.push_back(int(i));
    }
    if (indices.size() % corners != 0) {
        warnings.add(loc, "Shape \"" + shape + "\": " + std::to_string(indices.size()) + " indices, not a multiple of " +
                              std::to_string(corners) + ": the last ones discarded");
        indices.resize(indices.size() - indices.size() % corners);
    }
    for (int i : indices)
        if (i < 0 || std::size_t(i) >= positions) {
            warnings.add(loc, "Shape \"" + shape + "\": vertex index " + std::to_string(i) + " is out of range (" +
                                  std::to_string(positions) + " positions): not drawn");
            return false;
        }
    return true;
}

std::vector<std::uint32_t> toUnsigned(const std::vector<int>& indices) {
    return std::vector<std::uint32_t>(indices.begin(), indices.end());
}

void checkBudget(std::size_t triangles, const ShapeContext& context, const FileLoc& loc) {
    if (triangles > context.triangleBudget)
        throw InputError(loc.str() + ": this shape takes the scene past " + std::to_string(kMaxSceneFileTriangles) +
                         " triangles, the most one scene file may give");
}

}  // namespace

void transformMesh(MeshShape& mesh, const glm::dmat4& m) {
    const glm::dmat3 linear(m);
    const double det = glm::determinant(linear);
    for (glm::vec3& p : mesh.positions) p = glm::vec3(m * glm::dvec4(glm::dvec3(p), 1.0));
    if (!mesh.normals.empty()) {
        if (det == 0.0 || !std::isfinite(det)) {
            mesh.normals.clear();  // a flattening transform: no normal survives it
        } else {
            const glm::dmat3 normalMatrix = glm::transpose(glm::inverse(linear));
            for (glm::vec3& n : mesh.normals) {
                const glm::dvec3 t = normalMatrix * glm::dvec3(n);
                const double length = glm::length(t);
                n = length > 0.0 && std::isfinite(length) ? glm::vec3(t / length) : glm::vec3(0.0f);
            }
        }
    }
    // A mirroring transform turns the winding around: turn it back, so that it still faces the
    // way the (properly transformed) normal does.
    if (det < 0.0) swapWinding(mesh.indices);
}

void GeneratedTriangles::charge(std::size_t triangles, const FileLoc& loc, const std::string& what) {
    if (triangles > left())
        throw InputError(loc.str() + ": " + what + ": its " + std::to_string(triangles) +
                         " triangles take the scene past " + std::to_string(kMaxGeneratedTriangles) +
                         " triangles made by tessellation and subdivision, the most one scene file may ask for");
    made += triangles;
}

MeshShape tessellateSphere(const SphereShape& sphere, GeneratedTriangles& generated) {
    ShapeContext context;
    context.material = sphere.material;
    context.areaLight = sphere.areaLight;
    context.mediumInside = sphere.mediumInside;
    context.mediumOutside = sphere.mediumOutside;
    const Charge charge = [&](std::size_t n) { generated.charge(n, sphere.loc, "Shape \"sphere\" (tessellated)"); };
    MeshShape mesh = place(sphereMesh(sphere.radius, -sphere.radius, sphere.radius, 2.0 * kPi, charge), sphere.transform,
                           Facing::Winding, false, context, sphere.loc);
    if (sphere.inward) {
        for (glm::vec3& n : mesh.normals) n = -n;
        swapWinding(mesh.indices);
    }
    return mesh;
}

std::size_t addShape(const std::string& type, const ParamList& params, const FileLoc& loc, const ShapeContext& context,
                     const FileResolver& files, Warnings& warnings, ShapeSet& out) {
    const std::string what = "Shape \"" + type + "\"";
    // Cut-outs: a constant alpha of 0 hides the shape, as in pbrt; anything else is drawn opaque.
    if (const Param* alpha = params.find("alpha")) {
        if (alpha->type == "float" && !alpha->numbers.empty() && alpha->numbers[0] == 0.0f) {
            warnings.add(loc, what + ": \"alpha\" 0: not drawn");
            return 0;
        }
        if (!(alpha->type == "float" && !alpha->numbers.empty() && alpha->numbers[0] >= 1.0f))
            warnings.add(loc, what + ": \"alpha\" (cut-outs) is not supported: drawn opaque");
    }
    if (params.find("emissionfilename"))
        warnings.add(loc, what + ": \"emissionfilename\" is not supported: the area light emits uniformly");
    const glm::dmat4& m = context.objectToWorld;
    const bool reverse = context.reverseOrientation;
    const Charge charge = [&](std::size_t n) { context.generated->charge(n, loc, what); };
    auto emit = [&](LocalMesh&& local, Facing facing) {
        checkBudget(local.triangles(), context, loc);
        const std::size_t triangles = local.triangles();
        if (triangles > 0) out.meshes.push_back(place(std::move(local), m, facing, reverse, context, loc));
        return triangles;
    };

    if (type == "trianglemesh" || type == "bilinearmesh") {
        const bool bilinear = type == "bilinearmesh";
        LocalMesh local;
        local.positions = params.getVec3s("P");
        std::vector<int> indices = params.getInts("indices");
        local.normals = params.getVec3s("N");
        local.uvs = params.getVec2s("uv");
        if (params.find("S")) warnings.add(loc, what + ": \"S\" (shading tangents) is not supported: ignored");
        params.find("faceIndices");  // for Ptex textures, which wavefront does not read
        if (local.positions.empty()) {
            warnings.add(loc, what + " without \"P\": not drawn");
            return 0;
        }
        checkPerVertex(local.normals, local.positions.size(), "N", type, loc, warnings);
        checkPerVertex(local.uvs, local.positions.size(), "uv", type, loc, warnings);
        if (!checkIndices(indices, local.positions.size(), bilinear ? 4 : 3, type, loc, warnings)) return 0;
        if (!bilinear) {
            local.indices = toUnsigned(indices);
        } else {
            // A patch p00 p10 p01 p11 as the triangles p00 p10 p11 and p00 p11 p01 (pbrt's normal
            // there is cross(p10 - p00, p01 - p00)).
            for (std::size_t q = 0; q < indices.size(); q += 4) {
                const std::uint32_t p00 = std::uint32_t(indices[q]), p10 = std::uint32_t(indices[q + 1]),
                                    p01 = std::uint32_t(indices[q + 2]), p11 = std::uint32_t(indices[q + 3]);
                local.indices.insert(local.indices.end(), {p00, p10, p11, p00, p11, p01});
            }
        }
        const Facing facing = local.normals.empty() ? Facing::Winding : Facing::TowardsNormals;
        return emit(std::move(local), facing);
    }
    if (type == "plymesh") {
        const std::string name = params.getString("filename", "");
        if (params.find("displacement"))
            warnings.add(loc, what + ": \"displacement\" is not supported: the mesh is drawn undisplaced");
        params.find("edgelength");
        const std::filesystem::path file = files.resolve(name, loc, what + " \"filename\"");
        std::string bytes = files.read(file, loc, what, InputKind::ModelData);
        // pbrt-v4's scenes ship meshes as .ply.gz: unpacked within the cap of a referenced file.
        if (isGzip(bytes))
            bytes = gunzip(bytes, inputSizeLimit(InputKind::ModelData), loc.str() + ": " + what + " '" + name + "'");
        PlyMesh ply;
        try {
            ply = readPlyMesh(bytes, file.string(), context.triangleBudget);
        } catch (const InputError& e) {
            throw InputError(loc.str() + ": " + what + ": " + e.what());
        }
        for (const std::string& w : ply.warnings) warnings.add(loc, what + " '" + name + "': " + w);
        if (ply.skippedFaces > 0)
            warnings.add(loc, what + " '" + name + "': " + std::to_string(ply.skippedFaces) +
                                  " faces with other than 3 or 4 corners skipped (as pbrt-v4 skips them)");
        const Facing facing = ply.normals.empty() ? Facing::Winding : Facing::TowardsNormals;
        return emit(LocalMesh{std::move(ply.positions), std::move(ply.normals), std::move(ply.uvs), std::move(ply.indices)},
                    facing);
    }
    if (type == "loopsubdiv") {
        std::vector<glm::vec3> positions = params.getVec3s("P");
        std::vector<int> indices = params.getInts("indices");
        int levels = params.getInt("levels", 3);
        params.find("scheme");
        if (positions.empty() || indices.empty()) {
            warnings.add(loc, what + " needs \"P\" and \"indices\": not drawn");
            return 0;
        }
        if (!checkIndices(indices, positions.size(), 3, type, loc, warnings)) return 0;
        // Each level multiplies the triangles by four: as many levels as the caps allow (one
        // surface's, the file's, and what is left of the file's generated triangles), counted
        // before subdividing.
        const std::size_t base = indices.size() / 3;
        const std::size_t cap = std::min({context.triangleBudget, kMaxSubdividedTriangles, context.generated->left()});
        int affordable = 0;
        while (affordable < 16 && base << (2 * (affordable + 1)) <= cap) ++affordable;
        if (levels > affordable) {
            warnings.add(loc, what + ": " + std::to_string(levels) + " levels would give over " + std::to_string(cap) +
                                  " triangles: subdivided " + std::to_string(affordable) + " times");
            levels = affordable;
        }
        levels = std::max(levels, 0);
        if (levels > 0) charge(base << (2 * levels));
        return emit(loopSubdivide(std::move(positions), toUnsigned(indices), levels), Facing::TowardsNormals);
    }
    if (type == "sphere" || type == "disk" || type == "cylinder") {
        const double radius = params.getFloat("radius", 1.0f);
        const double phiMax = std::clamp(double(params.getFloat("phimax", 360.0f)), 0.0, 360.0) * kPi / 180.0;
        if (!(radius > 0.0) || !std::isfinite(radius) || !(phiMax > 0.0)) {
            warnings.add(loc, what + " with radius " + std::to_string(radius) + " and phimax " +
                                  std::to_string(phiMax * 180.0 / kPi) + " has no area: not drawn");
            return 0;
        }
        if (type == "sphere") {
            const double zMin = std::clamp(double(params.getFloat("zmin", float(-radius))), -radius, radius);
            const double zMax = std::clamp(double(params.getFloat("zmax", float(radius))), -radius, radius);
            if (std::min(zMin, zMax) <= -radius && std::max(zMin, zMax) >= radius && phiMax >= 2.0 * kPi) {
                checkBudget(std::size_t(2 * kSegments * kRings), context, loc);
                SphereShape sphere;
                sphere.transform = m;
                sphere.radius = float(radius);
                sphere.inward = reverse != (glm::determinant(glm::dmat3(m)) < 0.0);
                sphere.material = context.material;
                sphere.areaLight = context.areaLight;
                sphere.mediumInside = context.mediumInside;
                sphere.mediumOutside = context.mediumOutside;
                sphere.loc = loc;
                out.spheres.push_back(sphere);
                return std::size_t(2 * kSegments * kRings);
            }
            return emit(sphereMesh(radius, zMin, zMax, phiMax, charge), Facing::Quadric);
        }
        if (type == "disk") {
            const double inner = std::clamp(double(params.getFloat("innerradius", 0.0f)), 0.0, radius);
            return emit(diskMesh(params.getFloat("height", 0.0f), radius, inner, phiMax, charge), Facing::Quadric);
        }
        const double zMin = params.getFloat("zmin", -1.0f), zMax = params.getFloat("zmax", 1.0f);
        return emit(cylinderMesh(radius, std::min(zMin, zMax), std::max(zMin, zMax), phiMax, charge), Facing::Quadric);
    }
    // curve, and pbrt-v3's cone, paraboloid, hyperboloid, nurbs and heightfield.
    warnings.add(loc, what + " is not supported: skipped");
    for (const Param& p : params.params) p.used = true;
    return 0;
}

}  // namespace wavefront::pbrt
