// pbrt-v4 shapes as triangles: trianglemesh, plymesh, bilinearmesh, loopsubdiv, and the
// quadrics (sphere, disk, cylinder), tessellated where wavefront has no such primitive. Full
// spheres stay spheres (SphereShape) until the conversion knows whether they can be drawn as one.
#pragma once
#include <cstddef>
#include <string>

#include <glm/glm.hpp>

#include "host/loaders/pbrt/description.h"
#include "host/loaders/pbrt/files.h"
#include "host/loaders/pbrt/warnings.h"

namespace wavefront::pbrt {

/// Where a Shape directive stands in the graphics state.
struct ShapeContext {
    glm::dmat4 objectToWorld{1.0};
    bool reverseOrientation = false;
    MaterialRef material;
    int areaLight = -1;
    int mediumInside = -1, mediumOutside = -1;  ///< MediumInterface's (Description::mediumReferences indices)
    std::size_t triangleBudget = 0;  ///< how many more triangles the file may give
    GeneratedTriangles* generated = nullptr;  ///< the file's count of generated triangles (Description::generated)
};

/// Adds the shape to `out`, in world space; returns how many triangles it added. Shapes
/// wavefront cannot draw (curves, ...) and malformed meshes (pbrt-v4 discards them with an
/// error message and renders the rest) are warnings. Throws InputError for a shape that would
/// exceed the budget, or for a file (plymesh) that cannot be read.
std::size_t addShape(const std::string& type, const ParamList& params, const FileLoc& loc, const ShapeContext& context,
                     const FileResolver& files, Warnings& warnings, ShapeSet& out);

/// Applies `m` to a mesh: positions as points, normals by the inverse transpose, and the winding
/// turned around where `m` mirrors, so that the triangles still face where the normal points.
void transformMesh(MeshShape& mesh, const glm::dmat4& m);

/// A sphere as triangles (smooth normals, pbrt's (u, v)), facing as the sphere does; charged to
/// `generated` before they are made.
MeshShape tessellateSphere(const SphereShape& sphere, GeneratedTriangles& generated);

}  // namespace wavefront::pbrt
