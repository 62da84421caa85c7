// The grid's per-frame vertices computed on the GPU (animated_grid_device.cu; CUDA builds only).
#pragma once

namespace animation {

struct Grid;

/// A device buffer of the grid's positions and the stream its kernel runs on, which the renderer
/// takes as RenderOptions::cudaStream so that the edit's copy follows the kernel without a wait.
class DevicePositions {
public:
    explicit DevicePositions(const Grid& grid);
    ~DevicePositions();
    DevicePositions(const DevicePositions&) = delete;
    DevicePositions& operator=(const DevicePositions&) = delete;
    /// Queues the kernel that writes frame `frame`'s positions.
    void compute(int frame);
    /// Waits for the stream (the frame's end, for the wall clock).
    void finish();
    const float* positions() const { return positions_; }
    void* stream() const { return stream_; }

private:
    int columns_ = 0, rows_ = 0;
    float* positions_ = nullptr;
    struct CUstream_st* stream_ = nullptr;
};

}  // namespace animation
