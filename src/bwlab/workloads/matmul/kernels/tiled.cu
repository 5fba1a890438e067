// The classic shared-memory tiled matmul and its thread-coarsened form.
//
// tiled<TILE>: a TILE x TILE block computes a TILE x TILE tile of C; each phase stages one
// TILE x TILE tile of A and one of B in shared memory, so every element loaded from global
// memory is used TILE times.
//
// coarse<TILE, CF, STORE_EACH_PHASE>: each thread computes CF elements of C, TILE apart along
// the row, reusing the one A tile it staged for CF tiles of B. STORE_EACH_PHASE keeps the
// teaching version's placement of the store inside the phase loop (every phase writes its
// partial sums, K / TILE times the stores; only the last phase's are right); false stores once.
// Both take any M, N, K: loads past an edge read 0, stores past an edge are skipped.
#include "mm.cuh"

template <int TILE>
__global__ void __launch_bounds__(TILE * TILE)
tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.f;
  const int phases = (K + TILE - 1) / TILE;
  for (int ph = 0; ph < phases; ++ph) {
    const int ka = ph * TILE + tx, kb = ph * TILE + ty;
    As[ty][tx] = (row < M && ka < K) ? A[(i64)row * K + ka] : 0.f;
    Bs[ty][tx] = (kb < K && col < N) ? B[(i64)kb * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  if (row < M && col < N) C[(i64)row * N + col] = acc;
}

template <int TILE, int CF, bool STORE_EACH_PHASE>
__global__ void __launch_bounds__(TILE * TILE)
coarse(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  __shared__ float Mds[TILE][TILE];
  __shared__ float Nds[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int colStart = blockIdx.x * TILE * CF + tx;
  float P[CF];
#pragma unroll
  for (int c = 0; c < CF; ++c) P[c] = 0.f;
  const int phases = (K + TILE - 1) / TILE;
  for (int ph = 0; ph < phases; ++ph) {
    // the CF tiles of B all need the same tile of A: load it once
    const int ka = ph * TILE + tx, kb = ph * TILE + ty;
    Mds[ty][tx] = (row < M && ka < K) ? A[(i64)row * K + ka] : 0.f;
#pragma unroll
    for (int c = 0; c < CF; ++c) {
      const int col = colStart + c * TILE;
      Nds[ty][tx] = (kb < K && col < N) ? B[(i64)kb * N + col] : 0.f;
      __syncthreads();
#pragma unroll
      for (int k = 0; k < TILE; ++k) P[c] = fmaf(Mds[ty][k], Nds[k][tx], P[c]);
      __syncthreads();
    }
    if (STORE_EACH_PHASE) {
#pragma unroll
      for (int c = 0; c < CF; ++c) {
        const int col = colStart + c * TILE;
        if (row < M && col < N) C[(i64)row * N + col] = P[c];
      }
    }
  }
  if (!STORE_EACH_PHASE) {
#pragma unroll
    for (int c = 0; c < CF; ++c) {
      const int col = colStart + c * TILE;
      if (row < M && col < N) C[(i64)row * N + col] = P[c];
    }
  }
}
