// Long rows read once: a cluster of C blocks shares a row, each block holding its segment in
// registers; the C block states meet through distributed shared memory (no trip through
// global memory, no second kernel). Rows up to C * THREADS * K packs.
#include "softmax.cuh"

template <typename T, int V, int C, int THREADS, int K, class Op>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(THREADS)
rowCluster(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, i64 N, i64 L) {
  __shared__ State scratch[32];
  __shared__ State part;
  const unsigned rank = cluster_rank();
  const i64 row = blockIdx.x / C, packs = L / V;
  const i64 seg = (packs + C - 1) / C;                     // packs per block
  const i64 first = rank * seg, last = min(packs, first + seg);
  const i64 off = row * L + first * V;                     // this block's segment
  const T* pa_base = a + off;
  const T* pb_base = b + off;
  Pack<T, V> pa[K], pb[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const i64 p = threadIdx.x + (i64)k * THREADS;
    if (first + p < last) {
      pa[k].load(pa_base + p * V);
      if (Op::IN == 2) pb[k].load(pb_base + p * V);
    } else {
      pa[k].fill(Op::pad());
      if (Op::IN == 2) pb[k].fill(Op::pad());
    }
  }
  State s = block_merge<Op, THREADS>(fold_packs<T, V, K, Op>(pa, pb), scratch);
  if (threadIdx.x == 0) part = s;
  cluster_sync();
  s = load_remote(&part, 0);
  for (int r = 1; r < C; ++r) s = Op::merge(s, load_remote(&part, r));
  cluster_sync();  // no block leaves while another may still read its `part`
  const State f = Op::finish(s);
  T* out = y + off;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const i64 p = threadIdx.x + (i64)k * THREADS;
    if (first + p >= last) continue;
    Pack<T, V> o;
#pragma unroll
    for (int i = 0; i < V; ++i) o.set(i, Op::out(f, pa[k][i], Op::IN == 2 ? pb[k][i] : 0.f));
    o.store(out + p * V);
  }
}
