// pbrt-v4 media as the Scene's (media.h), after pbrt-v4's media.cpp (HomogeneousMedium,
// GridMedium and RGBGridMedium's Create): the same parameters and defaults (sigma_a and sigma_s
// 1, scale 1, g 0, an nx x ny x nz grid of 1 x 1 x 1 over the box p0 = (0, 0, 0) to p1 = (1, 1, 1)).
#include "host/loaders/pbrt/media.h"

#include <wavefront/error.h>

#include "host/loaders/pbrt/spectra.h"

#include <algorithm>
#include <cmath>

namespace wavefront::pbrt {

namespace {

// pbrt-v4's named media (media.cpp, GetMediumScatteringProperties), in mm^-1 as pbrt takes them:
// Jensen, Marschner, Levoy and Hanrahan, "A Practical Model for Subsurface Light Transport"
// (SIGGRAPH 2001), then Narasimhan, Gupta, Donner, Ramamoorthi, Nayar and Jensen, "Acquiring
// Scattering Properties of Participating Media by Dilution" (SIGGRAPH 2006). The first colour is
// the reduced scattering coefficient, which pbrt-v4 uses as sigma_s.
struct Preset {
    const char* name;
    float sigmaS[3], sigmaA[3];
};
constexpr Preset kPresets[] = {
    {"Apple", {2.29f, 2.39f, 1.97f}, {0.0030f, 0.0034f, 0.046f}},
    {"Chicken1", {0.15f, 0.21f, 0.38f}, {0.015f, 0.077f, 0.19f}},
    {"Chicken2", {0.19f, 0.25f, 0.32f}, {0.018f, 0.088f, 0.20f}},
    {"Cream", {7.38f, 5.47f, 3.15f}, {0.0002f, 0.0028f, 0.0163f}},
    {"Ketchup", {0.18f, 0.07f, 0.03f}, {0.061f, 0.97f, 1.45f}},
    {"Marble", {2.19f, 2.62f, 3.00f}, {0.0021f, 0.0041f, 0.0071f}},
    {"Potato", {0.68f, 0.70f, 0.55f}, {0.0024f, 0.0090f, 0.12f}},
    {"Skimmilk", {0.70f, 1.22f, 1.90f}, {0.0014f, 0.0025f, 0.0142f}},
    {"Skin1", {0.74f, 0.88f, 1.01f}, {0.032f, 0.17f, 0.48f}},
    {"Skin2", {1.09f, 1.59f, 1.79f}, {0.013f, 0.070f, 0.145f}},
    {"Spectralon", {11.6f, 20.4f, 14.9f}, {0.00f, 0.00f, 0.00f}},
    {"Wholemilk", {2.55f, 3.21f, 3.77f}, {0.0011f, 0.0024f, 0.014f}},
    {"Lowfat Milk", {0.89187f, 1.5136f, 2.532f}, {0.002875f, 0.00575f, 0.0115f}},
    {"Reduced Milk", {2.4858f, 3.1669f, 4.5214f}, {0.0025556f, 0.0051111f, 0.012778f}},
    {"Regular Milk", {4.5513f, 5.8294f, 7.136f}, {0.0015333f, 0.0046f, 0.019933f}},
    {"Espresso", {0.72378f, 0.84557f, 1.0247f}, {4.7984f, 6.5751f, 8.8493f}},
    {"Mint Mocha Coffee", {0.31602f, 0.38538f, 0.48131f}, {3.772f, 5.8228f, 7.82f}},
    {"Lowfat Soy Milk", {0.30576f, 0.34233f, 0.61664f}, {0.0014375f, 0.0071875f, 0.035937f}},
    {"Regular Soy Milk", {0.59223f, 0.73866f, 1.4693f}, {0.0019167f, 0.0095833f, 0.065167f}},
    {"Lowfat Chocolate Milk", {0.64925f, 0.83916f, 1.1057f}, {0.0115f, 0.0368f, 0.1564f}},
    {"Regular Chocolate Milk", {1.4585f, 2.1289f, 2.9527f}, {0.010063f, 0.043125f, 0.14375f}},
    {"Coke", {8.9053e-05f, 8.372e-05f, 0.0f}, {0.10014f, 0.16503f, 0.2468f}},
    {"Pepsi", {6.1697e-05f, 4.2564e-05f, 0.0f}, {0.091641f, 0.14158f, 0.20729f}},
    {"Sprite", {6.0306e-06f, 6.4139e-06f, 6.5504e-06f}, {0.001886f, 0.0018308f, 0.0020025f}},
    {"Gatorade", {0.0024574f, 0.003007f, 0.0037325f}, {0.024794f, 0.019289f, 0.008878f}},
    {"Chardonnay", {1.7982e-05f, 1.3758e-05f, 1.2023e-05f}, {0.010782f, 0.011855f, 0.023997f}},
    {"White Zinfandel", {1.7501e-05f, 1.9069e-05f, 1.288e-05f}, {0.012072f, 0.016184f, 0.019843f}},
    {"Merlot", {2.1129e-05f, 0.0f, 0.0f}, {0.11632f, 0.25191f, 0.29434f}},
    {"Budweiser Beer", {2.4356e-05f, 2.4079e-05f, 1.0564e-05f}, {0.011492f, 0.024911f, 0.057786f}},
    {"Coors Light Beer", {5.0922e-05f, 4.301e-05f, 0.0f}, {0.006164f, 0.013984f, 0.034983f}},
    {"Clorox", {0.0024035f, 0.0031373f, 0.003991f}, {0.0033542f, 0.014892f, 0.026297f}},
    {"Apple Juice", {0.00013612f, 0.00015836f, 0.000227f}, {0.012957f, 0.023741f, 0.052184f}},
    {"Cranberry Juice", {0.00010402f, 0.00011646f, 7.8139e-05f}, {0.039437f, 0.094223f, 0.12426f}},
    {"Grape Juice", {5.382e-05f, 0.0f, 0.0f}, {0.10404f, 0.23958f, 0.29325f}},
    {"Ruby Grapefruit Juice", {0.011002f, 0.010927f, 0.011036f}, {0.085867f, 0.18314f, 0.25262f}},
    {"White Grapefruit Juice", {0.22826f, 0.23998f, 0.32748f}, {0.0138f, 0.018831f, 0.056781f}},
    {"Shampoo", {0.0007176f, 0.0008303f, 0.0009016f}, {0.014107f, 0.045693f, 0.061717f}},
    {"Strawberry Shampoo", {0.00015671f, 0.00015947f, 1.518e-05f}, {0.01449f, 0.05796f, 0.075823f}},
    {"Head & Shoulders Shampoo", {0.023805f, 0.028804f, 0.034306f}, {0.084621f, 0.15688f, 0.20365f}},
    {"Lemon Tea Powder", {0.040224f, 0.045264f, 0.051081f}, {2.4288f, 4.5757f, 7.2127f}},
    {"Orange Powder", {0.00015617f, 0.00017482f, 0.0001762f}, {0.001449f, 0.003441f, 0.007863f}},
    {"Pink Lemonade Powder", {0.00012103f, 0.00013073f, 0.00012528f}, {0.001165f, 0.002366f, 0.003195f}},
    {"Cappuccino Powder", {1.8436f, 2.5851f, 2.1662f}, {35.844f, 49.547f, 61.084f}},
    {"Salt Powder", {0.027333f, 0.032451f, 0.031979f}, {0.28415f, 0.3257f, 0.34148f}},
    {"Sugar Powder", {0.00022272f, 0.00025513f, 0.000271f}, {0.012638f, 0.031051f, 0.050124f}},
    {"Suisse Mocha Powder", {2.7979f, 3.5452f, 4.3365f}, {17.502f, 27.004f, 35.433f}},
    {"Pacific Ocean Surface Water", {0.0001764f, 0.00032095f, 0.00019617f}, {0.031845f, 0.031324f, 0.030147f}},
};

// The relative error to which an rgbgrid's two RGB grids must be one density grid times two
// colours (of their largest value): what decimal text and float rounding leave of an exact product.
constexpr float kFactorTolerance = 1e-5f;

bool finiteNonNegative(float v) { return std::isfinite(v) && v >= 0.0f; }

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

// sigma_a or sigma_s (pbrt's default: 1), a spectrum as the loader reads unbounded ones, as linear
// sRGB. What is written must be finite and non-negative; a spectrum beyond the sRGB gamut loses
// its negative components.
glm::vec3 coefficient(const ParamList& p, const char* name, const FileResolver& files, const std::string& what) {
    const Param* q = p.find(name);
    if (!q) return glm::vec3(1.0f);
    const bool pairs = q->type == "spectrum";  // wavelength-value pairs: the values are every second number
    for (std::size_t i = pairs ? 1 : 0; i < q->numbers.size(); i += pairs ? 2 : 1)
        if (!finiteNonNegative(q->numbers[i]))
            throw InputError(q->loc.str() + ": " + what + ": parameter " + q->declaration() + ": " + number(q->numbers[i]) +
                             " is not a finite, non-negative coefficient");
    for (int v : q->ints)
        if (v < 0) throw InputError(q->loc.str() + ": " + what + ": parameter " + q->declaration() + ": " + std::to_string(v) +
                                    " is not a non-negative coefficient");
    const glm::vec3 rgb = spectrumParam(*q, SpectrumUse::Unbounded, files);
    if (!std::isfinite(rgb.x) || !std::isfinite(rgb.y) || !std::isfinite(rgb.z))
        throw InputError(q->loc.str() + ": " + what + ": parameter " + q->declaration() + " is not finite");
    return glm::max(rgb, glm::vec3(0.0f));
}

// "scale" and "g", checked where they are written.
void scaleAndPhase(const ParamList& p, Medium& m, const std::string& what) {
    m.scale = p.getFloat("scale", 1.0f);
    if (!finiteNonNegative(m.scale))
        throw InputError(p.find("scale")->loc.str() + ": " + what + ": \"scale\" " + number(m.scale) +
                         " must be finite and non-negative");
    m.g = p.getFloat("g", 0.0f);
    if (!(m.g > -1.0f && m.g < 1.0f))
        throw InputError(p.find("g")->loc.str() + ": " + what + ": \"g\" " + number(m.g) + " must lie in (-1, 1)");
}

// Emission (Le, Lescale; a grid's temperature): not drawn, one warning when there is any.
void emission(const ParamList& p, const FileLoc& loc, const std::string& what, Warnings& warnings) {
    bool emits = false;
    if (const Param* le = p.find("Le")) {
        // Any value but zeros: a named spectrum or file, a blackbody, an rgb or pairs not all 0.
        const auto zero = [](auto v) { return v == 0; };
        emits = !le->strings.empty() || !std::all_of(le->numbers.begin(), le->numbers.end(), zero) ||
                !std::all_of(le->ints.begin(), le->ints.end(), zero);
    }
    if (p.find("temperature")) emits = true;
    for (const char* read : {"Lescale", "temperaturescale", "temperatureoffset", "temperaturecutoff"}) p.find(read);
    if (emits) warnings.add(loc, what + ": emission (\"Le\", \"temperature\") is not supported: the medium does not emit");
}

struct GridSize {
    int nx = 1, ny = 1, nz = 1;
    std::size_t values = 1;
};

// nx, ny, nz (pbrt's default 1 each), refused beyond Scene::kMaxGridValues before anything is allocated.
GridSize gridSize(const ParamList& p, const FileLoc& loc, const std::string& what) {
    GridSize g;
    g.nx = p.getInt("nx", 1);
    g.ny = p.getInt("ny", 1);
    g.nz = p.getInt("nz", 1);
    const std::string size = std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz);
    if (g.nx < 1 || g.ny < 1 || g.nz < 1)
        throw InputError(loc.str() + ": " + what + ": grid size " + size + " must be at least 1 in every axis");
    const std::uint64_t xy = std::uint64_t(g.nx) * std::uint64_t(g.ny);  // at most 2^62: no overflow
    if (xy > Scene::kMaxGridValues || xy * std::uint64_t(g.nz) > Scene::kMaxGridValues)
        throw InputError(loc.str() + ": " + what + ": grid size " + size + " has more than " +
                         std::to_string(Scene::kMaxGridValues) + " values, the most a medium may have");
    g.values = std::size_t(xy * std::uint64_t(g.nz));
    return g;
}

// A grid parameter's count (`perValue` numbers a voxel), checked before its values are copied.
void checkCount(const Param& q, const GridSize& g, std::size_t perValue, const std::string& what) {
    if (q.size() != g.values * perValue)
        throw InputError(q.loc.str() + ": " + what + ": parameter " + q.declaration() + " has " + std::to_string(q.size()) +
                         " values; the grid of " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" +
                         std::to_string(g.nz) + " needs " + std::to_string(g.values * perValue));
}

// The box p0 to p1 (pbrt's Bounds3f takes the corners in any order).
void box(const ParamList& p, Medium& m, const std::string& what) {
    auto corner = [&](const char* name, glm::vec3 fallback) {
        const std::vector<glm::vec3> v = p.getVec3s(name);
        if (v.empty()) return fallback;
        if (v.size() != 1 || !std::isfinite(v[0].x) || !std::isfinite(v[0].y) || !std::isfinite(v[0].z))
            throw InputError(p.find(name)->loc.str() + ": " + what + ": \"" + name + "\" must be one finite point");
        return v[0];
    };
    const glm::vec3 p0 = corner("p0", glm::vec3(0.0f)), p1 = corner("p1", glm::vec3(1.0f));
    m.boundsMin = glm::min(p0, p1);
    m.boundsMax = glm::max(p0, p1);
}

Medium homogeneous(const ParamList& p, const FileLoc& loc, const std::string& what, const FileResolver& files,
                   Warnings& warnings) {
    Medium m;
    const std::string preset = p.getString("preset", "");
    const Preset* found = nullptr;
    for (const Preset& candidate : kPresets)
        if (preset == candidate.name) found = &candidate;
    if (!preset.empty() && !found)
        warnings.add(p.find("preset")->loc, what + ": \"preset\" \"" + preset +
                                                "\" is not one of pbrt-v4's named media: \"sigma_a\" and \"sigma_s\" are read");
    if (found) {
        // As pbrt-v4: the preset's coefficients, "sigma_a" and "sigma_s" unread.
        m.sigmaA = glm::vec3(found->sigmaA[0], found->sigmaA[1], found->sigmaA[2]);
        m.sigmaS = glm::vec3(found->sigmaS[0], found->sigmaS[1], found->sigmaS[2]);
    } else {
        m.sigmaA = coefficient(p, "sigma_a", files, what);
        m.sigmaS = coefficient(p, "sigma_s", files, what);
    }
    scaleAndPhase(p, m, what);
    emission(p, loc, what, warnings);
    return m;
}

Medium uniformGrid(const ParamList& p, const FileLoc& loc, const std::string& what, const FileResolver& files,
                   Warnings& warnings) {
    const GridSize g = gridSize(p, loc, what);
    const Param* q = p.find("density");
    if (!q) throw InputError(loc.str() + ": " + what + " has no \"float density\" values");
    if (q->type == "float" || q->type == "integer") checkCount(*q, g, 1, what);
    std::vector<float> density = p.getFloats("density");  // refuses another type
    for (std::size_t i = 0; i < density.size(); ++i)
        if (!finiteNonNegative(density[i]))
            throw InputError(q->loc.str() + ": " + what + ": density value " + std::to_string(i) + " (" + number(density[i]) +
                             ") must be finite and non-negative");
    Medium m = Medium::grid(coefficient(p, "sigma_a", files, what), coefficient(p, "sigma_s", files, what), 0.0f, g.nx,
                            g.ny, g.nz, std::move(density));
    box(p, m, what);
    scaleAndPhase(p, m, what);
    emission(p, loc, what, warnings);
    return m;
}

// pbrt's rgbgrid holds an RGB sigma_a and sigma_s per voxel; wavefront's grid is one density times
// RGB coefficients. Where every voxel's six values are one vector times a density (to
// kFactorTolerance) the grid is that; otherwise it is skipped with a warning.
std::optional<Medium> rgbGrid(const ParamList& p, const FileLoc& loc, const std::string& what, Warnings& warnings) {
    const GridSize g = gridSize(p, loc, what);
    const Param* grids[2] = {p.find("sigma_a"), p.find("sigma_s")};
    if (!grids[0] && !grids[1]) throw InputError(loc.str() + ": " + what + " needs \"rgb sigma_a\" or \"rgb sigma_s\" values");
    for (const Param* q : grids) {
        if (!q) continue;
        if (q->type != "rgb") throw InputError(q->loc.str() + ": " + what + ": parameter " + q->declaration() + " has the wrong type: rgb expected");
        checkCount(*q, g, 3, what);
        for (float v : q->numbers)
            if (!finiteNonNegative(v))
                throw InputError(q->loc.str() + ": " + what + ": parameter " + q->declaration() + ": " + number(v) +
                                 " is not a finite, non-negative coefficient");
    }
    std::optional<Medium> none;
    if (!grids[0] || !grids[1]) {
        // pbrt reads a missing one as 1 throughout the box, which no density grid times a colour is.
        warnings.add(loc, what + ": a grid of only \"" + (grids[0] ? "sigma_a" : "sigma_s") +
                              "\" (the other 1 throughout) is not one density grid times two colours: skipped");
        return none;
    }
    const std::vector<float>&a = grids[0]->numbers, &s = grids[1]->numbers;
    auto value = [&](std::size_t voxel, int k) { return k < 3 ? a[3 * voxel + k] : s[3 * voxel + k - 3]; };
    // The voxel with the largest value gives the two colours (density 1 there).
    std::size_t reference = 0;
    float largest = 0.0f;
    for (std::size_t i = 0; i < g.values; ++i)
        for (int k = 0; k < 6; ++k)
            if (value(i, k) > largest) {
                largest = value(i, k);
                reference = i;
            }
    double norm2 = 0.0;
    for (int k = 0; k < 6; ++k) norm2 += double(value(reference, k)) * value(reference, k);
    std::vector<float> density(g.values, 0.0f);
    for (std::size_t i = 0; i < g.values && norm2 > 0.0; ++i) {
        double dot = 0.0;
        for (int k = 0; k < 6; ++k) dot += double(value(i, k)) * value(reference, k);
        density[i] = float(dot / norm2);
        for (int k = 0; k < 6; ++k)
            if (std::fabs(value(i, k) - density[i] * value(reference, k)) > kFactorTolerance * largest) {
                warnings.add(loc, what + ": its RGB sigma_a and sigma_s are not one density grid times two colours "
                                         "(voxel " + std::to_string(i) + " differs): skipped");
                return none;
            }
    }
    Medium m = Medium::grid(glm::vec3(value(reference, 0), value(reference, 1), value(reference, 2)),
                            glm::vec3(value(reference, 3), value(reference, 4), value(reference, 5)), 0.0f, g.nx, g.ny,
                            g.nz, std::move(density));
    box(p, m, what);
    scaleAndPhase(p, m, what);
    emission(p, loc, what, warnings);
    return m;
}

// Gives a grid parameter's memory back once its values are copied (Attribute defaults are shared
// and stay).
void release(ParamList& p, const char* name) {
    for (Param& q : p.params)
        if (q.name == name) {
            std::vector<float>().swap(q.numbers);
            std::vector<int>().swap(q.ints);
        }
}

std::optional<Medium> convertMedium(NamedMedium& named, const glm::dmat4& sceneFromWorld, const FileResolver& files,
                                    Warnings& warnings) {
    Entity& e = named.entity;
    const ParamList& p = e.params;
    const std::string what = "MakeNamedMedium \"" + named.name + "\" (\"" + e.type + "\")";
    std::optional<Medium> m;
    if (e.type == "homogeneous") {
        m = homogeneous(p, e.loc, what, files, warnings);
    } else if (e.type == "uniformgrid") {
        m = uniformGrid(p, e.loc, what, files, warnings);
    } else if (e.type == "rgbgrid") {
        m = rgbGrid(p, e.loc, what, warnings);
    } else {
        const bool known = e.type == "cloud" || e.type == "nanovdb";
        warnings.add(e.loc, what + (known ? " is not supported" : " is not a pbrt-v4 medium") + ": skipped (vacuum where it is used)");
        for (const Param& q : p.params) q.used = true;
        return m;
    }
    if (!m) {
        for (const Param& q : p.params) q.used = true;  // an rgbgrid skipped: its warning says so
    } else if (m->type == MediumType::Grid) {
        m->mediumToWorld = glm::mat4(sceneFromWorld * e.transform);
    }
    for (const Param* q : p.unused())
        warnings.add(q->loc, what + ": parameter " + q->declaration() + " is not known or not used: ignored");
    for (const char* grid : {"density", "sigma_a", "sigma_s", "Le", "temperature", "Lescale"}) release(e.params, grid);
    return m;
}

}  // namespace

