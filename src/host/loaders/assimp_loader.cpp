// glTF 2.0 and PLY, read through Assimp. Assimp parses and triangulates; we walk its
// node tree ourselves (rather than aiProcess_PreTransformVertices) so that the camera's node
// transform is applied the same way as the meshes' and a mesh several nodes use stays one object
// with an instance per node, and map its materials onto ours. Whatever cannot be taken over
// becomes a Scene warning, never a silent loss.
//
// Assimp never opens a file itself: the model is read through readInputFile and checked first, and
// every file Assimp asks for goes through ConfinedIOSystem (import_checks.h). Texture images are
// read by the loader, through resolveReferencedFile and readInputFile.
#include <wavefront/error.h>
#include <wavefront/scene.h>

#include "host/io/input_file.h"
#include "host/io/texture_io.h"
#include "host/loaders/import_checks.h"
#include "host/loaders/loaders.h"
#include "host/loaders/triangulate.h"

#include <assimp/Importer.hpp>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/GltfMaterial.h>
#include <assimp/scene.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace wavefront {

namespace {

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

class AssimpImport {
public:
    AssimpImport(const std::string& path, const aiScene& ai, bool gltf, GltfMaterialExtensions extensions,
                 const SceneLoadOptions& options, Scene& scene)
        : path_(path), ai_(ai), gltf_(gltf), ply_(lowercaseExtension(path) == ".ply"), options_(options),
          extensions_(std::move(extensions)), scene_(scene) {}

    void run() {
        for (const std::string& name : extensions_.ignored)
            warn("glTF extension " + oneLine(name).substr(0, 80) + " is not supported; the model is drawn without it");
        for (unsigned i = 0; i < ai_.mNumMaterials; ++i)
            materials_.push_back(-1);  // converted when a mesh uses it: unused ones cost nothing
        if (!ai_.mRootNode)
            throw InputError("scene file '" + path_ + "' has no node hierarchy");
        addNodes();
        if (counts_.triangles == 0)
            throw InputError("scene file '" + path_ + "' contains no triangles");
        if (counts_.skippedPrimitives > 0)
            warn(std::to_string(counts_.skippedPrimitives) + " point and line primitives ignored (only triangles are rendered)");
        if (counts_.fannedPolygons > 0)
            warn(std::to_string(counts_.fannedPolygons) + " polygon(s) that intersect themselves (or too hostile to clip in "
                 "bounded time) triangulated in part as a fan");
        // What Assimp reads but a still image has no use for: said, not dropped silently.
        if (ai_.mNumAnimations > 0)
            warn(std::to_string(ai_.mNumAnimations) + " animation(s) ignored: the model is drawn as its nodes place it");
        std::size_t skinned = 0, morphed = 0;
        for (unsigned m = 0; m < ai_.mNumMeshes; ++m) {
            skinned += ai_.mMeshes[m]->mNumBones > 0;
            morphed += ai_.mMeshes[m]->mNumAnimMeshes > 0;
        }
        if (skinned > 0)
            warn(std::to_string(skinned) + " skinned mesh(es): the skin is ignored, the mesh drawn in its bind pose");
        if (morphed > 0)
            warn(std::to_string(morphed) + " mesh(es) with morph targets: the targets are ignored, the base mesh drawn");
        addLights();
        if (!readCamera())
            scene_.frameCamera();
    }

private:
    void warn(const std::string& message) { scene_.addWarning(path_ + ": " + message); }

    // Every node's meshes under its global transform. A mesh that several nodes use becomes one
    // object placed by an instance per node, so that memory grows with the meshes, not with their
    // copies; the others are copied into the scene under their node's transform (flattened).
    void addNodes() {
        // First how many nodes use each mesh, so that a shared one is made an object at its first use.
        references_.assign(ai_.mNumMeshes, 0);
        forEachNode([&](const aiNode& node, const glm::mat4&) {
            for (unsigned i = 0; i < node.mNumMeshes; ++i) {
                if (node.mMeshes[i] >= ai_.mNumMeshes)
                    throw InputError("scene file '" + path_ + "': node '" + node.mName.C_Str() + "' names mesh " +
                                     std::to_string(node.mMeshes[i]) + " of " + std::to_string(ai_.mNumMeshes));
                ++references_[node.mMeshes[i]];
            }
        });
        meshObjects_.assign(ai_.mNumMeshes, kUndecided);
        forEachNode([&](const aiNode& node, const glm::mat4& transform) {
            for (unsigned i = 0; i < node.mNumMeshes; ++i)
                addMeshUse(node.mMeshes[i], transform);
        });
    }

