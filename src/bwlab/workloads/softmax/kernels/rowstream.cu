// Long rows read once, through shared memory, with the next row's reads overlapping this
// row's writes. A cluster of C blocks shares a row: each block copies its segment (K packs
// per thread) into shared memory with asynchronous copies, folds it, and the C block states
// meet through distributed shared memory. A cluster takes R consecutive rows: as a thread
// writes out a pack of row j it refills that slot with row j + 1's pack, so reads and writes
// stream together and no block barrier is needed (every thread only touches its own slots).
// Shared memory instead of registers lets several blocks share an SM, so one block's
// barriers and reductions hide behind another's traffic. 16-byte packs, aligned rows.
#include "softmax.cuh"

template <typename T, int V, int THREADS, int K, class Op>
__device__ __forceinline__ void fetch_segment(Pack<T, V>* sa, Pack<T, V>* sb, const T* a, const T* b,
                                              i64 first, i64 last) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const i64 p = threadIdx.x + (i64)k * THREADS;
    if (first + p < last) {
      cp_async16(sa + p, a + (first + p) * V, true);
      if (Op::IN == 2) cp_async16(sb + p, b + (first + p) * V, true);
    }
  }
}

template <typename T, int V, int C, int THREADS, int K, class Op>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(THREADS)
rowStream(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, i64 N, i64 L, i64 R) {
  static_assert(V * sizeof(T) == 16, "rowStream moves 16-byte packs");
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ State scratch[32];
  __shared__ __align__(8) State part[2];  // by row parity (a slow block may still read the previous
                                          // row's); 8-aligned for load_remote's 8-byte access
  Pack<T, V>* sa = reinterpret_cast<Pack<T, V>*>(smem);
  Pack<T, V>* sb = sa + K * THREADS;
  const unsigned rank = cluster_rank();
  const i64 packs = L / V, seg = (packs + C - 1) / C;
  const i64 first = rank * seg, last = min(packs, first + seg);
  const i64 row0 = (i64)(blockIdx.x / C) * R, rows = min(R, N - row0);
  fetch_segment<T, V, THREADS, K, Op>(sa, sb, a + row0 * L, b + row0 * L, first, last);
  for (i64 j = 0; j < rows; ++j) {
    const i64 off = (row0 + j) * L;
    cp_async_wait_all();  // this thread's copies of row j have landed
    State s = Op::empty();
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const i64 p = threadIdx.x + (i64)k * THREADS;
      if (first + p >= last) continue;
      const Pack<T, V> pa = sa[p];
      float va[V], vb[V];
#pragma unroll
      for (int i = 0; i < V; ++i) va[i] = pa[i];
      if (Op::IN == 2) {
        const Pack<T, V> pb = sb[p];
#pragma unroll
        for (int i = 0; i < V; ++i) vb[i] = pb[i];
      }
      Op::template fold<V>(s, va, vb);
    }
    s = block_merge<Op, THREADS>(s, scratch);
    if (threadIdx.x == 0) part[j & 1] = s;
    cluster_sync();
    s = load_remote(&part[j & 1], 0);
    for (int r = 1; r < C; ++r) s = Op::merge(s, load_remote(&part[j & 1], r));
    const State f = Op::finish(s);
    const bool more = j + 1 < rows;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const i64 p = threadIdx.x + (i64)k * THREADS;
      if (first + p >= last) continue;
      const Pack<T, V> pa = sa[p];
      Pack<T, V> pb, o;
      if (Op::IN == 2) pb = sb[p];
#pragma unroll
      for (int i = 0; i < V; ++i) o.set(i, Op::out(f, pa[i], Op::IN == 2 ? pb[i] : 0.f));
      o.store(y + off + (first + p) * V);
      // Same thread, same slot, in program order: the refill lands after the read above.
      if (more) {
        cp_async16(sa + p, a + off + L + (first + p) * V, true);
        if (Op::IN == 2) cp_async16(sb + p, b + off + L + (first + p) * V, true);
      }
    }
  }
  cluster_sync();  // no block leaves while another may still read its `part`
}
