// One image on several devices of one exec type (every CUDA device of a host, or a chosen list;
// on the CPU, workers that share its threads, which lets the tests run this code without a GPU).
// Each device holds its own copy of the scene, its own film and runner, and runs on a thread of
// its own with its device current; the work is split by a WorkSplitter, and the films are added
// on the host at the end of every call.
#pragma once
#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "host/backends/cpu/thread_pool.h"
#include "host/render/exec_render_backend.h"
#include "host/render/work_splitter.h"

namespace wavefront {

namespace multidevice {

/// Runs `work(d)` for every device d on a thread of its own (the caller's thread waits), and
/// rethrows the first exception any of them threw.
template <class Work>
void forEachDevice(int devices, const Work& work) {
    std::vector<std::exception_ptr> errors(devices);
    std::vector<std::thread> threads;
    threads.reserve(std::size_t(devices));
    try {
        for (int d = 0; d < devices; ++d)
            threads.push_back(startThread([&, d] {
                try {
                    work(d);
                } catch (...) {
                    errors[d] = std::current_exception();
                }
            }));
    } catch (...) {  // no thread: join those started (destroying them unjoined aborts), then report
        for (std::thread& t : threads) t.join();
        throw;
    }
    for (std::thread& t : threads) t.join();
    for (std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}

/// Adds the films of every device into `out` (sums and sample counts; MLT's films are already
/// normalised per device, so the sum weighs each device's estimate by its mutations).
void addFilms(const std::vector<Film>& films, Film& out);
/// The statistics of one image from those of its devices (the integrator merges its own part).
RenderStats mergeStats(IntegratorType integrator, const std::vector<RenderStats>& perDevice, double seconds);
/// Device `d`'s own seed for MLT's chains (PT and BDPT keep the seed: their samples are numbered).
std::uint32_t deviceSeed(std::uint32_t seed, int d);

}  // namespace multidevice

template <class Exec>
class MultiDeviceBackend : public RenderBackend {
public:
    using Device = ExecRenderBackend<Exec>;
    /// `ids`: the devices; `bind(id)` makes device `id` current on the calling thread;
    /// `make(id)` builds a device's backend (scene upload and BVH build), on that thread;
    /// `minStealSeconds`: see WorkSplitter.
    MultiDeviceBackend(std::vector<int> ids, std::function<void(int)> bind,
                       std::function<std::unique_ptr<Device>(int)> make, double minStealSeconds)
        : ids_(std::move(ids)), bind_(std::move(bind)), devices_(ids_.size()), speeds_(ids_.size(), 1.0),
          minStealSeconds_(minStealSeconds) {
        try {
            onDevices([&](int d) { devices_[d] = make(ids_[d]); });
        } catch (...) {
            release();
            throw;
        }
        workSplit_ = devices_[0]->workSplit();
    }
    ~MultiDeviceBackend() override { release(); }

    std::string name() const override { return devices_[0]->name(); }

    void render(const RenderOptions& options, const RenderCall& call, RenderStats& stats) override {
        const auto start = std::chrono::steady_clock::now();
        const std::uint64_t pass = runner::passSamples(options, workSplit_);
        const bool timed = call.timeLimitSeconds > 0.0;
        const std::uint64_t asked = timed ? 0 : pass * std::uint64_t(call.samplesPerPixel);
        if (!call.accumulate || !started_) {  // a fresh film, with fresh runners
            next_ = runner::firstSample(options);
            sharedState_.reset(int(devices_.size()));
        }
        started_ = true;
        busy_.assign(devices_.size(), 0.0);
        rendered_.assign(devices_.size(), 0);
        pieces_.assign(devices_.size(), 0);
        bool stopped = false;
        if (workSplit_ == WorkSplit::Chains) {
            stopped = renderChains(options, call, asked, start);
        } else if (!timed) {
            stopped = renderRound(options, call, call.accumulate, asked, next_, asked, 0, start);
            next_ += asked;  // a cancelled call leaves holes, which no later call fills
        } else {
            stopped = renderTimed(options, call, pass, start);
        }
        shareState();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        for (std::size_t d = 0; d < devices_.size(); ++d)
            if (rendered_[d] > 0 && busy_[d] > 0.0) speeds_[d] = double(rendered_[d]) / busy_[d];

        std::vector<RenderStats> perDevice(devices_.size());
        onDevices([&](int d) { devices_[d]->collect(seconds, perDevice[d]); });
        seconds_ = call.accumulate ? seconds_ + seconds : seconds;
        if (!call.accumulate) busyTotal_.assign(devices_.size(), 0.0), piecesTotal_.assign(devices_.size(), 0);
        for (std::size_t d = 0; d < devices_.size(); ++d) {
            busyTotal_[d] += busy_[d];
            piecesTotal_[d] += pieces_[d];
            perDevice[d].devices.at(0).seconds = busyTotal_[d];
            perDevice[d].devices.at(0).pieces = piecesTotal_[d];
        }
        stats = multidevice::mergeStats(options.integrator, perDevice, seconds_);
        stats.cancelled = stopped;
        std::uint64_t done = 0;
        for (std::uint64_t r : rendered_) done += r;
        call.progress(done, asked, seconds);
    }

