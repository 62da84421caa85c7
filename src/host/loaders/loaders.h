// Scene files by extension: which loader reads which format (Scene::loadFile, Scene::fromNameOrPath).
// A new format is one row of sceneLoaders() (loaders.cpp) and its own loader file.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "wavefront/scene.h"

namespace wavefront {

struct SceneLoader {
    const char* format;                   ///< "OBJ", "glTF 2.0", ...
    std::vector<std::string> extensions;  ///< lower case, with the dot
    Scene (*load)(const std::string& path, const SceneLoadOptions& options);
};

/// The most triangles (and vertices) one scene file may give once every copy is counted: what
/// the largest OBJ under its 2 GiB cap can hold ("f 1 2 3\n" is 8 bytes: 2^28 triangles).
constexpr std::size_t kMaxSceneFileTriangles = std::size_t(1) << 28;
/// The most instances one scene file may place (pbrt's ObjectInstance, glTF nodes): about 260 bytes each on
/// the device and the host, 4.4 GB at the cap.
constexpr std::size_t kMaxSceneFileInstances = std::size_t(1) << 24;

/// Every format wavefront reads.
const std::vector<SceneLoader>& sceneLoaders();

/// The loader of `path`'s extension (any case), or null.
const SceneLoader* loaderFor(const std::string& path);

/// The readable extensions, listed for messages: ".obj, .gltf, .glb, .ply, .pbrt".
std::string readableExtensions();

/// Whether `name` names a scene file rather than a built-in scene: an extension of a format
/// wavefront reads, or of one Assimp knows (which loadFile then refuses with advice).
bool hasSceneFileExtension(const std::string& name);

}  // namespace wavefront
