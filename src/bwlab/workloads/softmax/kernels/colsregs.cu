// Softmax down a short strided axis (L <= LMAX, M > 1): one thread per pack of V columns
// holds its whole column, L packs, in registers, so x is read once and there is no exchange
// between threads and no barrier. The threads of a warp take consecutive packs of a row of
// M (consecutive (n, pack) indices), so every row of a column is read and written whole by
// the warp. Made for [N, L, M] with L of a few elements, where tiles of strips (colsCluster)
// move only a few KiB per block and spend their time in barriers. Rows past L are the Op's
// pad, which no reduction notices; any Op (forward or backward). MINB: the blocks an SM must
// hold, which caps the registers a thread (plans.regs_geometry picks it with V and THREADS).
#include "softmax.cuh"

template <typename T, int V, int LMAX, int THREADS, int MINB, class Op>
__global__ void __launch_bounds__(THREADS, MINB) colsRegs(const T* __restrict__ a, const T* __restrict__ b,
                                                          T* __restrict__ y, i64 N, i64 L, i64 M) {
  const i64 packs = M / V, total = N * packs;  // M % V == 0
  for (i64 t = blockIdx.x * (i64)THREADS + threadIdx.x; t < total; t += (i64)gridDim.x * THREADS) {
    const i64 n = t / packs;
    const i64 base = n * L * M + (t - n * packs) * V;
    Pack<T, V> pa[LMAX], pb[LMAX];
#pragma unroll
    for (int i = 0; i < LMAX; ++i) {  // every load in flight before the first use
      if (i < L) {
        pa[i].load(a + base + i * M);
        if (Op::IN == 2) pb[i].load(b + base + i * M);
      }
    }
    State f[V];
#pragma unroll
    for (int v = 0; v < V; ++v) {
      float va[LMAX], vb[LMAX];
#pragma unroll
      for (int i = 0; i < LMAX; ++i) {
        va[i] = i < L ? pa[i][v] : Op::pad();
        vb[i] = Op::IN == 2 && i < L ? pb[i][v] : 0.f;
      }
      State s = Op::empty();
      Op::template fold<LMAX>(s, va, vb);
      f[v] = Op::finish(s);
    }
#pragma unroll
    for (int i = 0; i < LMAX; ++i) {
      if (i < L) {
        Pack<T, V> o;
#pragma unroll
        for (int v = 0; v < V; ++v) o.set(v, Op::out(f[v], pa[i][v], Op::IN == 2 ? pb[i][v] : 0.f));
        o.store_cs(y + base + i * M);  // evict-first: [8192, 16, 1024] float32 log-softmax 89% -> 95% of a copy
      }
    }
  }
}
