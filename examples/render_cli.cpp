// The options and the report wavefront-render and wavefront-render-mpi share (render_cli.h).
#include "render_cli.h"

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cerrno>
#include <filesystem>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace wfcli {

namespace {

wavefront::RenderOptions parseResolution(const std::string& res, wavefront::RenderOptions o) {
    long long w = 0, h = 0;
    char x = 0, extra = 0;
    if (std::sscanf(res.c_str(), "%lld%c%lld%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X'))
        throw wavefront::InputError("resolution '" + res + "' is not of the form WIDTHxHEIGHT");
    // Read wide so that 4294967312x16 is refused, not taken as 16x16.
    if (w < 1 || h < 1 || w > (1 << 15) || h > (1 << 15))
        throw wavefront::InputError("resolution '" + res + "' is out of range (each side 1.." +
                                    std::to_string(1 << 15) + ")");
    o.width = int(w);
    o.height = int(h);
    return o;
}


/// Whole numbers in [low, high] separated by commas, exactly `count` of them (0: one or more).
/// Read wide, so that 4294967297 is refused rather than wrapped to 1.
std::vector<int> parseIntegers(const char* flag, const std::string& v, std::size_t count, const char* form, long long low,
                               long long high) {
    std::vector<int> numbers;
    for (std::size_t start = 0;;) {
        const std::size_t end = v.find(',', start);
        const std::string item = v.substr(start, end == std::string::npos ? std::string::npos : end - start);
        char* stop = nullptr;
        errno = 0;
        const long long number = std::strtoll(item.c_str(), &stop, 10);
        if (item.empty() || *stop != '\0' || !(std::isdigit(static_cast<unsigned char>(item[0])) || item[0] == '-'))
            throw wavefront::InputError(std::string(flag) + " '" + v + "' is not of the form " + form);
        if (errno == ERANGE || number < low || number > high)
            throw wavefront::InputError(std::string(flag) + " '" + v + "': " + item + " is out of range (" +
                                        std::to_string(low) + ".." + std::to_string(high) + ")");
        numbers.push_back(int(number));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    if (count != 0 && numbers.size() != count)
        throw wavefront::InputError(std::string(flag) + " '" + v + "' is not of the form " + form);
    return numbers;
}

/// Exactly `count` finite numbers separated by commas, e.g. "1,2.5,-3".
std::vector<float> parseNumbers(const char* flag, const std::string& v, std::size_t count, const char* form) {
    std::vector<float> numbers;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = v.find(',', start);
        const std::string item = v.substr(start, end == std::string::npos ? std::string::npos : end - start);
        char* stop = nullptr;
        const float number = std::strtof(item.c_str(), &stop);
        if (item.empty() || *stop != '\0' || !std::isfinite(number))
            throw wavefront::InputError(std::string(flag) + " '" + v + "' is not of the form " + form + " (finite numbers)");
        numbers.push_back(number);
        if (end == std::string::npos) break;
        start = end + 1;
    }
    if (numbers.size() != count)
        throw wavefront::InputError(std::string(flag) + " '" + v + "' is not of the form " + form + " (" +
                                    std::to_string(count) + " numbers)");
    return numbers;
}

/// --camera FX,FY,FZ,TX,TY,TZ,UX,UY,UZ,FOV: from, to, up and the vertical field of view in degrees.
wavefront::Camera parseCamera(const std::string& v) {
    const char* form = "FX,FY,FZ,TX,TY,TZ,UX,UY,UZ,FOV";
    const std::vector<float> n = parseNumbers("--camera", v, 10, form);
    wavefront::Camera camera;
    camera.position = glm::vec3(n[0], n[1], n[2]);
    camera.target = glm::vec3(n[3], n[4], n[5]);
    camera.up = glm::vec3(n[6], n[7], n[8]);
    camera.verticalFovDegrees = n[9];
    const glm::vec3 forward = camera.target - camera.position;
    if (!std::isfinite(glm::length(forward)) || !std::isfinite(glm::length(camera.up)))
        throw wavefront::InputError("--camera '" + v + "': from, to or up is too large: the distance from from to to, or "
                                    "the length of up, overflows float");
    if (!(glm::length(forward) > 0.0f))
        throw wavefront::InputError("--camera '" + v + "': from and to are the same point");
    if (!(glm::length(glm::cross(glm::normalize(forward), camera.up)) > 1e-6f))
        throw wavefront::InputError("--camera '" + v + "': the up vector is zero or parallel to the viewing direction");
    if (!(camera.verticalFovDegrees > 0.0f && camera.verticalFovDegrees < 180.0f))
        throw wavefront::InputError("--camera '" + v + "': the field of view must lie in (0, 180) degrees");
    return camera;
}

glm::vec3 parseUp(const std::string& v) {
    if (v == "y") return glm::vec3(0.0f, 1.0f, 0.0f);
    if (v == "z") return glm::vec3(0.0f, 0.0f, 1.0f);
    throw wavefront::InputError("--up '" + v + "' is not y or z");
}

/// One command-line flag per integrator option of the registry; a flag several integrators share
/// (--connect-threshold) is declared once, its help naming them.
void addIntegratorFlags(CLI::App& app, Args& a) {
    std::map<std::string, std::string> help;
    std::vector<std::string> order;
    for (const wavefront::IntegratorInfo& info : wavefront::integrators())
        for (const wavefront::IntegratorOptionInfo& o : info.options) {
            if (o.flag.empty()) continue;  // the API's alone
            std::string& h = help[o.flag];
            if (h.empty()) {
                order.push_back(o.flag);
                h = o.help + " [" + info.name + ": " + o.defaultValue;
            } else {
                h += ", " + info.name + ": " + o.defaultValue;
            }
        }
    for (const std::string& flag : order)
        a.integratorFlagOptions[flag] = app.add_option(flag, a.integratorFlags[flag], help[flag] + "]");
}

/// The integrator flags given, set on the chosen integrator; one that it does not have is refused.
void setIntegratorFlags(const Args& a, wavefront::RenderOptions& options) {
    const char* chosen = wavefront::toString(options.integrator);
    for (const auto& [flag, cliOption] : a.integratorFlagOptions) {
        if (!cliOption->count()) continue;
        std::string owners;
        const wavefront::IntegratorOptionInfo* mine = nullptr;
        for (const wavefront::IntegratorInfo& info : wavefront::integrators())
            for (const wavefront::IntegratorOptionInfo& o : info.options)
                if (o.flag == flag) {
                    owners += (owners.empty() ? "" : " or ") + info.name;
                    if (info.type == options.integrator) mine = &o;
                }
        if (!mine)
            throw wavefront::InputError(flag + " is an option of --integrator " + owners +
                                        "; it does not apply to --integrator " + chosen);
        wavefront::setIntegratorOption(options, mine->name, a.integratorFlags.at(flag));
    }
}

// The output's options against its format: --exposure and --tonemap shape 8-bit output only (PNG
// and JPEG; EXR and PFM keep the radiance as rendered); --aovs writes layers of an EXR.
void checkOutputOptions(const Args& a) {
    std::string extension = std::filesystem::path(a.out).extension().string();
    for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
    const bool eightBit = extension == ".png" || extension == ".jpg" || extension == ".jpeg";
    if (a.exposureOpt->count() && !eightBit)
        throw wavefront::InputError("--exposure applies to PNG and JPEG output only (" + a.out +
                                    " keeps the radiance as rendered)");
    if (a.toneMapOpt->count() && !eightBit)
        throw wavefront::InputError("--tonemap applies to PNG and JPEG output only (" + a.out +
                                    " keeps the radiance as rendered)");
    if (a.aovs && !a.aovFiles && extension != ".exr")
        throw wavefront::InputError("--aovs writes layers of an .exr --out (" + a.out + " is not); --aov-files writes them beside it");
}

}  // namespace

ProgressLine::ProgressLine() : tty_(isatty(2)) {}

std::uint64_t writeOutput(const Args& a, const wavefront::Image& image, const wavefront::Renderer& renderer) {
    if (!renderer.options().aovs) return wavefront::writeImage(a.out, image, a.exposure, wavefront::parseToneMap(a.toneMap));
    const wavefront::AovImages aovs = renderer.aovs();
    std::string extension = std::filesystem::path(a.out).extension().string();
    for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
    const std::uint64_t replaced = a.aovs && extension == ".exr" ? wavefront::writeImageWithAovs(a.out, image, aovs)
                                   : wavefront::writeImage(a.out, image, a.exposure, wavefront::parseToneMap(a.toneMap));
    if (a.aovFiles) {
        const std::filesystem::path out(a.out);
        const std::string stem = (out.parent_path() / out.stem()).string();
        const std::pair<const wavefront::Image*, const char*> layers[] = {
            {&aovs.albedo, "albedo"}, {&aovs.normal, "normal"}, {&aovs.depth, "depth"}, {&aovs.variance, "variance"}};
        for (const auto& [layer, name] : layers)
            if (layer->width > 0) wavefront::writeImage(stem + "." + name + ".exr", *layer);
    }
    return replaced;
}

void ProgressLine::operator()(std::uint64_t done, std::uint64_t total, double seconds) {
    bool final = total > 0 && done >= total;
    double interval = tty_ ? 0.25 : 5.0;
    if (final ? finalPrinted_ : seconds - last_ < interval) return;
    finalPrinted_ = final;
    last_ = seconds;
    double rate = seconds > 0 ? done / seconds : 0.0;
    if (total > 0) {
        double left = rate > 0 ? (total - done) / rate : 0.0;
        std::fprintf(stderr, "%s[wavefront] %llu / %llu samples (%.0f%%), %.2f M samples/s, %.1f s left%s",
                     tty_ ? "\r" : "", (unsigned long long)done, (unsigned long long)total, 100.0 * done / total,
                     rate * 1e-6, left, tty_ ? "   " : "\n");
    } else {
        std::fprintf(stderr, "%s[wavefront] %llu samples, %.2f M samples/s, %.1f s elapsed%s", tty_ ? "\r" : "",
                     (unsigned long long)done, rate * 1e-6, seconds, tty_ ? "   " : "\n");
    }
    std::fflush(stderr);
    printed_ = true;
}

void ProgressLine::finish() {
    if (printed_ && tty_) std::fputc('\n', stderr);
}

/// --devices: "all" (every CUDA device) or a comma-separated list of device numbers.
std::vector<int> parseDevices(const std::string& spec) {
    if (spec == "all") return {};
    return parseIntegers("--devices", spec, 0, "'all' or a list of device numbers such as 0,1", 0, 1023);
}

void addOptions(CLI::App& app, Args& a) {
    app.set_version_flag("--version", std::string("wavefront ") + WAVEFRONT_VERSION);
    app.add_option("scene", a.scene, "built-in scene name or path to a scene file (.obj, .gltf, .glb, .ply, ...)")
        ->capture_default_str();
    std::string integratorNames;
    for (const wavefront::IntegratorInfo& info : wavefront::integrators())
        integratorNames += (integratorNames.empty() ? "" : ", ") + info.name;
    app.add_option("--integrator", a.integrator, integratorNames)->capture_default_str();
    addIntegratorFlags(app, a);
    app.add_option("--backend", a.backend, "auto, cuda or cpu")->capture_default_str();
    auto* sppOpt = app.add_option("--spp", a.spp, "samples per pixel")->capture_default_str();
    a.timeOpt = app.add_option("--time", a.seconds, "render whole passes for this many seconds instead");
    sppOpt->excludes(a.timeOpt);
    app.add_option("--max-depth", a.maxDepth, "longest path in segments")->capture_default_str();
    app.add_option("--devices", a.devices,
                   "CUDA devices that render the image together: all, or a list such as 0,1 (the CPU backend: "
                   "that many workers)")
        ->capture_default_str();
    app.add_option("--res", a.res, "resolution WIDTHxHEIGHT")->capture_default_str();
    app.add_option("-t,--threads,--nthreads", a.threads,
                   "CPU backend: rendering threads (0: every CPU the process may use)")
        ->capture_default_str();
    app.add_option("--seed", a.seed, "random seed")->capture_default_str();
    app.add_option("-o,--out,--outfile", a.out, "output image: .png, .jpg (quality 95), .exr or .pfm")
        ->capture_default_str();
    a.exposureOpt = app.add_option("--exposure", a.exposure, "PNG and JPEG exposure in stops")->capture_default_str();
    app.add_option("--stream-capacity", a.capacity, "path-state slots per stream (0: fill the device)");
    app.add_option("--light-sampler", a.lightSampler, "light choice: binary, guide, forest or alias")->capture_default_str();
    app.add_option("--bvh", a.bvhBuilder, "BVH builder: auto (PLOC with triangles, else LBVH), lbvh or ploc")
        ->capture_default_str();
    auto* envmapOpt = app.add_option("--envmap", a.envmap, "HDR latitude-longitude environment map (.exr, .pfm or .hdr)");
    app.add_option("--sky", a.sky,
                   "built-in sky lighting the scene: uniform (radiance 1), gradient (an image), or rtiow (Ray Tracing "
                   "in One Weekend's, computed from the direction; y up)")
        ->excludes(envmapOpt);
    app.add_option("--camera", a.cameraSpec,
                   "camera FX,FY,FZ,TX,TY,TZ,UX,UY,UZ,FOV: from, to, up, vertical field of view in degrees "
                   "(default: the file's camera, else one that frames the model)");
    app.add_option("--lens", a.lensSpec, "thin lens RADIUS,FOCUS (focus distance) on the camera");
    app.add_option("--up", a.up, "the model's up axis, y or z, for the default camera and the sky")->capture_default_str();
    app.add_flag("--strict", a.strict, "treat the scene loader's warnings as errors");
    a.envScaleOpt = app.add_option("--envmap-scale", a.envScale, "multiplies the environment (--envmap, --sky or the file's)")
                        ->capture_default_str();
    app.add_flag("--allow-external-files", a.allowExternal,
                 "let an OBJ's mtllib name files outside the OBJ's folder (absolute paths, ..)");
    app.add_option("--filter", a.filter, "pixel filter: box, gaussian or mitchell")->capture_default_str();
    app.add_option("--crop", a.crop,
                   "render only the pixels x0,y0,x1,y1 (columns x0..x1-1, rows y0..y1-1) of the --res frame; the "
                   "image is the window's size");
    a.toneMapOpt = app.add_option("--tonemap", a.toneMap, "PNG and JPEG tone map: clamp, reinhard or aces")
                       ->capture_default_str();
    app.add_flag("--aovs", a.aovs, "render first-hit albedo, normal, depth and (PT, BDPT) variance as layers of the .exr --out");
    app.add_flag("--aov-files", a.aovFiles, "render the AOVs and write each to OUT-STEM.<layer>.exr as well");
    app.add_flag("--stats", a.stats, "print per-kernel times, rays/s and SIMD efficiency");
    app.add_flag("--list-scenes", a.listScenes, "list the built-in scenes and exit");
}

wavefront::RenderOptions renderOptions(const Args& a, bool checkOutput) {
    wavefront::RenderOptions options = parseResolution(a.res, {});
    options.integrator = wavefront::parseIntegrator(a.integrator);
    options.backend = wavefront::parseBackend(a.backend);
    options.samplesPerPixel = a.spp;
    if (a.timeOpt->count() && !(a.seconds > 0.0 && std::isfinite(a.seconds)))
        throw wavefront::InputError("--time " + std::to_string(a.seconds) + " must be a finite number of seconds above 0");
    options.timeLimitSeconds = a.seconds;
    options.maxDepth = a.maxDepth;
    options.seed = a.seed;
    options.devices = parseDevices(a.devices);
    options.streamCapacity = a.capacity;
    options.cpuThreads = a.threads;
    options.lightSampler = wavefront::parseLightSampler(a.lightSampler);
    options.bvhBuilder = wavefront::parseBvhBuilder(a.bvhBuilder);
    options.environmentMap = a.envmap;
    options.environmentScale = a.envScale;
    setIntegratorFlags(a, options);
    if (checkOutput) wavefront::checkImagePath(a.out);  // before the render, not after it
    checkOutputOptions(a);
    options.filter = wavefront::parsePixelFilter(a.filter);
    wavefront::parseToneMap(a.toneMap);
    if (!a.crop.empty()) {
        // In range of any frame here; validate() checks it against the resolution.
        const std::vector<int> c = parseIntegers("--crop", a.crop, 4, "x0,y0,x1,y1", 0, 1 << 15);
        options.crop = wavefront::CropWindow{c[0], c[1], c[2], c[3]};
    }
    options.aovs = a.aovs || a.aovFiles;
    if (!(std::fabs(a.exposure) <= 64.0f))
        throw wavefront::InputError("--exposure " + std::to_string(a.exposure) + " must be a finite number of stops in [-64, 64]");
    options.validate();
    return options;
}

wavefront::Scene loadScene(const Args& a, double& loadSeconds) {
    const glm::vec3 upAxis = parseUp(a.up);
    // Checked before the scene loads, which can take seconds.
    const bool cameraGiven = !a.cameraSpec.empty();
    const wavefront::Camera cameraOption = cameraGiven ? parseCamera(a.cameraSpec) : wavefront::Camera{};
    std::vector<float> lens;
    if (!a.lensSpec.empty()) {
        lens = parseNumbers("--lens", a.lensSpec, 2, "RADIUS,FOCUS");
        if (lens[0] < 0.0f || !(lens[1] > 0.0f))
            throw wavefront::InputError("--lens '" + a.lensSpec + "': the radius must be >= 0 and the focus distance > 0");
    }
    wavefront::Image skyImage;
    if (!a.sky.empty() && a.sky != "uniform" && a.sky != "gradient" && a.sky != "rtiow")
        throw wavefront::InputError("--sky '" + a.sky + "' is not uniform, gradient or rtiow");
    const bool rtiowSky = a.sky == "rtiow";
    if (rtiowSky && a.up != "y") throw wavefront::InputError("--sky rtiow has y up; it does not take --up " + a.up);
    if (!a.sky.empty() && !rtiowSky) skyImage = wavefront::skyEnvironment(a.sky, upAxis);

    const auto loadStart = std::chrono::steady_clock::now();
    wavefront::Scene world = wavefront::Scene::fromNameOrPath(a.scene, {a.allowExternal});
    loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loadStart).count();
    for (const std::string& w : world.warnings()) std::fprintf(stderr, "[wavefront] warning: %s\n", w.c_str());
    if (a.strict && !world.warnings().empty())
        throw wavefront::InputError("--strict: " + std::to_string(world.warnings().size()) +
                                    " loader warning(s), the first: " + world.warnings().front());
    if (cameraGiven)
        world.setCamera(cameraOption);
    else if (world.cameraIsDefault())
        world.frameCamera(upAxis);
    if (!lens.empty()) {
        wavefront::Camera camera = world.camera();
        camera.lensRadius = lens[0];
        camera.focusDistance = lens[1];
        world.setCamera(camera);
    }
    if (rtiowSky)
        world.setSkyGradient(wavefront::SkyGradient{});
    else if (!a.sky.empty())
        world.setEnvironment(std::move(skyImage));
    if (a.envScaleOpt->count() && a.envmap.empty() && !world.hasEnvironment())
        throw wavefront::InputError("--envmap-scale: scene '" + a.scene + "' has no environment to scale (add --envmap or --sky)");
    if (a.envmap.empty() && !world.hasEmitter())
        throw wavefront::InputError("scene '" + a.scene + "' has no light (no emitter, no point, spot or directional light, no environment map): "
                                    "light it with --sky uniform|gradient or --envmap FILE");
    return world;
}

void useFileSettings(const wavefront::SceneFileSettings& file, const CLI::App& app, Args& a,
                     wavefront::RenderOptions& options) {
    if (file.width > 0 && app.count("--res") == 0)
        options = parseResolution(std::to_string(file.width) + "x" + std::to_string(file.height), options);
    if (!file.outputFile.empty() && app.count("--out") == 0) {
        wavefront::checkImagePath(file.outputFile);
        a.out = file.outputFile;
        checkOutputOptions(a);
    }
    if (file.maxDepth > 0 && app.count("--max-depth") == 0) options.maxDepth = file.maxDepth;
    options.validate();
}

std::string scheduleName(const wavefront::RenderOptions& options) {
    if (options.integrator == wavefront::IntegratorType::PathTracer) return toString(options.pt.variant);
    std::string name = toString(options.integrator);
    if (options.integrator == wavefront::IntegratorType::Bdpt) return name + " " + toString(options.bdpt.variant);
    // MLT and MMLT run on the streaming BDPT; VCM, BPM and PPM on either of BDPT's schedules.
    const wavefront::VcmOptions* merging = options.integrator == wavefront::IntegratorType::Vcm   ? &options.vcm
                                           : options.integrator == wavefront::IntegratorType::Bpm ? &options.bpm
                                           : options.integrator == wavefront::IntegratorType::Ppm ? &options.ppm
                                                                                                   : nullptr;
    if (merging && merging->variant == wavefront::BdptVariant::Naive) return name + " naive (a thread per subpath)";
    return name + " streaming";
}

void printSummary(const std::string& schedule, const wavefront::RenderStats& st, const wavefront::Image& image,
                  const std::string& out, std::uint64_t clamped, std::uint64_t replaced) {
    std::fprintf(stderr, "[wavefront] %s on %s: %llu samples in %.3f s (%.2f M samples/s, %.1f M rays/s); wrote %s\n",
                 schedule.c_str(), st.backend.c_str(), (unsigned long long)st.samples, st.seconds,
                 st.samplesPerSecond() * 1e-6, st.raysPerSecond() * 1e-6, wavefront::printable(out).c_str());
    if (st.skippedDegenerateTriangles)
        std::fprintf(stderr, "[wavefront] skipped %llu degenerate (zero-area) triangles\n",
                     (unsigned long long)st.skippedDegenerateTriangles);
    if (st.nonFiniteSamples)
        std::fprintf(stderr, "[wavefront] dropped %llu non-finite samples\n", (unsigned long long)st.nonFiniteSamples);
    bool black = true;
    for (float v : image.rgb) black = black && v == 0.0f;
    if (black)
        std::fprintf(stderr, "[wavefront] warning: the image is entirely black (is the scene lit, and does the camera "
                             "see it? --camera, --up, --sky)\n");
    if (clamped || replaced)
        std::fprintf(stderr,
                     "[wavefront] warning: %llu pixel values beyond the float range clamped to +-FLT_MAX, %llu "
                     "non-finite values replaced in %s\n",
                     (unsigned long long)clamped, (unsigned long long)replaced, wavefront::printable(out).c_str());
}

void printStats(const wavefront::RenderOptions& options, const wavefront::RenderStats& st, double loadSeconds) {
    std::printf("scene: loaded in %.3f s; BVH build and upload %.3f s (%s); %llu triangles, %llu spheres, %llu "
                "instances, %llu textures (%.2f MiB)\n",
                loadSeconds, st.sceneSetupSeconds, st.bvhBuilder.c_str(), (unsigned long long)st.triangles,
                (unsigned long long)st.spheres, (unsigned long long)st.instances,
                (unsigned long long)st.textures, st.textureBytes / 1048576.0);
    const bool cuda = st.backend.rfind("cuda", 0) == 0;
    std::printf("memory: %.1f MiB of %s held, %.1f MiB at most\n", st.memoryBytes / 1048576.0,
                cuda ? "device memory" : "host memory (CPU backend)", st.peakMemoryBytes / 1048576.0);
    std::printf("%-24s %12s %10s %10s %10s\n", "kernel", "ms", "launches", "simd occ", "simd steps");
    auto percent = [](double v) {
        char b[16] = "-";
        if (v >= 0) std::snprintf(b, sizeof b, "%.1f%%", 100.0 * v);
        return std::string(b);
    };
    for (const auto& k : st.kernels)
        std::printf("%-24s %12.3f %10llu %10s %10s\n", k.label.c_str(), k.milliseconds, (unsigned long long)k.launches,
                    percent(k.simdOccupancy).c_str(), percent(k.simdEfficiency).c_str());
    std::printf("samples %llu, extension rays %llu, shadow rays %llu, %.1f M rays/s, stream capacity %d, %llu bytes/slot\n",
                (unsigned long long)st.samples, (unsigned long long)st.extensionRays, (unsigned long long)st.shadowRays,
                st.raysPerSecond() * 1e-6, st.streamCapacity, (unsigned long long)st.bytesPerSampleSlot);
    if (st.devices.size() > 1)
        for (const auto& d : st.devices)
            std::printf("device %s: %llu samples in %llu pieces, %.3f s\n", d.name.c_str(), (unsigned long long)d.samples,
                        (unsigned long long)d.pieces, d.seconds);
    const auto figures = wavefront::integratorFigures(options.integrator, st);
    if (!figures.empty()) {
        std::printf("%s:", toString(options.integrator));
        for (std::size_t i = 0; i < figures.size(); ++i)
            std::printf("%s %s %.6g", i ? "," : "", figures[i].first.c_str(), figures[i].second);
        std::printf("\n");
    }
}

}  // namespace wfcli
