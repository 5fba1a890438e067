// Shared-memory transposes (seed 003): the block stages a BY x BX tile in shared memory,
// reads a row of the input and writes a row of the output, so both global sides coalesce.
// The column read from shared memory is where bank conflicts appear; PAD extra columns
// move consecutive tile rows to different banks.
#include "common.cuh"

template <typename T, int BX, int BY, int PAD>
__global__ void __launch_bounds__(BX * BY)
smemTranspose(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  __shared__ T tile[BY][BX + PAD];
  const i64 r = (i64)blockIdx.y * BY + threadIdx.y;
  const i64 c = (i64)blockIdx.x * BX + threadIdx.x;
  if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = in[r * cols + c];

  // Re-split the thread id over the transposed (BX x BY) tile so that consecutive
  // threads write consecutive output columns.
  const int t = threadIdx.y * BX + threadIdx.x;
  const int orow = t / BY, ocol = t % BY;
  __syncthreads();
  const i64 R = (i64)blockIdx.x * BX + orow;  // output row = input column
  const i64 C = (i64)blockIdx.y * BY + ocol;  // output column = input row
  if (R < cols && C < rows) out[R * rows + C] = tile[ocol][orow];
}

// Each block transposes two BY x BX tiles side by side: twice the loads in flight per
// thread. Seed bug fixed: the seed wrote tile[irow][icol] to INDEX(col, row), which
// neither matches the element nor coalesces; the output index here comes from the
// re-split thread id, as in smemTranspose.
template <typename T, int BX, int BY, int PAD>
__global__ void __launch_bounds__(BX * BY)
smemUnrollTranspose(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  __shared__ T tile[BY][2 * BX + PAD];
  const i64 r = (i64)blockIdx.y * BY + threadIdx.y;
  const i64 c = (i64)blockIdx.x * (2 * BX) + threadIdx.x;
  if (r < rows) {
    if (c < cols) tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
    if (c + BX < cols) tile[threadIdx.y][threadIdx.x + BX] = in[r * cols + c + BX];
  }
  const int t = threadIdx.y * BX + threadIdx.x;
  const int orow = t / BY, ocol = t % BY;
  __syncthreads();
  const i64 R = (i64)blockIdx.x * (2 * BX) + orow;
  const i64 C = (i64)blockIdx.y * BY + ocol;
  if (C < rows) {
    if (R < cols) out[R * rows + C] = tile[ocol][orow];
    if (R + BX < cols) out[(R + BX) * rows + C] = tile[ocol][orow + BX];
  }
}
