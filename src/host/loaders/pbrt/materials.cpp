// pbrt-v4's materials (src/pbrt/materials.cpp) and textures (src/pbrt/textures.cpp) as wavefront
// materials; docs/pbrt.md has the table. Roughness: pbrt-v4 turns a "roughness" r into the GGX
// alpha sqrt(r) unless "remaproughness" is false; wavefront's conductor and rough glass take alpha,
// its metallic-roughness material sqrt(alpha).
#include "host/loaders/pbrt/materials.h"

#include <wavefront/error.h>

#include "host/io/texture_io.h"
#include "host/loaders/pbrt/lights.h"
#include "host/loaders/pbrt/spectra.h"
#include "kernels/materials/texture.h"

#include <algorithm>
#include <cmath>

namespace wavefront::pbrt {

namespace {

// Texture references nest at most this deep (a texture that names itself ends here).
constexpr int kMaxTextureDepth = 64;
// Baked textures (mix, scale of two images, invert, checkerboard) are at most this wide and high.
constexpr int kMaxBakedSize = 2048;

// A host-side TextureView of a Texture, for the lookups that bake textures (the kernels' own
// filter, so that a baked texture samples like the one it replaces).
struct HostView {
    std::vector<Float4> floats;
    TextureView view;
    explicit HostView(const Texture& t) {
        view.width = t.width;
        view.height = t.height;
        view.srgb = t.srgb ? 1 : 0;
        if (!t.rgba8.empty()) {
            view.rgba8 = reinterpret_cast<const std::uint32_t*>(t.rgba8.data());  // little-endian RGBA
        } else {
            for (std::size_t i = 0; i + 3 < t.rgbaFloat.size(); i += 4)
                floats.emplace_back(t.rgbaFloat[i], t.rgbaFloat[i + 1], t.rgbaFloat[i + 2], t.rgbaFloat[i + 3]);
            view.rgbaFloat = floats.data();
        }
    }
};

bool identityMapping(const glm::vec4& m) { return m == glm::vec4(1.0f, 1.0f, 0.0f, 0.0f); }

// The mean linear colour of a texture, times the value's constant.
glm::vec3 meanOf(const TextureValue& v) {
    if (!v.image) return v.constant;
    const HostView h(*v.image);
    glm::dvec3 sum(0.0);
    for (int y = 0; y < h.view.height; ++y)
        for (int x = 0; x < h.view.width; ++x) {
            const vec3 c = h.view.texel(x, y);
            sum += glm::dvec3(c.x, c.y, c.z);
        }
    return glm::vec3(sum / (double(h.view.width) * h.view.height)) * v.constant;
}

TextureValue constantValue(glm::vec3 c) {
    TextureValue v;
    v.constant = c;
    return v;
}

// A new texture whose texel at pbrt's (s, t) of `operands[0]`'s mapping is f(the operands there):
// the operands are looked up each with its own mapping at the same surface point.
TextureValue bake(const std::vector<TextureValue>& operands, const std::function<glm::vec3(const std::vector<glm::vec3>&)>& f,
                  TextureBudget& budget, Warnings& warnings, const FileLoc& loc, const std::string& what) {
    const TextureValue* base = nullptr;
    int width = 1, height = 1;
    for (const TextureValue& o : operands)
        if (o.image) {
            if (!base) base = &o;
            width = std::max(width, o.image->width);
            height = std::max(height, o.image->height);
        }
    if (!base) {
        std::vector<glm::vec3> values;
        for (const TextureValue& o : operands) values.push_back(o.constant);
        return constantValue(f(values));
    }
    width = std::min(width, kMaxBakedSize);
    height = std::min(height, kMaxBakedSize);
    budget.take(width, height, 16, loc.str() + ": " + what + ": baked as float texels");
    std::vector<std::unique_ptr<HostView>> views;
    for (const TextureValue& o : operands) {
        views.push_back(o.image ? std::make_unique<HostView>(*o.image) : nullptr);
        if (o.image && o.mapping != base->mapping)
            warnings.add(loc, what + ": textures combined under different uv mappings: baked at the first one's, which repeats "
                                     "with its own period only");
    }
    auto texture = std::make_shared<Texture>();
    texture->width = width;
    texture->height = height;
    texture->srgb = false;
    texture->rgbaFloat.resize(std::size_t(width) * height * 4);
    std::vector<glm::vec3> values(operands.size());
    const glm::vec4 m = base->mapping;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            // This texel's (s, t) in the base mapping, and the surface's (u, v) there.
            const float s = (x + 0.5f) / width, t = 1.0f - (y + 0.5f) / height;
            // A zero scale (a texture constant along u or v) has no inverse: any u serves.
            const auto inverse = [](float value, float offset, float scale) {
                const float u = (value - offset) / scale;
                return std::isfinite(u) ? u : 0.0f;
            };
            const glm::vec2 uv(inverse(s, m.z, m.x), inverse(t, m.w, m.y));
            for (std::size_t k = 0; k < operands.size(); ++k) {
                const TextureValue& o = operands[k];
                values[k] = o.constant;
                if (!o.image) continue;
                glm::vec2 st(o.mapping.x * uv.x + o.mapping.z, o.mapping.y * uv.y + o.mapping.w);
                if (!std::isfinite(st.x) || !std::isfinite(st.y)) st = glm::vec2(0.0f);
                const vec3 c = views[k]->view.sample(vec2(st.x, 1.0f - st.y));
                values[k] *= glm::vec3(c.x, c.y, c.z);
            }
            const glm::vec3 c = glm::max(f(values), glm::vec3(0.0f));
            float* out = &texture->rgbaFloat[(std::size_t(y) * width + x) * 4];
            out[0] = c.x;
            out[1] = c.y;
            out[2] = c.z;
            out[3] = 1.0f;
        }
    TextureValue result;
    result.image = texture;
    result.mapping = base->mapping;
    return result;
}

// A 64 x 64 texture of f(s, t) over one tile, s and t in [0, 1) at the texel centres (t up, as
// pbrt's images are looked up at (s, 1 - t)), for the procedural textures wavefront can tabulate.
template <typename F>
std::shared_ptr<const Texture> tile(TextureBudget& budget, const std::string& what, F f) {
    constexpr int kSize = 64;
    budget.take(kSize, kSize, 16, what);
    auto texture = std::make_shared<Texture>();
    texture->width = texture->height = kSize;
    texture->srgb = false;
    for (int y = 0; y < kSize; ++y)
        for (int x = 0; x < kSize; ++x) {
            const glm::vec3 c = glm::max(f((x + 0.5f) / kSize, 1.0f - (y + 0.5f) / kSize), glm::vec3(0.0f));
            texture->rgbaFloat.insert(texture->rgbaFloat.end(), {c.x, c.y, c.z, 1.0f});
        }
    return texture;
}

TextureValue multiply(const TextureValue& a, const TextureValue& b, TextureBudget& budget, Warnings& warnings,
                      const FileLoc& loc, const std::string& what) {
    if (!b.image) {
        TextureValue r = a;
        r.constant *= b.constant;
        return r;
    }
    if (!a.image) {
        TextureValue r = b;
        r.constant *= a.constant;
        return r;
    }
    return bake({a, b}, [](const std::vector<glm::vec3>& v) { return v[0] * v[1]; }, budget, warnings, loc, what);
}

}  // namespace