MediumConverter::MediumConverter(Description& d, const glm::dmat4& sceneFromWorld, const FileResolver& files,
                                 Warnings& warnings, Scene& scene)
    : d_(d), warnings_(warnings), scene_(scene), sceneIndex_(d.mediumReferences.size(), -2) {
    for (std::size_t i = 0; i < d.media.size(); ++i) {
        converted_.push_back(convertMedium(d.media[i], sceneFromWorld, files, warnings));
        byName_.emplace(d.media[i].name, i);
    }
}

int MediumConverter::resolve(int reference) {
    if (reference < 0) return kVacuum;
    int& index = sceneIndex_[std::size_t(reference)];
    if (index != -2) return index;
    const MediumReference& r = d_.mediumReferences[std::size_t(reference)];
    auto it = byName_.find(r.name);
    if (it == byName_.end()) {
        warnings_.add(r.loc, "MediumInterface: no medium \"" + r.name + "\" was made (MakeNamedMedium): vacuum there");
        return index = kVacuum;
    }
    std::optional<Medium>& medium = converted_[it->second];
    if (!medium) return index = kVacuum;  // skipped, with a warning at its MakeNamedMedium
    try {
        index = scene_.addMedium(*medium);
    } catch (const InputError& e) {
        const NamedMedium& named = d_.media[it->second];
        throw InputError(named.entity.loc.str() + ": MakeNamedMedium \"" + named.name + "\": " + e.what());
    }
    medium.reset();  // the Scene holds it now
    return index;
}

}  // namespace wavefront::pbrt
