// pbrt-v4's scene builder semantics (src/pbrt/scene.cpp, BasicSceneBuilder), reduced to what a
// wavefront Scene can hold: one transform per shape (the start of a motion-blurred one), shapes
// flattened into world space, objects kept in their own space and instanced.
#include "host/loaders/pbrt/builder.h"

#include <wavefront/error.h>

#include "host/loaders/loaders.h"
#include "host/loaders/pbrt/shapes.h"

#include <algorithm>
#include <cmath>

namespace wavefront::pbrt {

namespace {

const char* const kTargetNames[] = {"shape", "light", "material", "medium", "texture"};

bool isFinite(const glm::dmat4& m) {
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r)
            if (!std::isfinite(m[c][r])) return false;
    return true;
}

}  // namespace

SceneBuilder::SceneBuilder(Description& description, Warnings& warnings, const FileResolver& files)
    : d_(description), warnings_(warnings), files_(files) {
    // pbrt-v4's default material: diffuse, reflectance 0.5.
    Entity fallback;
    fallback.type = "diffuse";
    d_.materials.push_back(fallback);
    d_.camera.type = "perspective";
}

void SceneBuilder::apply(const glm::dmat4& m) {
    if (state_.transformStartActive) state_.ctm = state_.ctm * m;
}

void SceneBuilder::identity() {
    if (state_.transformStartActive) state_.ctm = glm::dmat4(1.0);
}

void SceneBuilder::translate(glm::dvec3 delta) {
    glm::dmat4 m(1.0);
    m[3] = glm::dvec4(delta, 1.0);
    apply(m);
}

void SceneBuilder::scale(glm::dvec3 factors) {
    apply(glm::dmat4(glm::dvec4(factors.x, 0, 0, 0), glm::dvec4(0, factors.y, 0, 0), glm::dvec4(0, 0, factors.z, 0),
                     glm::dvec4(0, 0, 0, 1)));
}

void SceneBuilder::rotate(double degrees, glm::dvec3 axis, const FileLoc& loc) {
    const double length = glm::length(axis);
    if (!(length > 0.0) || !std::isfinite(length)) throw InputError(loc.str() + ": Rotate about a zero or non-finite axis");
    // The right-handed rotation matrix about a unit axis (pbrt-v4's Rotate).
    const glm::dvec3 a = axis / length;
    const double t = degrees * 3.14159265358979323846 / 180.0, c = std::cos(t), s = std::sin(t);
    glm::dmat4 m(1.0);
    m[0] = glm::dvec4(a.x * a.x + (1 - a.x * a.x) * c, a.x * a.y * (1 - c) + a.z * s, a.x * a.z * (1 - c) - a.y * s, 0);
    m[1] = glm::dvec4(a.x * a.y * (1 - c) - a.z * s, a.y * a.y + (1 - a.y * a.y) * c, a.y * a.z * (1 - c) + a.x * s, 0);
    m[2] = glm::dvec4(a.x * a.z * (1 - c) + a.y * s, a.y * a.z * (1 - c) - a.x * s, a.z * a.z + (1 - a.z * a.z) * c, 0);
    apply(m);
}

void SceneBuilder::lookAt(glm::dvec3 eye, glm::dvec3 look, glm::dvec3 up, const FileLoc& loc) {
    // pbrt-v4's LookAt: the camera's x axis is cross(up, dir), y the new up, z the direction;
    // pbrt's cameras look down +z with +x to the right of the image and +y up (a left-handed frame).
    const glm::dvec3 dir = look - eye;
    const double length = glm::length(dir);
    if (!(length > 0.0) || !std::isfinite(length))
        throw InputError(loc.str() + ": LookAt: the eye and the point looked at coincide (or are not finite)");
    const glm::dvec3 d = dir / length;
    const glm::dvec3 r = glm::cross(up, d);
    const double rl = glm::length(r);
    if (!(rl > 1e-12 * glm::length(up)) || !std::isfinite(rl))
        throw InputError(loc.str() + ": LookAt: the up vector is zero or parallel to the viewing direction");
    const glm::dvec3 right = r / rl, newUp = glm::cross(d, right);
    const glm::dmat4 worldFromCamera(glm::dvec4(right, 0), glm::dvec4(newUp, 0), glm::dvec4(d, 0), glm::dvec4(eye, 1));
    apply(glm::inverse(worldFromCamera));
}