    // Calls visit(node, its global transform) for every node, depth first in the file's order,
    // with a stack of our own: a recursion 1024 levels deep (the depth checkGltfStructure allows)
    // overflowed the stack of an ASan build, and would a small thread stack.
    template <typename Visit>
    void forEachNode(Visit&& visit) const {
        struct Pending {
            const aiNode* node;
            glm::mat4 parent;
            int depth;
        };
        std::vector<Pending> stack{{ai_.mRootNode, glm::mat4(1.0f), 0}};
        while (!stack.empty()) {
            const Pending at = stack.back();
            stack.pop_back();
            if (at.depth > kMaxNodeDepth)
                throw InputError("scene file '" + path_ + "': node hierarchy deeper than " +
                                 std::to_string(kMaxNodeDepth) + " levels");
            const glm::mat4 transform = at.parent * toGlm(at.node->mTransformation);
            visit(*at.node, transform);
            // Children pushed last to first, so that they are visited in the file's order.
            for (unsigned i = at.node->mNumChildren; i-- > 0;)
                stack.push_back({at.node->mChildren[i], transform, at.depth + 1});
        }
    }

    // Mesh `index` where a node places it: an instance of the mesh's object, or a copy.
    void addMeshUse(unsigned index, const glm::mat4& transform) {
        const aiMesh& mesh = *ai_.mMeshes[index];
        int& object = meshObjects_[index];
        if (object == kUndecided)
            object = references_[index] >= 2 ? makeObject(mesh) : kCopied;
        if (object >= 0) {
            if (scene_.instances().size() >= kMaxSceneFileInstances)
                throw InputError("scene file '" + path_ + "': more than " + std::to_string(kMaxSceneFileInstances) +
                                 " mesh instances, the most one scene file may give");
            try {
                scene_.addInstance(object, transform);
                return;
            } catch (const InputError&) {
                // A transform no instance can take: singular (glTF hides nodes with a zero scale;
                // one zero axis flattens a mesh that may still show), or past the coordinate range.
                // Copied, as before instancing: degenerate triangles are dropped, flat ones drawn,
                // and what is out of range is refused with the mesh's name.
            }
        }
        addCopy(mesh, transform);
    }

    // The object of a mesh several nodes use, or kCopied where copies must stand in: a mesh
    // without triangles, an emissive one (an instanced emitter is not sampled as a light), or one
    // addObject refuses (every triangle degenerate, or vertices beyond the range that the nodes'
    // scales bring back into it).
    int makeObject(const aiMesh& mesh) {
        if (!hasTriangles(mesh) || scene_.materials()[std::size_t(material(mesh.mMaterialIndex))].isEmissive())
            return kCopied;
        const Counts before = counts_;
        std::vector<TriangleMesh> local;
        local.push_back(triangleMesh(mesh, glm::mat4(1.0f)));  // in the mesh's own space
        try {
            return scene_.addObject(local);
        } catch (const InputError&) {
            counts_ = before;  // each copy counts for itself
            return kCopied;
        }
    }

    // A copy of the mesh under `transform`, in the scene itself.
    void addCopy(const aiMesh& mesh, const glm::mat4& transform) {
        if (!hasTriangles(mesh)) {
            counts_.skippedPrimitives += mesh.mNumFaces;
            return;
        }
        const TriangleMesh copy = triangleMesh(mesh, transform);
        try {
            scene_.addMesh(copy);
        } catch (const InputError& e) {
            throw InputError("scene file '" + path_ + "': mesh '" + mesh.mName.C_Str() + "': " + e.what());
        }
    }

    static bool hasTriangles(const aiMesh& mesh) {
        return (mesh.mPrimitiveTypes & (aiPrimitiveType_TRIANGLE | aiPrimitiveType_POLYGON)) && mesh.mVertices;
    }

