// Rows too long for one cluster: two kernels. rowPartial folds each chunk of CH = THREADS * K
// packs into a state in a workspace (one per row and chunk); rowFinish merges its row's
// states, reads its chunk again and writes it. x is read twice; rowFinish walks the chunks in
// the reverse order, so its first reads find the chunks rowPartial read last still in L2.
#include "softmax.cuh"

template <typename T, int V, int THREADS, int K, class Op>
__global__ void __launch_bounds__(THREADS) rowPartial(const T* __restrict__ a, const T* __restrict__ b,
                                                      State* __restrict__ ws, i64 N, i64 L, i64 chunks) {
  __shared__ State scratch[32];
  const i64 id = blockIdx.x, row = id / chunks, c = id % chunks;
  const i64 packs = L / V, first = c * THREADS * K;
  const i64 off = row * L;
  State s = Op::empty();
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const i64 p = first + threadIdx.x + (i64)k * THREADS;
    Pack<T, V> pa, pb;
    if (p < packs) {
      pa.load(a + off + p * V);
      if (Op::IN == 2) pb.load(b + off + p * V);
    } else {
      pa.fill(Op::pad());
      pb.fill(Op::pad());
    }
    float va[V], vb[V];
#pragma unroll
    for (int i = 0; i < V; ++i) { va[i] = pa[i]; vb[i] = Op::IN == 2 ? pb[i] : 0.f; }
    Op::template fold<V>(s, va, vb);
  }
  s = block_merge<Op, THREADS>(s, scratch);
  if (threadIdx.x == 0) ws[id] = s;
}

template <typename T, int V, int THREADS, int K, class Op>
__global__ void __launch_bounds__(THREADS) rowFinish(const T* __restrict__ a, const T* __restrict__ b,
                                                     T* __restrict__ y, const State* __restrict__ ws,
                                                     i64 N, i64 L, i64 chunks) {
  __shared__ State scratch[32];
  const i64 id = (i64)gridDim.x - 1 - blockIdx.x, row = id / chunks, c = id % chunks;
  State s = Op::empty();
  for (i64 j = threadIdx.x; j < chunks; j += THREADS) s = Op::merge(s, ws[row * chunks + j]);
  const State f = Op::finish(block_merge<Op, THREADS>(s, scratch));
  const i64 packs = L / V, first = c * THREADS * K, off = row * L;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const i64 p = first + threadIdx.x + (i64)k * THREADS;
    if (p >= packs) continue;
    Pack<T, V> pa, pb, o;
    pa.load(a + off + p * V);
    if (Op::IN == 2) pb.load(b + off + p * V);
#pragma unroll
    for (int i = 0; i < V; ++i) o.set(i, Op::out(f, pa[i], Op::IN == 2 ? pb[i] : 0.f));
    o.store(y + off + p * V);
  }
}
