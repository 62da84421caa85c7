// Scene description: the host-side input of a render. Plain data, built through the API, by name
// (built-in scenes) or from a file (OBJ/MTL, glTF 2.0, PLY, pbrt-v4, ...).
#pragma once
#include "config.h"
#include "image.h"
#include "material_type.h"
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

namespace wavefront {

/// Every material type with its name ("Lambertian", ...), in MaterialType order (the Python
/// enum is made from it).
WAVEFRONT_API std::vector<std::pair<MaterialType, std::string>> materialTypeNames();

/// A surface material. Non-zero `emission` turns every primitive using it into an area light
/// (emitting on the side the geometric normal points to; spheres emit outwards).
struct WAVEFRONT_API Material {
    MaterialType type = MaterialType::Lambertian;
    glm::vec3 diffuse{0.8f};
    glm::vec3 specular{0.0f};
    float exponent = 0.0f;  ///< Blinn-Phong exponent (Glossy)
    float ior = 1.5f;       ///< index of refraction (Dielectric, RoughDielectric)
    glm::vec3 emission{0.0f};
    float roughness = 0.0f;   ///< in [0, 1]: GGX alpha (Conductor, RoughDielectric), sqrt(alpha) (MetallicRoughness)
    float metallic = 0.0f;    ///< in [0, 1] (MetallicRoughness)
    bool complexIor = false;  ///< Conductor: Fresnel from `eta` and `k` rather than Schlick with F0 = `specular`
    glm::vec3 eta{1.0f};      ///< Conductor: real part of the complex index, per channel
    glm::vec3 k{0.0f};        ///< Conductor: imaginary part (extinction), per channel
    // The coated kinds (pbrt-v4's layered coateddiffuse and coatedconductor): the coat has index
    // `ior` and GGX alpha `roughness`; the light's walk between coat and base is estimated
    // stochastically, at most `layerDepth` events and `layerSamples` walks per evaluation.
    float baseRoughness = 0.0f;       ///< CoatedConductor: the conductor's GGX alpha, in [0, 1]
    float thickness = 0.01f;          ///< between coat and base, in units of the medium's mean free path
    glm::vec3 mediumAlbedo{0.0f};     ///< CoatedDiffuse: single-scattering albedo between (0: clear)
    float mediumG = 0.0f;             ///< CoatedDiffuse: Henyey-Greenstein g of that medium, in (-1, 1)
    int layerDepth = 10;              ///< in [1, 100] (pbrt's maxdepth)
    int layerSamples = 1;             ///< in [1, 127] (pbrt's nsamples)
    /// Index of a Scene texture (Scene::addTexture) that multiplies `diffuse` where the surface is
    /// hit (Lambertian albedo, Glossy's diffuse part, MetallicRoughness base colour), read at the
    /// mesh's texture coordinates (a sphere's: u = longitude / 2 pi, v = polar angle from +y / pi);
    /// -1: none. Other material types ignore it.
    int baseColorTexture = -1;
    /// MetallicRoughness only: a linear (srgb = false) texture whose G channel scales `roughness`
    /// and B channel `metallic` (glTF's metallicRoughnessTexture); -1: none.
    int metallicRoughnessTexture = -1;
    /// A linear tangent-space normal map (glTF's normalTexture: x along +u, y up in the image, z
    /// out of the surface, texel = n / 2 + 1/2), x and y scaled by `normalScale`; the tangent
    /// frame comes from the texture coordinates. -1: none.
    int normalTexture = -1;
    float normalScale = 1.0f;
    /// A colour texture that scales `emission` (glTF's emissiveTexture); -1: none.
    int emissionTexture = -1;

