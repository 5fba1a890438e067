// The bound and the floor of the transpose ladder: copies that move the same bytes as a
// transpose (one read, one write per element) without transposing, one element per thread.
#include "common.cuh"

// Row read, row write: both sides coalesced (the classic "upper bound" of the naive ladder).
template <typename T>
__global__ void copyRow(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  const i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  const i64 r = (i64)blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[r * cols + c] = in[r * cols + c];
}

// Column read and column write: neighbouring threads walk down a column, so every
// access of a warp lands in a different 32-byte sector (the "lower bound").
template <typename T>
__global__ void copyCol(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  const i64 r = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  const i64 c = (i64)blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[r * cols + c] = in[r * cols + c];
}
