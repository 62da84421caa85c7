// Defaults that let any model render with no set-up: a camera that frames its bounding box, a
// built-in sky, and the loaders' warnings.
#include <wavefront/error.h>
#include <wavefront/scene.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace wavefront {

namespace {

bool isFinite(const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

glm::vec3 unitUp(glm::vec3 up, const char* what) {
    const float length = glm::length(up);
    if (!isFinite(up) || !(length > 0.0f) || !std::isfinite(length))
        throw InputError(std::string(what) + ": the up vector must be finite and non-zero");
    return up / length;
}

// The rotation that takes +y to `up` (a unit vector), applied to v (Rodrigues' formula).
glm::vec3 rotateYTo(const glm::vec3& up, const glm::vec3& v) {
    const glm::vec3 y(0.0f, 1.0f, 0.0f);
    const float c = glm::dot(y, up);
    if (c > 1.0f - 1e-6f)
        return v;
    if (c < -1.0f + 1e-6f)  // upside down: a half turn about x
        return glm::vec3(v.x, -v.y, -v.z);
    const glm::vec3 axis = glm::normalize(glm::cross(y, up));
    const float s = std::sqrt(std::max(0.0f, 1.0f - c * c));
    return v * c + glm::cross(axis, v) * s + axis * glm::dot(axis, v) * (1.0f - c);
}

}  // namespace

void Scene::frameCamera(glm::vec3 up, float verticalFovDegrees) {
    up = unitUp(up, "frameCamera");
    if (!(verticalFovDegrees > 0.0f && verticalFovDegrees < 180.0f))
        throw InputError("frameCamera: the vertical field of view must lie in (0, 180) degrees");
    glm::vec3 lower, upper;
    bounds(lower, upper);
    if (!(lower.x <= upper.x))
        throw InputError("cannot frame a scene without primitives");
    // Above the model, to its side and in front: y-up models face +z (glTF), so the model is seen
    // from its front right; z-up models (y mapped to z) face -y.
    const glm::vec3 direction = rotateYTo(up, glm::normalize(glm::vec3(1.0f, 0.6f, 1.4f)));
    const glm::vec3 center = 0.5f * (lower + upper);
    const float radius = std::max(0.5f * glm::length(upper - lower), 1e-3f);
    Camera camera;
    camera.verticalFovDegrees = verticalFovDegrees;
    camera.target = center;
    camera.position = center + direction * (radius / std::sin(glm::radians(0.5f * verticalFovDegrees)));
    camera.up = up;
    camera_ = camera;
    cameraIsDefault_ = true;
}

void Scene::addWarning(const std::string& text) {
    const std::string message = printable(text);  // file names and content quoted in it
    if (std::find(warnings_.begin(), warnings_.end(), message) == warnings_.end())
        warnings_.push_back(message);
}

Image skyEnvironment(const std::string& kind, glm::vec3 up) {
    up = unitUp(up, "sky");
    if (kind == "uniform") {
        Image image(8, 4);
        std::fill(image.rgb.begin(), image.rgb.end(), 1.0f);
        return image;
    }
    if (kind != "gradient")
        throw InputError("sky '" + kind + "' is not uniform or gradient");
    // Latitude-longitude, as the environment map reads it: phi = 2 pi u, theta = pi v from +y.
    const int width = 256, height = 128;
    const glm::vec3 horizon(1.0f), zenith(0.25f, 0.45f, 1.0f), ground(0.3f);
    const float pi = 3.14159265358979f;
    Image image(width, height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const float phi = 2.0f * pi * (x + 0.5f) / width, theta = pi * (y + 0.5f) / height;
            const glm::vec3 d(std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi));
            const float elevation = glm::dot(d, up);
            // sqrt: the horizon's brightness fades quickly, as in a clear sky.
            const glm::vec3 c = elevation >= 0.0f ? glm::mix(horizon, zenith, std::sqrt(elevation)) : ground;
            float* p = image.pixel(x, y);
            p[0] = c.x;
            p[1] = c.y;
            p[2] = c.z;
        }
    return image;
}

}  // namespace wavefront
