// Naive transposes (seed 000): one element per thread, straight from global memory.
// in is rows x cols, out is cols x rows, both row-major.
#include "common.cuh"

// Row read (coalesced) and column write (stride rows): grid covers the input.
template <typename T>
__global__ void naiveRow(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  const i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  const i64 r = (i64)blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

// Column read (stride cols) and row write (coalesced): grid covers the output.
// L2_ONLY=true loads through L2 alone, like compiling with -Xptxas -dlcm=cg.
template <typename T, bool L2_ONLY>
__global__ void naiveCol(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  const i64 r = (i64)blockIdx.x * blockDim.x + threadIdx.x;  // output column
  const i64 c = (i64)blockIdx.y * blockDim.y + threadIdx.y;  // output row
  if (r < rows && c < cols) out[c * rows + r] = load<T, L2_ONLY>(in + r * cols + c);
}

// Each thread moves 4 elements blockDim.x apart, all 4 loads issued before the
// first store. Seed bug fixed: every element is bounds-checked, not only the first.
template <typename T>
__global__ void naiveRowUnroll4(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  const i64 c0 = (i64)blockIdx.x * blockDim.x * 4 + threadIdx.x;
  const i64 r = (i64)blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rows) return;
  T v[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const i64 c = c0 + (i64)k * blockDim.x;
    if (c < cols) v[k] = in[r * cols + c];
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const i64 c = c0 + (i64)k * blockDim.x;
    if (c < cols) out[c * rows + r] = v[k];
  }
}

template <typename T>
__global__ void naiveColUnroll4(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  const i64 r0 = (i64)blockIdx.x * blockDim.x * 4 + threadIdx.x;
  const i64 c = (i64)blockIdx.y * blockDim.y + threadIdx.y;
  if (c >= cols) return;
  T v[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const i64 r = r0 + (i64)k * blockDim.x;
    if (r < rows) v[k] = in[r * cols + c];
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const i64 r = r0 + (i64)k * blockDim.x;
    if (r < rows) out[c * rows + r] = v[k];
  }
}

// Diagonal block order: blocks launched together touch different column bands, which
// spreads requests over DRAM partitions. Seed bug fixed: the seed's remap
// (y = bid.x, x = (bid.x + bid.y) % grid.x) is a bijection only on square grids; this
// one linearises the block id and re-splits it, a bijection for any grid.x x grid.y.
__device__ __forceinline__ void diagonal_block(i64& bx, i64& by) {
  const i64 bid = (i64)blockIdx.x + (i64)gridDim.x * blockIdx.y;
  by = bid % gridDim.y;
  bx = (bid / gridDim.y + by) % gridDim.x;
}

template <typename T>
__global__ void diagonalRow(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  i64 bx, by;
  diagonal_block(bx, by);
  const i64 c = bx * blockDim.x + threadIdx.x;
  const i64 r = by * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

template <typename T>
__global__ void diagonalCol(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  i64 bx, by;
  diagonal_block(bx, by);
  const i64 r = bx * blockDim.x + threadIdx.x;
  const i64 c = by * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}