    static Material lambertian(glm::vec3 albedo, glm::vec3 emission = glm::vec3(0.0f));
    static Material glossy(glm::vec3 diffuse, glm::vec3 specular, float exponent);
    static Material mirror(glm::vec3 tint = glm::vec3(1.0f));
    static Material dielectric(float ior = 1.5f);
    /// GGX metal with Schlick Fresnel, F0 = `tint`. Ray Tracing in One Weekend's fuzzy metal
    /// (fuzz f) looks roughly like roughness 0.3 f: not the same lobe (docs/decisions.md).
    static Material conductor(glm::vec3 tint, float roughness);
    /// GGX metal with the Fresnel reflectance of the complex index eta + i k (e.g. gold at RGB
    /// wavelengths: eta (0.18, 0.42, 1.37), k (3.42, 2.35, 1.77)).
    static Material conductorIor(glm::vec3 eta, glm::vec3 k, float roughness);
    static Material roughDielectric(float ior, float roughness);
    static Material metallicRoughness(glm::vec3 baseColour, float metallic, float roughness);
    /// pbrt-v4's coateddiffuse: a dielectric coat of index `ior` and GGX alpha `roughness` (0:
    /// smooth) over a Lambertian base of `reflectance`, `thickness` apart (pbrt's defaults).
    static Material coatedDiffuse(glm::vec3 reflectance, float roughness = 0.0f, float ior = 1.5f,
                                  float thickness = 0.01f);
    /// pbrt-v4's coatedconductor: the same coat over a conductor of complex index eta + i k
    /// (relative to vacuum, as pbrt's "conductor.eta" and "conductor.k") and GGX alpha
    /// `baseRoughness`.
    static Material coatedConductor(glm::vec3 eta, glm::vec3 k, float baseRoughness = 0.0f, float roughness = 0.0f,
                                    float ior = 1.5f, float thickness = 0.01f);
    /// No surface, only the boundary of a medium (pbrt-v4's "interface"): give the shape a
    /// mediumInside and mediumOutside; rays pass through it.
    static Material interface();
    bool isEmissive() const { return emission.x > 0 || emission.y > 0 || emission.z > 0; }
};

/// A triangle mesh. `normals` is optional (empty, or one per position): when given, shading
/// uses the interpolated normal; the geometric normal still decides what is front-facing.
/// `uvs` is optional too (empty, or one per position): texture coordinates, (0, 0) at the
/// texture's top-left corner (glTF's convention; OBJ's v runs upwards and is flipped on import).
struct TriangleMesh {
    std::vector<glm::vec3> positions;
    std::vector<glm::vec3> normals;
    std::vector<glm::vec2> uvs;
    std::vector<std::uint32_t> indices;  ///< three per triangle, counter-clockwise seen from the front
    int material = 0;
    /// The media inside and outside (the geometric normal's side) of the surface: Scene::addMedium
    /// indices, kVacuum for none. Where they differ the surface bounds a medium (pbrt-v4's
    /// MediumInterface): a ray crossing it enters the medium of the side it goes to. Where they are
    /// equal (the default) the surface changes nothing: a ray leaving it stays in the medium it
    /// arrived through.
    int mediumInside = -1;
    int mediumOutside = -1;
};

/// Medium index of empty space (TriangleMesh::mediumInside and mediumOutside, Camera::medium).
constexpr int kVacuum = -1;

struct Sphere {
    glm::vec3 center{0.0f};
    float radius = 1.0f;
    int material = 0;
    int mediumInside = -1;   ///< as TriangleMesh's: the medium within the sphere
    int mediumOutside = -1;  ///< and around it
};

enum class MediumType : int {
    Homogeneous = 0,  ///< the same coefficients everywhere
    Grid = 1,         ///< coefficients times a density grid (0 outside its box)
};

/// A participating medium: absorption and scattering coefficients per unit length and RGB
/// channel (extinction sigma_t = sigma_a + sigma_s; single-scattering albedo sigma_s / sigma_t),
/// a Henyey-Greenstein phase function of mean cosine `g`, no emission. A grid medium multiplies
/// both coefficients by a density read trilinearly from `density` (nx x ny x nz values, x fastest,
/// samples at the cell centres of the box [boundsMin, boundsMax] in the medium's space, placed in
/// the world by `mediumToWorld`); outside the box its density is 0. Media fill the space between
/// the surfaces that bound them (TriangleMesh::mediumInside) and the camera's (Camera::medium).
struct WAVEFRONT_API Medium {
    MediumType type = MediumType::Homogeneous;
    glm::vec3 sigmaA{1.0f};
    glm::vec3 sigmaS{1.0f};
    float scale = 1.0f;  ///< multiplies sigmaA and sigmaS (pbrt's "scale")
    float g = 0.0f;      ///< in (-1, 1): > 0 forward scattering
    int nx = 0, ny = 0, nz = 0;
    std::vector<float> density;  ///< Grid: nx x ny x nz values >= 0, finite
    glm::vec3 boundsMin{0.0f}, boundsMax{1.0f};
    glm::mat4 mediumToWorld{1.0f};  ///< Grid: affine

