// A fixed pool of worker threads for the CPU backend.
#pragma once
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wavefront {

/// The CPUs this process may run on (its affinity mask: `taskset -c 0` gives 1), at least 1.
int cpuThreadCount();

/// Starts a thread running `body`. Throws InputError, one line, when the system cannot create
/// one (std::thread's std::system_error, e.g. under `ulimit -u` or `ulimit -v`).
std::thread startThread(std::function<void()> body);

class ThreadPool {
public:
    /// `threads` threads, the caller included (0: cpuThreadCount()). Throws InputError when the
    /// threads cannot be created (those already started are stopped first).
    explicit ThreadPool(int threads = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return int(workers_.size()) + 1; }

    /// Calls body(begin, end) over [0, n) in chunks of `chunk`, on all workers and the caller;
    /// returns when every chunk is done. Exceptions from the body are rethrown here.
    void parallelFor(int n, int chunk, const std::function<void(int, int)>& body);

private:
    void workerLoop();
    void stopWorkers();
    void runChunks();

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(int, int)>* body_ = nullptr;
    int n_ = 0, chunk_ = 1;
    int nextChunk_ = 0;      // guarded by mutex_
    int busy_ = 0;           // workers inside runChunks
    unsigned generation_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;
};

}  // namespace wavefront
