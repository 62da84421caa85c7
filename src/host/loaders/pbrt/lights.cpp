// pbrt-v4's lights (src/pbrt/lights.cpp) in wavefront's terms. Light spectra are normalised to a
// luminance of 1 (spectra.h), as pbrt-v4 scales them to 1 nit; "rgb L" values are used as given.
#include "host/loaders/pbrt/lights.h"

#include <wavefront/error.h>

#include "host/io/texture_io.h"
#include "host/loaders/pbrt/spectra.h"
#include "kernels/lights/environment.h"
#include "kernels/materials/texture.h"

#include <algorithm>
#include <cmath>

namespace wavefront::pbrt {

namespace {

constexpr double kPi = 3.14159265358979323846;

glm::vec3 lightRadiance(const Entity& light, const FileResolver& files) {
    const Param* L = light.params.find("L");
    return L ? spectrumParam(*L, SpectrumUse::Illuminant, files) : glm::vec3(1.0f);
}

// pbrt-v4's EqualAreaSphereToSquare (Clarberg 2008): a unit direction to [0, 1]^2.
glm::dvec2 equalAreaSquare(const glm::dvec3& d) {
    const double x = std::fabs(d.x), y = std::fabs(d.y), z = std::fabs(d.z);
    const double r = std::sqrt(std::max(0.0, 1.0 - z));
    const double a = std::max(x, y), b = a == 0.0 ? 0.0 : std::min(x, y) / a;
    double phi = std::atan(b) * 2.0 / kPi;
    if (x < y) phi = 1.0 - phi;
    double v = phi * r, u = r - v;
    if (d.z < 0.0) {
        std::swap(u, v);
        u = 1.0 - u;
        v = 1.0 - v;
    }
    return glm::dvec2(0.5 * (std::copysign(u, d.x) + 1.0), 0.5 * (std::copysign(v, d.y) + 1.0));
}

// pbrt-v3's latitude-longitude map: phi about +z from +x, theta from +z.
glm::dvec2 latLongSquare(const glm::dvec3& d) {
    double phi = std::atan2(d.y, d.x);
    if (phi < 0.0) phi += 2.0 * kPi;
    return glm::dvec2(phi / (2.0 * kPi), std::acos(std::clamp(d.z, -1.0, 1.0)) / kPi);
}

// The texel nearest (u, v) in [0, 1]^2, rows from the top (pbrt-v4's LookupNearest).
const float* nearest(const Image& image, glm::dvec2 uv) {
    const int x = std::clamp(int(uv.x * image.width), 0, image.width - 1);
    const int y = std::clamp(int(uv.y * image.height), 0, image.height - 1);
    return image.pixel(x, y);
}

float luminance(const float* rgb) { return 0.2126f * rgb[0] + 0.7152f * rgb[1] + 0.0722f * rgb[2]; }

}  // namespace

AreaEmission areaLightEmission(const Entity& light, const FileResolver& files, Warnings& warnings) {
    AreaEmission e;
    const std::string what = "AreaLightSource \"" + light.type + "\"";
    if (light.type != "diffuse") {
        warnings.add(light.loc, what + " is not supported (pbrt-v4 has only \"diffuse\"): the shapes do not emit");
        return e;
    }
    e.radiance = lightRadiance(light, files) * light.params.getFloat("scale", 1.0f);
    e.twoSided = light.params.getBool("twosided", false);
    if (light.params.find("filename"))
        warnings.add(light.loc, what + ": \"filename\" (an emission image) is not supported: the light emits \"L\"");
    if (light.params.find("power"))
        warnings.add(light.loc, what + ": \"power\" is not supported: the light emits \"L\" times \"scale\"");
    if (!(e.radiance.x >= 0.0f && e.radiance.y >= 0.0f && e.radiance.z >= 0.0f) || !std::isfinite(e.radiance.x + e.radiance.y + e.radiance.z))
        throw InputError(light.loc.str() + ": " + what + ": the emitted radiance must be finite and non-negative");
    return e;
}

void LightConverter::translateLight(const Entity& light, int medium) {
    const std::string what = "LightSource \"" + light.type + "\"";
    if (hasMedium(light.type)) {
        deltaLights_.push_back(deltaLight(light));
        deltaLights_.back().medium = medium;
        deltaLightLocations_.push_back(light.loc.str() + ": " + what);
        return;
    }
    if (light.type == "goniometric" || light.type == "projection") {
        // They need their images as intensity distributions, which wavefront's lights do not have.
        warnings_.add(light.loc, what + " is not supported: skipped");
        for (const Param& p : light.params.params) p.used = true;
        return;
    }
    if (light.type != "infinite") {
        warnings_.add(light.loc, what + " is not a pbrt-v4 light: skipped");
        for (const Param& p : light.params.params) p.used = true;
        return;
    }
    if (infiniteLocation_.empty()) infiniteLocation_ = light.loc.str() + ": " + what;
    float scale = light.params.getFloat("scale", 1.0f);
    const float illuminance = light.params.getFloat("illuminance", -1.0f);
    if (light.params.find("portal"))
        warnings_.add(light.loc, what + ": \"portal\" is not supported: the light is sampled without it");
    const std::string file = light.params.getString("filename", "");
    if (file.empty()) {
        // Constant radiance; "illuminance": the irradiance of an upper hemisphere of it, pi L.
        if (illuminance > 0.0f) scale *= float(illuminance / kPi);
        constant_ += lightRadiance(light, files_) * scale;
        hasInfinite_ = true;
        return;
    }
    if (light.params.find("L"))
        throw InputError(light.loc.str() + ": " + what + " has both \"L\" and \"filename\" (pbrt-v4 refuses this too)");
    const std::filesystem::path path = files_.resolve(file, light.loc, what + " \"filename\"");
    Image image;
    try {
        image = readFloatImage(path.string(), std::uint64_t(1) << 28, files_.root());  // the file as opened inside the folder
    } catch (const InputError& e) {
        throw InputError(light.loc.str() + ": " + what + ": " + e.what());
    }
    if (illuminance > 0.0f && image.width == image.height) {
        // pbrt-v4: the map scaled so that its upper hemisphere (+z in the light's frame) gives this
        // illuminance. A texel of the equal-area square at (u, v) in [-1, 1]^2 looks at z =
        // 1 - r^2, r = 1 - |1 - |u| - |v||, on the upper side where |u| + |v| < 1.
        double e = 0.0;
        for (int y = 0; y < image.height; ++y)
            for (int x = 0; x < image.width; ++x) {
                const double u = 2.0 * (x + 0.5) / image.width - 1.0, v = 2.0 * (y + 0.5) / image.height - 1.0;
                const double signedDistance = 1.0 - (std::fabs(u) + std::fabs(v));
                if (signedDistance <= 0.0) continue;
                const double r = 1.0 - signedDistance;
                e += luminance(image.pixel(x, y)) * (1.0 - r * r);
            }
        e *= 2.0 * kPi / (double(image.width) * image.height);
        if (e > 0.0) scale *= float(illuminance / e);
    } else if (illuminance > 0.0f) {
        warnings_.add(light.loc, what + ": \"illuminance\" is read for square maps only: ignored");
    }
    addImage(light, image, scale);
    hasInfinite_ = true;
}

void LightConverter::addImage(const Entity& light, const Image& image, float scale) {
    const std::string what = "LightSource \"infinite\" \"" + light.params.getString("filename", "") + "\"";
    const bool square = image.width == image.height;
    const bool latLong = image.width == 2 * image.height;
    if (!square && !latLong)
        throw InputError(light.loc.str() + ": " + what + " is " + std::to_string(image.width) + "x" +
                         std::to_string(image.height) +
                         ": pbrt-v4 takes a square equal-area octahedral map (or, read as pbrt-v3 did, a 2:1 latitude-longitude map)");
    if (latLong)
        warnings_.add(light.loc, what + " is a latitude-longitude map: read as pbrt-v3 read it (pbrt-v4 takes square equal-area maps only)");
    if (environment_.width == 0) {
        // As many rows as the source has, up to 2048 (a texel of 0.09 degrees), twice as wide as high.
        const int height = std::min(image.height, 2048);
        environment_ = Image(2 * height, height);
    }
    // Each of the Scene's texels (y up, the Scene's world) looks up the light's map in its own
    // frame: Scene -> pbrt world (the mirror is its own inverse) -> light. 2 x 2 samples per texel.
    const glm::dmat3 lightFromScene = glm::inverse(glm::dmat3(light.transform)) * glm::inverse(glm::dmat3(sceneFromWorld_));
    for (int y = 0; y < environment_.height; ++y)
        for (int x = 0; x < environment_.width; ++x) {
            glm::dvec3 sum(0.0);
            for (int s = 0; s < 4; ++s) {
                const float u = (x + 0.25f + 0.5f * float(s & 1)) / environment_.width;
                const float v = (y + 0.25f + 0.5f * float(s >> 1)) / environment_.height;
                float sinTheta = 0.0f;
                const vec3 d = EnvironmentView::direction(u, v, sinTheta);
                const glm::dvec3 dl = glm::normalize(lightFromScene * glm::dvec3(d.x, d.y, d.z));
                const float* texel = nearest(image, square ? equalAreaSquare(dl) : latLongSquare(dl));
                sum += glm::dvec3(texel[0], texel[1], texel[2]);
            }
            float* out = environment_.pixel(x, y);
            for (int c = 0; c < 3; ++c) out[c] += float(std::max(0.0, sum[c] / 4.0) * scale);
        }
}

Light LightConverter::deltaLight(const Entity& light) const {
    const std::string what = "LightSource \"" + light.type + "\"";
    const bool distant = light.type == "distant";
    // Spectra as for every light (normalised to luminance 1 where not RGB), times "scale".
    const Param* spectrum = light.params.find(distant ? "L" : "I");
    glm::vec3 value = spectrum ? spectrumParam(*spectrum, SpectrumUse::Illuminant, files_) : glm::vec3(1.0f);
    value *= light.params.getFloat("scale", 1.0f);
    const std::vector<glm::vec3> from = light.params.getVec3s("from"), to = light.params.getVec3s("to");
    const glm::dvec3 a = from.empty() ? glm::dvec3(0.0) : glm::dvec3(from[0]);
    const glm::dvec3 b = to.empty() ? glm::dvec3(0.0, 0.0, 1.0) : glm::dvec3(to[0]);
    const glm::dmat4 toScene = sceneFromWorld_ * light.transform;
    Light l;
    l.position = glm::vec3(toScene * glm::dvec4(a, 1.0));
    l.direction = glm::vec3(toScene * glm::dvec4(b - a, 0.0));  // where the light travels
    const double lum = 0.2126 * value.x + 0.7152 * value.y + 0.0722 * value.z;
    if (distant) {
        l.type = LightType::Directional;
        // "illuminance": the irradiance it gives a surface facing it.
        const float illuminance = light.params.getFloat("illuminance", -1.0f);
        if (illuminance > 0.0f && lum > 0.0) value *= float(illuminance / lum);
    } else if (light.type == "spot") {
        l.type = LightType::Spot;
        l.outerConeDegrees = light.params.getFloat("coneangle", 30.0f);
        l.innerConeDegrees = std::max(0.0f, l.outerConeDegrees - light.params.getFloat("conedeltaangle", 5.0f));
        // "power": the flux it emits, by pbrt-v4's cone of the smoothstep's mean.
        const float power = light.params.getFloat("power", -1.0f);
        const double toRadians = kPi / 180.0;
        const double cone = 2.0 * kPi * (1.0 - 0.5 * (std::cos(l.innerConeDegrees * toRadians) + std::cos(l.outerConeDegrees * toRadians)));
        if (power > 0.0f && lum > 0.0 && cone > 0.0) value *= float(power / (lum * cone));
    } else {
        l.type = LightType::Point;
        const float power = light.params.getFloat("power", -1.0f);
        if (power > 0.0f && lum > 0.0) value *= float(power / (lum * 4.0 * kPi));
    }
    l.intensity = value;
    return l;
}

void LightConverter::finish(Scene& scene, float imagingRatio) {
    for (std::size_t i = 0; i < deltaLights_.size(); ++i) {
        deltaLights_[i].intensity *= imagingRatio;
        try {
            scene.addLight(deltaLights_[i]);
        } catch (const InputError& e) {
            throw InputError(deltaLightLocations_[i] + ": " + e.what());
        }
    }
    if (!hasInfinite_) return;
    // The sky's own checks (radiance times "scale" beyond the float range, ...), named at the
    // first infinite light.
    try {
        if (environment_.width == 0) {
            // A constant sky: the gradient with equal ends, sampled uniformly over the sphere.
            scene.setSkyGradient(SkyGradient{constant_ * imagingRatio, constant_ * imagingRatio});
            return;
        }
        for (std::size_t i = 0; i < environment_.rgb.size(); ++i)
            environment_.rgb[i] = (environment_.rgb[i] + constant_[int(i % 3)]) * imagingRatio;
        scene.setEnvironment(std::move(environment_));
    } catch (const InputError& e) {
        throw InputError(infiniteLocation_ + ": " + e.what());
    }
}

}  // namespace wavefront::pbrt