void SceneBuilder::transform(const double m[16], bool concatenate) {
    // The 16 values run down the columns (pbrt-v4 transposes the row-major matrix it reads);
    // glm is column-major, so they fill it in order.
    glm::dmat4 matrix;
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) matrix[c][r] = m[4 * c + r];
    if (concatenate)
        apply(matrix);
    else if (state_.transformStartActive)
        state_.ctm = matrix;
}

void SceneBuilder::coordinateSystem(const std::string& name) { coordinateSystems_[name] = state_.ctm; }

void SceneBuilder::coordSysTransform(const std::string& name, const FileLoc& loc) {
    auto it = coordinateSystems_.find(name);
    if (it == coordinateSystems_.end()) {
        warnings_.add(loc, "CoordSysTransform \"" + name + "\": no such coordinate system (ignored, as pbrt-v4 does)");
        return;
    }
    state_.ctm = it->second;
}

void SceneBuilder::activeTransform(const std::string& which, const FileLoc& loc) {
    if (which != "All" && which != "StartTime" && which != "EndTime")
        throw InputError(loc.str() + ": ActiveTransform \"" + which + "\": expected All, StartTime or EndTime");
    state_.transformStartActive = which != "EndTime";
    if (which == "EndTime")
        warnings_.add(loc, "ActiveTransform EndTime: motion blur is not supported; shapes are drawn at their start transform");
}

void SceneBuilder::transformTimes(double, double, const FileLoc& loc) { requireOptions("TransformTimes", loc); }

void SceneBuilder::reverseOrientation() { state_.reverseOrientation = !state_.reverseOrientation; }

void SceneBuilder::requireWorld(const char* directive, const FileLoc& loc) const {
    if (block_ != Block::World)
        throw InputError(loc.str() + ": " + directive + " is only allowed after WorldBegin");
}

void SceneBuilder::requireOptions(const char* directive, const FileLoc& loc) const {
    if (block_ != Block::Options)
        throw InputError(loc.str() + ": " + directive + " is only allowed before WorldBegin");
}

void SceneBuilder::push(char kind, const FileLoc& loc) {
    if (pushed_.size() >= std::size_t(kMaxAttributeDepth))
        throw InputError(loc.str() + ": attribute blocks nested deeper than " + std::to_string(kMaxAttributeDepth));
    pushed_.push_back(Pushed{state_, kind, loc});
}

void SceneBuilder::pop(char kind, const FileLoc& loc) {
    const char* names[] = {"AttributeBegin", "ObjectBegin", "Import"};
    auto name = [&](char k) { return names[k == 'a' ? 0 : k == 'o' ? 1 : 2]; };
    if (pushed_.empty() || pushed_.back().kind != kind) {
        if (kind == 'a' && pushed_.empty()) {
            warnings_.add(loc, "AttributeEnd without AttributeBegin: ignored (as pbrt-v4 does)");
            return;
        }
        throw InputError(loc.str() + ": " + (kind == 'a' ? "AttributeEnd" : kind == 'o' ? "ObjectEnd" : "the end of an imported file") +
                         (pushed_.empty() ? std::string(" without ") + name(kind)
                                          : std::string(" while the ") + name(pushed_.back().kind) + " of " +
                                                pushed_.back().loc.str() + " is open"));
    }
    state_ = std::move(pushed_.back().state);
    pushed_.pop_back();
}

void SceneBuilder::attributeBegin(const FileLoc& loc) {
    requireWorld("AttributeBegin", loc);
    push('a', loc);
}

void SceneBuilder::attributeEnd(const FileLoc& loc) {
    requireWorld("AttributeEnd", loc);
    pop('a', loc);
}

