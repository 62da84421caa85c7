// glTF 2.0, PLY and the other formats Assimp reads. Assimp parses and triangulates; we walk its
// node tree ourselves (rather than aiProcess_PreTransformVertices) so that the camera's node
// transform is applied the same way as the meshes', and map its materials onto ours. Whatever
// cannot be taken over becomes a Scene warning, never a silent loss.
#include <wavefront/error.h>
#include <wavefront/scene.h>

#include "host/io/texture_io.h"
#include "host/scene/scene_files.h"

#include <assimp/Importer.hpp>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace wavefront {

namespace {

std::string lowercaseExtension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

// Assimp's messages can span lines: errors are one line.
std::string foldLines(const std::string& message) {
    std::string out;
    bool pendingBreak = false;
    for (char c : message) {
        if (c == '\n' || c == '\r') {
            pendingBreak = !out.empty();
            continue;
        }
        if (pendingBreak) {
            out += "; ";
            pendingBreak = false;
        }
        out += c;
    }
    while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back())))
        out.pop_back();
    return out;
}

glm::mat4 toGlm(const aiMatrix4x4& m) {
    glm::mat4 out;  // glm is column-major, aiMatrix4x4 row-major
    for (int row = 0; row < 4; ++row)
        for (int col = 0; col < 4; ++col)
            out[col][row] = m[row][col];
    return out;
}

glm::vec3 toGlm(const aiVector3D& v) { return glm::vec3(v.x, v.y, v.z); }

glm::mat4 globalTransform(const aiNode* node) {
    glm::mat4 m(1.0f);
    for (int depth = 0; node && depth < 4096; node = node->mParent, ++depth)
        m = toGlm(node->mTransformation) * m;
    return m;
}

// The file's text holds a glTF extension name (the JSON of a .glb is plain text too): tells
// whether a file uses an extension this Assimp version drops without a word.
// Read in blocks (a .glb can be large), each searched with the previous block's tail.
bool fileMentions(const std::string& path, const std::string& needle) {
    std::ifstream in(path, std::ios::binary);
    std::string window;
    std::vector<char> block(1 << 20);
    while (in) {
        in.read(block.data(), std::streamsize(block.size()));
        window.append(block.data(), std::size_t(in.gcount()));
        if (window.find(needle) != std::string::npos)
            return true;
        if (window.size() > needle.size())
            window.erase(0, window.size() - needle.size());
    }
    return false;
}

class AssimpImport {
public:
    AssimpImport(const std::string& path, const aiScene& ai, bool gltf, Scene& scene)
        : path_(path), folder_(std::filesystem::path(path).parent_path()), ai_(ai), gltf_(gltf),
          ply_(lowercaseExtension(path) == ".ply"), scene_(scene) {}

    void run() {
        for (unsigned i = 0; i < ai_.mNumMaterials; ++i)
            materials_.push_back(-1);  // converted when a mesh uses it: unused ones cost nothing
        if (!ai_.mRootNode)
            throw InputError("scene file '" + path_ + "' has no node hierarchy");
        addNode(ai_.mRootNode, glm::mat4(1.0f), 0);
        if (triangles_ == 0)
            throw InputError("scene file '" + path_ + "' contains no triangles");
        if (skippedPrimitives_ > 0)
            warn(std::to_string(skippedPrimitives_) + " point and line primitives ignored (only triangles are rendered)");
        if (ai_.mNumLights > 0)
            warn(std::to_string(ai_.mNumLights) + " punctual light" + (ai_.mNumLights > 1 ? "s" : "") +
                 " (KHR_lights_punctual) ignored: wavefront has no point, spot or directional lights");
        if (!readCamera())
            scene_.frameCamera();
    }

private:
    void warn(const std::string& message) { scene_.addWarning(path_ + ": " + message); }

    void addNode(const aiNode* node, const glm::mat4& parent, int depth) {
        if (depth > 1024)
            throw InputError("scene file '" + path_ + "': node hierarchy deeper than 1024 levels");
        const glm::mat4 transform = parent * toGlm(node->mTransformation);
        for (unsigned i = 0; i < node->mNumMeshes; ++i) {
            if (node->mMeshes[i] >= ai_.mNumMeshes)
                throw InputError("scene file '" + path_ + "': node '" + node->mName.C_Str() + "' names mesh " +
                                 std::to_string(node->mMeshes[i]) + " of " + std::to_string(ai_.mNumMeshes));
            addMesh(*ai_.mMeshes[node->mMeshes[i]], transform);
        }
        for (unsigned i = 0; i < node->mNumChildren; ++i)
            addNode(node->mChildren[i], transform, depth + 1);
    }

