// Scene data as kernels see it: materials packed into 16-byte words, the camera's basis.
#include "host/scene/scene_upload.h"

#include <cmath>

namespace wavefront {

MaterialData packMaterial(const Material& m) {
    MaterialData d;
    d.diffuse = Float4(m.diffuse, intAsFloat(int(m.type)));
    d.specular = Float4(m.type == MaterialType::Mirror && m.specular == vec3(0.0f) ? m.diffuse : m.specular, m.exponent);
    d.emission = Float4(m.emission, m.ior);
    return d;
}

CameraData makeCamera(const Camera& c) {
    CameraData d;
    d.position = c.position;
    d.forward = glm::normalize(c.target - c.position);
    d.right = glm::normalize(glm::cross(d.forward, c.up));
    d.up = glm::cross(d.right, d.forward);
    d.tanHalfFovY = std::tan(0.5f * c.verticalFovDegrees * kPi / 180.0f);
    d.aspect = 1.0f;
    d.lensRadius = c.lensRadius;
    d.focusDistance = c.focusDistance;
    return d;
}

}  // namespace wavefront
