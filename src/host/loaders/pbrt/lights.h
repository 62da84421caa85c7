// pbrt-v4 lights: area lights become the emission of the shapes after them; an "infinite" light
// becomes the Scene's environment; the others are named in warnings (translateLight, the one
// place the delta lights of issue 33 will be mapped).
#pragma once
#include <glm/glm.hpp>

#include <wavefront/image.h>
#include <wavefront/scene.h>

#include "host/loaders/pbrt/description.h"
#include "host/loaders/pbrt/files.h"
#include "host/loaders/pbrt/warnings.h"

namespace wavefront::pbrt {

struct AreaEmission {
    glm::vec3 radiance{0.0f};  ///< L times scale, as linear sRGB
    bool twoSided = false;
};

/// AreaLightSource "diffuse": "L" (default: the colour space's illuminant, (1, 1, 1)), "scale",
/// "twosided". "filename" (an emission image) and "power" are warnings: the light emits L.
AreaEmission areaLightEmission(const Entity& light, const FileResolver& files, Warnings& warnings);

/// The LightSource directives of one scene, turned into what a Scene holds.
class LightConverter {
public:
    /// `sceneFromWorld`: pbrt's world to the Scene's (the mirror that keeps images as pbrt draws them).
    LightConverter(const glm::dmat4& sceneFromWorld, const FileResolver& files, Warnings& warnings)
        : sceneFromWorld_(sceneFromWorld), files_(files), warnings_(warnings) {}
    /// One LightSource: "infinite" (constant L, or an image: pbrt-v4's equal-area octahedral
    /// square, resampled to the Scene's latitude-longitude map; a 2:1 image is read as pbrt-v3's
    /// latitude-longitude map, with a warning), summed with the infinite lights before it.
    /// "point", "spot" and "distant": wavefront's point, spot and directional lights (pbrt-v4's
    /// "I" or "L", "scale", "from", "to", "coneangle", "conedeltaangle", "power", "illuminance").
    /// "goniometric" and "projection": warnings, skipped. Throws
    /// InputError, naming the directive, for an image that cannot be read or has another shape.
    /// `medium`: the Scene medium a point, spot or distant light sits in (Light::medium).
    void translateLight(const Entity& light, int medium = kVacuum);
    /// Whether a LightSource of that type becomes a Scene light with a medium (point, spot, distant).
    static bool hasMedium(const std::string& type) { return type == "point" || type == "spot" || type == "distant"; }
    /// Adds the delta lights to the Scene and sets its environment from the infinite lights (none:
    /// nothing). Throws InputError, naming the directive, for a light Scene::addLight refuses.
    void finish(Scene& scene, float imagingRatio);

private:
    void addImage(const Entity& light, const Image& image, float scale);
    Light deltaLight(const Entity& light) const;

    glm::dmat4 sceneFromWorld_;
    const FileResolver& files_;
    Warnings& warnings_;
    glm::vec3 constant_{0.0f};  ///< the sum of the constant infinite lights
    bool hasInfinite_ = false;
    std::string infiniteLocation_;  ///< "file:line:column: LightSource \"infinite\"" of the first, for the sky's errors
    Image environment_;         ///< the sum of the image infinite lights, latitude-longitude, or empty
    std::vector<Light> deltaLights_;                ///< point, spot and distant lights, in the Scene's frame
    std::vector<std::string> deltaLightLocations_;  ///< "file:line:column: LightSource \"point\"" of each
};

}  // namespace wavefront::pbrt
