// A fixed pool of worker threads for the CPU backend.
#pragma once
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wavefront {

class ThreadPool {
public:
    /// threads == 0: one per hardware thread.
    /// `threads` threads, the caller included (0: defaultThreadCount()).
    explicit ThreadPool(int threads = 0);
    /// The threads a pool of 0 has: one per CPU.
    static int defaultThreadCount();
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return int(workers_.size()) + 1; }

    /// Calls body(begin, end) over [0, n) in chunks of `chunk`, on all workers and the caller;
    /// returns when every chunk is done. Exceptions from the body are rethrown here.
    void parallelFor(int n, int chunk, const std::function<void(int, int)>& body);

private:
    void workerLoop();
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