    // The mesh's triangles under `transform` (the identity for an object), counted against the
    // file's caps: every copy counts, an object once, however many instances place it.
    TriangleMesh triangleMesh(const aiMesh& mesh, const glm::mat4& transform) {
        // Without the cap a few nodes copying a large mesh could ask for any amount of memory. It
        // is the most a file of the 2 GiB cap can hold as an OBJ ("f 1 2 3\n" is 8 bytes: 2^28
        // triangles), vertices likewise.
        if (mesh.mNumFaces > kMaxTriangles - counts_.triangles || mesh.mNumVertices > kMaxTriangles - counts_.vertices)
            throw InputError("scene file '" + path_ + "': more than " + std::to_string(kMaxTriangles) +
                             " triangles or vertices once every copy of its meshes is counted (mesh '" +
                             mesh.mName.C_Str() + "'), the most one scene file may give");
        counts_.vertices += mesh.mNumVertices;
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
            if (face.mNumIndices < 3 || !face.mIndices) {  // points and lines left in a mixed mesh
                ++counts_.skippedPrimitives;
                continue;
            }
            // Triangles, or (formats other than glTF, which Assimp does not triangulate: see
            // loadAssimp) polygons, by the rule of OBJ polygons.
            polygon_.clear();
            corners_.clear();
            for (unsigned k = 0; k < face.mNumIndices; ++k) {
                if (face.mIndices[k] >= mesh.mNumVertices)
                    throw InputError("scene file '" + path_ + "': mesh '" + mesh.mName.C_Str() + "' face " +
                                     std::to_string(f) + " names vertex " + std::to_string(face.mIndices[k]) + " of " +
                                     std::to_string(mesh.mNumVertices));
                polygon_.push_back(toGlm(mesh.mVertices[face.mIndices[k]]));
            }
            if (!triangulatePolygon(polygon_, corners_)) ++counts_.fannedPolygons;
            for (std::size_t k = 0; k < corners_.size(); k += 3)
                out.indices.insert(out.indices.end(), {face.mIndices[corners_[k]], face.mIndices[corners_[k + (mirrored ? 2 : 1)]],
                                                       face.mIndices[corners_[k + (mirrored ? 1 : 2)]]});
            if (out.indices.size() / 3 > kMaxTriangles - counts_.triangles)
                throw InputError("scene file '" + path_ + "': more than " + std::to_string(kMaxTriangles) +
                                 " triangles once every copy of its meshes is counted (mesh '" + mesh.mName.C_Str() +
                                 "'), the most one scene file may give");
        }
        counts_.triangles += out.indices.size() / 3;
        return out;
    }

    int material(unsigned index) {
        if (index >= materials_.size())
            throw InputError("scene file '" + path_ + "': a mesh names material " + std::to_string(index) + " of " +
                             std::to_string(materials_.size()));
        if (materials_[index] < 0) {
            const aiMaterial& m = *ai_.mMaterials[index];
            try {
                materials_[index] = scene_.addMaterial(gltf_ ? gltfMaterial(m, index) : otherMaterial(m));
            } catch (const InputError& e) {
                throw InputError("scene file '" + path_ + "': material '" + m.GetName().C_Str() + "': " + e.what());
            }
        }
        return materials_[index];
    }

    static float unit(float v) { return std::isfinite(v) ? std::clamp(v, 0.0f, 1.0f) : 0.0f; }
    static glm::vec3 unit(const aiColor4D& c) { return glm::vec3(unit(c.r), unit(c.g), unit(c.b)); }

    // The value of a material extension Assimp did not read (`index`: Assimp's material, the
    // glTF material of that index), or `fallback`.
    static float extensionValue(const std::vector<float>& values, unsigned index, float fallback) {
        return index < values.size() && std::isfinite(values[index]) ? values[index] : fallback;
    }