void TextureBudget::take(std::int64_t width, std::int64_t height, int bytesPerTexel, const std::string& what) {
    const std::uint64_t units = std::uint64_t(std::max<std::int64_t>(width, 0)) * std::uint64_t(std::max<std::int64_t>(height, 0)) *
                                std::uint64_t(bytesPerTexel) / 4;
    if (units > left_)
        throw InputError(what + ": image size " + std::to_string(width) + "x" + std::to_string(height) + (bytesPerTexel > 4 ? " (float)" : "") +
                         " is over what is left of the scene's texture budget (" + std::to_string(left_) +
                         " RGBA8 texels, a float texel counting as four; SceneLoadOptions::maxTextureTexels)");
    left_ -= units;
}

MaterialConverter::MaterialConverter(const Description& description, Scene& scene, const FileResolver& files,
                                     std::uint64_t maxTextureTexels, Warnings& warnings)
    : d_(description), scene_(scene), files_(files), textureBudget_(maxTextureTexels), warnings_(warnings) {}

const Entity& MaterialConverter::resolve(const MaterialRef& ref) const {
    if (ref.index >= 0) return d_.materials[std::size_t(ref.index)];
    auto it = d_.namedMaterials.find(ref.name);
    if (it == d_.namedMaterials.end())
        throw InputError(ref.loc.str() + ": NamedMaterial \"" + ref.name + "\": no MakeNamedMaterial of that name");
    return it->second;
}

