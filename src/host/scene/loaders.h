// Scene files by extension: which loader reads which format (Scene::loadFile, Scene::fromNameOrPath).
// A new format is one row of sceneLoaders() (loaders.cpp) and its own loader file.
#pragma once
#include <string>
#include <vector>

#include "wavefront/scene.h"

namespace wavefront {

struct SceneLoader {
    const char* format;                   ///< "OBJ", "glTF 2.0", ...
    std::vector<std::string> extensions;  ///< lower case, with the dot
    Scene (*load)(const std::string& path, const SceneLoadOptions& options);
};

/// Every format wavefront reads.
const std::vector<SceneLoader>& sceneLoaders();

/// The loader of `path`'s extension (any case), or null.
const SceneLoader* loaderFor(const std::string& path);

/// The readable extensions, listed for messages: ".obj, .gltf, .glb, .ply".
std::string readableExtensions();

/// Whether `name` names a scene file rather than a built-in scene: an extension of a format
/// wavefront reads, or of one Assimp knows (which loadFile then refuses with advice).
bool hasSceneFileExtension(const std::string& name);

}  // namespace wavefront
