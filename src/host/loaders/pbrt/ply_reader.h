// The PLY meshes of pbrt-v4's plymesh shape, read as pbrt-v4 reads them: positions, normals and
// texture coordinates only where the file has them (no generated normals), triangles and quads
// (other polygons skipped, as pbrt skips them). Our own reader rather than Assimp's: see
// docs/decisions.md, "pbrt-v4 scene files".
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

namespace wavefront::pbrt {

struct PlyMesh {
    std::vector<glm::vec3> positions, normals;  ///< normals: one per position, or none
    std::vector<glm::vec2> uvs;                 ///< (u, v) as stored, one per position, or none
    std::vector<std::uint32_t> indices;         ///< three per triangle; a quad a, b, c, d gives a b c, a c d
    std::size_t skippedFaces = 0;               ///< faces with fewer than 3 or more than 4 corners
    std::vector<std::string> warnings;          ///< header lines skipped (readPlyHeader)
};

/// Reads ASCII and binary (either byte order) PLY from memory: the element "vertex" (x, y, z;
/// nx, ny, nz; u, v or s, t or texture_u, texture_v or texture_s, texture_t) and the element
/// "face" (the list vertex_indices or vertex_index); other elements and properties are skipped.
/// The header is checked first (readPlyHeader: strict, counts bounded by the file's size).
/// Throws InputError, one line naming `path`, for malformed data, indices out of range, or more
/// than `maxTriangles` triangles.
PlyMesh readPlyMesh(const std::string& bytes, const std::string& path, std::size_t maxTriangles);

}  // namespace wavefront::pbrt