MaterialConverter::Result MaterialConverter::convert(const MaterialRef& ref, int areaLight) {
    const Entity& entity = resolve(ref);
    auto [it, inserted] = converted_.emplace(std::make_pair(&entity, areaLight), Result{});
    if (!inserted) return it->second;
    Result& result = it->second;
    const std::string what = "Material \"" + entity.type + "\"" + (ref.name.empty() ? "" : " (\"" + ref.name + "\")");
    Material material = convertMaterial(entity, what, result, 0);
    if (result.material == -2) {
        // "interface": no surface, only a boundary between media (the conversion adds
        // Material::interface() where one is drawn).
        result.material = -1;
        result.interface = true;
        if (areaLight >= 0)
            warnings_.add(d_.areaLights[std::size_t(areaLight)].loc,
                          "AreaLightSource: shapes with the \"interface\" material do not emit (nor in pbrt-v4): ignored");
        return result;
    }
    if (areaLight >= 0) {
        const AreaEmission emission = areaLightEmission(d_.areaLights[std::size_t(areaLight)], files_, warnings_);
        material.emission = emission.radiance * d_.imagingRatio;
        result.twoSided = emission.twoSided;
    }
    try {
        result.material = scene_.addMaterial(material);
    } catch (const InputError& e) {
        throw InputError(entity.loc.str() + ": " + what + ": " + e.what());
    }
    for (const Param* p : entity.params.unused())
        warnings_.add(p->loc, what + ": parameter " + p->declaration() + " is not known or not used: ignored");
    return result;
}

float MaterialConverter::roughness(const ParamList& params, const std::string& prefix, const std::string& what) {
    const float r = scalar(params, prefix + "roughness", 0.0f, what);
    const float u = params.find(prefix + "uroughness") ? scalar(params, prefix + "uroughness", 0.0f, what) : r;
    const float v = params.find(prefix + "vroughness") ? scalar(params, prefix + "vroughness", 0.0f, what) : r;
    const bool remap = params.getBool("remaproughness", true);
    auto alpha = [&](float x) { return remap ? std::sqrt(std::max(x, 0.0f)) : std::max(x, 0.0f); };
    if (u != v)
        warnings_.add(params.find(prefix + "uroughness") ? params.find(prefix + "uroughness")->loc : FileLoc{},
                      what + ": anisotropic roughness (" + std::to_string(u) + ", " + std::to_string(v) +
                          ") is not supported: the mean of the two alphas is used");
    return std::clamp(0.5f * (alpha(u) + alpha(v)), 0.0f, 1.0f);
}

