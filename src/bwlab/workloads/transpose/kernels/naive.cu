// Naive transposes (seed 000): one element per thread, straight from global memory.
// in is rows x cols, out is cols x rows, both row-major. Each kernel comes in the seed's two
// flavours, chosen by COL_READ: the launch's x axis (consecutive threads) runs along input
// columns (row read: coalesced load, strided store) or along input rows (column read:
// strided load, coalesced store).
#include "common.cuh"

// Diagonal block order: blocks launched together touch different column bands, which
// spreads requests over DRAM partitions. Seed bug fixed: the seed's remap
// (y = bid.x, x = (bid.x + bid.y) % grid.x) is a bijection only on square grids; this
// one linearises the block id and re-splits it, a bijection for any grid.x x grid.y.
template <bool DIAGONAL>
__device__ __forceinline__ void block_xy(i64& bx, i64& by) {
  if (!DIAGONAL) {
    bx = blockIdx.x;
    by = blockIdx.y;
    return;
  }
  const i64 bid = (i64)blockIdx.x + (i64)gridDim.x * blockIdx.y;
  by = bid % gridDim.y;
  bx = (bid / gridDim.y + by) % gridDim.x;
}

// L2_ONLY=true loads through L2 alone, like compiling with -Xptxas -dlcm=cg.
template <typename T, bool COL_READ, bool DIAGONAL, bool L2_ONLY>
__global__ void naive(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  i64 bx, by;
  block_xy<DIAGONAL>(bx, by);
  const i64 x = bx * blockDim.x + threadIdx.x;
  const i64 y = by * blockDim.y + threadIdx.y;
  const i64 r = COL_READ ? x : y, c = COL_READ ? y : x;
  if (r < rows && c < cols) out[c * rows + r] = load<T, L2_ONLY>(in + r * cols + c);
}

// Each thread moves 4 elements blockDim.x apart along x, all 4 loads issued before the
// first store. Seed bug fixed: every element is bounds-checked, not only the first.
template <typename T, bool COL_READ>
__global__ void naiveUnroll4(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  const i64 x0 = (i64)blockIdx.x * blockDim.x * 4 + threadIdx.x;
  const i64 y = (i64)blockIdx.y * blockDim.y + threadIdx.y;
  const i64 nx = COL_READ ? rows : cols, ny = COL_READ ? cols : rows;
  if (y >= ny) return;
  T v[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const i64 x = x0 + (i64)k * blockDim.x;
    const i64 r = COL_READ ? x : y, c = COL_READ ? y : x;
    if (x < nx) v[k] = in[r * cols + c];
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const i64 x = x0 + (i64)k * blockDim.x;
    const i64 r = COL_READ ? x : y, c = COL_READ ? y : x;
    if (x < nx) out[c * rows + r] = v[k];
  }
}