    static Medium homogeneous(glm::vec3 sigmaA, glm::vec3 sigmaS, float g = 0.0f);
    static Medium grid(glm::vec3 sigmaA, glm::vec3 sigmaS, float g, int nx, int ny, int nz, std::vector<float> density,
                       glm::vec3 boundsMin = glm::vec3(0.0f), glm::vec3 boundsMax = glm::vec3(1.0f));
    glm::vec3 sigmaT() const { return (sigmaA + sigmaS) * scale; }
};

/// An image texture, rows top to bottom, sampled bilinearly and repeated beyond [0, 1]: either
/// 8-bit RGBA (`rgba8`, sRGB-encoded colour unless `srgb` is false) or float RGBA (`rgbaFloat`,
/// linear; used when `rgba8` is empty). Alpha is kept but not used yet.
struct Texture {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgba8;  ///< 4 per texel, or empty
    std::vector<float> rgbaFloat;     ///< 4 per texel, or empty
    bool srgb = true;
    std::size_t bytes() const { return rgba8.size() + rgbaFloat.size() * sizeof(float); }
};

enum class LightType : int {
    Point = 0,        ///< at `position`, the same intensity in every direction
    Spot = 1,         ///< at `position`, a cone around `direction`
    Directional = 2,  ///< from infinitely far away, travelling along `direction` (the sun)
};

/// A light without extent: it is never hit, only sampled (next-event estimation, BDPT's light
/// subpaths and s = 1 connections, MLT through them). Area lights are emissive materials instead.
/// A scene lit only by these is valid.
struct WAVEFRONT_API Light {
    LightType type = LightType::Point;
    glm::vec3 position{0.0f};                ///< point and spot
    glm::vec3 direction{0.0f, -1.0f, 0.0f};  ///< spot: the cone's axis; directional: where the light travels
    /// Point and spot: radiant intensity per RGB channel, so a surface at distance r whose normal
    /// makes an angle theta with the light receives irradiance I cos(theta) / r^2 (glTF's candela
    /// times colour, taken as radiometric). Directional: the irradiance E on a surface facing it
    /// (glTF's lux times colour), E cos(theta) on one at an angle.
    glm::vec3 intensity{1.0f};
    /// Spot: half-angles of the cone in degrees; full intensity within `innerConeDegrees` of the
    /// axis, none beyond `outerConeDegrees`, a smoothstep in the cosine between (pbrt-v4's falloff).
    float innerConeDegrees = 0.0f;
    float outerConeDegrees = 45.0f;
    /// The medium the light sits in (point, spot) or its light arrives through (directional):
    /// Scene::addMedium index, kVacuum for none. (An area light's leaves into its mesh's mediumOutside.)
    int medium = -1;