Material MaterialConverter::convertMaterial(const Entity& m, const std::string& what, Result& result, int depth) {
    const ParamList& p = m.params;
    Material out;
    // What every pbrt-v4 material may carry.
    if (p.find("displacement"))
        warnings_.add(m.loc, what + ": \"displacement\" is not supported: the surface is drawn undisplaced");
    const std::string normalMap = p.getString("normalmap", "");
    auto baseColour = [&](const TextureValue& v) {
        out.diffuse = glm::clamp(v.constant, 0.0f, 1.0f);
        if (glm::any(glm::greaterThan(v.constant, glm::vec3(1.0f))))
            warnings_.add(m.loc, what + ": a reflectance above 1 is clamped to 1");
        if (!v.image) return;
        out.baseColorTexture = sceneTexture(v.image, m.loc, what);
        result.uvMapping = v.mapping;
        result.textured = true;
    };
    // The conductors' Fresnel: eta and k, or pbrt's "reflectance" (Schlick's F0 here).
    auto conductor = [&](const std::string& prefix) {
        const float alpha = roughness(p, prefix, what);
        const Param* reflectance = p.find("reflectance");
        if (reflectance) {
            TextureValue r = colour(p, "reflectance", 1.0f, SpectrumUse::Albedo, what);
            if (r.image) warnings_.add(m.loc, what + ": a textured \"reflectance\" is not supported: its mean is used");
            return Material::conductor(glm::clamp(meanOf(r), 0.0f, 1.0f), alpha);
        }
        // pbrt-v4's default conductor is copper.
        glm::vec3 eta(0.0f), k(0.0f);
        namedSpectrumRgb("metal-Cu-eta", SpectrumUse::Unbounded, eta);
        namedSpectrumRgb("metal-Cu-k", SpectrumUse::Unbounded, k);
        if (p.find(prefix + "eta")) eta = meanOf(colour(p, prefix + "eta", 1.0f, SpectrumUse::Unbounded, what));
        if (p.find(prefix + "k")) k = meanOf(colour(p, prefix + "k", 0.0f, SpectrumUse::Unbounded, what));
        // Spectra integrate to tiny negative values where a material barely absorbs (MgO, TiO2).
        return Material::conductorIor(glm::max(eta, glm::vec3(1e-3f)), glm::max(k, glm::vec3(0.0f)), alpha);
    };
    // A dielectric's index: a number, or a spectrum reduced to its green value (no dispersion).
    auto eta = [&](const std::string& name) {
        const Param* e = p.find(name);
        if (!e) return 1.5f;
        if (e->type == "float" || e->type == "integer") return p.getFloat(name, 1.5f);
        const glm::vec3 rgb = spectrumParam(*e, SpectrumUse::Unbounded, files_);
        warnings_.add(e->loc, what + ": a spectral \"" + name + "\" (dispersion) is not supported: the index " +
                                  std::to_string(rgb.y) + " is used for every wavelength");
        return rgb.y;
    };
    // The coated materials' layer: pbrt-v4's defaults, its walk's bounds.
    auto layer = [&](Material& coated) {
        coated.thickness = scalar(p, "thickness", 0.01f, what);
        const int depth = p.getInt("maxdepth", 10), samples = p.getInt("nsamples", 1);
        if (depth < 1 || depth > 100)
            throw InputError(m.loc.str() + ": " + what + ": \"maxdepth\" " + std::to_string(depth) + " must lie in [1, 100]");
        if (samples < 1 || samples > 127)
            throw InputError(m.loc.str() + ": " + what + ": \"nsamples\" " + std::to_string(samples) + " must lie in [1, 127]");
        coated.layerDepth = depth;
        coated.layerSamples = samples;
    };
    const std::string& type = m.type;
    if (type == "diffuse") {
        out.type = MaterialType::Lambertian;
        baseColour(colour(p, "reflectance", 0.5f, SpectrumUse::Albedo, what));
    } else if (type == "coateddiffuse") {
        out = Material::coatedDiffuse(glm::vec3(0.5f), roughness(p, "", what), eta("eta"));
        baseColour(colour(p, "reflectance", 0.5f, SpectrumUse::Albedo, what));
        layer(out);
        out.mediumAlbedo = glm::clamp(meanOf(colour(p, "albedo", 0.0f, SpectrumUse::Albedo, what)), 0.0f, 1.0f);
        out.mediumG = std::clamp(scalar(p, "g", 0.0f, what), -0.999f, 0.999f);
    } else if (type == "conductor") {
        out = conductor("");
    } else if (type == "coatedconductor") {
        const Material base = conductor("conductor.");
        glm::vec3 baseEta = base.eta, baseK = base.k;
        if (!base.complexIor) {  // pbrt's "reflectance": eta 1, k from it (pbrt's CoatedConductorMaterial)
            const glm::vec3 r = glm::clamp(base.specular, 0.0f, 0.9999f);
            baseEta = glm::vec3(1.0f);
            baseK = 2.0f * glm::sqrt(r) / glm::sqrt(glm::vec3(1.0f) - r);
        }
        out = Material::coatedConductor(baseEta, baseK, base.roughness, roughness(p, "interface.", what),
                                        eta("interface.eta"));
        layer(out);
        if (p.find("albedo") && meanOf(colour(p, "albedo", 0.0f, SpectrumUse::Albedo, what)) != glm::vec3(0.0f))
            warnings_.add(m.loc, what + ": a scattering layer (\"albedo\") under the coat is not supported on a "
                                        "conductor: a clear layer is drawn");
        p.find("g");
    } else if (type == "dielectric" || type == "thindielectric") {
        const float ior = eta("eta");
        const float alpha = type == "dielectric" ? roughness(p, "", what) : 0.0f;
        out = alpha > 0.0f && std::fabs(ior - 1.0f) >= 1e-3f ? Material::roughDielectric(ior, alpha) : Material::dielectric(ior);
        if (type == "thindielectric")
            warnings_.add(m.loc, what + ": drawn as a solid dielectric boundary (wavefront has no thin sheet), which refracts");
    } else if (type == "diffusetransmission") {
        out.type = MaterialType::Lambertian;
        TextureValue r = colour(p, "reflectance", 0.25f, SpectrumUse::Albedo, what);
        r.constant *= p.getFloat("scale", 1.0f);
        baseColour(r);
        colour(p, "transmittance", 0.25f, SpectrumUse::Albedo, what);
        warnings_.add(m.loc, what + ": the transmission is left out: drawn as a diffuse reflector of its \"reflectance\"");
    } else if (type == "mix") {
        // pbrt picks one of the two materials per shading point, the second with probability
        // "amount": wavefront takes the more likely one.
        const std::vector<std::string> names = p.getStrings("materials");
        if (names.size() != 2) throw InputError(m.loc.str() + ": " + what + " needs \"string materials\" with two names");
        const float amount = scalar(p, "amount", 0.5f, what);
        const std::string& chosen = names[amount > 0.5f ? 1 : 0];
        warnings_.add(m.loc, what + ": a mix is not supported: drawn as the more likely of the two, \"" + chosen + "\"");
        if (depth >= kMaxTextureDepth) throw InputError(m.loc.str() + ": " + what + ": mixes nested too deep (a cycle?)");
        const Entity& inner = resolve(MaterialRef{-1, chosen, m.loc});
        out = convertMaterial(inner, "Material \"" + inner.type + "\" (\"" + chosen + "\")", result, depth + 1);
        if (result.material == -2) throw InputError(m.loc.str() + ": " + what + ": \"" + chosen + "\" is an interface material");
    } else if (type == "interface" || type == "" || type == "none") {
        result.material = -2;
        for (const Param& q : p.params) q.used = true;
        return out;
    } else {
        // measured (BRDF files), subsurface and hair: a diffuse stand-in of their colour.
        out.type = MaterialType::Lambertian;
        const char* colourName = type == "hair" && !p.find("reflectance") ? "color" : "reflectance";
        baseColour(colour(p, colourName, 0.5f, SpectrumUse::Albedo, what));
        const bool known = type == "measured" || type == "subsurface" || type == "hair";
        warnings_.add(m.loc, what + (known ? " is not supported" : " is not a pbrt-v4 material") +
                                 ": drawn as a diffuse surface of its \"reflectance\" (0.5 when none is given)");
        for (const Param& q : p.params) q.used = true;
    }
    if (!normalMap.empty()) {
        const std::filesystem::path file = files_.resolve(normalMap, m.loc, what + " \"normalmap\"");
        out.normalTexture = sceneTexture(loadImage(file.string(), "linear", m.loc, what), m.loc, what);
        if (!identityMapping(result.uvMapping))
            warnings_.add(m.loc, what + ": the normal map is read with the colour texture's uv scale and offset");
    }
    return out;
}