void SceneBuilder::attribute(const std::string& target, ParamList params, const FileLoc& loc) {
    int index = -1;
    for (int t = 0; t < kTargets; ++t)
        if (target == kTargetNames[t]) index = t;
    if (index < 0)
        throw InputError(loc.str() + ": Attribute \"" + target + "\": expected shape, light, material, medium or texture");
    // A name given before keeps its first value (the lookups took the first of a name), so a
    // repeated Attribute adds nothing; new names copy the list once (earlier blocks share the
    // old one), a list of at most kMaxAttributeParameters.
    static const std::vector<Param> kNone;
    std::shared_ptr<std::vector<Param>> defaults;
    for (Param& p : params.params) {
        const std::vector<Param>& inForce = defaults ? *defaults : state_.attributes[index] ? *state_.attributes[index] : kNone;
        if (std::any_of(inForce.begin(), inForce.end(), [&](const Param& q) { return q.name == p.name; })) continue;
        if (!defaults)
            defaults = state_.attributes[index] ? std::make_shared<std::vector<Param>>(*state_.attributes[index])
                                                : std::make_shared<std::vector<Param>>();
        if (defaults->size() >= kMaxAttributeParameters)
            throw InputError(p.loc.str() + ": Attribute \"" + target + "\": more than " + std::to_string(kMaxAttributeParameters) +
                             " different parameters in force");
        defaults->push_back(std::move(p));
    }
    if (defaults) state_.attributes[index] = std::move(defaults);
}

void SceneBuilder::worldBegin(const FileLoc& loc) {
    requireOptions("WorldBegin", loc);
    block_ = Block::World;
    state_.ctm = glm::dmat4(1.0);
    state_.transformStartActive = true;
    coordinateSystems_["world"] = state_.ctm;
}

void SceneBuilder::importBegin(const FileLoc& loc) {
    requireWorld("Import", loc);
    push('i', loc);
}

void SceneBuilder::importEnd(const FileLoc& loc) { pop('i', loc); }

void SceneBuilder::objectBegin(const std::string& name, const FileLoc& loc) {
    requireWorld("ObjectBegin", loc);
    if (currentObject_) throw InputError(loc.str() + ": ObjectBegin \"" + name + "\" inside the definition of \"" +
                                         currentObjectName_ + "\"");
    if (objects_.count(name)) throw InputError(loc.str() + ": ObjectBegin \"" + name + "\": an object of that name exists");
    push('o', loc);
    ObjectDefinition& object = objects_[name];
    object.loc = loc;
    currentObject_ = &object.shapes;
    currentObjectName_ = name;
}

void SceneBuilder::objectEnd(const FileLoc& loc) {
    requireWorld("ObjectEnd", loc);
    if (!currentObject_) throw InputError(loc.str() + ": ObjectEnd without ObjectBegin");
    pop('o', loc);
    currentObject_ = nullptr;
}

void SceneBuilder::objectInstance(const std::string& name, const FileLoc& loc) {
    requireWorld("ObjectInstance", loc);
    if (currentObject_) throw InputError(loc.str() + ": ObjectInstance inside an object definition");
    auto it = objects_.find(name);
    if (it == objects_.end()) throw InputError(loc.str() + ": ObjectInstance \"" + name + "\": no object of that name");
    if (!isFinite(state_.ctm)) throw InputError(loc.str() + ": ObjectInstance under a transform that is not finite");
    ObjectDefinition& object = it->second;
    if (d_.instances.size() >= kMaxSceneFileInstances)
        throw InputError(loc.str() + ": more than " + std::to_string(kMaxSceneFileInstances) +
                         " object instances, the most one scene file may give");
    // Its shapes move to the description at the first instance; every instance is a placement.
    if (object.instanced < 0) {
        object.instanced = int(d_.objects.size());
        d_.objects.push_back(InstancedObject{name, std::move(object.shapes), object.loc});
        object.shapes = ShapeSet{};
    }
    d_.instances.push_back(ObjectPlacement{object.instanced, state_.ctm, loc});
}

Entity SceneBuilder::entity(const std::string& type, ParamList params, Target defaults, const FileLoc& loc) const {
    Entity e;
    e.type = type;
    e.params = std::move(params);
    if (defaults < kTargets) e.params.defaults = state_.attributes[defaults];
    e.loc = loc;
    e.transform = state_.ctm;
    return e;
}