    /// Each device's film, normalised by its runner, added on the host.
    void downloadFilm(const RenderOptions& options, Film& film) override {
        std::vector<Film> films(devices_.size());
        onDevices([&](int d) { devices_[d]->downloadFilm(options, films[d]); });
        multidevice::addFilms(films, film);
    }

    DeviceImage resolveOnDevice(const RenderOptions& options) override {
        if (devices_.size() != 1)
            throw InputError("deviceImage() needs a single device (this renderer uses " + std::to_string(devices_.size()) +
                             "); image() adds the devices' films on the host");
        DeviceImage image;  // one device that is not the caller's: resolved with that device current
        onDevices([&](int d) { image = devices_[d]->resolveOnDevice(options); });
        return image;
    }

    void downloadPositions(std::size_t first, std::size_t count, glm::vec3* out) override {
        onDevices([&](int d) {  // every device holds the same; the first's are read
            if (d == 0) devices_[0]->downloadPositions(first, count, out);
        });
    }

    EditStats applyEdit(const Scene& scene, const SceneEdit& edit, const RenderOptions& options) override {
        // Every device holds its own copy: the bytes add up, the time is the slowest device's.
        std::vector<EditStats> each(devices_.size());
        onDevices([&](int d) { each[d] = devices_[d]->applyEdit(scene, edit, options); });
        EditStats total = each[0];
        for (std::size_t d = 1; d < each.size(); ++d) {
            total.bytesUploaded += each[d].bytesUploaded;
            total.seconds = std::max(total.seconds, each[d].seconds);
        }
        return total;
    }

private:
    /// Runs `work(d)` for every device on its own thread with the device current.
    template <class Work>
    void onDevices(const Work& work) {
        multidevice::forEachDevice(int(devices_.size()), [&](int d) {
            bind_(ids_[d]);
            work(d);
        });
    }

    /// A split over the devices at their speeds, reporting progress from `progressBase` of
    /// `progressTotal` (0: time-limited) since `callStart`.
    WorkSplitter::Settings splitSettings(std::uint64_t progressBase, std::uint64_t progressTotal,
                                         std::chrono::steady_clock::time_point callStart) const {
        WorkSplitter::Settings settings;
        settings.speeds = speeds_;
        settings.minStealSeconds = minStealSeconds_;
        settings.progressBase = progressBase;
        settings.progressTotal = progressTotal;
        settings.callStart = callStart;
        return settings;
    }

    /// Renders samples [first, first + count) over every device (PT and BDPT); `sizedFor`: the
    /// samples a fresh film's runners are sized for. True when the call was stopped.
    bool renderRound(const RenderOptions& options, const RenderCall& call, bool accumulate, std::uint64_t sizedFor,
                     std::uint64_t first, std::uint64_t count, std::uint64_t progressBase,
                     std::chrono::steady_clock::time_point callStart) {
        WorkSplitter::Settings settings = splitSettings(progressBase, call.timeLimitSeconds > 0.0 ? 0 : sizedFor, callStart);
        settings.first = first;
        settings.count = count;
        WorkSplitter splitter(call, std::move(settings));
        return runSplit(options, call, accumulate, sizedFor, call.timeLimitSeconds > 0.0, false, splitter);
    }

    /// A time-limited PT or BDPT call: rounds of whole passes, each sized to half the time left
    /// at the speed measured so far, until the time is up (every pixel then has the same count,
    /// and the rounds overrun the limit by at most the last one).
    bool renderTimed(const RenderOptions& options, const RenderCall& call, std::uint64_t pass,
                     std::chrono::steady_clock::time_point start) {
        const std::uint64_t limit = runner::sampleLimit(options);
        std::uint64_t done = 0, passes = devices_.size();
        bool accumulate = call.accumulate;
        for (;;) {
            if (next_ + passes * pass > limit) passes = (limit - next_) / pass;
            if (passes == 0) throw InputError("the film is full: at most 2^48 samples go into one film");
            if (renderRound(options, call, accumulate, accumulate ? 0 : passes * pass, next_, passes * pass, done, start))
                return true;
            accumulate = true;
            next_ += passes * pass;
            done += passes * pass;
            const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (t >= call.timeLimitSeconds) return false;
            const double passesPerSecond = double(done / pass) / std::max(t, 1e-9);
            passes = std::max<std::uint64_t>(1, std::uint64_t(passesPerSecond * (call.timeLimitSeconds - t) * 0.5));
        }
    }