TextureValue MaterialConverter::colour(const ParamList& params, const std::string& name, float fallback, SpectrumUse use,
                                       const std::string& what, int depth) {
    const std::string texture = params.getTexture(name);
    if (!texture.empty()) return namedTexture(texture, true, params.find(name)->loc, what, depth);
    if (const Param* p = params.find(name)) return constantValue(spectrumParam(*p, use, files_));
    return constantValue(glm::vec3(fallback));
}

float MaterialConverter::scalar(const ParamList& params, const std::string& name, float fallback, const std::string& what) {
    const std::string texture = params.getTexture(name);
    if (texture.empty()) return params.getFloat(name, fallback);
    const Param* p = params.find(name);
    const TextureValue v = namedTexture(texture, false, p->loc, what, 0);
    if (v.image) warnings_.add(p->loc, what + ": a textured \"" + name + "\" is not supported: the texture's mean is used");
    return meanOf(v).x;
}

TextureValue MaterialConverter::namedTexture(const std::string& name, bool spectrum, const FileLoc& loc,
                                             const std::string& what, int depth) {
    const auto& textures = spectrum ? d_.spectrumTextures : d_.floatTextures;
    auto it = textures.find(name);
    if (it == textures.end())
        throw InputError(loc.str() + ": " + what + ": no " + (spectrum ? "spectrum" : "float") + " texture \"" + name + "\"");
    if (depth >= kMaxTextureDepth)
        throw InputError(loc.str() + ": " + what + ": textures nested deeper than " + std::to_string(kMaxTextureDepth) +
                         " (a texture that uses itself?)");
    const auto key = std::make_pair(name, spectrum);
    if (auto cached = textures_.find(key); cached != textures_.end()) return cached->second;
    TextureValue value = evaluateTexture(it->second, spectrum, "Texture \"" + name + "\" \"" + it->second.type + "\"", depth + 1);
    textures_.emplace(key, value);
    return value;
}

