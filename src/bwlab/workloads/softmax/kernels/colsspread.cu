// Softmax down a long strided axis with the strip held in registers across a cluster: a cluster
// of C blocks owns a strip of 128 bytes (8 packs) of every row of one [L, M] slice, and each
// thread holds R packs of its block's share (rows g, g + G, ..., G = THREADS / 8 row groups) from
// load to store. x goes from DRAM to registers and back once, with no shared-memory round trip,
// and the arithmetic runs on many warps (colsCluster's strips in shared memory leave a few warps
// an SM with long dependent chains). The block's states per column meet through shared memory,
// the cluster's through distributed shared memory. rows a block: L / C rounded up, at most G * R.
// M % V == 0 and 16-byte aligned pointers (every pack whole). MINB: blocks an SM its registers
// must allow. A share of 64 KiB (128 KiB with the gradient) fills a block's registers, so an SM
// runs one or two blocks and their phases barely overlap: it gains where colsCluster also runs one
// block an SM (the gradient's two inputs) and loses elsewhere (plans.spread_backward).
#include "softmax.cuh"

template <typename T, int C, int R, int THREADS, int MINB, class Op>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(THREADS, MINB)
colsSpread(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, i64 N, i64 L, i64 M) {
  constexpr int V = 16 / sizeof(T);   // elements per pack
  constexpr int P = 8;                // packs per strip row (128 bytes)
  constexpr int COLS = P * V;         // columns per strip
  constexpr int G = THREADS / P;      // row groups
  constexpr int WARPS = THREADS / 32;
  static_assert(THREADS % 32 == 0, "whole warps");
  __shared__ State red[WARPS][COLS];  // the warps' partial states
  __shared__ State part[COLS];        // this block's states (read by the cluster)
  __shared__ State fin[COLS];         // finished states
  const int t = threadIdx.x, p = t % P, g = t / P;
  const i64 lc = (L + C - 1) / C;
  const i64 r0 = cluster_rank() * lc;
  const int rows = (int)max((i64)0, min(L, r0 + lc) - r0);
  const i64 col0 = (blockIdx.x / C) * COLS;
  const bool live = col0 + p * V < M;
  for (i64 n = blockIdx.y; n < N; n += gridDim.y) {
    const T* pa_ = a + (n * L + r0) * M + col0 + p * V;
    const T* pb_ = b + (n * L + r0) * M + col0 + p * V;
    // 1. the thread's R packs, every load in flight before the first use
    Pack<T, V> xa[R], xb[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const int r = g + k * G;
      if (live && r < rows) {
        xa[k].load(pa_ + (i64)r * M);
        if (Op::IN == 2) xb[k].load(pb_ + (i64)r * M);
      } else {
        xa[k].fill(Op::pad());
        if (Op::IN == 2) xb[k].fill(0.f);
      }
    }
    // 2. each of the thread's V columns folded over its R rows; the 4 row groups of a warp that
    // share a pack column merged by shuffles, then the warps' partials per column
    State s[V];
#pragma unroll
    for (int v = 0; v < V; ++v) {
      float va[R], vb[R];
#pragma unroll
      for (int k = 0; k < R; ++k) {
        va[k] = xa[k][v];
        vb[k] = Op::IN == 2 ? xb[k][v] : 0.f;
      }
      s[v] = Op::empty();
      Op::template fold<R>(s[v], va, vb);
      s[v] = Op::template merge_lanes<P, 32>(s[v]);
    }
    if ((t & 31) < P)
#pragma unroll
      for (int v = 0; v < V; ++v) red[t / 32][p * V + v] = s[v];
    __syncthreads();
    // 3. the cluster's C states per column
    meet<Op, C, WARPS, COLS, THREADS>(&red[0][0], part, fin);
    // 4. the output from the registers
    State f[V];
#pragma unroll
    for (int v = 0; v < V; ++v) f[v] = fin[p * V + v];
    T* py = y + (n * L + r0) * M + col0 + p * V;
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const int r = g + k * G;
      if (live && r < rows) {
        Pack<T, V> o;
#pragma unroll
        for (int v = 0; v < V; ++v) o.set(v, Op::out(f[v], xa[k][v], Op::IN == 2 ? xb[k][v] : 0.f));
        o.store(py + (i64)r * M);
      }
    }
    cluster_wait();    // every block has read this one's `part`
  }
}
