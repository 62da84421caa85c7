// Participating media on the scene: the factories, Scene::addMedium's checks and what the
// renderers ask of a scene with media.
#include <cmath>

#include "host/scene/check_text.h"
#include "wavefront/error.h"
#include "wavefront/scene.h"

namespace wavefront {

namespace {

void checkGrid(const Medium& m, const std::string& what) {
    if (m.nx < 1 || m.ny < 1 || m.nz < 1)
        throw InputError(what + ": grid size " + std::to_string(m.nx) + "x" + std::to_string(m.ny) + "x" +
                         std::to_string(m.nz) + " must be at least 1 in every axis");
    const std::uint64_t values = std::uint64_t(m.nx) * std::uint64_t(m.ny) * std::uint64_t(m.nz);
    if (values > Scene::kMaxGridValues)
        throw InputError(what + ": grid of " + std::to_string(values) + " values exceeds the limit of " +
                         std::to_string(Scene::kMaxGridValues));
    if (m.density.size() != values)
        throw InputError(what + ": " + std::to_string(m.density.size()) + " density values for a grid of " +
                         std::to_string(values));
    for (std::size_t i = 0; i < m.density.size(); ++i)
        if (!(m.density[i] >= 0.0f && std::isfinite(m.density[i])))
            throw InputError(what + ": density value " + std::to_string(i) + " (" + std::to_string(m.density[i]) +
                             ") must be finite and non-negative");
    const glm::vec3 extent = m.boundsMax - m.boundsMin;
    if (!isNonNegativeFinite(glm::abs(m.boundsMin)) || !isNonNegativeFinite(glm::abs(m.boundsMax)) ||
        !(extent.x > 0 && extent.y > 0 && extent.z > 0))
        throw InputError(what + ": grid box " + formatVector(m.boundsMin) + " to " + formatVector(m.boundsMax) +
                         " must be finite and not empty");
    const glm::mat4& t = m.mediumToWorld;
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r)
            if (!std::isfinite(t[c][r])) throw InputError(what + ": its transform is not finite");
    if (t[0][3] != 0.0f || t[1][3] != 0.0f || t[2][3] != 0.0f || t[3][3] != 1.0f)
        throw InputError(what + ": its transform is not affine (the bottom row must be 0 0 0 1)");
    const double det = glm::determinant(glm::dmat3(glm::mat3(t)));
    if (!(std::fabs(det) > 1e-30) || !std::isfinite(det))
        throw InputError(what + ": its transform is not invertible");
}

}  // namespace

Medium Medium::homogeneous(glm::vec3 sigmaA, glm::vec3 sigmaS, float g) {
    Medium m;
    m.sigmaA = sigmaA;
    m.sigmaS = sigmaS;
    m.g = g;
    return m;
}

Medium Medium::grid(glm::vec3 sigmaA, glm::vec3 sigmaS, float g, int nx, int ny, int nz, std::vector<float> density,
                    glm::vec3 boundsMin, glm::vec3 boundsMax) {
    Medium m = homogeneous(sigmaA, sigmaS, g);
    m.type = MediumType::Grid;
    m.nx = nx;
    m.ny = ny;
    m.nz = nz;
    m.density = std::move(density);
    m.boundsMin = boundsMin;
    m.boundsMax = boundsMax;
    return m;
}

int Scene::addMedium(const Medium& medium) {
    const std::string what = "medium " + std::to_string(media_.size());
    if (media_.size() >= std::size_t(kMaxMedia))
        throw InputError(what + ": a scene holds at most " + std::to_string(kMaxMedia) + " media");
    if (medium.type != MediumType::Homogeneous && medium.type != MediumType::Grid)
        throw InputError(what + " has an unknown type " + std::to_string(int(medium.type)));
    if (!isNonNegativeFinite(medium.sigmaA) || !isNonNegativeFinite(medium.sigmaS))
        throw InputError(what + ": sigma_a " + formatVector(medium.sigmaA) + " and sigma_s " + formatVector(medium.sigmaS) +
                         " must be finite and non-negative");
    if (!(medium.scale >= 0.0f && std::isfinite(medium.scale)) || !isNonNegativeFinite(medium.sigmaT()))
        throw InputError(what + ": scale " + std::to_string(medium.scale) +
                         " must be finite and non-negative, and keep the coefficients finite");
    if (!(medium.g > -1.0f && medium.g < 1.0f))
        throw InputError(what + ": g " + std::to_string(medium.g) + " must lie in (-1, 1)");
    if (medium.type == MediumType::Grid) checkGrid(medium, what);
    media_.push_back(medium);
    validated_ = false;
    return int(media_.size() - 1);
}

void Scene::checkMediumIndex(int medium, const std::string& what) const {
    if (medium != kVacuum && (medium < 0 || std::size_t(medium) >= media_.size()))
        throw InputError(what + " medium index " + std::to_string(medium) + " is out of range (the scene has " +
                         std::to_string(media_.size()) + " media; -1 is vacuum)");
}

bool Scene::hasMedia() const {
    if (!media_.empty() || camera_.medium != kVacuum) return true;
    for (const Material& m : materials_)
        if (m.type == MaterialType::Interface) return true;
    return false;
}

}  // namespace wavefront
