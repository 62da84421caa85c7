// What a pbrt-v4 file describes, once parsed and before it becomes a wavefront Scene: the
// options block (camera, film, integrator, ...), named materials and textures, lights, the
// shapes as triangles or spheres in pbrt's world space, and the instanced objects with their
// placements. The builder (builder.h) fills it while the parser reads; the conversion
// (convert.cpp) maps it onto the Scene.
#pragma once
#include <deque>
#include <map>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "host/loaders/pbrt/params.h"

namespace wavefront::pbrt {

/// A directive with a type name and parameters: a camera, a material, a texture, a light...
struct Entity {
    std::string type;
    ParamList params;
    FileLoc loc;
    glm::dmat4 transform{1.0};  ///< the current transformation matrix when it was given
    /// Camera and LightSource: the current outside medium where it was given (pbrt-v4's rule), a
    /// Description::mediumReferences index; -1: vacuum.
    int medium = -1;
};

/// The material a shape was given: one of `Description::materials` (`index`), or the named one
/// (`name`, looked up at the end: pbrt-v4 lets a NamedMaterial precede its MakeNamedMaterial).
struct MaterialRef {
    int index = 0;  ///< 0: pbrt's default, diffuse with reflectance 0.5
    std::string name;
    FileLoc loc;  ///< of the NamedMaterial directive
};

/// The triangles of one shape in pbrt's world space, each wound so that its geometric normal
/// cross(p1 - p0, p2 - p0) points where pbrt's surface normal points (the side an area light
/// emits to). Normals (one per position, or none) are shading normals; uvs are pbrt's (u, v), v
/// up in the image (one per position, or none).
struct MeshShape {
    std::vector<glm::vec3> positions, normals;
    std::vector<glm::vec2> uvs;
    std::vector<std::uint32_t> indices;
    MaterialRef material;
    int areaLight = -1;  ///< index into Description::areaLights, -1: none
    /// MediumInterface's media behind and in front of the surface (pbrt's inside and outside):
    /// Description::mediumReferences indices, -1: vacuum.
    int mediumInside = -1, mediumOutside = -1;
    FileLoc loc;
};

/// A full sphere: object-to-world transform and radius, outward unless `inward` (pbrt's
/// ReverseOrientation, or a transform that swaps handedness). The conversion keeps it a wavefront
/// Sphere where it can (a similarity transform, facing out, no texture) and tessellates it otherwise.
struct SphereShape {
    glm::dmat4 transform{1.0};
    float radius = 1.0f;
    bool inward = false;
    MaterialRef material;
    int areaLight = -1;
    int mediumInside = -1, mediumOutside = -1;  ///< as MeshShape's
    FileLoc loc;
};

/// Shapes, as the world holds them or an object (ObjectBegin) defines them.
struct ShapeSet {
    std::vector<MeshShape> meshes;
    std::vector<SphereShape> spheres;
};

/// An object (ObjectBegin ... ObjectEnd) drawn as a wavefront object: its shapes in the object's
/// own space, as they were defined, placed by ObjectInstances.
struct InstancedObject {
    std::string name;
    ShapeSet shapes;
    FileLoc loc;  ///< of its ObjectBegin
};

/// An ObjectInstance of one of `Description::objects`.
struct ObjectPlacement {
    int object = 0;             ///< index into Description::objects
    glm::dmat4 transform{1.0};  ///< world-from-object: the CTM at the ObjectInstance
    FileLoc loc;
};

/// The most triangles one scene file's shapes may make beyond those it lists: subdivision,
/// tessellated quadrics (full spheres where they cannot stay spheres) and the back faces of
/// two-sided emitters. A few hundred bytes each once rendered: about 1 GiB at the cap, where a
/// file of a few KB could otherwise ask for tens of GB (loopsubdiv surfaces at 2^20 triangles
/// each, thousands of textured spheres at 9216).
constexpr std::size_t kMaxGeneratedTriangles = std::size_t(1) << 22;

/// A scene file's count of generated triangles, charged before they are made.
struct GeneratedTriangles {
    std::size_t made = 0;
    std::size_t left() const { return kMaxGeneratedTriangles - made; }
    /// Counts `triangles` more; throws InputError "loc: what: ..." past kMaxGeneratedTriangles.
    void charge(std::size_t triangles, const FileLoc& loc, const std::string& what);
};

/// A medium name as MediumInterface gives it: resolved against the MakeNamedMedium directives once
/// the whole file is read (pbrt-v4 lets a medium be named before it is made).
struct MediumReference {
    std::string name;
    FileLoc loc;  ///< of the first MediumInterface that names it
};

/// A MakeNamedMedium directive: its type ("homogeneous", "uniformgrid", ...) and parameters, its
/// transform the medium's world-from-medium.
struct NamedMedium {
    std::string name;
    Entity entity;
};

struct Description {
    // The options block.
    Entity camera;  ///< transform: pbrt's camera-from-world (the CTM at the Camera directive); pbrt's default without one
    Entity film, sampler, integrator, filter;
    bool hasFilm = false, hasIntegrator = false;

    // The world block.
    std::vector<Entity> materials;  ///< [0] is pbrt's default material
    std::map<std::string, Entity> namedMaterials;
    std::map<std::string, Entity> floatTextures, spectrumTextures;  ///< type: the texture class ("imagemap", ...)
    std::vector<Entity> lights;      ///< LightSource, with the light's transform
    std::vector<Entity> areaLights;  ///< AreaLightSource, shared by the shapes that follow it
    std::vector<NamedMedium> media;  ///< MakeNamedMedium, in the order given (options or world block)
    std::vector<MediumReference> mediumReferences;  ///< every medium name MediumInterface gave, once
    ShapeSet shapes;  ///< the world's own shapes
    std::vector<InstancedObject> objects;  ///< the objects instanced, each once (area lights in them dropped, as pbrt-v4 does)
    std::vector<ObjectPlacement> instances;
    GeneratedTriangles generated;  ///< by the builder (subdivision, quadrics) and the conversion (spheres, back faces)
    /// pbrt-v4's sensor imaging ratio, exposure time x ISO / 100 (the conversion sets it): every
    /// emitter is scaled by it, so the image is the one pbrt's film records.
    float imagingRatio = 1.0f;

    /// Every file name a FileLoc points to (stable addresses: a deque).
    std::deque<std::string> fileNames;
};

}  // namespace wavefront::pbrt