    static Light point(glm::vec3 position, glm::vec3 intensity);
    static Light spot(glm::vec3 position, glm::vec3 direction, glm::vec3 intensity, float innerConeDegrees,
                      float outerConeDegrees);
    static Light directional(glm::vec3 direction, glm::vec3 irradiance);
};

/// Pinhole camera when `lensRadius` is 0, thin-lens camera otherwise.
struct Camera {
    glm::vec3 position{0.0f, 0.0f, 1.0f};
    glm::vec3 target{0.0f};
    glm::vec3 up{0.0f, 1.0f, 0.0f};
    float verticalFovDegrees = 40.0f;
    float lensRadius = 0.0f;
    float focusDistance = 1.0f;
    int medium = -1;  ///< the medium the camera sits in (Scene::addMedium index; kVacuum: none)
};

/// A procedural sky at infinity, computed from the direction d (unit, y up) with no image: radiance
/// mix(nadir, zenith, t), t = (d.y + 1) / 2, so `nadir` straight down, their mean at the horizon,
/// `zenith` straight up. The defaults are Ray Tracing in One Weekend's sky.
struct SkyGradient {
    glm::vec3 nadir{1.0f};
    glm::vec3 zenith{0.5f, 0.7f, 1.0f};
};

/// How scene files are read (Scene::loadObj, Scene::loadAssimp, Scene::fromNameOrPath).
struct SceneLoadOptions {
    /// Files a scene references (an OBJ's `mtllib`, an MTL's `map_Kd`, a glTF file's buffers and
    /// images) may lie anywhere: absolute paths and `..` out of the referring file's folder are
    /// followed. Off (the default), they must resolve, symbolic links included, to a file inside
    /// the folder of the file that names them.
    bool allowExternalFiles = false;
    /// The texels one scene file's textures may hold together: 2^27 (512 MiB as RGBA8: two 8k x
    /// 8k maps, or one 16k x 8k) by default, at most 2^28 in any one texture. Sizes are read from
    /// the images' headers and checked before anything is decoded: a 300 KB PNG can declare 16k x
    /// 16k, which took 10 to 110 s and 3.2 GB to decode. A texture over what is left is an
    /// InputError for an OBJ's MTL and a warning for a glTF file's, like its other unreadable
    /// textures.
    std::uint64_t maxTextureTexels = std::uint64_t(1) << 27;
};

/// Where a mesh added with Scene::addMesh lives in the flattened scene: its vertices are
/// positions()[firstVertex, firstVertex + vertexCount), its triangles
/// triangles()[firstTriangle, firstTriangle + triangleCount).
struct MeshRange {
    std::uint32_t firstVertex = 0, vertexCount = 0;
    int material = 0;   ///< the material the mesh was added with
    int mediumInside = -1, mediumOutside = -1;  ///< as the mesh was added with
    bool hasNormals = false;
    std::size_t firstTriangle = 0, triangleCount = 0;
};

/// Geometry drawn only where instances place it (Scene::addObject): its own vertex and triangle
/// arrays in object space, laid out as the scene's own. The renderers build one BVH per object
/// and one over the instances, so memory grows with the objects, not with their copies.
struct ObjectGeometry {
    std::vector<glm::vec3> positions;
    std::vector<glm::vec3> normals;  ///< per vertex, or empty
    std::vector<glm::vec2> uvs;      ///< per vertex, or empty
    std::vector<glm::uvec3> triangles;
    std::vector<int> triangleMaterials;
    std::vector<std::uint8_t> triangleHasNormals;
    glm::vec3 boundsLo{0.0f}, boundsHi{0.0f};  ///< the box of its triangles' vertices
};

/// One placement of an object: `objectToWorld` takes object space to world space (affine).
struct Instance {
    int object = 0;
    glm::mat4 objectToWorld{1.0f};
};

/// Render settings a scene file carries (pbrt-v4's Film and Integrator); 0 or empty: not given.
/// The CLI uses them where its command line does not set --res, --out or --max-depth.
struct SceneFileSettings {
    int width = 0, height = 0;  ///< the film's resolution
    std::string outputFile;     ///< the image to write (.png, .exr or .pfm), a path in the scene file's folder (not outside it unless allowExternalFiles)
    int maxDepth = 0;           ///< the longest path, in segments from the camera (RenderOptions::maxDepth)
};

/// The flattened scene the renderers consume: one global vertex array, one triangle list.
/// Built by adding meshes; `validate()` checks it and drops degenerate triangles.
class WAVEFRONT_API Scene {
public:
    /// Adds a material and returns its index. Its texture, if any, must have been added.
    int addMaterial(const Material& material);
    /// Adds a texture and returns its index. Throws InputError for sizes that do not match the
    /// texels, or float texels that are negative or not finite. Float texels above 1 (an HDR
    /// image) are for emission textures: addMaterial refuses them as base colour,
    /// metallic-roughness or normal textures.
    int addTexture(Texture texture);
    /// Adds a mesh and returns its index (meshes(), setMeshPositions). Throws InputError for
    /// out-of-range indices or material, NaN or infinite positions (naming the face), or normals
    /// of the wrong count. A zero or non-finite normal is taken: the triangles using its vertex
    /// fall back to their geometric normal (setMeshPositions' rule too). Triangles of zero area
    /// are kept (never hit) so that setMeshPositions can give them area (a mesh scaled from zero).
    int addMesh(const TriangleMesh& mesh);
    void addSphere(const Sphere& sphere);
    /// Adds an object, meshes drawn only where addInstance places them, and returns its index.
    /// Each mesh is checked as addMesh checks it; degenerate triangles are dropped (counted in
    /// skippedDegenerateTriangles()). Throws InputError for an object with no triangle left, or a
    /// mesh whose material emits: the copies of an instanced emitter would not be sampled as
    /// lights (pbrt-v4 refuses them too), so emitters go in with addMesh, as the loaders do.
    int addObject(const std::vector<TriangleMesh>& meshes);
    /// Places object `object` by `objectToWorld` and returns the instance's index. Throws
    /// InputError for an object index out of range, or a transform that is not finite, not affine
    /// (bottom row other than (0, 0, 0, 1)), not invertible, or that takes the object beyond
    /// +-kMaxCoordinate.
    int addInstance(int object, const glm::mat4& objectToWorld);
    /// Moves instance `index` (checked as addInstance checks; nothing changes on an error).
    void setInstanceTransform(int index, const glm::mat4& objectToWorld);
    /// Every object added, in order.
    const std::vector<ObjectGeometry>& objects() const { return objects_; }
    /// Every instance added, in order.
    const std::vector<Instance>& instances() const { return instances_; }
    /// The world-space box of instance `index`: its object's box, transformed.
    void instanceBounds(int index, glm::vec3& lo, glm::vec3& hi) const;
    /// Replaces every instance by its object's triangles placed in world space (one addMesh per
    /// instance and material; normals by the inverse transpose, the winding turned where the
    /// placement mirrors), and drops the objects: the same image, memory per copy (for comparisons,
    /// and for hosts that need one flat triangle list).
    void flattenInstances();
    /// The box of every primitive and instance; false for a scene without any.
    bool bounds(glm::vec3& lo, glm::vec3& hi) const;

