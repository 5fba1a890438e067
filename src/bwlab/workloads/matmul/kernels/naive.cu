// The naive matmul: one thread per element of C, every operand straight from global memory.
// x of the grid walks the columns of C (so a warp reads one row of B coalesced and the same
// element of A, broadcast), y walks the rows.
#include "mm.cuh"

__global__ void naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                      int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* a = A + (i64)row * K;
  const float* b = B + col;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc = fmaf(a[k], b[(i64)k * N], acc);
  C[(i64)row * N + col] = acc;
}
