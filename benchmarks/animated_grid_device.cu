// benchmarks/animation's --positions device: the grid's vertices of a frame computed by a CUDA
// kernel into device memory, as a host that animates or skins on the GPU would, then handed to
// Renderer::setMeshPositionsOnDevice without a trip through the host.
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "../examples/animated_grid.h"
#include "animated_grid_device.h"

namespace animation {

namespace {

__global__ void gridPositionsKernel(int columns, int rows, int frame, float* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int perRow = columns + 1;
    if (i >= perRow * (rows + 1)) return;
    gridVertex(i % perRow, i / perRow, columns, rows, frame, out + 3 * static_cast<long long>(i));
}

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

}  // namespace

DevicePositions::DevicePositions(const Grid& grid) : columns_(grid.columns), rows_(grid.rows) {
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    check(cudaMalloc(&positions_, grid.vertices() * 3 * sizeof(float)), "cudaMalloc");
}

DevicePositions::~DevicePositions() {
    cudaFree(positions_);
    cudaStreamDestroy(stream_);
}

void DevicePositions::compute(int frame) {
    const int n = (columns_ + 1) * (rows_ + 1), block = 256;
    gridPositionsKernel<<<(n + block - 1) / block, block, 0, stream_>>>(columns_, rows_, frame, positions_);
    check(cudaGetLastError(), "the grid positions kernel");
}

void DevicePositions::finish() { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

}  // namespace animation