    // Edits of what is there (Renderer's edits call these on its own copy first). Each checks as
    // its add* counterpart does and throws InputError, one line, changing nothing, for bad input.

    /// Replaces material `index` (checked as addMaterial checks). Throws InputError for an index
    /// out of range, or an emissive material in place of one an object uses (see addObject).
    void setMaterial(int index, const Material& material);
    /// Replaces texture `index` (checked as addTexture checks, and against every material that
    /// uses it: an HDR texture only as emission, a data texture linear).
    void setTexture(int index, Texture texture);
    /// Replaces light `index` (checked as addLight checks; the direction stored normalised).
    void setLight(int index, const Light& light);
    /// Moves the vertices of mesh `mesh` (same topology): exactly meshes()[mesh].vertexCount
    /// positions, each finite and within +-kMaxCoordinate; `normals`, when given, as many, and only
    /// for a mesh added with normals, zero or non-finite ones taken as addMesh takes them. A
    /// triangle of zero area (from addMesh or an earlier edit) stays in the scene, never hit, and
    /// is drawn again once an edit gives it area.
    void setMeshPositions(int mesh, const std::vector<glm::vec3>& positions,
                          const std::vector<glm::vec3>& normals = {});
    /// setMeshPositions' checks of the positions alone, changing nothing: InputError naming the
    /// first bad vertex (or a count other than the mesh's vertices). `positions` null: the mesh
    /// index and the count only.
    void checkMeshPositions(int mesh, const glm::vec3* positions, std::size_t count) const;
    /// Throws InputError, one line, for a camera validate() would refuse (non-finite or
    /// coinciding position and target, up parallel to the view, field of view outside (0, 180),
    /// a thin lens without a positive focus distance).
    static void checkCamera(const Camera& camera);
    /// Every mesh added, in order.
    const std::vector<MeshRange>& meshes() const { return meshes_; }
    /// Whether some primitive (of non-zero area) uses an emissive material or the scene has a light or an environment
    /// (what validate() asks of a scene to be rendered).
    bool hasEmitter() const;
    /// Adds a point, spot or directional light and returns its index. Throws InputError for
    /// negative or non-finite intensity, a zero or non-finite direction (spot, directional), a
    /// position that is not finite or beyond +-kMaxCoordinate (point, spot: a light at infinity
    /// is a directional light), or cone angles outside 0 <= inner <= outer <= 180 degrees with
    /// outer > 0. The direction is stored normalised.
    int addLight(const Light& light);
    /// Adds a participating medium and returns its index (for TriangleMesh::mediumInside and
    /// mediumOutside, Sphere's, Camera::medium). Throws InputError for negative or non-finite
    /// coefficients or scale, g outside (-1, 1), a grid whose size does not match its density
    /// values or exceeds kMaxGridValues, a negative or non-finite density, an empty box, a
    /// transform that is not finite, affine and invertible, or more than kMaxMedia media.
    int addMedium(const Medium& medium);
    const std::vector<Medium>& media() const { return media_; }
    /// Media a scene can hold, and the density values of one grid (2^27: 512 MiB of floats).
    static constexpr int kMaxMedia = 254;
    static constexpr std::uint64_t kMaxGridValues = std::uint64_t(1) << 27;
    /// Whether anything of the scene involves media: a medium, a surface that bounds one, an
    /// Interface material or a camera in a medium (the renderers then run the kernels with media).
    bool hasMedia() const;
    /// Sets the camera; on a validated scene a camera validate() would refuse throws InputError
    /// (checkCamera) and the scene keeps its camera.
    void setCamera(const Camera& camera) {
        if (validated_) {  // a validated scene keeps a valid camera (validate() checks it once)
            checkCamera(camera);
            checkMediumIndex(camera.medium, "camera");
        }
        camera_ = camera;
        cameraIsDefault_ = false;
    }
    /// Replaces the camera with one that frames the geometry: it looks at the centre of the
    /// bounding box from the direction (1, 0.6, 1.4) (y up; the same direction rotated so that y
    /// maps to `up` otherwise), far enough that the bounding sphere fits the vertical field of
    /// view. The camera then counts as a default (cameraIsDefault()). Throws InputError for an up
    /// vector that is zero or not finite, or a scene without primitives.
    void frameCamera(glm::vec3 up = glm::vec3(0.0f, 1.0f, 0.0f), float verticalFovDegrees = 40.0f);
    /// Whether the camera is a default (never set, or set by frameCamera, as loaders do for files
    /// without a camera) rather than one chosen through setCamera or read from a file.
    bool cameraIsDefault() const { return cameraIsDefault_; }
    /// Lights the scene from infinitely far away with an HDR latitude-longitude image (y up, the
    /// top row looking up; radiance per texel, times `scale`). Throws InputError for an empty
    /// image or negative, NaN or infinite (also after scaling) texels. RenderOptions can replace
    /// it with a file (`environmentMap`) and scale it (`environmentScale`).
    void setEnvironment(Image image, float scale = 1.0f);
    /// The environment image (empty: none, or the procedural sky), its texels already scaled.
    const Image& environment() const { return environment_; }
    /// Lights the scene with a procedural sky (SkyGradient), in place of an environment image;
    /// setEnvironment replaces it in turn, and RenderOptions' `environmentMap` and
    /// `environmentScale` apply to it as to an image. Every integrator renders it; next-event
    /// estimation and BDPT's light subpaths sample it uniformly over the sphere. Throws InputError
    /// for negative or non-finite colours.
    void setSkyGradient(const SkyGradient& sky);
    bool hasSkyGradient() const { return hasSky_; }
    const SkyGradient& skyGradient() const { return sky_; }
    /// An environment image or the procedural sky lights the scene.
    bool hasEnvironment() const { return environment_.width > 0 || hasSky_; }