    void addMesh(const aiMesh& mesh, const glm::mat4& transform) {
        if (!(mesh.mPrimitiveTypes & aiPrimitiveType_TRIANGLE) || !mesh.mVertices) {
            skippedPrimitives_ += mesh.mNumFaces;
            return;
        }
        TriangleMesh out;
        out.material = material(mesh.mMaterialIndex);
        const glm::mat3 linear(transform);
        const glm::mat3 normalMatrix = glm::transpose(glm::inverse(linear));
        out.positions.reserve(mesh.mNumVertices);
        for (unsigned i = 0; i < mesh.mNumVertices; ++i)
            out.positions.push_back(glm::vec3(transform * glm::vec4(toGlm(mesh.mVertices[i]), 1.0f)));
        if (mesh.mNormals) {
            out.normals.reserve(mesh.mNumVertices);
            for (unsigned i = 0; i < mesh.mNumVertices; ++i)
                out.normals.push_back(normalMatrix * toGlm(mesh.mNormals[i]));
        }
        if (mesh.mTextureCoords[0]) {
            // Assimp turns glTF's top-left origin into OpenGL's bottom-left one: turn it back.
            out.uvs.reserve(mesh.mNumVertices);
            for (unsigned i = 0; i < mesh.mNumVertices; ++i)
                out.uvs.emplace_back(mesh.mTextureCoords[0][i].x, 1.0f - mesh.mTextureCoords[0][i].y);
        }
        // A mirroring transform turns counter-clockwise faces clockwise: swap two corners back.
        const bool mirrored = glm::determinant(linear) < 0.0f;
        out.indices.reserve(3 * std::size_t(mesh.mNumFaces));
        for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
            const aiFace& face = mesh.mFaces[f];
            if (face.mNumIndices != 3) {  // points and lines left in a mixed mesh
                ++skippedPrimitives_;
                continue;
            }
            out.indices.insert(out.indices.end(), {face.mIndices[0], face.mIndices[mirrored ? 2 : 1],
                                                   face.mIndices[mirrored ? 1 : 2]});
        }
        triangles_ += out.indices.size() / 3;
        try {
            scene_.addMesh(out);
        } catch (const InputError& e) {
            throw InputError("scene file '" + path_ + "': mesh '" + mesh.mName.C_Str() + "': " + e.what());
        }
    }

    int material(unsigned index) {
        if (index >= materials_.size())
            throw InputError("scene file '" + path_ + "': a mesh names material " + std::to_string(index) + " of " +
                             std::to_string(materials_.size()));
        if (materials_[index] < 0) {
            const aiMaterial& m = *ai_.mMaterials[index];
            try {
                materials_[index] = scene_.addMaterial(gltf_ ? gltfMaterial(m) : otherMaterial(m));
            } catch (const InputError& e) {
                throw InputError("scene file '" + path_ + "': material '" + m.GetName().C_Str() + "': " + e.what());
            }
        }
        return materials_[index];
    }

    static float unit(float v) { return std::isfinite(v) ? std::clamp(v, 0.0f, 1.0f) : 0.0f; }
    static glm::vec3 unit(const aiColor4D& c) { return glm::vec3(unit(c.r), unit(c.g), unit(c.b)); }

    Material gltfMaterial(const aiMaterial& m) {
        const std::string name = m.GetName().C_Str();
        aiColor4D base(1.0f, 1.0f, 1.0f, 1.0f);
        if (m.Get(AI_MATKEY_BASE_COLOR, base) != AI_SUCCESS)
            m.Get(AI_MATKEY_COLOR_DIFFUSE, base);
        float metallic = 1.0f, roughness = 1.0f;  // the glTF defaults
        m.Get(AI_MATKEY_METALLIC_FACTOR, metallic);
        m.Get(AI_MATKEY_ROUGHNESS_FACTOR, roughness);

        Material out;
        float transmission = 0.0f;
        if (m.Get(AI_MATKEY_TRANSMISSION_FACTOR, transmission) == AI_SUCCESS && transmission > 0.0f) {
            // All or nothing: we have no blend of glass and the opaque base.
            if (transmission < 1.0f)
                warn("material '" + name + "': transmission " + std::to_string(transmission) + " rendered as full glass");
            float ior = 1.5f;  // KHR_materials_ior's default
            m.Get(AI_MATKEY_REFRACTI, ior);
            if (!(std::isfinite(ior) && std::fabs(ior - 1.0f) >= 1e-3f && ior > 0.0f))
                ior = 1.5f;
            out = Material::roughDielectric(ior, unit(roughness) * unit(roughness));  // GGX alpha = roughness^2
        } else {
            out = Material::metallicRoughness(unit(base), unit(metallic), unit(roughness));
            out.baseColorTexture = texture(m, aiTextureType_BASE_COLOR, name);
            if (out.baseColorTexture < 0)
                out.baseColorTexture = texture(m, aiTextureType_DIFFUSE, name);
        }

        aiColor4D emissive(0.0f, 0.0f, 0.0f, 1.0f);
        m.Get(AI_MATKEY_COLOR_EMISSIVE, emissive);
        float strength = 1.0f;  // KHR_materials_emissive_strength, where this Assimp reads it
        m.Get(AI_MATKEY_EMISSIVE_INTENSITY, strength);
        if (!(std::isfinite(strength) && strength >= 0.0f))
            strength = 1.0f;
        out.emission = glm::vec3(std::max(emissive.r, 0.0f), std::max(emissive.g, 0.0f), std::max(emissive.b, 0.0f)) * strength;

        if (m.GetTextureCount(aiTextureType_EMISSIVE) > 0)
            warn("emissive textures are not supported yet; emission is the emissive factor alone");
        if (m.GetTextureCount(aiTextureType_NORMALS) > 0)
            warn("normal textures are not supported yet; shading uses the mesh normals");
        if (m.GetTextureCount(aiTextureType_UNKNOWN) > 0 || m.GetTextureCount(aiTextureType_METALNESS) > 0 ||
            m.GetTextureCount(aiTextureType_DIFFUSE_ROUGHNESS) > 0)
            warn("metallic-roughness textures are not supported yet; the metallic and roughness factors are used");
        return out;
    }

    // PLY and the like: no physically based material. A diffuse colour, if the file has a
    // material of its own (PLY has none: Assimp makes up an unnamed one), else grey.
    Material otherMaterial(const aiMaterial& m) {
        const std::string name = m.GetName().C_Str();
        const bool madeUp = ply_ || name.empty() || name == AI_DEFAULT_MATERIAL_NAME;
        glm::vec3 albedo(0.8f);
        aiColor4D diffuse;
        if (!madeUp && m.Get(AI_MATKEY_COLOR_DIFFUSE, diffuse) == AI_SUCCESS)
            albedo = unit(diffuse);
        Material out = Material::lambertian(albedo);
        aiColor4D emissive(0.0f, 0.0f, 0.0f, 1.0f);
        if (m.Get(AI_MATKEY_COLOR_EMISSIVE, emissive) == AI_SUCCESS)
            out.emission = glm::max(glm::vec3(emissive.r, emissive.g, emissive.b), glm::vec3(0.0f));
        out.baseColorTexture = texture(m, aiTextureType_DIFFUSE, name);
        return out;
    }

    // The material's first texture of `type` as a Scene texture (each image added once), or -1
    // with a warning when it cannot be read.
    int texture(const aiMaterial& m, aiTextureType type, const std::string& materialName) {
        if (m.GetTextureCount(type) == 0)
            return -1;
        aiString file;
        unsigned uvIndex = 0;
        if (m.GetTexture(type, 0, &file, nullptr, &uvIndex) != AI_SUCCESS)
            return -1;
        if (uvIndex != 0)
            warn("material '" + materialName + "': texture coordinate set " + std::to_string(uvIndex) +
                 " used as set 0 (only the first set is read)");
        const std::string key = file.C_Str();
        auto known = textures_.find(key);
        if (known != textures_.end())
            return known->second;
        int index = -1;
        try {
            Texture t;
            if (const aiTexture* embedded = ai_.GetEmbeddedTexture(file.C_Str())) {
                const std::string what = "embedded texture '" + key + "'";
                if (embedded->mHeight == 0) {  // a compressed file (PNG, JPEG) of mWidth bytes
                    t = decodeTexture(reinterpret_cast<const unsigned char*>(embedded->pcData), embedded->mWidth, what);
                } else {
                    t.width = int(embedded->mWidth);
                    t.height = int(embedded->mHeight);
                    const std::size_t texels = std::size_t(embedded->mWidth) * embedded->mHeight;
                    t.rgba8.reserve(4 * texels);
                    for (std::size_t i = 0; i < texels; ++i) {
                        const aiTexel& p = embedded->pcData[i];
                        t.rgba8.insert(t.rgba8.end(), {p.r, p.g, p.b, p.a});
                    }
                }
            } else {
                t = readTexture((folder_ / std::filesystem::u8path(key)).string());
            }
            t.srgb = true;  // base colour: sRGB-encoded
            index = scene_.addTexture(std::move(t));
        } catch (const InputError& e) {
            warn("material '" + materialName + "': " + e.what() + "; the material is drawn without it");
        }
        textures_.emplace(key, index);
        return index;
    }

    // The first camera, with its node's transform; false when there is none we can use.
    bool readCamera() {
        if (ai_.mNumCameras == 0)
            return false;
        if (ai_.mNumCameras > 1)
            warn(std::to_string(ai_.mNumCameras) + " cameras; the first is used");
        const aiCamera& c = *ai_.mCameras[0];
        if (!gltf_) {
            warn("cameras are read from glTF files only; the camera frames the model");
            return false;
        }
        if (!(c.mHorizontalFOV > 0.0f)) {
            warn("orthographic cameras are not supported; the camera frames the model");
            return false;
        }
        // Assimp stores glTF's yfov times the aspect ratio (or times 1 when none is given).
        const float yfov = c.mHorizontalFOV / (c.mAspect > 0.0f ? c.mAspect : 1.0f);
        const aiNode* node = ai_.mRootNode->FindNode(c.mName);
        const glm::mat4 m = node ? globalTransform(node) : glm::mat4(1.0f);
        const glm::mat3 linear(m);
        // A glTF camera sits at its node's origin looking down -z with +y up. Assimp 5.2 also
        // copies the node's translation into mPosition, which would count it twice: use the spec.
        Camera camera;
        camera.position = glm::vec3(m * glm::vec4(0.0f, 0.0f, 0.0f, 1.0f));
        const glm::vec3 forward = linear * glm::vec3(0.0f, 0.0f, -1.0f);
        camera.up = linear * glm::vec3(0.0f, 1.0f, 0.0f);
        const float length = glm::length(forward);
        if (!(length > 0.0f) || !std::isfinite(length)) {
            warn("camera '" + std::string(c.mName.C_Str()) + "' has no viewing direction; the camera frames the model");
            return false;
        }
        camera.target = camera.position + forward / length;
        camera.verticalFovDegrees = glm::degrees(yfov);
        scene_.setCamera(camera);
        return true;
    }

    std::string path_;
    std::filesystem::path folder_;
    const aiScene& ai_;
    bool gltf_, ply_;
    Scene& scene_;
    std::vector<int> materials_;
    std::map<std::string, int> textures_;
    std::size_t triangles_ = 0;
    std::size_t skippedPrimitives_ = 0;
};

}  // namespace

