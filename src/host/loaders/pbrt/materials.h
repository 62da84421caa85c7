// pbrt-v4 materials and textures mapped onto wavefront's (the table is in docs/pbrt.md). A pbrt
// material with the emission of an area light becomes one Scene material; textures become Scene
// textures, with what pbrt computes per lookup (scale, mix, checkerboard, invert) baked into them
// where wavefront cannot compute it.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <glm/glm.hpp>

#include <wavefront/scene.h>

#include "host/loaders/pbrt/description.h"
#include "host/loaders/pbrt/files.h"
#include "host/loaders/pbrt/warnings.h"

namespace wavefront::pbrt {

/// A spectrum or float texture reduced to what wavefront's materials take: a constant, or an image
/// times a constant, looked up at pbrt's (s, t) = (su u + du, sv v + dv) (pbrt's "uv" mapping).
struct TextureValue {
    glm::vec3 constant{1.0f};
    std::shared_ptr<const Texture> image;  ///< null: the constant alone
    glm::vec4 mapping{1.0f, 1.0f, 0.0f, 0.0f};  ///< su, sv, du, dv
};

/// A scene file's texture budget (SceneLoadOptions::maxTextureTexels) as the conversion spends
/// it, in RGBA8 texels (4 bytes): a float texel (16 bytes) counts as four. Every image decoded,
/// baked (mix, scale, invert) or tabulated (checkerboard, bilerp) is counted once, before its
/// texels are allocated (image files from their headers).
class TextureBudget {
public:
    explicit TextureBudget(std::uint64_t texels) : left_(texels) {}
    /// What is left, in texels of `bytesPerTexel` bytes (4: RGBA8, 16: float RGBA).
    std::uint64_t left(int bytesPerTexel) const { return left_ / std::uint64_t(bytesPerTexel) * 4; }
    /// Takes a width x height image of `bytesPerTexel` bytes a texel; throws InputError
    /// "`what`: ... over what is left of the scene's texture budget" when it does not fit.
    void take(std::int64_t width, std::int64_t height, int bytesPerTexel, const std::string& what);

private:
    std::uint64_t left_;
};

class MaterialConverter {
public:
    /// `maxTextureTexels`: SceneLoadOptions::maxTextureTexels, the scene's texture budget.
    MaterialConverter(const Description& description, Scene& scene, const FileResolver& files,
                      std::uint64_t maxTextureTexels, Warnings& warnings);

    struct Result {
        /// -1: pbrt's "interface" material (`interface`): no surface, only a boundary between
        /// media, drawn with Material::interface() where its two media differ.
        int material = -1;
        bool interface = false;
        glm::vec4 uvMapping{1.0f, 1.0f, 0.0f, 0.0f};  ///< of the material's textures: applied to the mesh's uvs
        bool textured = false;   ///< the material reads its textures at the surface's uvs
        bool twoSided = false;   ///< the area light emits on both sides
    };
    /// The Scene material of a shape's material and area light (-1: none), made once per pair.
    Result convert(const MaterialRef& ref, int areaLight);

private:
    const Entity& resolve(const MaterialRef& ref) const;
    Material convertMaterial(const Entity& m, const std::string& what, Result& result, int depth);
    TextureValue colour(const ParamList& params, const std::string& name, float fallback, SpectrumUse use,
                        const std::string& what, int depth = 0);
    float scalar(const ParamList& params, const std::string& name, float fallback, const std::string& what);
    TextureValue namedTexture(const std::string& name, bool spectrum, const FileLoc& loc, const std::string& what,
                              int depth);
    TextureValue evaluateTexture(const Entity& t, bool spectrum, const std::string& what, int depth);
    std::shared_ptr<const Texture> loadImage(const std::string& file, const std::string& encoding, const FileLoc& loc,
                                             const std::string& what);
    int sceneTexture(const std::shared_ptr<const Texture>& image, const FileLoc& loc, const std::string& what);
    float roughness(const ParamList& params, const std::string& prefix, const std::string& what);

    const Description& d_;
    Scene& scene_;
    const FileResolver& files_;
    TextureBudget textureBudget_;
    Warnings& warnings_;
    std::map<std::pair<const Entity*, int>, Result> converted_;
    std::map<std::string, std::shared_ptr<const Texture>> images_;  ///< by file and encoding
    std::map<std::pair<std::string, bool>, TextureValue> textures_;  ///< named textures (spectrum?) evaluated once
    /// Each image added once; the key holds the image, so that no other image can take its address.
    std::map<std::shared_ptr<const Texture>, int> sceneTextures_;
};

}  // namespace wavefront::pbrt