    /// Checks the whole scene (geometry present, at least one emitter or light unless the scene
    /// has an environment or `requireEmitter` is false, valid camera) and counts zero-area triangles
    /// in `skippedDegenerateTriangles()` (the meshes' stay, never hit, for edits to move; the
    /// objects' were removed by addObject). Renderers call it; calling it twice is harmless.
    void validate(bool requireEmitter = true);

    const std::vector<Material>& materials() const { return materials_; }
    const std::vector<glm::vec3>& positions() const { return positions_; }
    const std::vector<glm::vec3>& normals() const { return normals_; }  ///< per vertex, or empty
    const std::vector<glm::vec2>& uvs() const { return uvs_; }          ///< per vertex (0 where a mesh had none), or empty
    const std::vector<Texture>& textures() const { return textures_; }
    const std::vector<glm::uvec3>& triangles() const { return triangles_; }
    const std::vector<int>& triangleMaterials() const { return triangleMaterials_; }
    /// Per triangle: whether its vertices carry shading normals.
    const std::vector<std::uint8_t>& triangleHasNormals() const { return triangleHasNormals_; }
    const std::vector<Sphere>& spheres() const { return spheres_; }
    const std::vector<Light>& lights() const { return lights_; }
    const Camera& camera() const { return camera_; }
    std::size_t skippedDegenerateTriangles() const { return skippedDegenerate_ + meshDegenerate_; }
    /// The primitives of the scene itself (instances' triangles not counted).
    std::size_t primitiveCount() const { return triangles_.size() + spheres_.size(); }
    /// What a loader could not take over from the file (ignored lights, unsupported texture
    /// kinds, a glTF texture image that cannot be read), one line each, without repeats. Loading
    /// does not fail for these (the CLI's --strict makes them errors). An OBJ's `map_Kd` that
    /// cannot be read is an error, like its missing `mtllib`: OBJ names its files explicitly.
    const std::vector<std::string>& warnings() const { return warnings_; }
    /// Adds a warning unless the same line is there already.
    void addWarning(const std::string& message);
    /// The render settings the scene file carried (all 0 and empty for other scenes).
    const SceneFileSettings& fileSettings() const { return fileSettings_; }
    void setFileSettings(const SceneFileSettings& settings) { fileSettings_ = settings; }

