// The table of scene-file formats (loaders.h).
#include "host/loaders/loaders.h"

#include <assimp/Importer.hpp>

#include "host/io/input_file.h"
#include "wavefront/error.h"

namespace wavefront {

const std::vector<SceneLoader>& sceneLoaders() {
    static const std::vector<SceneLoader> loaders = {
        {"OBJ", {".obj"}, &Scene::loadObj},
        // Only the formats whose Assimp readers are pre-checked and fuzzed (import_checks.h).
        {"glTF 2.0", {".gltf", ".glb"}, &Scene::loadAssimp},
        {"PLY", {".ply"}, &Scene::loadAssimp},
        {"pbrt-v4", {".pbrt"}, &Scene::loadPbrt},
    };
    return loaders;
}

const SceneLoader* loaderFor(const std::string& path) {
    const std::string ext = lowercaseExtension(path);
    for (const SceneLoader& loader : sceneLoaders())
        for (const std::string& e : loader.extensions)
            if (e == ext) return &loader;
    return nullptr;
}

std::string readableExtensions() {
    std::string list;
    for (const SceneLoader& loader : sceneLoaders())
        for (const std::string& e : loader.extensions) list += (list.empty() ? "" : ", ") + e;
    return list;
}

bool hasSceneFileExtension(const std::string& name) {
    const std::string ext = lowercaseExtension(name);
    return loaderFor(name) || (ext.size() > 1 && Assimp::Importer().IsExtensionSupported(ext));
}

Scene Scene::loadFile(const std::string& path, const SceneLoadOptions& options) {
    if (const SceneLoader* loader = loaderFor(path)) return loader->load(path, options);
    throw InputError("scene file '" + path + "': unsupported format '" + lowercaseExtension(path) +
                     "' (wavefront reads " + readableExtensions() +
                     "; convert others to glTF, e.g. 'assimp export model.fbx model.glb' from assimp-utils)");
}

}  // namespace wavefront
