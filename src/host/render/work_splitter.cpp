#include "host/render/work_splitter.h"

#include <algorithm>
#include <numeric>

namespace wavefront {

WorkSplitter::WorkSplitter(const RenderCall& call, Settings settings)
    : call_(call), s_(std::move(settings)), devices_(s_.speeds.size()), answers_(s_.speeds.size()),
      askedBy_(s_.speeds.size(), -1) {
    // Initial pieces in proportion to the speeds; the last device takes what rounding leaves.
    const double total = std::accumulate(s_.speeds.begin(), s_.speeds.end(), 0.0);
    std::uint64_t at = s_.first, end = s_.first + s_.count;
    double share = 0.0;
    for (std::size_t d = 0; d < devices_.size(); ++d) {
        share += s_.speeds[d] / total;
        std::uint64_t to = d + 1 == devices_.size() ? end : s_.first + std::uint64_t(double(s_.count) * share);
        to = std::clamp(to, at, end);
        devices_[d].piece = WorkPiece{at, to - at};
        at = to;
    }
}

double WorkSplitter::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::uint64_t WorkSplitter::doneLocked() const {
    std::uint64_t done = 0;
    for (const Device& d : devices_) done += d.rendered + (d.running ? d.handedOut - d.piece.first : 0);
    return done;
}

/// Samples per second handed out by `device` in this round (0 before it has reported).
double WorkSplitter::speedOf(int device, double seconds) const {
    const Device& d = devices_[device];
    std::uint64_t handed = d.rendered + (d.running ? d.handedOut - d.piece.first : 0);
    return seconds > 0.0 ? double(handed) / seconds : 0.0;
}

void WorkSplitter::stopLocked() {
    stopped_ = true;
    changed_.notify_all();
}

bool WorkSplitter::next(int device, WorkPiece& piece) {
    std::unique_lock<std::mutex> lock(mutex_);
    Device& self = devices_[device];
    if (!self.started) {
        self.started = true;
        if (stopped_ || self.piece.count == 0) return false;
        self.run(self.piece);
        piece = self.piece;
        return true;
    }
    while (s_.splittable && !stopped_ && !(call_.cancel && call_.cancel->load())) {
        // The running piece that would take longest to finish alone.
        const double t = elapsed(), mine = speedOf(device, t);
        // A device that has not reported yet is taken to be as fast as this one.
        auto speed = [&](int v) { return speedOf(v, t) > 0.0 ? speedOf(v, t) : std::max(mine, 1.0); };
        int victim = -1;
        double longest = 0.0;
        for (int v = 0; v < int(devices_.size()); ++v) {
            const Device& d = devices_[v];
            if (v == device || !d.running || d.ask != Device::Ask::None) continue;
            const std::uint64_t left = d.end() - d.handedOut;
            const double seconds = double(left) / speed(v);
            if (left >= 2 && seconds > longest) {
                longest = seconds;
                victim = v;
            }
        }
        if (victim < 0 || longest < s_.minStealSeconds) break;
        // Take the part that lets both finish together at the speeds seen so far.
        Device& v = devices_[victim];
        const double fraction = mine > 0.0 ? mine / (mine + speed(victim)) : 0.5;
        const std::uint64_t end = v.end(), left = end - v.handedOut;
        const std::uint64_t take = std::clamp<std::uint64_t>(std::uint64_t(double(left) * fraction), 1, left - 1);
        v.ask = Device::Ask::Pending;
        v.askFrom = end - take;
        askedBy_[victim] = device;
        answers_[device] = Answer{};
        changed_.wait(lock, [&] { return answers_[device].ready || stopped_; });
        if (stopped_) break;
        if (answers_[device].piece.count > 0) {
            self.run(answers_[device].piece);
            ++steals_;
            piece = self.piece;
            return true;
        }
    }
    return false;
}

void WorkSplitter::done(int device, std::uint64_t rendered) {
    std::lock_guard<std::mutex> lock(mutex_);
    Device& d = devices_[device];
    d.rendered += rendered;
    d.pieces += 1;
    d.running = false;
    if (d.ask != Device::Ask::None) {  // the piece ended before the request was served
        answers_[askedBy_[device]] = Answer{true, WorkPiece{}};
        d.ask = Device::Ask::None;
        askedBy_[device] = -1;
    }
    changed_.notify_all();
}

void WorkSplitter::abort(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    devices_[device].running = false;
    stopLocked();
}

RunVerdict WorkSplitter::report(int device, std::uint64_t done, std::uint64_t& shrinkTo) {
    std::uint64_t progress = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        Device& d = devices_[device];
        if (stopped_) return RunVerdict::Stop;
        d.handedOut = std::min(d.piece.first + done, d.end());
        if (d.ask == Device::Ask::Pending) {
            d.ask = Device::Ask::Issued;
            shrinkTo = d.askFrom;
            return RunVerdict::Shrink;
        }
        progress = s_.progressBase + doneLocked();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s_.callStart).count();
    bool keepGoing;
    {
        std::lock_guard<std::mutex> lock(progressMutex_);
        keepGoing = call_.progress(progress, s_.progressTotal, seconds);
    }
    if (!keepGoing) {
        std::lock_guard<std::mutex> lock(mutex_);
        stopLocked();
        return RunVerdict::Stop;
    }
    return RunVerdict::Continue;
}

void WorkSplitter::shrunk(int device, std::uint64_t end) {
    std::lock_guard<std::mutex> lock(mutex_);
    Device& d = devices_[device];
    const std::uint64_t oldEnd = d.end();
    end = std::clamp(end, d.piece.first, oldEnd);
    d.piece.count = end - d.piece.first;
    answers_[askedBy_[device]] = Answer{true, WorkPiece{end, oldEnd - end}};
    d.ask = Device::Ask::None;
    askedBy_[device] = -1;
    changed_.notify_all();
}

bool WorkSplitter::stopped() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stopped_;
}

std::uint64_t WorkSplitter::rendered(int device) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return devices_[device].rendered;
}

std::uint64_t WorkSplitter::pieces(int device) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return devices_[device].pieces;
}

int WorkSplitter::steals() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return steals_;
}

}  // namespace wavefront
