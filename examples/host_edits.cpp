// A host program that keeps one Renderer: between progressive renders it moves the camera and
// changes a material, and prints what each edit cost. Writes the last frame of each edit.
//   wavefront-host-edits [OUTPUT-PREFIX] [--cpu]
#include <cstdio>
#include <cstring>
#include <string>

#include <wavefront/wavefront.h>

int main(int argc, char** argv) {
    const std::string prefix = argc > 1 && argv[1][0] != '-' ? argv[1] : "host-edits";
    const bool cpu = argc > 1 && std::strcmp(argv[argc - 1], "--cpu") == 0;
    try {
        wavefront::RenderOptions options;
        options.width = options.height = 128;
        options.samplesPerPixel = 4;
        if (cpu) options.backend = wavefront::Backend::Cpu;
        wavefront::Renderer renderer(wavefront::Scene::builtin("cornell-spheres"), options);
        auto progressive = [&](const char* name) {
            renderer.render();
            for (int k = 0; k < 3; ++k) renderer.renderMore(4);  // a display would show each step
            wavefront::writeImage(prefix + "-" + name + ".png", renderer.image());
            std::printf("%-10s %llu samples in %.3f s\n", name, (unsigned long long)renderer.stats().samples,
                        renderer.stats().seconds);
        };
        auto report = [](const wavefront::EditStats& e) {
            std::printf("  edit %-12s %8llu bytes uploaded, bvh %-8s lights rebuilt %-3s %.3f ms\n", e.what.c_str(),
                        (unsigned long long)e.bytesUploaded, e.bvh.c_str(), e.lightsRebuilt ? "yes" : "no", 1e3 * e.seconds);
        };
        progressive("start");
        wavefront::Camera camera = renderer.scene().camera();
        for (int step = 1; step <= 3; ++step) {
            camera.position.x += 0.15f;  // orbit a little
            report(renderer.setCamera(camera));
            progressive(("camera" + std::to_string(step)).c_str());
        }
        // Material 0 of the scene, recoloured; a loaded scene's materials are edited the same way.
        wavefront::Material m = renderer.scene().materials()[0];
        m.diffuse = glm::vec3(0.2f, 0.4f, 0.8f);
        report(renderer.setMaterial(0, m));
        progressive("material");
        // Keep the film over an edit: the preview blends the two images instead of going black.
        camera.position.x -= 0.1f;
        report(renderer.setCamera(camera, wavefront::EditMode::Accumulate));
        renderer.renderMore(4);
        wavefront::writeImage(prefix + "-accumulated.png", renderer.image());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "wavefront-host-edits: %s\n", e.what());
        return 2;
    }
    return 0;
}