TextureValue MaterialConverter::evaluateTexture(const Entity& t, bool spectrum, const std::string& what, int depth) {
    const ParamList& p = t.params;
    // A parameter of this texture that is itself a texture of the same kind (float for "amount").
    auto operand = [&](const std::string& name, float fallback, bool spectral = true) {
        const std::string texture = p.getTexture(name);
        if (!texture.empty()) return namedTexture(texture, spectrum && spectral, p.find(name)->loc, what, depth);
        const Param* value = p.find(name);
        if (!value) return constantValue(glm::vec3(fallback));
        if (value->type == "float" || value->type == "integer") return constantValue(glm::vec3(p.getFloat(name, fallback)));
        return constantValue(spectrumParam(*value, SpectrumUse::Unbounded, files_));
    };
    TextureValue value;
    glm::vec4 mapping(p.getFloat("uscale", 1.0f), p.getFloat("vscale", 1.0f), p.getFloat("udelta", 0.0f),
                      p.getFloat("vdelta", 0.0f));
    const std::string mappingType = p.getString("mapping", "uv");
    if (mappingType != "uv")
        warnings_.add(t.loc, what + ": \"mapping\" \"" + mappingType + "\" is not supported: the surface's uv is used");
    for (const char* ignored : {"v1", "v2"}) p.find(ignored);
    if (t.type == "constant") {
        value = operand("value", 1.0f);
    } else if (t.type == "imagemap") {
        const std::string file = p.getString("filename", "");
        const std::filesystem::path path = files_.resolve(file, t.loc, what + " \"filename\"");
        const std::string ext = lowercaseExtension(path.string());
        const std::string encoding = p.getString("encoding", ext == ".png" ? "sRGB" : "linear");
        value.image = loadImage(path.string(), encoding, t.loc, what);
        value.constant = glm::vec3(p.getFloat("scale", 1.0f));
        value.mapping = mapping;
        const std::string wrap = p.getString("wrap", "repeat");
        if (wrap != "repeat")
            warnings_.add(t.loc, what + ": \"wrap\" \"" + wrap + "\" is not supported: the texture repeats");
        for (const char* ignored : {"filter", "maxanisotropy"}) p.find(ignored);
        if (p.getBool("invert", false))
            value = bake({value}, [](const std::vector<glm::vec3>& v) { return glm::vec3(1.0f) - v[0]; }, textureBudget_,
                         warnings_, t.loc, what);
    } else if (t.type == "scale") {
        value = multiply(operand("tex", 1.0f), operand("scale", 1.0f, false), textureBudget_, warnings_, t.loc, what);
    } else if (t.type == "mix") {
        value = bake({operand("tex1", 0.0f), operand("tex2", 1.0f), operand("amount", 0.5f, false)},
                     [](const std::vector<glm::vec3>& v) { return (1.0f - v[2].x) * v[0] + v[2].x * v[1]; }, textureBudget_,
                     warnings_, t.loc, what);
    } else if (t.type == "checkerboard") {
        TextureValue a = operand("tex1", 1.0f), b = operand("tex2", 0.0f);
        if (a.image || b.image)
            warnings_.add(t.loc, what + ": textures as the checks' colours are not supported: their means are used");
        if (p.getInt("dimension", 2) != 2)
            warnings_.add(t.loc, what + ": 3D checkerboards are not supported: drawn in 2D over the surface's uv");
        // Two checks by two, 32 texels each, repeated: pbrt's (s, t) halved; tex1 where
        // floor(s) + floor(t) is even.
        const glm::vec3 ca = meanOf(a), cb = meanOf(b);
        value.image = tile(textureBudget_, t.loc.str() + ": " + what,
                           [&](float s, float tt) { return (int(2.0f * s) + int(2.0f * tt)) % 2 == 0 ? ca : cb; });
        value.mapping = mapping * 0.5f;
    } else if (t.type == "bilerp") {
        const glm::vec3 v00 = meanOf(operand("v00", 0.0f)), v01 = meanOf(operand("v01", 1.0f)),
                        v10 = meanOf(operand("v10", 0.0f)), v11 = meanOf(operand("v11", 1.0f));
        value.image = tile(textureBudget_, t.loc.str() + ": " + what, [&](float s, float tt) {
            return (1 - s) * (1 - tt) * v00 + s * (1 - tt) * v10 + (1 - s) * tt * v01 + s * tt * v11;
        });
        value.mapping = mapping;
    } else if (t.type == "directionmix") {
        value = constantValue(0.5f * (meanOf(operand("tex1", 0.0f)) + meanOf(operand("tex2", 1.0f))));
        p.find("dir");
        warnings_.add(t.loc, what + " is not supported: the mean of its two textures is used");
    } else {
        // dots, fbm, wrinkled, windy, marble, ptex: procedural or Ptex, computed per lookup.
        value = constantValue(glm::vec3(0.5f));
        warnings_.add(t.loc, what + " is not supported: a constant 0.5 is used");
        for (const Param& q : p.params) q.used = true;
    }
    for (const Param* q : p.unused())
        warnings_.add(q->loc, what + ": parameter " + q->declaration() + " is not known or not used: ignored");
    return value;
}

