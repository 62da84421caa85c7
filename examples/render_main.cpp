// wavefront-render: renders a built-in scene or a scene file (OBJ, glTF, PLY, pbrt-v4, ...) to PNG, EXR or PFM.
#include <cstdio>
#include <string>
#include <utility>

#include "render_cli.h"

int main(int argc, char** argv) {
    CLI::App app{"wavefront-render: GPU/CPU wavefront path tracing"};
    wfcli::Args args;
    wfcli::addOptions(app, args);
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {  // --help, --version
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "wavefront-render: %s\n", wavefront::printable(e.what()).c_str());
        return 2;
    }
    if (args.listScenes) {
        for (const auto& n : wavefront::Scene::builtinSceneNames()) std::printf("%s\n", n.c_str());
        return 0;
    }

    wfcli::ProgressLine progress;
    try {
        wavefront::RenderOptions options = wfcli::renderOptions(args, true);
        options.progress = [&](std::uint64_t d, std::uint64_t t, double s) { progress(d, t, s); };
        double loadSeconds = 0.0;
        wavefront::Scene scene = wfcli::loadScene(args, loadSeconds);
        wfcli::useFileSettings(scene.fileSettings(), app, args, options);
        wavefront::Renderer renderer(std::move(scene), options);
        renderer.render();
        progress.finish();
        std::uint64_t clamped = 0;
        wavefront::Image image = wavefront::filterImage(renderer.film().resolve(&clamped), options.filter);
        std::uint64_t replaced = wfcli::writeOutput(args, image, renderer);
        wfcli::printSummary(wfcli::scheduleName(options), renderer.stats(), image, args.out, clamped, replaced);
        if (args.stats) wfcli::printStats(options, renderer.stats(), loadSeconds);
        return 0;
    } catch (const wavefront::InputError& e) {
        progress.finish();
        std::fprintf(stderr, "wavefront-render: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        progress.finish();
        std::fprintf(stderr, "wavefront-render: error: %s\n", e.what());
        return 1;
    }
}