    Material gltfMaterial(const aiMaterial& m, unsigned index) {
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
            if (m.Get(AI_MATKEY_REFRACTI, ior) != AI_SUCCESS)
                ior = extensionValue(extensions_.ior, index, 1.5f);
            if (!(std::isfinite(ior) && std::fabs(ior - 1.0f) >= 1e-3f && ior > 0.0f))
                ior = 1.5f;
            out = Material::roughDielectric(ior, unit(roughness) * unit(roughness));  // GGX alpha = roughness^2
        } else {
            out = Material::metallicRoughness(unit(base), unit(metallic), unit(roughness));
            out.baseColorTexture = texture(m, aiTextureType_BASE_COLOR, name, true);
            if (out.baseColorTexture < 0)
                out.baseColorTexture = texture(m, aiTextureType_DIFFUSE, name, true);
            // Assimp 5.2 files the one metallicRoughnessTexture under several types.
            for (aiTextureType type : {aiTextureType_METALNESS, aiTextureType_UNKNOWN, aiTextureType_DIFFUSE_ROUGHNESS})
                if (out.metallicRoughnessTexture < 0)
                    out.metallicRoughnessTexture = texture(m, type, name, false);
        }
        out.normalTexture = texture(m, aiTextureType_NORMALS, name, false);
        if (out.normalTexture >= 0) {
            float scale = 1.0f;
            m.Get(AI_MATKEY_GLTF_TEXTURE_SCALE(aiTextureType_NORMALS, 0), scale);
            out.normalScale = std::isfinite(scale) ? std::clamp(scale, -1e3f, 1e3f) : 1.0f;
        }

