// Softmax along the last axis (x is [N, L], rows contiguous). A row's packs of V elements
// (16 bytes, or V = 1 when rows do not start on 16-byte boundaries) are dealt to lanes in
// turn, so each load instruction of a warp reads consecutive bytes.
//  rowOnline: a warp per row streaming it twice (online max and sum, then the write):
//             no limit on the row's length, 2 reads.
//  rowWarp:   G lanes per row (G <= 32), the row held in registers (K packs per lane), R rows
//             per lane group: x read once; shuffles only, no shared memory.
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

// A block of THREADS: groups of G lanes, each taking R rows (THREADS / G consecutive rows apart),
// K packs of each: all R * K loads are issued before the first shuffle. G * 16 bytes of a row per
// load instruction (a whole short row with K = 1), so a warp's loads are contiguous.
template <typename T, int V, int G, int K, int R, int THREADS, class Op>
__global__ void __launch_bounds__(THREADS) rowWarp(const T* __restrict__ a, const T* __restrict__ b,
                                                   T* __restrict__ y, i64 N, i64 L) {
  static_assert(G <= 32 && THREADS % 32 == 0 && THREADS % G == 0, "a lane group lies within one warp");
  constexpr int GROUPS = THREADS / G;
  const int lane = threadIdx.x % G;
  const i64 packs = L / V;
  Pack<T, V> pa[R][K], pb[R][K];
  i64 off[R];
  bool live[R];  // dead rows still take part in the shuffles
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const i64 row = (blockIdx.x * (i64)R + r) * GROUPS + threadIdx.x / G;
    live[r] = row < N;
    off[r] = live[r] ? row * L : 0;
    load_packs<T, V, K, G, Op>(a + off[r], b + off[r], lane, packs, live[r], pa[r], pb[r]);
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const State s = Op::finish(warp_merge<Op, G>(fold_packs<T, V, K, Op>(pa[r], pb[r])));
    store_out<T, V, K, G, Op>(y + off[r], lane, packs, live[r], s, pa[r], pb[r]);
  }
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
