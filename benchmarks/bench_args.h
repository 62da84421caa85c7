// Helpers shared by the benchmark programs: their command line, through CLI11 like the render CLI
// (examples/render_main.cpp). --help prints the usage; a bad command line (unknown flag, missing
// value, a value that does not parse or is out of range) prints one line "NAME: message" on
// stderr and exits with 2.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "wavefront/wavefront.h"

/// "a,b,c" -> {"a", "b", "c"}.
inline std::vector<std::string> splitList(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
    return out;
}

/// {"a", "b", "c"} -> "a,b,c" (or "a, b, c" with separator ", ").
inline std::string joinList(const std::vector<std::string>& items, const std::string& separator = ",") {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
    return out;
}

/// "WIDTHxHEIGHT" -> {width, height}; throws wavefront::InputError for anything else.
inline std::pair<int, int> parseResolution(const std::string& res) {
    int w = 0, h = 0;
    char x = 0, extra = 0;
    if (std::sscanf(res.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X') || w <= 0 || h <= 0)
        throw wavefront::InputError("resolution '" + res + "' is not of the form WIDTHxHEIGHT (positive numbers)");
    return {w, h};
}

/// Throws wavefront::InputError unless `name` is a built-in scene.
inline void checkBuiltinScene(const std::string& name) {
    std::vector<std::string> names = wavefront::Scene::builtinSceneNames();
    for (const std::string& n : names)
        if (n == name) return;
    throw wavefront::InputError("unknown scene '" + name + "'; built-in scenes: " + joinList(names, ", "));
}

/// A benchmark's main: runs `body(argc, argv)` and turns what escapes it into one line on stderr,
/// "NAME: message", and exit code 2 for an InputError (bad input, found past the command line:
/// an option combination the library refuses), 1 for any other error; an escaped exception
/// aborted the program with "terminate called after throwing ..." before.
///   static int run(int argc, char** argv) { ... }
///   int main(int argc, char** argv) { return benchMain("bdpt", argc, argv, run); }
inline int benchMain(const char* name, int argc, char** argv, int (*body)(int, char**)) {
    try {
        return body(argc, argv);
    } catch (const wavefront::InputError& e) {
        std::fflush(stdout);  // the table so far, then the reason it ends
        std::fprintf(stderr, "%s: %s\n", name, e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fflush(stdout);
        std::fprintf(stderr, "%s: error: %s\n", name, e.what());
        return 1;
    }
}

/// One benchmark's command line. Every benchmark has --backend (auto, cuda or cpu; without it cuda
/// when a CUDA device is visible, else cpu); the add* calls declare the rest, each bound to the
/// variable that holds its default. A flag given twice takes the last value, as the hand-written
/// loops did.
///   BenchArgs args("bdpt", "BDPT schedules");
///   args.add("--spp", spp, "samples per pixel");
///   if (auto rc = args.parse(argc, argv)) return *rc;
///   ... args.backend ...
class BenchArgs {
public:
    /// A check of one value: throws (wavefront::InputError, std::exception) when it is bad.
    using Check = std::function<void(const std::string&)>;

    BenchArgs(std::string name, std::string description) : name_(std::move(name)), app_(std::move(description), name_) {
        app_.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
        backendOption_ = app_.add_option("--backend", backendName_,
                                         "auto, cuda or cpu (default: cuda when a CUDA device is visible, else cpu)");
        backendOption_->check(validator([](const std::string& s) { wavefront::parseBackend(s); }))->type_name("BACKEND");
    }

    wavefront::Backend backend = wavefront::Backend::Cpu;  ///< set by parse()
    CLI::App& app() { return app_; }

    /// An option whose value CLI11 converts into `value` (a number or a string).
    template <class T>
    CLI::Option* add(const std::string& flag, T& value, const std::string& help) {
        return app_.add_option(flag, value, help)->capture_default_str();
    }
    /// An integer option of at least `min`; a smaller value is an error.
    CLI::Option* addAtLeast(const std::string& flag, int& value, int min, const std::string& help) {
        return add(flag, value, help + " (at least " + std::to_string(min) + ")")
            ->check(validator([min](const std::string& s) {
                char* end = nullptr;
                long v = std::strtol(s.c_str(), &end, 10);
                if (end != s.c_str() && *end == 0 && v < min)  // not a number: CLI11's conversion says so
                    throw wavefront::InputError(s + " is less than " + std::to_string(min));
            }));
    }
    /// A flag without a value.
    CLI::Option* addFlag(const std::string& flag, bool& value, const std::string& help) {
        return app_.add_flag(flag, value, help);
    }
    /// A 0/1 switch that takes a value: "--naive 0".
    CLI::Option* addSwitch(const std::string& flag, bool& value, const std::string& help) {
        return app_
            .add_option_function<std::string>(flag, [&value](const std::string& s) { value = s == "1"; }, help)
            ->check(CLI::IsMember({"0", "1"}).description(""))
            ->default_str(value ? "1" : "0")
            ->type_name("0|1");
    }
    /// One of a few words.
    CLI::Option* addChoice(const std::string& flag, std::string& value, const std::vector<std::string>& choices,
                           const std::string& help) {
        return add(flag, value, help)->check(CLI::IsMember(choices));
    }
    /// A resolution WIDTHxHEIGHT.
    CLI::Option* addResolution(const std::string& flag, int& width, int& height, const std::string& help) {
        return app_
            .add_option_function<std::string>(
                flag, [&width, &height](const std::string& s) { std::tie(width, height) = parseResolution(s); }, help)
            ->check(validator(parseResolution))
            ->default_str(std::to_string(width) + "x" + std::to_string(height))
            ->type_name("WxH");
    }
    /// A comma-separated list, "a,b,c", each item checked by `check`.
    CLI::Option* addList(const std::string& flag, std::vector<std::string>& value, const std::string& help,
                         Check check) {
        return app_
            .add_option_function<std::string>(flag, [&value](const std::string& s) { value = splitList(s); }, help)
            ->check(validator([check](const std::string& s) {
                for (const std::string& item : splitList(s)) check(item);
            }))
            ->default_str(joinList(value))
            ->type_name("LIST");
    }
    /// What the rendering benchmarks share: --scenes a,b,... (built-in scenes), --res WxH, --spp N
    /// (its help says what a sample is) and --max-depth N.
    void addRenderOptions(std::vector<std::string>& scenes, int& width, int& height, int& spp, int& maxDepth,
                          const std::string& sppHelp = "samples per pixel") {
        addList("--scenes", scenes, "built-in scenes", checkBuiltinScene);
        addResolution("--res", width, height, "image size");
        add("--spp", spp, sppHelp);
        add("--max-depth", maxDepth, "longest path in segments");
    }

    /// Parses the command line and sets `backend`. Returns the exit code when the program is to
    /// stop: 0 after --help (usage on stdout), 2 after "NAME: message" on stderr for a bad
    /// command line.
    std::optional<int> parse(int argc, char** argv) {
        try {
            app_.parse(argc, argv);
        } catch (const CLI::CallForHelp& e) {
            return app_.exit(e);
        } catch (const CLI::ParseError& e) {
            std::fprintf(stderr, "%s: %s\n", name_.c_str(), e.what());
            return 2;
        }
        backend = backendOption_->count() ? wavefront::parseBackend(backendName_)
                  : wavefront::cudaDeviceCount() > 0 ? wavefront::Backend::Cuda
                                                     : wavefront::Backend::Cpu;
        return std::nullopt;
    }

    /// A CLI11 check from a function that throws for a bad value: its message becomes the error.
    template <class F>
    static CLI::Validator validator(F check) {
        return CLI::Validator(
            [check](std::string& s) -> std::string {
                try {
                    check(s);
                    return {};
                } catch (const std::exception& e) {
                    return e.what();
                }
            },
            "");
    }

private:
    std::string name_;
    CLI::App app_;
    std::string backendName_;
    CLI::Option* backendOption_;
};