        aiColor4D emissive(0.0f, 0.0f, 0.0f, 1.0f);
        m.Get(AI_MATKEY_COLOR_EMISSIVE, emissive);
        float strength = 1.0f;  // KHR_materials_emissive_strength
        if (m.Get(AI_MATKEY_EMISSIVE_INTENSITY, strength) != AI_SUCCESS)
            strength = extensionValue(extensions_.emissiveStrength, index, 1.0f);
        if (!(std::isfinite(strength) && strength >= 0.0f))
            strength = 1.0f;
        out.emission = glm::vec3(std::max(emissive.r, 0.0f), std::max(emissive.g, 0.0f), std::max(emissive.b, 0.0f)) * strength;
        if (out.isEmissive())
            out.emissionTexture = texture(m, aiTextureType_EMISSIVE, name, true);
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
        out.baseColorTexture = texture(m, aiTextureType_DIFFUSE, name, true);
        return out;
    }

    // The material's first texture of `type` as a Scene texture (each image added once per
    // encoding: colour is sRGB, data linear), or -1 with a warning when it cannot be read.
    int texture(const aiMaterial& m, aiTextureType type, const std::string& materialName, bool srgb) {
        if (m.GetTextureCount(type) == 0)
            return -1;
        aiString file;
        unsigned uvIndex = 0;
        if (m.GetTexture(type, 0, &file, nullptr, &uvIndex) != AI_SUCCESS)
            return -1;
        if (uvIndex != 0)
            warn("material '" + materialName + "': texture coordinate set " + std::to_string(uvIndex) +
                 " used as set 0 (only the first set is read)");
        const std::string name = file.C_Str();
        const std::string key = std::string(srgb ? "srgb:" : "linear:") + name;
        auto known = textures_.find(key);
        if (known != textures_.end())
            return known->second;
        int index = -1;
        try {
            Texture t;
            if (const aiTexture* embedded = ai_.GetEmbeddedTexture(file.C_Str())) {
                const std::string what = "embedded texture '" + name + "'";
                const std::uint64_t left = texelsLeft(scene_, options_.maxTextureTexels);
                if (embedded->mHeight == 0) {  // a compressed file (PNG, JPEG) of mWidth bytes
                    t = decodeTexture(reinterpret_cast<const unsigned char*>(embedded->pcData), embedded->mWidth, what, left);
                } else {
                    checkTextureSize(embedded->mWidth, embedded->mHeight, what, left);
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
                // Confined to the model's folder like its buffers, then read as an image file.
                std::filesystem::path file;
                try {
                    file = resolveReferencedFile(path_, name, options_.allowExternalFiles);
                } catch (const InputError& e) {
                    throw InputError(std::string("texture ") + e.what());
                }
                t = readTexture(file.string(), texelsLeft(scene_, options_.maxTextureTexels));
            }
            t.srgb = srgb;
            index = scene_.addTexture(std::move(t));
        } catch (const InputError& e) {
            warn("material '" + materialName + "': " + e.what() + "; the material is drawn without it");
        }
        textures_.emplace(key, index);
        return index;
    }

    // The first camera, with its node's transform; false when there is none we can use.
    // glTF's KHR_lights_punctual, as Assimp's glTF 2 importer gives it: each light named after the
    // node that places it, pointing down the node's -z, its colour already times its intensity
    // (candela for point and spot lights, lux for directional ones: taken as radiometric, W/sr and
    // W/m^2), the spot's cone angles in radians. A range, which glTF allows to cut the light off, is
    // not honoured (inverse-square falloff everywhere) and said so.
    void addLights() {
        int ranged = 0;
        for (unsigned i = 0; i < ai_.mNumLights; ++i) {
            const aiLight& al = *ai_.mLights[i];
            const aiNode* node = ai_.mRootNode->FindNode(al.mName);
            const glm::mat4 toWorld = node ? globalTransform(node) : glm::mat4(1.0f);
            if (node && node->mMetaData && node->mMetaData->HasKey("PBR_LightRange")) ++ranged;
            Light light;
            switch (al.mType) {
            case aiLightSource_POINT: light.type = LightType::Point; break;
            case aiLightSource_SPOT: light.type = LightType::Spot; break;
            case aiLightSource_DIRECTIONAL: light.type = LightType::Directional; break;
            default:
                warn("light '" + oneLine(al.mName.C_Str()).substr(0, 80) + "' is of a type wavefront does not render; ignored");
                continue;
            }
            light.position = glm::vec3(toWorld * glm::vec4(toGlm(al.mPosition), 1.0f));
            light.direction = glm::vec3(toWorld * glm::vec4(toGlm(al.mDirection), 0.0f));
            light.intensity = glm::vec3(al.mColorDiffuse.r, al.mColorDiffuse.g, al.mColorDiffuse.b);
            light.innerConeDegrees = glm::degrees(al.mAngleInnerCone);
            light.outerConeDegrees = glm::degrees(al.mAngleOuterCone);
            try {
                scene_.addLight(light);
            } catch (const InputError& e) {
                throw InputError("scene file '" + path_ + "': light '" + oneLine(al.mName.C_Str()).substr(0, 80) +
                                 "': " + e.what());
            }
        }
        if (ranged > 0)
            warn(std::to_string(ranged) + " punctual light" + (ranged > 1 ? "s have a" : " has a") +
                 " range, which is not honoured: the light falls off with the inverse square everywhere");
    }

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
    const aiScene& ai_;
    bool gltf_, ply_;
    SceneLoadOptions options_;
    GltfMaterialExtensions extensions_;
    Scene& scene_;
    std::vector<int> materials_;
    std::map<std::string, int> textures_;
    static constexpr std::size_t kMaxTriangles = kMaxSceneFileTriangles;
    // What the meshes gave, for the caps and the warnings: every copy counted, an object once.
    struct Counts {
        std::size_t triangles = 0, vertices = 0;
        std::size_t skippedPrimitives = 0;  // points and lines
        std::size_t fannedPolygons = 0;
    } counts_;
    std::vector<std::size_t> references_;  // per Assimp mesh, the nodes that use it
    // Per Assimp mesh: its object's index, or one of these.
    static constexpr int kUndecided = -2, kCopied = -1;
    std::vector<int> meshObjects_;
    std::vector<glm::vec3> polygon_;     // one face's corners
    std::vector<std::uint32_t> corners_;  // its triangles, as corner numbers
};

}  // namespace