    /// Chains: every device runs chains of its own (its own seed) for a share of the mutations in
    /// proportion to its speed, or until the time limit, in one round: the runners trade their
    /// shared state while they run (SharedStateExchange; MLT's samples of b, so that every
    /// device's b averages the start-up pools and large steps of all of them, as one device's b
    /// would, not its share alone), and no device waits for another before the end of the call.
    bool renderChains(const RenderOptions& options, const RenderCall& call, std::uint64_t asked,
                      std::chrono::steady_clock::time_point start) {
        const bool timed = call.timeLimitSeconds > 0.0;
        const int n = int(devices_.size());
        WorkSplitter::Settings settings = splitSettings(0, asked, start);
        settings.splittable = false;
        if (timed) {  // a piece each, whatever the devices' speeds; the time limit ends them
            settings.count = std::uint64_t(n);
            settings.speeds.assign(std::size_t(n), 1.0);
        } else {
            settings.count = asked;
        }
        WorkSplitter splitter(call, std::move(settings));
        return runSplit(options, call, call.accumulate, timed ? 0 : asked / std::uint64_t(n), timed, timed, splitter);
    }

    /// Gives every device's runner the other devices' shared state as it stands at the end of a
    /// call (the next call starts from it); nothing when no runner shares any.
    void shareState() {
        std::vector<std::vector<double>> own(devices_.size());
        onDevices([&](int d) {
            if (devices_[d]->runner()) own[d] = devices_[d]->runner()->sharedState();
        });
        if (std::all_of(own.begin(), own.end(), [](const std::vector<double>& v) { return v.empty(); })) return;
        for (std::size_t d = 0; d < own.size(); ++d) sharedState_.exchange(int(d), own[d]);
        onDevices([&](int d) {
            const std::vector<double> others = sharedState_.exchange(d, own[std::size_t(d)]);
            if (devices_[d]->runner()) devices_[d]->runner()->absorbSharedState(others);
        });
    }

    /// Every device takes pieces from the splitter until none is left; pieces of chains are
    /// mutation counts (or a time limit), others sample ranges. `fillDevice`: a fresh film's
    /// runner fills the device (a time-limited call) instead of being sized for `sizedFor`;
    /// `timed`: each piece runs to the call's time limit (chains).
    bool runSplit(const RenderOptions& options, const RenderCall& call, bool accumulate, std::uint64_t sizedFor,
                  bool fillDevice, bool timed, WorkSplitter& splitter) {
        const bool chains = workSplit_ == WorkSplit::Chains;
        onDevices([&](int d) {
            try {
                const auto t0 = std::chrono::steady_clock::now();
                const RenderOptions o = optionsFor(options, d);
                RenderCall pieceCall;  // progress goes through the splitter
                pieceCall.cancel = call.cancel;
                pieceCall.timeLimitSeconds = timed ? call.timeLimitSeconds : 0.0;
                WorkPiece piece;
                bool begun = false;
                while (splitter.next(d, piece)) {
                    if (!begun) devices_[d]->beginCall(o, accumulate, sizedFor, fillDevice);
                    begun = true;
                    RenderBudget budget(pieceCall, piece.count, splitter, d, &sharedState_);
                    std::uint64_t done = chains ? devices_[d]->renderPart(o, timed ? 0 : piece.count, budget)
                                             : devices_[d]->renderPart(o, piece.count, budget, piece.first);
                    splitter.done(d, done);
                }
                // A device with no work still starts a fresh film when the call asks for one.
                if (!begun) devices_[d]->beginCall(o, accumulate, sizedFor, fillDevice);
                busy_[d] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                rendered_[d] += splitter.rendered(d);
                pieces_[d] += splitter.pieces(d);
            } catch (...) {
                splitter.abort(d);
                throw;
            }
        });
        return splitter.stopped() || (call.cancel && call.cancel->load());
    }

    RenderOptions optionsFor(const RenderOptions& options, int d) const {
        RenderOptions o = options;
        if (workSplit_ == WorkSplit::Chains) o.seed = multidevice::deviceSeed(options.seed, d);
        return o;
    }

    /// Frees each device's backend with that device current (from the destructor: not thrown).
    void release() {
        try {
            onDevices([&](int d) { devices_[d].reset(); });
        } catch (...) {
        }
    }

    std::vector<int> ids_;
    std::function<void(int)> bind_;
    std::vector<std::unique_ptr<Device>> devices_;
    std::vector<double> speeds_;       ///< samples per second of each device in the last call
    WorkSplit workSplit_ = WorkSplit::SampleRanges;  ///< the devices' (ExecRenderBackend::workSplit)
    SharedStateExchange sharedState_;  ///< the runners' shared state, traded while they run
    std::vector<double> busy_;         ///< this call: seconds each device rendered
    std::vector<double> busyTotal_;    ///< the film's calls: seconds each device rendered
    std::vector<std::uint64_t> rendered_, pieces_;  ///< this call, per device
    std::vector<std::uint64_t> piecesTotal_;        ///< the film's calls, per device
    double minStealSeconds_ = 0.0;
    std::uint64_t next_ = 0;           ///< PT and BDPT: the film's next sample index
    bool started_ = false;
    double seconds_ = 0.0;
};

}  // namespace wavefront
