// pbrt-v4's graphics state, driven by the parser one directive at a time: the current
// transformation matrix, attribute blocks, named coordinate systems, the current material, area
// light and media (MediumInterface), object definitions and instances. It fills a Description (description.h); shapes
// become triangles (or spheres) in pbrt's world space as they are read, or in their object's
// space inside ObjectBegin.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "host/loaders/pbrt/description.h"
#include "host/loaders/pbrt/files.h"
#include "host/loaders/pbrt/warnings.h"

namespace wavefront::pbrt {

/// The deepest AttributeBegin (and ObjectBegin, Import) nesting accepted: each level copies the
/// graphics state, and no scene needs more.
constexpr int kMaxAttributeDepth = 4096;
/// The most different parameters `Attribute` may hold in force for one target (shape, light,
/// material, medium, texture): no pbrt-v4 type reads more than a few dozen, and each new one
/// copies the list.
constexpr std::size_t kMaxAttributeParameters = 256;

class SceneBuilder {
public:
    SceneBuilder(Description& description, Warnings& warnings, const FileResolver& files);

    // Transformations (pbrt: each multiplies the CTM on the right).
    void identity();
    void translate(glm::dvec3 delta);
    void scale(glm::dvec3 factors);
    void rotate(double degrees, glm::dvec3 axis, const FileLoc& loc);
    void lookAt(glm::dvec3 eye, glm::dvec3 look, glm::dvec3 up, const FileLoc& loc);
    /// `m`: 16 values as written, column by column (pbrt's Transform and ConcatTransform).
    void transform(const double m[16], bool concatenate);
    void coordinateSystem(const std::string& name);
    void coordSysTransform(const std::string& name, const FileLoc& loc);
    void activeTransform(const std::string& which, const FileLoc& loc);
    void transformTimes(double start, double end, const FileLoc& loc);
    void reverseOrientation();

    // Blocks.
    void attributeBegin(const FileLoc& loc);
    void attributeEnd(const FileLoc& loc);
    void attribute(const std::string& target, ParamList params, const FileLoc& loc);
    void worldBegin(const FileLoc& loc);
    /// Import: the file sees the current state; what it changes ends with it (pbrt-v4 parses it
    /// with a copy of the state). Its named materials and textures are kept, as pbrt merges them.
    void importBegin(const FileLoc& loc);
    void importEnd(const FileLoc& loc);
    void objectBegin(const std::string& name, const FileLoc& loc);
    void objectEnd(const FileLoc& loc);
    void objectInstance(const std::string& name, const FileLoc& loc);

    // The options block.
    void camera(const std::string& type, ParamList params, const FileLoc& loc);
    /// Film, Sampler, Integrator, PixelFilter: kept for the conversion to read (Accelerator: ignored).
    void option(const std::string& directive, const std::string& type, ParamList params, const FileLoc& loc);
    void colorSpace(const std::string& name, const FileLoc& loc);
    /// The Option directive (pbrt-v4's command-line options set from the file).
    void renderOption(const std::string& name, const std::string& value, const FileLoc& loc);

    // The world block.
    void shape(const std::string& type, ParamList params, const FileLoc& loc);
    void lightSource(const std::string& type, ParamList params, const FileLoc& loc);
    void areaLightSource(const std::string& type, ParamList params, const FileLoc& loc);
    void material(const std::string& type, ParamList params, const FileLoc& loc);
    void makeNamedMaterial(const std::string& name, ParamList params, const FileLoc& loc);
    void namedMaterial(const std::string& name, const FileLoc& loc);
    void texture(const std::string& name, const std::string& kind, const std::string& type, ParamList params,
                 const FileLoc& loc);
    /// MakeNamedMedium: kept with the CTM (its world-from-medium) for the conversion (media.h);
    /// allowed in the options block too, as in pbrt-v4.
    void makeNamedMedium(const std::string& name, ParamList params, const FileLoc& loc);
    /// MediumInterface: the media of the shapes that follow ("" is vacuum); the outside one is
    /// also the medium of the Camera and the LightSources that follow, as in pbrt-v4.
    void mediumInterface(const std::string& inside, const std::string& outside, const FileLoc& loc);

    /// After the last file: checks that every block was closed.
    void endOfFiles(const FileLoc& loc);

private:
    enum class Block { Options, World };
    enum Target { ShapeAttributes, LightAttributes, MaterialAttributes, MediumAttributes, TextureAttributes, kTargets };
    struct GraphicsState {
        glm::dmat4 ctm{1.0};
        bool reverseOrientation = false;
        MaterialRef material;
        int areaLight = -1;
        int mediumInside = -1, mediumOutside = -1;  ///< Description::mediumReferences indices, -1: vacuum
        bool transformStartActive = true;  ///< ActiveTransform: wavefront keeps the start transform only
        std::shared_ptr<const std::vector<Param>> attributes[kTargets];
    };
    struct ObjectDefinition {
        ShapeSet shapes;  ///< moved to Description::objects when first instanced
        FileLoc loc;
        int instanced = -1;  ///< its index in Description::objects, -1: not instanced (yet)
    };
    struct Pushed {
        GraphicsState state;
        char kind;  ///< 'a' AttributeBegin, 'o' ObjectBegin, 'i' Import
        FileLoc loc;
    };

    void apply(const glm::dmat4& m);  ///< ctm = ctm * m, unless only the end transform is active
    void requireWorld(const char* directive, const FileLoc& loc) const;
    void requireOptions(const char* directive, const FileLoc& loc) const;
    void push(char kind, const FileLoc& loc);
    /// Warns about the parameters nobody asked for.
    void warnUnused(const std::string& what, const ParamList& params);
    void pop(char kind, const FileLoc& loc);
    Entity entity(const std::string& type, ParamList params, Target defaults, const FileLoc& loc) const;
    /// The Description::mediumReferences index of a medium name, -1 for "" (vacuum).
    int mediumReference(const std::string& name, const FileLoc& loc);

    Description& d_;
    Warnings& warnings_;
    const FileResolver& files_;
    Block block_ = Block::Options;
    GraphicsState state_;
    std::vector<Pushed> pushed_;
    std::map<std::string, glm::dmat4> coordinateSystems_;
    std::map<std::string, ObjectDefinition> objects_;
    std::map<std::string, int> mediumReferences_;  ///< name -> Description::mediumReferences index
    std::map<std::string, FileLoc> mediumNames_;   ///< MakeNamedMedium names given so far
    ShapeSet* currentObject_ = nullptr;  ///< the object being defined (ObjectBegin), or null
    std::string currentObjectName_;
    /// Created so far (kMaxSceneFileTriangles): objects' once, as they are defined.
    std::size_t triangles_ = 0;
};

}  // namespace wavefront::pbrt