Scene Scene::loadAssimp(const std::string& path, const SceneLoadOptions& options) {
    // Only the formats whose Assimp readers we pre-check and fuzz (docs/hardening.md): Assimp's
    // other readers hung, aborted or crashed on fuzzed PLY files before the checks existed.
    const std::string ext = lowercaseExtension(path);
    const bool gltf = ext == ".gltf" || ext == ".glb";
    if (!gltf && ext != ".ply")
        throw InputError("scene file '" + path + "': loadAssimp reads .gltf, .glb and .ply only (loadFile reads " +
                         readableExtensions() + ")");
    // Regular files only, at most 2 GiB; Assimp parses these bytes, never the path.
    auto bytes = std::make_shared<const std::string>(readInputFile(path, InputKind::Model));
    if (bytes->empty())  // Assimp 5.2.5 reads uninitialised memory for an empty .glb
        throw InputError("scene file '" + path + "' is empty");
    std::vector<std::string> loaderWarnings;
    // Assimp picks its reader by content, and skips whitespace before "ply" (a PLY file that
    // started with a newline bypassed the check and hung it: fuzzing): such content is a PLY file
    // here too, whose first line then fails readPlyHeader.
    const std::size_t start = std::min(bytes->find_first_not_of(" \t\r\n"), bytes->size());
    if (bytes->size() - start >= 3 && std::tolower(static_cast<unsigned char>((*bytes)[start])) == 'p' &&
        std::tolower(static_cast<unsigned char>((*bytes)[start + 1])) == 'l' &&
        std::tolower(static_cast<unsigned char>((*bytes)[start + 2])) == 'y')
        bytes = std::make_shared<const std::string>(preparePly(*bytes, path, loaderWarnings));
    GltfMaterialExtensions extensions;
    if (gltf || bytes->compare(0, 4, "glTF") == 0)
        extensions = checkGltfStructure(*bytes, path);

    Assimp::Importer importer;
    auto* io = new ConfinedIOSystem(path, bytes, options.allowExternalFiles, gltf ? "glTF buffer" : "file");
    importer.SetIOHandler(io);  // the importer owns it
    // Points and lines are counted and dropped by us, not by Assimp, so that we can say so.
    unsigned flags = aiProcess_SortByPType | aiProcess_ValidateDataStructure;
    // glTF without normals means flat shading (the spec); other formats (PLY scans) mostly
    // leave them out and look best smooth. Assimp triangulates glTF; other formats' polygons are
    // fanned by us: Debian's Assimp 5.2.5 keeps its assertions, and aiProcess_Triangulate aborts
    // the process on PLY faces the file's data leaves short (15 of 667 fuzzed PLY cases).
    if (gltf)
        flags |= aiProcess_Triangulate;
    else
        flags |= aiProcess_JoinIdenticalVertices | aiProcess_GenSmoothNormals;
    // Validated before any other step runs: Assimp's steps trust the data (a short line in an
    // ASCII PLY gave a face without corners that crashed a step with SIGBUS), and ReadFile would
    // run them before its own validation.
    const auto failed = [&] {
        // A refused file's reason says more than Assimp's "could not open referenced file".
        const std::string why = io->failure().empty() ? oneLine(importer.GetErrorString()) : io->failure();
        return InputError("cannot read scene file '" + path + "': " + why);
    };
    const aiScene* ai = nullptr;
    try {
        ai = importer.ReadFile(path, aiProcess_ValidateDataStructure);
    } catch (const std::exception& e) {  // Assimp catches its own; anything else still is one line
        throw InputError("cannot read scene file '" + path + "': " + oneLine(e.what()));
    }
    if (!ai)
        throw failed();
    // Assimp's validation lets faces without corners through, and aiProcess_SortByPType then
    // reads out of bounds: refused here.
    for (unsigned m = 0; m < ai->mNumMeshes; ++m) {
        const aiMesh* mesh = ai->mMeshes[m];
        for (unsigned f = 0; mesh && f < mesh->mNumFaces; ++f)
            if (mesh->mFaces[f].mNumIndices == 0 || !mesh->mFaces[f].mIndices)
                throw InputError("scene file '" + path + "': mesh '" + mesh->mName.C_Str() + "' face " + std::to_string(f) +
                                 " has no corners (the file's data is short or misaligned)");
    }
    try {
        ai = importer.ApplyPostProcessing(flags & ~unsigned(aiProcess_ValidateDataStructure));
    } catch (const std::exception& e) {
        throw InputError("cannot read scene file '" + path + "': " + oneLine(e.what()));
    }
    if (!ai)
        throw failed();
    if (ai->mFlags & AI_SCENE_FLAGS_INCOMPLETE)
        throw InputError("scene file '" + path + "' is incomplete (it holds no meshes Assimp could read)");

    Scene scene;
    for (const std::string& warning : loaderWarnings) scene.addWarning(path + ": " + warning);
    AssimpImport(path, *ai, gltf, std::move(extensions), options, scene).run();
    return scene;
}

}  // namespace wavefront
