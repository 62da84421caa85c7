// A material as kernels read it (MaterialData) and its textures: the one layout that the host's
// packing (scene_upload.cpp: packMaterial) writes and every BSDF reads. The kinds are the public
// MaterialType, from its dependency-free header (docs/decisions.md, "One material kind list").
#pragma once
#include "kernels/core/math.h"
#include "wavefront/material_type.h"

namespace wavefront {

/// 64 bytes in four 16-byte words, each read with one load; kernels read the fields through the
/// accessors, which say what each kind keeps where:
///   word 0: diffuse colour (Lambertian, Glossy's diffuse part, MetallicRoughness's base colour)
///           or a conductor's complex index eta; the kind
///   word 1: specular colour (Glossy's lobe, Mirror's tint, a conductor's Schlick F0) or a
///           conductor's extinction k; the Blinn-Phong exponent
///   word 2: emitted radiance; the index of refraction (Dielectric, RoughDielectric)
///   word 3: GGX alpha, metallic, a conductor's Fresnel from eta + i k (1) or Schlick (0), the
///           normal map's scale
/// The coated kinds (layered.h) keep the coat's index in ior(), its alpha in alpha(), the layer's
/// thickness where metallic is and its walk's depth and samples where the Fresnel flag is; the
/// coated diffuse its medium's albedo and g in word 1, the coated conductor its base's eta and k
/// (relative to the coat) in words 0 and 1 and the base's alpha in word 1's w.
struct MaterialData {
    WF_CPU_GPU MaterialType kind() const { return MaterialType(floatAsInt(diffuseKind_.w)); }
    WF_CPU_GPU vec3 diffuse() const { return diffuseKind_.xyz(); }
    WF_CPU_GPU vec3 eta() const { return diffuseKind_.xyz(); }  ///< a conductor with complexIor()
    WF_CPU_GPU vec3 specular() const { return specularExponent_.xyz(); }
    WF_CPU_GPU vec3 k() const { return specularExponent_.xyz(); }  ///< a conductor with complexIor()
    WF_CPU_GPU float exponent() const { return specularExponent_.w; }
    WF_CPU_GPU vec3 emission() const { return emissionIor_.xyz(); }
    WF_CPU_GPU float ior() const { return emissionIor_.w; }
    WF_CPU_GPU float alpha() const { return params_.x; }
    WF_CPU_GPU float metallic() const { return params_.y; }
    WF_CPU_GPU bool complexIor() const { return params_.z != 0.0f; }
    WF_CPU_GPU float normalScale() const { return params_.w; }  ///< glTF normalTexture.scale
    WF_CPU_GPU vec3 mediumAlbedo() const { return specularExponent_.xyz(); }  ///< CoatedDiffuse
    WF_CPU_GPU float mediumG() const { return specularExponent_.w; }          ///< CoatedDiffuse
    WF_CPU_GPU float baseAlpha() const { return specularExponent_.w; }        ///< CoatedConductor
    WF_CPU_GPU float thickness() const { return params_.y; }                  ///< the coated kinds
    WF_CPU_GPU int layerDepth() const { return int(params_.z) / kLayerSamplesLimit; }
    WF_CPU_GPU int layerSamples() const { return int(params_.z) % kLayerSamplesLimit; }
    /// The coated kinds' walk: at most this many samples (and their depth times this, exactly
    /// representable, in one float).
    static constexpr int kLayerSamplesLimit = 128;
    WF_CPU_GPU bool emissive() const { return emissionIor_.x > 0.0f || emissionIor_.y > 0.0f || emissionIor_.z > 0.0f; }

    // Writers: the host's packing, and textures scaling a copy's factors (materialAt).
    WF_CPU_GPU void setKind(MaterialType kind) { diffuseKind_.w = intAsFloat(int(kind)); }
    WF_CPU_GPU void setDiffuse(vec3 c) { diffuseKind_ = Float4(c, diffuseKind_.w); }
    WF_CPU_GPU void setSpecular(vec3 c, float exponent) { specularExponent_ = Float4(c, exponent); }
    WF_CPU_GPU void setEmission(vec3 c) { emissionIor_ = Float4(c, emissionIor_.w); }
    WF_CPU_GPU void setIor(float ior) { emissionIor_.w = ior; }
    WF_CPU_GPU void setAlpha(float alpha) { params_.x = alpha; }
    WF_CPU_GPU void setMetallic(float metallic) { params_.y = metallic; }
    WF_CPU_GPU void setComplexIor(bool complex) { params_.z = complex ? 1.0f : 0.0f; }
    WF_CPU_GPU void setNormalScale(float scale) { params_.w = scale; }
    WF_CPU_GPU void setLayer(float thickness, int depth, int samples) {
        params_.y = thickness;
        params_.z = float(depth * kLayerSamplesLimit + samples);
    }

private:
    Float4 diffuseKind_, specularExponent_, emissionIor_, params_;
};
static_assert(sizeof(MaterialData) == 64, "material is four 16-byte words");

/// The textures of a material (Scene texture indices, -1: none), one per material beside
/// MaterialData. Colour textures (base colour, emission) scale their factor; metallicRoughness
/// scales roughness by G and metallic by B (glTF); normal is a tangent-space normal map.
struct MaterialTextures {
    int baseColor = -1, metallicRoughness = -1, normal = -1, emission = -1;
    WF_CPU_GPU bool any() const { return (baseColor & metallicRoughness & normal & emission) != -1; }
};

}  // namespace wavefront