    /// A built-in scene by name (see builtinSceneNames()). Throws InputError for unknown names.
    static Scene builtin(const std::string& name);
    static std::vector<std::string> builtinSceneNames();
    /// Loads an OBJ file (UTF-8, or UTF-16 with a byte order mark) with its MTL materials. Kd ->
    /// diffuse; Ks/Ns -> Blinn-Phong glossy;
    /// Ke -> emission; illum 3/5 -> mirror, illum 4/6/7 (or Ni with dissolve < 1) -> glass;
    /// otherwise a non-zero Pr (roughness) or Pm (metallic) -> metallic-roughness with base Kd.
    /// Texture coordinates (vt) are kept, v flipped (1 - v), for faces whose every corner has one
    /// (others get none; faces under a textured material without them are counted in a warning);
    /// a vertex with several texture coordinates (a seam) becomes one vertex per coordinate.
    /// map_Kd of a Lambertian, glossy or metallic-roughness material that faces use becomes its
    /// base colour texture (sRGB; `-colorspace linear` reads it as linear), read once per file,
    /// its path resolved against the MTL's folder; Kd multiplies it, and a material without a Kd
    /// line takes Kd = 1 (1 - max(Ks) when glossy). Its `-s` and `-o` apply to the OBJ texture
    /// coordinates (u s + o, before the flip); `-clamp`, `-mm` and `-t` are named in a warning and
    /// ignored. map_Ke scales Ke (the emission texture), `norm` is a tangent-space normal map
    /// (`-bm` its scale); map_Ka, map_Ks, map_Ns, map_d, bump, disp, refl and the PBR maps are
    /// named in a warning. A `usemtl` naming no material of the libraries (or in a file without
    /// mtllib) is a warning, its faces taking the default material. Polygons: convex quads split
    /// along their shorter diagonal, other convex polygons fanned, concave ones ear clipped
    /// (near-linear; one that intersects itself, or whose clipping would take more than a few
    /// hundred point tests per corner, is fanned in part, with a warning). Throws InputError,
    /// naming the file and line, for a file that is not a regular file, exceeds its size cap
    /// (docs/hardening.md) or holds a NUL byte, a material library or texture that cannot be read
    /// or decoded, lies outside the OBJ's (the MTL's) folder (see SceneLoadOptions) or exceeds the
    /// texture budget, malformed lines, indices out of range, and faces using non-finite vertices
    /// or texture coordinates or vertices beyond +-kMaxCoordinate.
    static Scene loadObj(const std::string& path, const SceneLoadOptions& options = {});
    /// The largest coordinate magnitude of a vertex or sphere (beyond it the cross products of
    /// triangle edges overflow float and surfaces lose their normals).
    static constexpr float kMaxCoordinate = 1e8f;
    /// Loads glTF 2.0 (.gltf, .glb) or PLY through Assimp (other extensions are refused: only
    /// these readers are pre-checked and fuzzed): meshes with their node transforms (a mesh
    /// several nodes use becomes one object placed by an instance per node, addObject and
    /// addInstance; emissive meshes, and nodes whose transform no instance can take, such as a
    /// zero scale, are copied into the scene as the others are, with the transform applied), normals
    /// (glTF without normals: flat, as the spec says; PLY: smooth ones generated), the first set
    /// of texture coordinates, glTF metallic-roughness materials with their base colour,
    /// metallic-roughness, normal and emissive textures, emission with
    /// KHR_materials_emissive_strength, KHR_materials_transmission (with KHR_materials_ior) as
    /// rough glass, and the first perspective camera. Files without materials get a grey
    /// Lambertian (0.8); without a camera, frameCamera(). What is left out is named in
    /// warnings() (lights, extensions, animations, skins: the bind pose, morph targets: the base
    /// mesh). PLY polygons are triangulated as OBJ polygons are. The model and every file it references are read by the library, not by
    /// Assimp: regular files only, 2 GiB each, referenced files (glTF buffers, texture images)
    /// confined to the model's folder unless options.allowExternalFiles (docs/hardening.md). A
    /// texture that cannot be read is a warning; the material is drawn without it. Throws
    /// InputError, one line, for files that cannot be read, that Assimp cannot parse, whose PLY
    /// header declares more elements than the file can hold or whose lists are longer than the
    /// data after them, whose glTF buffer views and accessors reach beyond what they point into,
    /// whose glTF JSON is malformed or larger than 256 MiB, or that hold no triangles.
    static Scene loadAssimp(const std::string& path, const SceneLoadOptions& options = {});
    /// Loads a pbrt-v4 scene file (https://pbrt.org/fileformat-v4) with the files it includes:
    /// its camera (perspective; pbrt's field of view is on the shorter image axis), shapes
    /// (triangle, bilinear and PLY meshes, Loop subdivision surfaces, spheres, disks, cylinders;
    /// object instances kept as instances (addObject, addInstance; area lights inside an object
    /// do not emit, as in pbrt-v4)), materials and textures mapped onto wavefront's (docs/pbrt.md
    /// has the table), area lights as emissive materials (two-sided ones as two offset copies),
    /// an infinite light as the environment (pbrt-v4's equal-area octahedral map resampled to
    /// latitude-longitude), point, spot and distant lights, participating media (homogeneous,
    /// uniform grids and RGB grids that are one density grid: addMedium; MediumInterface gives
    /// shapes, the camera and lights their media; the "interface" material is
    /// Material::interface()), spectra converted to linear sRGB, and the Film's resolution and file
    /// name and the Integrator's maxdepth as fileSettings(). pbrt's left-handed world is mirrored
    /// where needed, so that the image is the one pbrt draws. Relative file names are looked up
    /// in the folder of `path` (pbrt-v4's rule), then in the folder of the file that names them,
    /// and must stay inside the folder of `path` unless options.allowExternalFiles. What is not
    /// taken over (cloud and NanoVDB media, emissive media, curves, procedural textures, mix
    /// materials, ...) is named in warnings(), repeats counted. Throws InputError, one line "file:line:column: message", for
    /// syntax errors, unreadable files, and files past the caps of docs/hardening.md (include
    /// depth 32, 4 GiB of text in all, 2^28 triangles).
    static Scene loadPbrt(const std::string& path, const SceneLoadOptions& options = {});
    /// Loads a scene file by its extension: .obj through loadObj, .gltf, .glb and .ply through
    /// loadAssimp, .pbrt through loadPbrt; other extensions are refused with one line naming the
    /// formats read.
    static Scene loadFile(const std::string& path, const SceneLoadOptions& options = {});
    /// Built-in name, or path to a scene file (loadFile): an existing file, or a name ending in
    /// an extension of a format that can be read.
    static Scene fromNameOrPath(const std::string& nameOrPath, const SceneLoadOptions& options = {});

private:
    /// Checks what addMesh checks of `mesh` (indices, material, normals and texture coordinates,
    /// vertices in range); throws InputError.
    void checkMesh(const TriangleMesh& mesh) const;
    /// Checks that `medium` is kVacuum or a medium's index (for `what`); throws InputError.
    void checkMediumIndex(int medium, const std::string& what) const;
    /// Checks `m` as the transform of an instance of `object` (named `what`); throws InputError.
    void checkPlacement(int object, const glm::mat4& m, const std::string& what) const;
    /// Checks `material` as material number `index`; throws InputError.
    void checkMaterial(const Material& material, std::size_t index) const;
    /// Checks `texture` as texture `index`; returns its largest colour value. Throws InputError.
    static float checkTexture(Texture& texture, std::size_t index);
    /// `light` checked as light `index`, its direction normalised. Throws InputError.
    static Light checkedLight(const Light& light, std::size_t index);

