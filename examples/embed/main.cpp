// Builds a small scene through the wavefront API, renders it and writes a PNG.
// Uses CUDA when a GPU is present and the CPU otherwise (Backend::Auto).
//   wavefront-embed [OUTPUT.png]
#include <cstdio>
#include <string>
#include <utility>

#include <wavefront/wavefront.h>

namespace {

// A quad from one corner and two edges; its front side faces along cross(u, v).
wavefront::TriangleMesh quad(glm::vec3 corner, glm::vec3 u, glm::vec3 v, int material) {
    wavefront::TriangleMesh mesh;
    mesh.positions = {corner, corner + u, corner + u + v, corner + v};
    mesh.indices = {0, 1, 2, 0, 2, 3};
    mesh.material = material;
    return mesh;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string output = argc > 1 ? argv[1] : "embed.png";
    try {
        wavefront::Scene scene;
        const int white = scene.addMaterial(wavefront::Material::lambertian(glm::vec3(0.75f)));
        const int red = scene.addMaterial(wavefront::Material::lambertian(glm::vec3(0.7f, 0.15f, 0.1f)));
        const int glass = scene.addMaterial(wavefront::Material::dielectric(1.5f));
        const int mirror = scene.addMaterial(wavefront::Material::mirror(glm::vec3(0.9f)));
        const int light = scene.addMaterial(wavefront::Material::lambertian(glm::vec3(0.0f), glm::vec3(15.0f)));

        scene.addMesh(quad({-2, 0, 2}, {4, 0, 0}, {0, 0, -4}, white));   // floor, facing up
        scene.addMesh(quad({-2, 0, -2}, {4, 0, 0}, {0, 3, 0}, red));     // back wall, facing the camera
        scene.addMesh(quad({-0.5f, 2.5f, -0.5f}, {1, 0, 0}, {0, 0, 1}, light));  // area light, facing down
        scene.addSphere({{-0.7f, 0.6f, 0.0f}, 0.6f, glass});
        scene.addSphere({{0.8f, 0.6f, -0.6f}, 0.6f, mirror});

        wavefront::Camera camera;
        camera.position = {0.0f, 1.5f, 5.0f};
        camera.target = {0.0f, 1.0f, 0.0f};
        camera.verticalFovDegrees = 40.0f;
        scene.setCamera(camera);

        wavefront::RenderOptions options;
        options.width = 160;
        options.height = 120;
        options.samplesPerPixel = 32;
        options.backend = wavefront::Backend::Auto;

        wavefront::Renderer renderer(std::move(scene), options);
        renderer.render();
        wavefront::writeImage(output, renderer.image());

        const wavefront::RenderStats& stats = renderer.stats();
        std::printf("backend: %s\n", stats.backend.c_str());
        std::printf("samples/s: %.0f\n", stats.samplesPerSecond());
        std::printf("wrote %s\n", output.c_str());
        return 0;
    } catch (const wavefront::Error& e) {
        std::fprintf(stderr, "wavefront-embed: %s\n", e.what());
        return 2;
    }
}
