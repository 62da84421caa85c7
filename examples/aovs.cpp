// Renders a scene with AOVs and writes them: one EXR with the colour and the albedo, normal,
// depth and variance layers (what a denoiser such as OIDN takes beside the colour), and each
// AOV as a file of its own.
//   wavefront-aovs [SCENE] [OUTPUT-PREFIX] [--cpu]
#include <cstdio>
#include <cstring>
#include <string>

#include <wavefront/wavefront.h>

int main(int argc, char** argv) {
    const std::string scene = argc > 1 && argv[1][0] != '-' ? argv[1] : "cornell-spheres";
    const std::string prefix = argc > 2 && argv[2][0] != '-' ? argv[2] : "aovs";
    const bool cpu = argc > 1 && std::strcmp(argv[argc - 1], "--cpu") == 0;
    try {
        wavefront::RenderOptions options;
        options.width = options.height = 128;
        options.samplesPerPixel = 16;
        options.aovs = true;
        if (cpu) options.backend = wavefront::Backend::Cpu;
        wavefront::Renderer renderer(wavefront::Scene::fromNameOrPath(scene), options);
        renderer.render();
        const wavefront::AovImages aovs = renderer.aovs();
        wavefront::writeImageWithAovs(prefix + ".exr", renderer.image(), aovs);
        wavefront::writeImage(prefix + ".albedo.png", aovs.albedo);
        wavefront::Image normal = aovs.normal;  // [-1, 1] shown as [0, 1]
        for (float& v : normal.rgb) v = 0.5f * v + 0.5f;
        wavefront::writeImage(prefix + ".normal.png", normal);
        wavefront::writeImage(prefix + ".depth.exr", aovs.depth);
        wavefront::writeImage(prefix + ".variance.exr", aovs.variance);
        double mean = 0.0;
        for (float v : aovs.variance.rgb) mean += v;
        std::printf("%s: %d first-hit passes; mean variance of a pixel's estimate %.3g; layers in %s.exr\n",
                    scene.c_str(), renderer.film().aovPasses, mean / aovs.variance.rgb.size(), prefix.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "wavefront-aovs: %s\n", e.what());
        return 2;
    }
    return 0;
}
