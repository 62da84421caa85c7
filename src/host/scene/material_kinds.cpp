// The material table (material_kinds.h) and the public factories of each type.
#include "host/scene/material_kinds.h"

#include <cmath>
#include <sstream>

#include "host/scene/check_text.h"
#include "kernels/materials/material.h"
#include "wavefront/error.h"

namespace wavefront {

namespace {

/// Every reflectance is a fraction of the light that arrives: above 1 a surface creates energy
/// (the furnace brightens without bound).
void reflectance(const std::string& what, const char* name, const glm::vec3& v) {
    if (!(v.x <= 1.0f + 1e-6f && v.y <= 1.0f + 1e-6f && v.z <= 1.0f + 1e-6f))
        throw InputError(what + ": " + name + " " + formatVector(v) +
                         " must have components in [0, 1]; above 1 it reflects more energy than it receives");
}

void roughness(const std::string& what, const Material& m) {
    if (!(m.roughness >= 0.0f && m.roughness <= 1.0f))
        throw InputError(what + ": roughness " + std::to_string(m.roughness) + " must lie in [0, 1]");
}

/// The coated kinds' layer: its thickness and the walk's bounds (MaterialData keeps depth and
/// samples in one float).
void layer(const std::string& what, const Material& m) {
    roughness(what, m);
    if (!(std::isfinite(m.thickness) && m.thickness > 0.0f && m.thickness <= 1e3f))
        throw InputError(what + ": thickness " + std::to_string(m.thickness) + " must lie in (0, 1000]");
    if (!(m.layerDepth >= 1 && m.layerDepth <= 100))
        throw InputError(what + ": layer depth " + std::to_string(m.layerDepth) + " must lie in [1, 100]");
    if (!(m.layerSamples >= 1 && m.layerSamples < MaterialData::kLayerSamplesLimit))
        throw InputError(what + ": layer samples " + std::to_string(m.layerSamples) + " must lie in [1, " +
                         std::to_string(MaterialData::kLayerSamplesLimit - 1) + "]");
}

void complexIndex(const std::string& what, const Material& m) {
    const glm::vec3& eta = m.eta;
    if (!(std::isfinite(eta.x) && std::isfinite(eta.y) && std::isfinite(eta.z) && eta.x > 0 && eta.y > 0 && eta.z > 0))
        throw InputError(what + ": eta " + formatVector(m.eta) + " must be finite and positive");
    if (!(std::isfinite(m.k.x) && std::isfinite(m.k.y) && std::isfinite(m.k.z) && m.k.x >= 0 && m.k.y >= 0 && m.k.z >= 0))
        throw InputError(what + ": k " + formatVector(m.k) + " must be finite and non-negative");
}

}  // namespace

const std::vector<MaterialKindSpec>& materialKinds() {
    static const std::vector<MaterialKindSpec> kinds = [] {
        std::vector<MaterialKindSpec> k(kMaterialTypeCount);
        auto row = [&](MaterialType type) -> MaterialKindSpec& { return k[std::size_t(type)]; };
        auto add = [&](const MaterialKindSpec& spec) { row(spec.type) = spec; };
        add({MaterialType::Lambertian, "Lambertian", "lambertian",
             [](const Material& m, const std::string& what) { reflectance(what, "albedo", m.diffuse); }});
        row(MaterialType::Lambertian).baseColourTexture = true;
        // Diffuse plus a normalised lobe reflects up to diffuse + specular.
        add({MaterialType::Glossy, "Glossy", "glossy", [](const Material& m, const std::string& what) {
                 reflectance(what, "diffuse + specular", m.diffuse + m.specular);
             }});
        row(MaterialType::Glossy).baseColourTexture = true;
        add({MaterialType::Mirror, "Mirror", "mirror",
             [](const Material& m, const std::string& what) { reflectance(what, "tint", m.specular); },
             // A mirror without a tint of its own takes its diffuse colour.
             [](const Material& m, MaterialData& d) {
                 if (m.specular == glm::vec3(0.0f)) d.setSpecular(m.diffuse, m.exponent);
             }});
        // Glass transmits or reflects what arrives, without a colour of its own.
        add({MaterialType::Dielectric, "Dielectric", "dielectric"});
        add({MaterialType::Conductor, "Conductor", "conductor",
             [](const Material& m, const std::string& what) {
                 if (!m.complexIor) reflectance(what, "tint", m.specular);
                 roughness(what, m);
                 if (m.complexIor) complexIndex(what, m);
             },
             [](const Material& m, MaterialData& d) {
                 if (m.complexIor) {
                     d.setDiffuse(m.eta);
                     d.setSpecular(m.k, m.exponent);
                 }
                 d.setAlpha(m.roughness);
                 d.setComplexIor(m.complexIor);
             }});
        add({MaterialType::RoughDielectric, "RoughDielectric", "rough dielectric",
             [](const Material& m, const std::string& what) {
                 roughness(what, m);
                 if (std::fabs(m.ior - 1.0f) < 1e-3f)
                     throw InputError(what + ": ior " + std::to_string(m.ior) +
                                      " must differ from 1 (a rough interface between equal media is "
                                      "no interface)");
             },
             [](const Material& m, MaterialData& d) { d.setAlpha(m.roughness); }});
        add({MaterialType::MetallicRoughness, "MetallicRoughness", "metallic-roughness",
             [](const Material& m, const std::string& what) {
                 reflectance(what, "base colour", m.diffuse);
                 roughness(what, m);
                 if (!(m.metallic >= 0.0f && m.metallic <= 1.0f))
                     throw InputError(what + ": metallic " + std::to_string(m.metallic) + " must lie in [0, 1]");
             },
             // alpha = roughness^2 (glTF), kept rough: this material has no delta limit.
             [](const Material& m, MaterialData& d) {
                 d.setAlpha(std::max(m.roughness * m.roughness, kSmoothAlpha));
                 d.setMetallic(m.metallic);
             }});
        row(MaterialType::MetallicRoughness).baseColourTexture = true;
        row(MaterialType::MetallicRoughness).metallicRoughnessTexture = true;
        add({MaterialType::CoatedDiffuse, "CoatedDiffuse", "coated diffuse",
             [](const Material& m, const std::string& what) {
                 reflectance(what, "reflectance", m.diffuse);
                 layer(what, m);
                 reflectance(what, "medium albedo", m.mediumAlbedo);
                 if (!(m.mediumAlbedo.x >= 0.0f && m.mediumAlbedo.y >= 0.0f && m.mediumAlbedo.z >= 0.0f))
                     throw InputError(what + ": medium albedo " + formatVector(m.mediumAlbedo) + " must not be negative");
                 if (!(m.mediumG > -1.0f && m.mediumG < 1.0f))
                     throw InputError(what + ": medium g " + std::to_string(m.mediumG) + " must lie in (-1, 1)");
             },
             [](const Material& m, MaterialData& d) {
                 d.setSpecular(m.mediumAlbedo, m.mediumG);
                 d.setAlpha(m.roughness);
                 d.setLayer(m.thickness, m.layerDepth, m.layerSamples);
             }});
        row(MaterialType::CoatedDiffuse).baseColourTexture = true;
        add({MaterialType::CoatedConductor, "CoatedConductor", "coated conductor",
             [](const Material& m, const std::string& what) {
                 layer(what, m);
                 complexIndex(what, m);
                 if (!(m.baseRoughness >= 0.0f && m.baseRoughness <= 1.0f))
                     throw InputError(what + ": base roughness " + std::to_string(m.baseRoughness) + " must lie in [0, 1]");
             },
             // The base sits under the coat: its index relative to the coat's (as pbrt divides).
             [](const Material& m, MaterialData& d) {
                 d.setDiffuse(m.eta / m.ior);
                 d.setSpecular(m.k / m.ior, m.baseRoughness);
                 d.setAlpha(m.roughness);
                 d.setLayer(m.thickness, m.layerDepth, m.layerSamples);
             }});
        // No surface: only the media on its two sides (Scene::hasMedia runs the kernels with media).
        add({MaterialType::Interface, "Interface", "interface", [](const Material& m, const std::string& what) {
                 if (m.isEmissive())
                     throw InputError(what + ": an interface has no surface to emit from; give emission to a "
                                             "surface material");
             }});
        for (int i = 0; i < kMaterialTypeCount; ++i) {
            if (int(k[i].type) != i) throw Error("material table has no row for material type " + std::to_string(i));
            k[i].microfacet = needsFullMaterialSet(k[i].type);  // the BSDF struct's flag
        }
        return k;
    }();
    return kinds;
}

const MaterialKindSpec* materialKind(MaterialType type) {
    const int i = int(type);
    return i >= 0 && i < kMaterialTypeCount ? &materialKinds()[std::size_t(i)] : nullptr;
}

std::vector<std::pair<MaterialType, std::string>> materialTypeNames() {
    std::vector<std::pair<MaterialType, std::string>> names;
    for (const MaterialKindSpec& kind : materialKinds()) names.emplace_back(kind.type, kind.name);
    return names;
}

Material Material::lambertian(glm::vec3 albedo, glm::vec3 emission) {
    Material m;
    m.type = MaterialType::Lambertian;
    m.diffuse = albedo;
    m.emission = emission;
    return m;
}

Material Material::glossy(glm::vec3 diffuse, glm::vec3 specular, float exponent) {
    Material m;
    m.type = MaterialType::Glossy;
    m.diffuse = diffuse;
    m.specular = specular;
    m.exponent = exponent;
    return m;
}

Material Material::mirror(glm::vec3 tint) {
    Material m;
    m.type = MaterialType::Mirror;
    m.diffuse = glm::vec3(0.0f);
    m.specular = tint;
    return m;
}

Material Material::dielectric(float ior) {
    Material m;
    m.type = MaterialType::Dielectric;
    m.diffuse = glm::vec3(0.0f);
    m.specular = glm::vec3(1.0f);
    m.ior = ior;
    return m;
}

Material Material::conductor(glm::vec3 tint, float roughness) {
    Material m;
    m.type = MaterialType::Conductor;
    m.diffuse = glm::vec3(0.0f);
    m.specular = tint;
    m.roughness = roughness;
    return m;
}

Material Material::conductorIor(glm::vec3 eta, glm::vec3 k, float roughness) {
    Material m;
    m.type = MaterialType::Conductor;
    m.diffuse = glm::vec3(0.0f);
    m.complexIor = true;
    m.eta = eta;
    m.k = k;
    m.roughness = roughness;
    return m;
}

Material Material::roughDielectric(float ior, float roughness) {
    Material m;
    m.type = MaterialType::RoughDielectric;
    m.diffuse = glm::vec3(0.0f);
    m.specular = glm::vec3(1.0f);
    m.ior = ior;
    m.roughness = roughness;
    return m;
}

Material Material::metallicRoughness(glm::vec3 baseColour, float metallic, float roughness) {
    Material m;
    m.type = MaterialType::MetallicRoughness;
    m.diffuse = baseColour;
    m.metallic = metallic;
    m.roughness = roughness;
    return m;
}

Material Material::interface() {
    Material m;
    m.type = MaterialType::Interface;
    m.diffuse = glm::vec3(0.0f);
    return m;
}

Material Material::coatedDiffuse(glm::vec3 reflectance, float roughness, float ior, float thickness) {
    Material m;
    m.type = MaterialType::CoatedDiffuse;
    m.diffuse = reflectance;
    m.roughness = roughness;
    m.ior = ior;
    m.thickness = thickness;
    return m;
}

Material Material::coatedConductor(glm::vec3 eta, glm::vec3 k, float baseRoughness, float roughness, float ior,
                                   float thickness) {
    Material m;
    m.type = MaterialType::CoatedConductor;
    m.diffuse = glm::vec3(0.0f);
    m.eta = eta;
    m.k = k;
    m.baseRoughness = baseRoughness;
    m.roughness = roughness;
    m.ior = ior;
    m.thickness = thickness;
    return m;
}

}  // namespace wavefront