void SceneBuilder::camera(const std::string& type, ParamList params, const FileLoc& loc) {
    requireOptions("Camera", loc);
    const double det = glm::determinant(state_.ctm);
    if (!(det != 0.0) || !std::isfinite(det) || !isFinite(state_.ctm))
        throw InputError(loc.str() + ": Camera under a transform that cannot be inverted");
    d_.camera = entity(type, std::move(params), kTargets, loc);
    d_.camera.medium = state_.mediumOutside;  // pbrt-v4: the camera sits in the current outside medium
    // pbrt-v4 names the camera's frame "camera" (its world-from-camera transform).
    coordinateSystems_["camera"] = glm::inverse(state_.ctm);
}

void SceneBuilder::option(const std::string& directive, const std::string& type, ParamList params, const FileLoc& loc) {
    requireOptions(directive.c_str(), loc);
    Entity e = entity(type, std::move(params), kTargets, loc);
    if (directive == "Film") {
        d_.film = std::move(e);
        d_.hasFilm = true;
    } else if (directive == "Integrator") {
        d_.integrator = std::move(e);
        d_.hasIntegrator = true;
    } else if (directive == "Sampler") {
        d_.sampler = std::move(e);
    } else if (directive == "PixelFilter") {
        d_.filter = std::move(e);
    }  // Accelerator: wavefront builds its own BVH.
}

void SceneBuilder::colorSpace(const std::string& name, const FileLoc& loc) {
    if (name != "srgb" && name != "aces2065-1" && name != "rec2020" && name != "dci-p3")
        throw InputError(loc.str() + ": ColorSpace \"" + name + "\": expected srgb, aces2065-1, rec2020 or dci-p3");
    if (name != "srgb")
        warnings_.add(loc, "ColorSpace \"" + name + "\": RGB values are read as linear sRGB (wavefront renders in sRGB)");
}

void SceneBuilder::renderOption(const std::string& name, const std::string& value, const FileLoc& loc) {
    warnings_.add(loc, "Option \"" + name + "\" " + value + ": pbrt-v4's rendering options do not apply to wavefront: ignored");
}

void SceneBuilder::shape(const std::string& type, ParamList params, const FileLoc& loc) {
    requireWorld("Shape", loc);
    if (!isFinite(state_.ctm)) throw InputError(loc.str() + ": Shape \"" + type + "\" under a transform that is not finite");
    if (state_.areaLight >= 0 && currentObject_)
        warnings_.add(loc, "area lights in object definitions are not supported (nor by pbrt-v4): the shape does not emit");
    ShapeContext context;
    context.objectToWorld = state_.ctm;
    context.reverseOrientation = state_.reverseOrientation;
    context.material = state_.material;
    context.areaLight = currentObject_ ? -1 : state_.areaLight;  // as pbrt-v4: instances do not emit
    context.mediumInside = state_.mediumInside;
    context.mediumOutside = state_.mediumOutside;
    context.triangleBudget = kMaxSceneFileTriangles - triangles_;
    context.generated = &d_.generated;
    Entity e = entity(type, std::move(params), ShapeAttributes, loc);
    triangles_ += addShape(type, e.params, loc, context, files_, warnings_, currentObject_ ? *currentObject_ : d_.shapes);
    warnUnused("Shape \"" + type + "\"", e.params);
}

void SceneBuilder::lightSource(const std::string& type, ParamList params, const FileLoc& loc) {
    requireWorld("LightSource", loc);
    d_.lights.push_back(entity(type, std::move(params), LightAttributes, loc));
    d_.lights.back().medium = state_.mediumOutside;  // pbrt-v4: a light sits in the current outside medium
}

void SceneBuilder::areaLightSource(const std::string& type, ParamList params, const FileLoc& loc) {
    requireWorld("AreaLightSource", loc);
    d_.areaLights.push_back(entity(type, std::move(params), LightAttributes, loc));
    state_.areaLight = int(d_.areaLights.size() - 1);
}

