// A host program that places one object many times (Scene::addObject, Scene::addInstance) and
// moves instances between progressive renders (Renderer::setInstanceTransform), printing what
// each edit cost. Writes the first and the last frame.
//   wavefront-instancing [OUTPUT-PREFIX] [--cpu]
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include <glm/gtc/matrix_transform.hpp>
#include <wavefront/wavefront.h>

namespace {

/// A box [-1, 1]^3, counter-clockwise seen from outside.
wavefront::TriangleMesh box(int material) {
    wavefront::TriangleMesh m;
    for (int corner = 0; corner < 8; ++corner)
        m.positions.push_back(glm::vec3(corner & 1 ? 1 : -1, corner & 2 ? 1 : -1, corner & 4 ? 1 : -1));
    m.indices = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    m.material = material;
    return m;
}

/// Box k of the ring at time t: turned about the vertical, standing on the Cornell box's floor.
glm::mat4 ringPlacement(int k, int count, float t) {
    const float angle = 2.0f * 3.14159265f * (float(k) / float(count)) + t;
    glm::mat4 m = glm::translate(glm::mat4(1.0f), glm::vec3(0.5f + 0.3f * std::cos(angle), 0.04f, 0.5f + 0.3f * std::sin(angle)));
    m = glm::rotate(m, -angle, glm::vec3(0, 1, 0));
    return glm::scale(m, glm::vec3(0.04f, 0.04f, 0.02f));
}

}  // namespace

int main(int argc, char** argv) {
    const std::string prefix = argc > 1 && argv[1][0] != '-' ? argv[1] : "instancing";
    const bool cpu = argc > 1 && std::strcmp(argv[argc - 1], "--cpu") == 0;
    try {
        wavefront::Scene scene = wavefront::Scene::builtin("cornell-box");
        const int blue = scene.addMaterial(wavefront::Material::lambertian(glm::vec3(0.2f, 0.35f, 0.8f)));
        const int object = scene.addObject({box(blue)});  // stored once
        const int count = 24;
        for (int k = 0; k < count; ++k) scene.addInstance(object, ringPlacement(k, count, 0.0f));

        wavefront::RenderOptions options;
        options.width = options.height = 128;
        options.samplesPerPixel = 4;
        if (cpu) options.backend = wavefront::Backend::Cpu;
        wavefront::Renderer renderer(scene, options);
        for (int frame = 0; frame < 4; ++frame) {
            if (frame > 0) {
                // Move every instance on along the ring: one small upload and a top-level build each.
                double ms = 0.0;
                std::uint64_t bytes = 0;
                for (int k = 0; k < count; ++k) {
                    const wavefront::EditStats e =
                        renderer.setInstanceTransform(k, ringPlacement(k, count, 0.2f * frame));
                    ms += 1e3 * e.seconds;
                    bytes += e.bytesUploaded;
                }
                std::printf("  moved %d instances: %llu bytes uploaded, %.3f ms\n", count, (unsigned long long)bytes, ms);
            }
            renderer.render();
            for (int k = 0; k < 3; ++k) renderer.renderMore(4);  // a display would show each step
            const wavefront::RenderStats& st = renderer.stats();
            std::printf("frame %d: %llu instances of %llu stored triangles, %llu samples in %.3f s\n", frame,
                        (unsigned long long)st.instances, (unsigned long long)st.triangles,
                        (unsigned long long)st.samples, st.seconds);
            if (frame == 0 || frame == 3)
                wavefront::writeImage(prefix + "-frame" + std::to_string(frame) + ".png", renderer.image());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "wavefront-instancing: %s\n", e.what());
        return 2;
    }
    return 0;
}
