// Which names are scene files rather than built-in scenes (Scene::fromNameOrPath).
#pragma once
#include <string>

namespace wavefront {

/// The name ends in .obj or in an extension Assimp reads (.gltf, .glb, .ply, ...).
bool hasSceneFileExtension(const std::string& name);

}  // namespace wavefront
