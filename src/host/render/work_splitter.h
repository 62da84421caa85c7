// How the devices of one multi-device render share its work (multi_device_backend.h).
//
// PT and BDPT: the call's sample range is cut into one contiguous piece per device, in proportion
// to each device's speed in the last call. A device that finishes its piece takes the far part of
// the piece with the most time left: it asks, the device running that piece moves the end of its
// work range back at its next poll (ShrinkWorkStage) and says where the end now is, and the asker
// renders from there to the old end. So a slower device takes less, every device runs until the
// range is done, and the pieces still cover the range exactly once, whatever the timing: the film
// is the one a single device renders (up to the order of the additions).
//
// MLT: every device runs its own chains for a fixed share of the mutations; the splitter only
// gathers progress and stops them together.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "host/integrators/render_budget.h"

namespace wavefront {

/// Samples [first, first + count) for one device.
struct WorkPiece {
    std::uint64_t first = 0, count = 0;
};

class WorkSplitter : public SharedWork {
public:
    struct Settings {
        std::uint64_t first = 0, count = 0;  ///< the range to split (MLT: the mutations)
        std::vector<double> speeds;          ///< relative speed of each device (> 0)
        bool splittable = true;              ///< false (MLT): each device keeps its first piece
        /// A device takes part of another's piece only if that one would otherwise run this much
        /// longer (a piece costs its taker a stream's fill and drain).
        double minStealSeconds = 0.0;
        /// Progress reports: samples done before this round, the call's total (0: time-limited),
        /// and when the call started.
        std::uint64_t progressBase = 0, progressTotal = 0;
        std::chrono::steady_clock::time_point callStart = std::chrono::steady_clock::now();
    };

    WorkSplitter(const RenderCall& call, Settings settings);

    /// Device thread: its next piece (first its share, then what it takes from others); false
    /// when nothing is left for it or the render was stopped.
    bool next(int device, WorkPiece& piece);
    /// Device thread: its current piece has ended with `rendered` samples.
    void done(int device, std::uint64_t rendered);
    /// Device thread, when its work failed: stops every device (none waits on it any more).
    void abort(int device);

    RunVerdict report(int device, std::uint64_t done, std::uint64_t& shrinkTo) override;
    void shrunk(int device, std::uint64_t end) override;

    bool stopped() const;
    /// Samples device `device` has rendered in this round, and in how many pieces.
    std::uint64_t rendered(int device) const;
    std::uint64_t pieces(int device) const;
    /// Pieces taken from other devices in this round (for the tests).
    int steals() const;

private:
    struct Device {
        WorkPiece piece;
        std::uint64_t handedOut = 0;  ///< absolute sample index reached in the piece
        std::uint64_t rendered = 0;   ///< samples of its finished pieces
        std::uint64_t pieces = 0;     ///< finished pieces
        bool started = false, running = false;
        std::uint64_t end() const { return piece.first + piece.count; }
        /// Takes `p` as the running piece.
        void run(const WorkPiece& p) {
            piece = p;
            handedOut = p.first;
            running = true;
        }
        // A request to give up the end of the piece: pending, then issued to the driver, then
        // answered with the piece the asker gets (empty when the piece ended first).
        enum class Ask { None, Pending, Issued } ask = Ask::None;
        std::uint64_t askFrom = 0;
    };
    struct Answer {
        bool ready = false;
        WorkPiece piece;
    };

    double elapsed() const;
    double speedOf(int device, double seconds) const;
    std::uint64_t doneLocked() const;
    void stopLocked();

    const RenderCall& call_;
    Settings s_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<Device> devices_;
    std::vector<Answer> answers_;  ///< per asking device
    std::vector<int> askedBy_;     ///< per device: who asked it (-1: nobody)
    bool stopped_ = false;
    int steals_ = 0;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::mutex progressMutex_;     ///< one progress call at a time
};

}  // namespace wavefront