std::shared_ptr<const Texture> MaterialConverter::loadImage(const std::string& file, const std::string& encoding,
                                                            const FileLoc& loc, const std::string& what) {
    const std::string key = file + "\n" + encoding;
    if (auto it = images_.find(key); it != images_.end()) return it->second;
    auto texture = std::make_shared<Texture>();
    try {
        const std::string ext = lowercaseExtension(file);
        if (ext == ".exr" || ext == ".pfm" || ext == ".hdr") {
            // Float images are linear whatever the encoding says; pbrt clamps negative values at lookup.
            // Their size is checked against the budget on the header, before decoding.
            const Image image = readFloatImage(file, textureBudget_.left(16), files_.root());
            textureBudget_.take(image.width, image.height, 16, "'" + file + "'");
            texture->width = image.width;
            texture->height = image.height;
            texture->srgb = false;
            texture->rgbaFloat.reserve(std::size_t(image.width) * image.height * 4);
            for (std::size_t i = 0; i < image.rgb.size(); i += 3) {
                for (int c = 0; c < 3; ++c) {
                    const float v = image.rgb[i + c];
                    texture->rgbaFloat.push_back(std::isfinite(v) && v > 0.0f ? v : 0.0f);
                }
                texture->rgbaFloat.push_back(1.0f);
            }
        } else {
            *texture = readTexture(file, textureBudget_.left(4), files_.root());
            textureBudget_.take(texture->width, texture->height, 4, "'" + file + "'");
            if (encoding == "sRGB") {
                texture->srgb = true;
            } else if (encoding == "linear") {
                texture->srgb = false;
            } else if (encoding.compare(0, 6, "gamma ") == 0) {
                double gamma = 0.0;
                try {
                    gamma = std::stod(encoding.substr(6));
                } catch (const std::exception&) {
                }
                if (!(gamma > 0.0 && gamma < 100.0))
                    throw InputError("\"encoding\" \"" + encoding + "\" has no usable exponent");
                textureBudget_.take(texture->width, texture->height, 12, "'" + file + "' as float texels");
                Texture linear;
                linear.width = texture->width;
                linear.height = texture->height;
                linear.srgb = false;
                linear.rgbaFloat.resize(texture->rgba8.size());
                for (std::size_t i = 0; i < texture->rgba8.size(); ++i)
                    linear.rgbaFloat[i] = i % 4 == 3 ? 1.0f : float(std::pow(texture->rgba8[i] / 255.0, gamma));
                *texture = std::move(linear);
            } else {
                throw InputError("\"encoding\" \"" + encoding + "\" is not sRGB, linear or \"gamma G\"");
            }
        }
    } catch (const InputError& e) {
        throw InputError(loc.str() + ": " + what + ": " + e.what());
    }
    images_[key] = texture;
    return texture;
}

int MaterialConverter::sceneTexture(const std::shared_ptr<const Texture>& image, const FileLoc& loc, const std::string& what) {
    auto [it, inserted] = sceneTextures_.emplace(image, -1);
    if (!inserted) return it->second;
    Texture texture = *image;
    // Reflectances stay at or below 1; only emission could be HDR.
    bool clamped = false;
    for (std::size_t i = 0; i < texture.rgbaFloat.size(); ++i)
        if (texture.rgbaFloat[i] > 1.0f) {
            texture.rgbaFloat[i] = 1.0f;
            clamped = true;
        }
    if (clamped) warnings_.add(loc, what + ": texture values above 1 are clamped to 1 (a reflectance cannot exceed it)");
    try {
        it->second = scene_.addTexture(std::move(texture));
    } catch (const InputError& e) {
        throw InputError(loc.str() + ": " + what + ": " + e.what());
    }
    return it->second;
}

}  // namespace wavefront::pbrt
