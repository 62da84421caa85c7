// Scene::loadPbrt: parse, then map the description onto a wavefront Scene.
//
// Handedness: pbrt's LookAt puts the image's right at cross(up, dir) and wavefront's camera at
// cross(dir, up) (pbrt-v4 util/transform.cpp, LookAt; wavefront's camera is right-handed). Where
// the camera's own transform does not mirror, the whole world is mirrored (x -> -x): geometry,
// camera and lights alike, which turns the image back into the one pbrt draws. Where it does
// mirror (the exporters' `Scale -1 1 1` before LookAt), the world is taken as it is.
#include <wavefront/error.h>
#include <wavefront/scene.h>

#include "host/loaders/pbrt/builder.h"
#include "host/loaders/pbrt/lights.h"
#include "host/loaders/pbrt/materials.h"
#include "host/loaders/pbrt/media.h"
#include "host/loaders/pbrt/parser.h"
#include "host/loaders/pbrt/shapes.h"

#include <algorithm>
#include <cmath>

namespace wavefront {

namespace pbrt {
namespace {

constexpr double kPi = 3.14159265358979323846;

// pbrt-v4's defaults: a 1280 x 720 film, the volpath integrator with maxdepth 5.
constexpr int kDefaultWidth = 1280, kDefaultHeight = 720, kDefaultMaxDepth = 5;
// The deepest pbrt "maxdepth" (bounces): wavefront's RenderOptions::maxDepth counts segments, 1..255.
constexpr int kMaxPbrtDepth = 254;

glm::dvec3 point(const glm::dmat4& m, glm::dvec3 p) { return glm::dvec3(m * glm::dvec4(p, 1.0)); }
glm::dvec3 vector(const glm::dmat4& m, glm::dvec3 v) { return glm::dvec3(m * glm::dvec4(v, 0.0)); }

// pbrt-v4's perspective camera with wavefront's Camera: position, target, up, and the vertical
// field of view of the screen window (pbrt's "fov" spans its shorter side, [-1, 1]).
Camera convertCamera(const Description& d, const glm::dmat4& sceneFromWorld, int width, int height, Warnings& warnings) {
    const Entity& c = d.camera;
    const ParamList& p = c.params;
    const std::string what = "Camera \"" + c.type + "\"";
    if (c.type != "perspective")
        warnings.add(c.loc, what + " is not supported: drawn as a perspective camera with its \"fov\" (90 when none)");
    const glm::dmat4 worldFromCamera = glm::inverse(c.transform);
    const glm::dmat4 sceneFromCamera = sceneFromWorld * worldFromCamera;
    Camera camera;
    const glm::dvec3 eye = point(sceneFromCamera, glm::dvec3(0.0));
    const glm::dvec3 dir = vector(sceneFromCamera, glm::dvec3(0.0, 0.0, 1.0));
    camera.position = glm::vec3(eye);
    camera.target = glm::vec3(eye + glm::normalize(dir));
    camera.up = glm::vec3(glm::normalize(vector(sceneFromCamera, glm::dvec3(0.0, 1.0, 0.0))));

    const double fov = std::clamp(double(p.getFloat("fov", 90.0f)), 1e-3, 179.0);
    const double frame = p.getFloat("frameaspectratio", float(width) / float(height));
    glm::dvec4 window = frame > 1.0 ? glm::dvec4(-frame, frame, -1.0, 1.0) : glm::dvec4(-1.0, 1.0, -1.0 / frame, 1.0 / frame);
    const std::vector<float> sw = p.getFloats("screenwindow");
    if (sw.size() == 4) window = glm::dvec4(sw[0], sw[1], sw[2], sw[3]);
    else if (!sw.empty()) warnings.add(c.loc, what + ": \"screenwindow\" needs four values: ignored");
    const double spanX = window.y - window.x, spanY = window.w - window.z;
    if (!(spanX > 0.0) || !(spanY > 0.0)) throw InputError(c.loc.str() + ": " + what + ": the screen window is empty");
    if (std::fabs(window.x + window.y) > 1e-6 * spanX || std::fabs(window.z + window.w) > 1e-6 * spanY)
        warnings.add(c.loc, what + ": an off-centre screen window is not supported: drawn centred");
    if (std::fabs(spanX / spanY - double(width) / height) > 1e-3 * spanX / spanY)
        warnings.add(c.loc, what + ": the screen window's aspect ratio differs from the film's: wavefront keeps the vertical extent");
    const double tanHalf = std::tan(fov * kPi / 360.0) * spanY / 2.0;
    camera.verticalFovDegrees = float(std::min(2.0 * std::atan(tanHalf) * 180.0 / kPi, 179.0));

    // A thin lens: pbrt's lens radius and focal distance are in camera space.
    const double lensRadius = p.getFloat("lensradius", 0.0f), focus = p.getFloat("focaldistance", 1e6f);
    if (lensRadius < 0.0)
        throw InputError(p.find("lensradius")->loc.str() + ": " + what + ": \"lensradius\" must not be negative");
    if (lensRadius > 0.0 && !(focus > 0.0))
        throw InputError((p.find("focaldistance") ? p.find("focaldistance")->loc : c.loc).str() + ": " + what +
                         ": \"focaldistance\" must be above 0 with a lens");
    if (lensRadius > 0.0) {
        camera.lensRadius = float(lensRadius * glm::length(vector(sceneFromCamera, glm::dvec3(1.0, 0.0, 0.0))));
        camera.focusDistance = float(focus * glm::length(dir));
    }
    for (const char* ignored : {"shutteropen", "shutterclose"}) p.find(ignored);
    for (const Param* q : p.unused())
        warnings.add(q->loc, what + ": parameter " + q->declaration() + " is not known or not used: ignored");
    return camera;
}

SceneFileSettings convertSettings(const Description& d, const FileResolver& files, Warnings& warnings) {
    SceneFileSettings s;
    s.width = kDefaultWidth;
    s.height = kDefaultHeight;
    s.maxDepth = kDefaultMaxDepth + 1;
    if (d.hasFilm) {
        const ParamList& p = d.film.params;
        const std::string what = "Film \"" + d.film.type + "\"";
        s.width = p.getInt("xresolution", kDefaultWidth);
        s.height = p.getInt("yresolution", kDefaultHeight);
        if (s.width < 1 || s.height < 1 || s.width > 65536 || s.height > 65536)
            throw InputError(d.film.loc.str() + ": " + what + ": resolution " + std::to_string(s.width) + "x" +
                             std::to_string(s.height) + " is out of range (each side 1..65536)");
        const std::string file = p.getString("filename", "");
        const std::string ext = lowercaseExtension(file);
        if (ext == ".png" || ext == ".exr" || ext == ".pfm") {
            // A scene file is input: what it names is written only inside its folder (no absolute
            // path, no .. or link out of it) unless external files are allowed.
            try {
                s.outputFile = files.resolveOutput(file).string();
            } catch (const InputError& e) {
                warnings.add(p.find("filename")->loc, what + ": \"filename\" " + e.what() + ": the default output is used");
            }
        } else if (!file.empty()) {
            warnings.add(p.find("filename")->loc, what + ": \"filename\" '" + file +
                                                      "': wavefront writes .png, .exr or .pfm: the default output is used");
        }
        for (const char* name : {"cropwindow", "pixelbounds", "exposuretime", "whitebalance", "diagonal", "maxcomponentvalue"})
            if (const Param* q = p.find(name))
                warnings.add(q->loc, what + ": \"" + name + "\" is not supported: ignored");
        for (const char* ignored : {"savefp16", "writefp16"}) p.find(ignored);
        for (const char* read : {"iso", "sensor"}) p.find(read);  // the imaging ratio's (imagingRatio)
        if (d.film.type == "spectral") warnings.add(d.film.loc, what + ": drawn as an RGB film");
        for (const Param* q : p.unused())
            warnings.add(q->loc, what + ": parameter " + q->declaration() + " is not known or not used: ignored");
    }
    if (d.hasIntegrator) {
        // pbrt's maxdepth counts bounces; wavefront's counts segments from the camera, one more.
        const int depth = d.integrator.params.getInt("maxdepth", kDefaultMaxDepth);
        if (depth < 0 || depth > kMaxPbrtDepth)
            throw InputError(d.integrator.loc.str() + ": Integrator: \"maxdepth\" " + std::to_string(depth) +
                             " is out of range (0.." + std::to_string(kMaxPbrtDepth) + ": wavefront follows at most " +
                             std::to_string(kMaxPbrtDepth + 1) + " path segments)");
        s.maxDepth = depth + 1;
        warnings.add(d.integrator.loc, "Integrator \"" + d.integrator.type +
                                           "\": wavefront renders with its own integrators (--integrator pt, bdpt or mlt); its "
                                           "\"maxdepth\" is kept");
        for (const Param& q : d.integrator.params.params) q.used = true;
    }
    // Read and reported: wavefront's own sampler and pixel filter take their place.
    if (!d.sampler.type.empty())
        warnings.add(d.sampler.loc, "Sampler \"" + d.sampler.type + "\": wavefront uses its own sampler (--spp sets the samples per pixel)");
    if (!d.filter.type.empty())
        warnings.add(d.filter.loc, "PixelFilter \"" + d.filter.type +
                                       "\": not read: wavefront filters pixels as RenderOptions::filter says (--filter)");
    return s;
}

// pbrt-v4's film records exposure time x ISO / 100 of the light (its PixelSensor's imaging
// ratio; the exposure time is the camera's shutterclose - shutteropen): the conversion scales every
// emitter by it. A sensor other than the CIE 1931 observer has its own response, which wavefront
// does not model: a warning states the factor applied.
float imagingRatio(const Description& d, Warnings& warnings) {
    float iso = 100.0f;
    std::string sensor = "cie1931";
    if (d.hasFilm) {
        const ParamList& p = d.film.params;
        iso = p.getFloat("iso", 100.0f);
        if (!(std::isfinite(iso) && iso > 0.0f && iso <= 1e6f))
            throw InputError(p.find("iso")->loc.str() + ": Film: \"iso\" " + std::to_string(iso) + " must lie in (0, 1e6]");
        sensor = p.getString("sensor", "cie1931");
    }
    const ParamList& c = d.camera.params;
    const float open = c.getFloat("shutteropen", 0.0f), close = c.getFloat("shutterclose", 1.0f);
    const float exposure = close - open;
    if (!(std::isfinite(exposure) && exposure > 0.0f && exposure <= 1e6f))
        throw InputError((c.find("shutterclose") ? c.find("shutterclose")->loc : d.camera.loc).str() +
                         ": Camera: the exposure time shutterclose - shutteropen (" + std::to_string(exposure) +
                         ") must lie in (0, 1e6]");
    const float ratio = exposure * iso / 100.0f;
    if (sensor != "cie1931")
        warnings.add(d.film.params.find("sensor")->loc, "Film: \"sensor\" \"" + sensor +
                                                             "\" (a camera's response) is not modelled: drawn as pbrt's "
                                                             "CIE 1931 sensor, scaled by exposure x ISO / 100 = " +
                                                             std::to_string(ratio));
    return ratio;
}

// A two-sided emitter: the mesh and a copy facing the other way, the two pushed apart along the
// normals by a hair, so that either side meets the copy that faces it first.
MeshShape backFace(MeshShape& front) {
    glm::vec3 lower(INFINITY), upper(-INFINITY);
    float largest = 0.0f;
    for (const glm::vec3& p : front.positions) {
        lower = glm::min(lower, p);
        upper = glm::max(upper, p);
        largest = std::max({largest, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
    }
    const float offset = std::max(1e-4f * glm::length(upper - lower), 1e-5f * largest);
    std::vector<glm::vec3> normals = front.normals;
    if (normals.empty()) {
        normals.assign(front.positions.size(), glm::vec3(0.0f));
        for (std::size_t t = 0; t + 2 < front.indices.size(); t += 3) {
            const glm::vec3 &a = front.positions[front.indices[t]], &b = front.positions[front.indices[t + 1]],
                            &c = front.positions[front.indices[t + 2]];
            for (int k = 0; k < 3; ++k) normals[front.indices[t + k]] += glm::cross(b - a, c - a);
        }
    }
    MeshShape back = front;
    for (std::size_t i = 0; i < normals.size(); ++i) {
        const float length = glm::length(normals[i]);
        const glm::vec3 n = length > 0.0f ? normals[i] / length : glm::vec3(0.0f);
        front.positions[i] += 0.5f * offset * n;
        back.positions[i] -= 0.5f * offset * n;
    }
    for (glm::vec3& n : back.normals) n = -n;
    for (std::size_t t = 0; t + 2 < back.indices.size(); t += 3) std::swap(back.indices[t + 1], back.indices[t + 2]);
    return back;
}

// The Scene media on the two sides of a surface (pbrt's MediumInterface, resolved).
struct SurfaceMedia {
    int inside = kVacuum, outside = kVacuum;
    bool transition() const { return inside != outside; }
};

// How a shape is drawn: its Scene material and media.
struct Surface {
    MaterialConverter::Result material;
    SurfaceMedia media;
    bool drawn = true;  ///< false: an "interface" between equal media, which changes nothing
};

// Shapes' materials and media together: pbrt's "interface" material becomes Material::interface()
// (added once, at the first shape that bounds a medium with it); between equal media it changes
// nothing and is not drawn (counted in `interfacesNotDrawn`).
class SurfaceConverter {
public:
    SurfaceConverter(MaterialConverter& materials, MediumConverter& media, Scene& scene)
        : materials_(materials), media_(media), scene_(scene) {}
    template <typename Shape>  // MeshShape, SphereShape
    Surface convert(const Shape& shape) {
        Surface s;
        s.material = materials_.convert(shape.material, shape.areaLight);
        s.media = SurfaceMedia{media_.resolve(shape.mediumInside), media_.resolve(shape.mediumOutside)};
        if (s.material.interface) {
            if (!s.media.transition()) {
                s.drawn = false;
                ++interfacesNotDrawn;
                return s;
            }
            if (interfaceMaterial_ < 0) interfaceMaterial_ = scene_.addMaterial(Material::interface());
            s.material.material = interfaceMaterial_;
        }
        return s;
    }
    std::size_t interfacesNotDrawn = 0;

private:
    MaterialConverter& materials_;
    MediumConverter& media_;
    Scene& scene_;
    int interfaceMaterial_ = -1;
};

// A shape as the TriangleMeshes wavefront draws, in the space `mesh` is in: its uvs mapped as the
// material's textures read them, and a copy facing back for a two-sided emitter (its media swapped
// with its facing).
std::vector<TriangleMesh> triangleMeshes(MeshShape mesh, const MaterialConverter::Result& material,
                                         GeneratedTriangles& generated, const SurfaceMedia& media) {
    std::vector<glm::vec2> uvs;
    if (material.textured && !mesh.uvs.empty()) {
        // pbrt looks images up at (s, 1 - t), s = su u + du, t = sv v + dv; wavefront at its uv, (0, 0) top-left.
        const glm::vec4 m = material.uvMapping;
        for (const glm::vec2& uv : mesh.uvs) uvs.emplace_back(m.x * uv.x + m.z, 1.0f - (m.y * uv.y + m.w));
    }
    std::vector<MeshShape> sides;
    if (material.twoSided) {
        generated.charge(mesh.indices.size() / 3, mesh.loc, "the back of a two-sided emitter");
        sides.push_back(backFace(mesh));
    }
    sides.push_back(std::move(mesh));
    std::vector<TriangleMesh> out(sides.size());
    for (std::size_t k = 0; k < sides.size(); ++k) {
        const bool back = k + 1 < sides.size();
        out[k].material = material.material;
        out[k].mediumInside = back ? media.outside : media.inside;
        out[k].mediumOutside = back ? media.inside : media.outside;
        out[k].positions = std::move(sides[k].positions);
        out[k].normals = std::move(sides[k].normals);
        out[k].indices = std::move(sides[k].indices);
        out[k].uvs = uvs;
    }
    return out;
}

// `sceneFromShape`: sceneFromWorld, or times an instance's transform.
void addMesh(MeshShape mesh, const Surface& surface, const glm::dmat4& sceneFromShape, GeneratedTriangles& generated,
             Scene& scene) {
    transformMesh(mesh, sceneFromShape);
    const FileLoc loc = mesh.loc;
    for (const TriangleMesh& side : triangleMeshes(std::move(mesh), surface.material, generated, surface.media)) {
        try {
            scene.addMesh(side);
        } catch (const InputError& e) {
            throw InputError(loc.str() + ": Shape: " + e.what());
        }
    }
}

// Scene::addObject's error for an object with no triangle left once the degenerate ones are
// dropped: pbrt draws nothing there either, so it is a warning, not the file's error.
bool hasNoTriangles(const InputError& e) { return std::string(e.what()).find(" has no triangles") != std::string::npos; }

// The instanced objects, each added once with its meshes in its own space (spheres tessellated:
// objects hold triangles alone), then placed by every instance. Instanced surfaces cannot bound
// media in wavefront (Scene::addObject), though pbrt's can: an object's shapes that bound a medium
// are added as plain meshes at every instance instead (the image pbrt draws; their triangles are
// counted as made ones), with one warning per object.
void addObjects(Description& d, SurfaceConverter& surfaces, const glm::dmat4& sceneFromWorld, Warnings& warnings,
                Scene& scene) {
    struct Flattened {
        MeshShape mesh;  ///< in the object's space
        Surface surface;
    };
    std::vector<int> sceneObjects(d.objects.size(), -1);  // -1: nothing to place
    std::vector<std::vector<Flattened>> flattened(d.objects.size());
    for (std::size_t i = 0; i < d.objects.size(); ++i) {
        InstancedObject& object = d.objects[i];
        std::vector<TriangleMesh> meshes;
        auto add = [&](MeshShape&& mesh, const Surface& surface) {
            if (surface.media.transition()) {
                flattened[i].push_back(Flattened{std::move(mesh), surface});
                return;
            }
            // Between equal media a surface changes no medium: instanced as it is.
            for (TriangleMesh& m : triangleMeshes(std::move(mesh), surface.material, d.generated, SurfaceMedia{}))
                meshes.push_back(std::move(m));
        };
        for (MeshShape& mesh : object.shapes.meshes) {
            const Surface surface = surfaces.convert(mesh);
            if (surface.drawn) add(std::move(mesh), surface);
        }
        for (const SphereShape& sphere : object.shapes.spheres) {
            const Surface surface = surfaces.convert(sphere);
            if (surface.drawn) add(tessellateSphere(sphere, d.generated), surface);
        }
        object.shapes = ShapeSet{};  // its memory back before the next one
        const std::string what = "ObjectBegin \"" + object.name + "\"";
        if (!flattened[i].empty())
            warnings.add(object.loc, what + ": " + std::to_string(flattened[i].size()) + " of its shapes bound media " +
                                         "(MediumInterface), which wavefront cannot instance: drawn as plain meshes at each instance");
        if (meshes.empty()) continue;
        try {
            sceneObjects[i] = scene.addObject(meshes);
        } catch (const InputError& e) {
            if (!hasNoTriangles(e)) throw InputError(object.loc.str() + ": " + what + ": " + e.what());
            warnings.add(object.loc, what + ": every triangle is degenerate: its instances are not drawn");
        }
    }
    for (const ObjectPlacement& instance : d.instances) {
        const std::string what = "ObjectInstance \"" + d.objects[std::size_t(instance.object)].name + "\"";
        const glm::dmat4 sceneFromObject = sceneFromWorld * instance.transform;
        if (const int object = sceneObjects[std::size_t(instance.object)]; object >= 0) {
            try {
                scene.addInstance(object, glm::mat4(sceneFromObject));
            } catch (const InputError& e) {
                // pbrt takes any transform (Scale 0 0 0 among them); a wavefront instance needs one it can invert.
                warnings.add(instance.loc, what + ": " + e.what() + ": not drawn");
            }
        }
        const std::vector<Flattened>& plain = flattened[std::size_t(instance.object)];
        if (plain.empty()) continue;
        const double det = glm::determinant(glm::dmat3(sceneFromObject));
        if (!(std::fabs(det) > 0.0) || !std::isfinite(det)) {
            warnings.add(instance.loc, what + ": a transform that cannot be inverted: its shapes that bound media are not drawn");
            continue;
        }
        for (const Flattened& f : plain) {
            d.generated.charge(f.mesh.indices.size() / 3, instance.loc, what + " (shapes that bound media, drawn as meshes)");
            addMesh(f.mesh, f.surface, sceneFromObject, d.generated, scene);
        }
    }
}

// A sphere transform that keeps it a sphere (rotation, uniform scale, translation, mirrors): its
// scale, or 0.
double uniformScale(const glm::dmat4& m) {
    const glm::dmat3 a(m);
    const double s = glm::length(a[0]);
    const glm::dmat3 g = glm::transpose(a) * a;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (std::fabs(g[i][j] - (i == j ? s * s : 0.0)) > 1e-6 * s * s) return 0.0;
    return s;
}

Scene convert(Description& d, const FileResolver& files, std::uint64_t maxTextureTexels, Warnings& warnings) {
    Scene scene;
    // pbrt-v4's default camera, when the file has none: at the origin, looking down +z.
    const glm::dmat4 worldFromCamera = glm::inverse(d.camera.transform);
    glm::dmat4 sceneFromWorld(1.0);
    if (glm::determinant(glm::dmat3(worldFromCamera)) > 0.0) sceneFromWorld[0][0] = -1.0;

    SceneFileSettings settings = convertSettings(d, files, warnings);
    d.imagingRatio = imagingRatio(d, warnings);
    scene.setFileSettings(settings);
    MediumConverter media(d, sceneFromWorld, files, warnings, scene);
    Camera camera = convertCamera(d, sceneFromWorld, settings.width, settings.height, warnings);
    camera.medium = media.resolve(d.camera.medium);
    try {
        Scene::checkCamera(camera);  // what the render would refuse (a focus distance that overflows float, ...), named here
    } catch (const InputError& e) {
        throw InputError((d.camera.loc.file ? d.camera.loc.str() : d.fileNames.front()) + ": Camera: " + e.what());
    }
    scene.setCamera(camera);

    MaterialConverter materials(d, scene, files, maxTextureTexels, warnings);
    SurfaceConverter surfaces(materials, media, scene);
    for (MeshShape& mesh : d.shapes.meshes) {
        const Surface surface = surfaces.convert(mesh);
        if (surface.drawn) addMesh(std::move(mesh), surface, sceneFromWorld, d.generated, scene);
        mesh = MeshShape{};  // its memory back before the next one
    }
    for (const SphereShape& sphere : d.shapes.spheres) {
        const Surface surface = surfaces.convert(sphere);
        if (!surface.drawn) continue;
        const MaterialConverter::Result& material = surface.material;
        const glm::dmat4 m = sceneFromWorld * sphere.transform;
        const double scale = uniformScale(m);
        if (scale > 0.0 && !sphere.inward && !material.twoSided && !material.textured) {
            try {
                scene.addSphere(Sphere{glm::vec3(point(m, glm::dvec3(0.0))), float(sphere.radius * scale), material.material,
                                       surface.media.inside, surface.media.outside});
            } catch (const InputError& e) {
                throw InputError(sphere.loc.str() + ": Shape \"sphere\": " + e.what());
            }
        } else {
            addMesh(tessellateSphere(sphere, d.generated), surface, sceneFromWorld, d.generated, scene);
        }
    }
    addObjects(d, surfaces, sceneFromWorld, warnings, scene);
    if (const std::size_t n = surfaces.interfacesNotDrawn; n > 0)
        warnings.add(std::to_string(n) + " shape" + (n > 1 ? "s" : "") +
                     " with the \"interface\" material between equal media (no medium boundary) not drawn: " +
                     (n > 1 ? "they change" : "it changes") + " nothing");

    LightConverter lights(sceneFromWorld, files, warnings);
    for (const Entity& light : d.lights)
        lights.translateLight(light, LightConverter::hasMedium(light.type) ? media.resolve(light.medium) : kVacuum);
    lights.finish(scene, d.imagingRatio);
    return scene;
}

}  // namespace
}  // namespace pbrt

Scene Scene::loadPbrt(const std::string& path, const SceneLoadOptions& options) {
    pbrt::Description description;
    pbrt::Warnings warnings;
    const pbrt::FileResolver files(path, options.allowExternalFiles);
    pbrt::SceneBuilder builder(description, warnings, files);
    pbrt::parseScene(path, files, builder, description, warnings);
    Scene scene = pbrt::convert(description, files, options.maxTextureTexels, warnings);
    if (scene.primitiveCount() == 0 && scene.instances().empty())
        throw InputError("pbrt-v4 file '" + path + "' contains no shapes wavefront can draw");
    warnings.flush(scene);
    return scene;
}

}  // namespace wavefront
