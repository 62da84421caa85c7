// Polygons to triangles for the loaders (OBJ faces, PLY polygons): one rule for every format.
#pragma once
#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

namespace wavefront {

/// Appends the triangles of the polygon `corners` (in order, 3 or more; planar or nearly so) to
/// `triangles` as corner numbers (0 .. corners.size() - 1), three per triangle, in the polygon's
/// winding. Triangles are returned as is; quads are split along the shorter diagonal when convex;
/// other convex polygons become a fan from the first corner (linear). Concave polygons are ear
/// clipped, with points sorted along a z-order curve so that each ear test looks at the points
/// near it only (near-linear for real polygons, as earcut). Returns false when a polygon (one that
/// intersects itself, or one whose ear tests would take more than a few hundred point tests per
/// corner: a hostile file) had the rest of it fanned instead.
bool triangulatePolygon(const std::vector<glm::vec3>& corners, std::vector<std::uint32_t>& triangles);

}  // namespace wavefront