    std::vector<Material> materials_;
    std::vector<MeshRange> meshes_;
    std::vector<glm::vec3> positions_;
    std::vector<glm::vec3> normals_;
    std::vector<glm::vec2> uvs_;
    std::vector<Texture> textures_;
    std::vector<float> textureLargest_;  ///< per texture: its largest colour value (1 for 8-bit ones)
    std::vector<glm::uvec3> triangles_;
    std::vector<int> triangleMaterials_;
    std::vector<std::uint8_t> triangleHasNormals_;
    std::vector<Sphere> spheres_;
    std::vector<Medium> media_;
    std::vector<ObjectGeometry> objects_;
    std::vector<Instance> instances_;
    std::vector<Light> lights_;
    Camera camera_;
    Image environment_;
    SkyGradient sky_;
    bool hasSky_ = false;
    std::size_t skippedDegenerate_ = 0;  ///< the objects' zero-area triangles, removed
    std::size_t meshDegenerate_ = 0;     ///< the meshes' at the last validate(), kept
    bool validated_ = false;
    bool cameraIsDefault_ = true;
    std::vector<std::string> warnings_;
    SceneFileSettings fileSettings_;
};

/// A built-in sky for Scene::setEnvironment: "uniform" (radiance 1 from every direction) or
/// "gradient" (white at the horizon to blue at the zenith, a dim grey ground below), with `up`
/// pointing to the zenith. Throws InputError for other names or a zero or non-finite `up`.
WAVEFRONT_API Image skyEnvironment(const std::string& kind, glm::vec3 up = glm::vec3(0.0f, 1.0f, 0.0f));

}  // namespace wavefront
