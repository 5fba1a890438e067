// Softmax along the last axis (x is [N, L], rows contiguous). A row's packs of V elements
// (16 bytes, or V = 1 when rows do not start on 16-byte boundaries) are dealt to lanes in
// turn, so each load instruction of a warp reads consecutive bytes.
//  rowOnline: a warp per row streaming it twice (online max and sum, then the write):
//             no limit on the row's length, 2 reads.
//  rowWarp:   G lanes per row (G <= 32, 128 / G rows per block), the row held in registers
//             (K packs per lane): x read once; shuffles only, no shared memory.
//  rowBlock:  a block per row held in registers (K packs per thread), one block-wide merge.
#include "softmax.cuh"

template <typename T, int V, bool LOG>
__global__ void __launch_bounds__(128) rowOnline(const T* __restrict__ x, T* __restrict__ y, i64 N, i64 L, i64) {
  typedef Forward<LOG> Op;
  const i64 row = blockIdx.x * (i64)4 + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const i64 packs = L / V;
  State s = Op::empty();
  if (row < N) {
    const T* in = x + row * L;
    for (i64 p = lane; p < packs; p += 32) {
      Pack<T, V> pk;
      pk.load(in + p * V);
      float v[V];
#pragma unroll
      for (int i = 0; i < V; ++i) v[i] = pk[i];
      Op::template fold<V>(s, v, v);
    }
  }
  s = Op::finish(warp_merge<Op, 32>(s));
  if (row >= N) return;
  for (i64 p = lane; p < packs; p += 32) {
    Pack<T, V> pk, o;
    pk.load(x + row * L + p * V);
#pragma unroll
    for (int i = 0; i < V; ++i) o.set(i, Op::out(s, pk[i], 0.f));
    o.store(y + row * L + p * V);
  }
}

// The row's packs into registers (missing ones padded), folded into a state.
template <typename T, int V, int K, int STEP, class Op>
__device__ __forceinline__ State load_fold(const T* a, const T* b, i64 first, i64 packs, bool live,
                                           Pack<T, V> (&pa)[K], Pack<T, V> (&pb)[K]) {
  load_packs<T, V, K, STEP, Op>(a, b, first, packs, live, pa, pb);
  return fold_packs<T, V, K, Op>(pa, pb);
}

template <typename T, int V, int G, int K, class Op>
__global__ void __launch_bounds__(128) rowWarp(const T* __restrict__ a, const T* __restrict__ b,
                                               T* __restrict__ y, i64 N, i64 L) {
  const i64 row = blockIdx.x * (i64)(128 / G) + threadIdx.x / G;
  const int lane = threadIdx.x % G;
  const bool live = row < N;  // dead rows still take part in the shuffles
  const i64 packs = L / V, off = live ? row * L : 0;
  Pack<T, V> pa[K], pb[K];
  State s = load_fold<T, V, K, G, Op>(a + off, b + off, lane, packs, live, pa, pb);
  s = Op::finish(warp_merge<Op, G>(s));
  store_out<T, V, K, G, Op>(y + off, lane, packs, live, s, pa, pb);
}

template <typename T, int V, int THREADS, int K, class Op>
__global__ void __launch_bounds__(THREADS, 1) rowBlock(const T* __restrict__ a, const T* __restrict__ b,
                                                    T* __restrict__ y, i64 N, i64 L) {
  __shared__ State scratch[32];
  const i64 packs = L / V, off = blockIdx.x * L;
  Pack<T, V> pa[K], pb[K];
  State s = load_fold<T, V, K, THREADS, Op>(a + off, b + off, threadIdx.x, packs, true, pa, pb);
  s = Op::finish(block_merge<Op, THREADS>(s, scratch));
  store_out<T, V, K, THREADS, Op>(y + off, threadIdx.x, packs, true, s, pa, pb);
}