Scene Scene::loadAssimp(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) || !std::ifstream(path))
        throw InputError("cannot open scene file '" + path + "'");
    const std::string ext = lowercaseExtension(path);
    const bool gltf = ext == ".gltf" || ext == ".glb";

    Assimp::Importer importer;
    // Points and lines are counted and dropped by us, not by Assimp, so that we can say so.
    unsigned flags = aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_ValidateDataStructure;
    // glTF without normals means flat shading (the spec); other formats (PLY scans) mostly
    // leave them out and look best smooth.
    if (!gltf)
        flags |= aiProcess_JoinIdenticalVertices | aiProcess_GenSmoothNormals;
    const aiScene* ai = nullptr;
    try {
        ai = importer.ReadFile(path, flags);
    } catch (const std::exception& e) {  // Assimp catches its own; anything else still is one line
        throw InputError("cannot read scene file '" + path + "': " + foldLines(e.what()));
    }
    if (!ai)
        throw InputError("cannot read scene file '" + path + "': " + foldLines(importer.GetErrorString()));
    if (ai->mFlags & AI_SCENE_FLAGS_INCOMPLETE)
        throw InputError("scene file '" + path + "' is incomplete (it holds no meshes Assimp could read)");

    Scene scene;
    AssimpImport(path, *ai, gltf, scene).run();
    // Extensions this Assimp version reads past without a word: say that they are left out.
    if (gltf) {
        float strength = 0.0f;
        bool strengthRead = false;
        for (unsigned i = 0; i < ai->mNumMaterials; ++i)
            strengthRead = strengthRead || ai->mMaterials[i]->Get(AI_MATKEY_EMISSIVE_INTENSITY, strength) == AI_SUCCESS;
        if (!strengthRead && fileMentions(path, "KHR_materials_emissive_strength"))
            scene.addWarning(path + ": KHR_materials_emissive_strength is not read by this Assimp version; "
                                    "emission is the emissive factor alone");
        float ior = 0.0f;
        bool iorRead = false;
        for (unsigned i = 0; i < ai->mNumMaterials; ++i)
            iorRead = iorRead || ai->mMaterials[i]->Get(AI_MATKEY_REFRACTI, ior) == AI_SUCCESS;
        if (!iorRead && fileMentions(path, "KHR_materials_ior"))
            scene.addWarning(path + ": KHR_materials_ior is not read by this Assimp version; glass has index 1.5");
    }
    return scene;
}

bool hasSceneFileExtension(const std::string& name) {
    const std::string ext = lowercaseExtension(name);
    return ext == ".obj" || (ext.size() > 1 && Assimp::Importer().IsExtensionSupported(ext));
}

Scene Scene::loadFile(const std::string& path, const SceneLoadOptions& options) {
    if (lowercaseExtension(path) == ".obj")
        return loadObj(path, options);
    return loadAssimp(path);
}

}  // namespace wavefront