void SceneBuilder::material(const std::string& type, ParamList params, const FileLoc& loc) {
    requireWorld("Material", loc);
    d_.materials.push_back(entity(type, std::move(params), MaterialAttributes, loc));
    state_.material = MaterialRef{int(d_.materials.size() - 1), "", loc};
}

void SceneBuilder::makeNamedMaterial(const std::string& name, ParamList params, const FileLoc& loc) {
    requireWorld("MakeNamedMaterial", loc);
    if (d_.namedMaterials.count(name))
        throw InputError(loc.str() + ": MakeNamedMaterial \"" + name + "\": a material of that name exists");
    Entity e = entity("", std::move(params), MaterialAttributes, loc);
    e.type = e.params.getString("type", "");
    if (e.type.empty()) throw InputError(loc.str() + ": MakeNamedMaterial \"" + name + "\" has no \"string type\"");
    d_.namedMaterials.emplace(name, std::move(e));
}

void SceneBuilder::namedMaterial(const std::string& name, const FileLoc& loc) {
    requireWorld("NamedMaterial", loc);
    state_.material = MaterialRef{-1, name, loc};
}

void SceneBuilder::texture(const std::string& name, const std::string& kind, const std::string& type, ParamList params,
                           const FileLoc& loc) {
    requireWorld("Texture", loc);
    if (kind != "float" && kind != "spectrum")
        throw InputError(loc.str() + ": Texture \"" + name + "\": type \"" + kind + "\" is not float or spectrum");
    auto& textures = kind == "float" ? d_.floatTextures : d_.spectrumTextures;
    if (textures.count(name))
        throw InputError(loc.str() + ": Texture \"" + name + "\": a " + kind + " texture of that name exists");
    textures.emplace(name, entity(type, std::move(params), TextureAttributes, loc));
}

void SceneBuilder::makeNamedMedium(const std::string& name, ParamList params, const FileLoc& loc) {
    // pbrt-v4 takes media in either block; their transform is the CTM where they are made.
    if (auto it = mediumNames_.find(name); it != mediumNames_.end())
        throw InputError(loc.str() + ": MakeNamedMedium \"" + name + "\": a medium of that name was made at " + it->second.str());
    if (!isFinite(state_.ctm)) throw InputError(loc.str() + ": MakeNamedMedium \"" + name + "\" under a transform that is not finite");
    Entity e = entity("", std::move(params), MediumAttributes, loc);
    e.type = e.params.getString("type", "");
    if (e.type.empty()) throw InputError(loc.str() + ": MakeNamedMedium \"" + name + "\" has no \"string type\"");
    mediumNames_.emplace(name, loc);
    d_.media.push_back(NamedMedium{name, std::move(e)});
}

int SceneBuilder::mediumReference(const std::string& name, const FileLoc& loc) {
    if (name.empty()) return -1;
    auto [it, inserted] = mediumReferences_.emplace(name, int(d_.mediumReferences.size()));
    if (inserted) d_.mediumReferences.push_back(MediumReference{name, loc});
    return it->second;
}

void SceneBuilder::mediumInterface(const std::string& inside, const std::string& outside, const FileLoc& loc) {
    state_.mediumInside = mediumReference(inside, loc);
    state_.mediumOutside = mediumReference(outside, loc);
}

void SceneBuilder::endOfFiles(const FileLoc& loc) {
    if (!pushed_.empty()) {
        const Pushed& open = pushed_.back();
        throw InputError(open.loc.str() + ": " + (open.kind == 'o' ? "ObjectBegin" : "AttributeBegin") +
                         " without its " + (open.kind == 'o' ? "ObjectEnd" : "AttributeEnd") + " before the end of the file");
    }
    if (block_ != Block::World) throw InputError(loc.str() + ": the file ends before WorldBegin");
}

void SceneBuilder::warnUnused(const std::string& what, const ParamList& params) {
    for (const Param* p : params.unused())
        warnings_.add(p->loc, what + ": parameter " + p->declaration() + " is not known or not used: ignored");
}

}  // namespace wavefront::pbrt
