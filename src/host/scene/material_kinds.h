// What the host knows of each material type, one row each (material_kinds.cpp): its names, the
// checks of its own parameters, how it packs into MaterialData beyond the shared words, and which
// textures it reads. Scene::addMaterial, packMaterial, the factories and the Python enum read it;
// the kernels' half of a material is its BSDF (kernels/materials/material.h dispatches).
#pragma once
#include <string>
#include <vector>

#include "wavefront/scene.h"

namespace wavefront {

struct MaterialData;  // kernels/materials/material_data.h

struct MaterialKindSpec {
    MaterialType type;
    const char* name;      ///< "MetallicRoughness": the enum value's name (Python)
    const char* phrase;    ///< "metallic-roughness": in messages
    /// Checks of its own parameters (Scene::addMaterial checks the shared ones: colours, ior,
    /// exponent, textures, normal scale); `what` names the material. Throws InputError.
    void (*check)(const Material& m, const std::string& what) = nullptr;
    /// Its words of MaterialData; packMaterial has written the shared ones (kind, diffuse,
    /// specular and exponent, emission, ior, normal scale).
    void (*pack)(const Material& m, MaterialData& d) = nullptr;
    bool baseColourTexture = false;         ///< its diffuse colour is a colour a texture may scale
    bool metallicRoughnessTexture = false;  ///< it reads glTF's metallic-roughness texture
    bool microfacet = false;                ///< kernels need the full material set: its BSDF's kMicrofacet
};

/// Every material type, in MaterialType order.
const std::vector<MaterialKindSpec>& materialKinds();
/// The row of `type`, or null for a value that is no MaterialType.
const MaterialKindSpec* materialKind(MaterialType type);

}  // namespace wavefront
