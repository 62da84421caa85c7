// pbrt-v4 media (MakeNamedMedium) as the Scene's (Scene::addMedium): "homogeneous" (with pbrt's
// measured presets), "uniformgrid" (a density grid under the medium's transform), and "rgbgrid"
// where its two RGB grids are one density grid times two colours. "cloud", "nanovdb", other types
// and emission (Le, temperature) are warnings. A medium enters the Scene when something uses it
// (a shape's MediumInterface, the camera, a light), so a file that only defines media renders as
// one without them.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include <wavefront/scene.h>

#include "host/loaders/pbrt/description.h"
#include "host/loaders/pbrt/files.h"
#include "host/loaders/pbrt/warnings.h"

namespace wavefront::pbrt {

class MediumConverter {
public:
    /// Converts every MakeNamedMedium of `d` (its grids' parameter values are released once
    /// copied); throws InputError "file:line:column: MakeNamedMedium ..." for malformed ones.
    /// `sceneFromWorld`: pbrt's world to the Scene's (the loader's mirror), applied to grids.
    MediumConverter(Description& d, const glm::dmat4& sceneFromWorld, const FileResolver& files, Warnings& warnings,
                    Scene& scene);
    /// The Scene medium of a medium reference (Description::mediumReferences index; -1: vacuum),
    /// added to the Scene at its first use; kVacuum for a medium that was skipped (a warning at its
    /// MakeNamedMedium) or never made (a warning here, once per name).
    int resolve(int reference);

private:
    const Description& d_;
    Warnings& warnings_;
    Scene& scene_;
    std::vector<std::optional<Medium>> converted_;  ///< per Description::media: empty where skipped
    std::map<std::string, std::size_t> byName_;     ///< name -> Description::media index
    std::vector<int> sceneIndex_;                   ///< per reference: Scene index, kVacuum, or -2 (not resolved yet)
};

}  // namespace wavefront::pbrt
