#include "host/backends/cpu/thread_pool.h"

#include <wavefront/error.h>

#include <sched.h>

#include <algorithm>
#include <system_error>

namespace wavefront {

int cpuThreadCount() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    return int(std::max(1u, std::thread::hardware_concurrency()));
}

std::thread startThread(std::function<void()> body) {
    try {
        return std::thread(std::move(body));
    } catch (const std::system_error& e) {
        throw InputError(std::string("cannot start a thread: ") + e.what() +
                         " (the process's limits on threads or memory; fewer --devices workers need fewer)");
    }
}

ThreadPool::ThreadPool(int threads) {
    const int n = threads > 0 ? threads : cpuThreadCount();
    workers_.reserve(std::size_t(n - 1));  // no reallocation between a thread's start and its keeping
    try {
        for (int i = 0; i < n - 1; ++i) workers_.push_back(startThread([this] { workerLoop(); }));
    } catch (...) {
        stopWorkers();  // a joinable std::thread destroyed unjoined would call std::terminate
        throw;
    }
}

ThreadPool::~ThreadPool() { stopWorkers(); }

void ThreadPool::stopWorkers() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::runChunks() {
    for (;;) {
        int begin;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            begin = nextChunk_ * chunk_;
            if (begin >= n_ || error_) return;
            ++nextChunk_;
        }
        try {
            (*body_)(begin, std::min(n_, begin + chunk_));
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!error_) error_ = std::current_exception();
        }
    }
}

void ThreadPool::workerLoop() {
    unsigned seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            ++busy_;
        }
        runChunks();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            --busy_;
        }
        done_.notify_all();
    }
}

void ThreadPool::parallelFor(int n, int chunk, const std::function<void(int, int)>& body) {
    if (n <= 0) return;
    chunk = std::max(1, chunk);
    if (workers_.empty() || n <= chunk) {
        // Still in chunks: a body may keep per-chunk state sized for `chunk` items (compactingFor).
        for (int begin = 0; begin < n; begin += chunk) body(begin, std::min(n, begin + chunk));
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        body_ = &body;
        n_ = n;
        chunk_ = std::max(1, chunk);
        nextChunk_ = 0;
        error_ = nullptr;
        ++generation_;
    }
    wake_.notify_all();
    runChunks();
    std::exception_ptr error;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        // Wait until every chunk was taken and no worker is still inside this job.
        done_.wait(lock, [&] { return busy_ == 0 && (nextChunk_ * chunk_ >= n_ || error_); });
        body_ = nullptr;
        error = error_;
    }
    if (error) std::rethrow_exception(error);
}

}  // namespace wavefront
