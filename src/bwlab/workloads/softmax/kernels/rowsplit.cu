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
  s = block_to_warp0<Op, THREADS>(s, scratch);
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

// rowRelay: both passes in one launch, ordered so that a chunk's second read finds it in L2.
// Every block takes a ticket from a global counter as it starts. Tickets alternate, chunk by
// chunk (g counting the chunks of all rows in order): the partial task of chunk g, then the
// finishing task of chunk g - lead. lead is a row of chunks and some slack, so a finishing task
// comes after every partial task of its row, and the L2 holds about one row and the slack awaiting
// their second read (in steps of whole rows, the partial tasks of one row then the finishing tasks
// of a row before, it held two or more: on the H200, 61% of a copy against 65% at [64, 4194304]).
// A partial task stores its chunk's state and counts itself in done[row]; a finishing task issues
// its chunk's loads, waits for the row's count, merges the row's states and writes the chunk. A
// task waits only for tasks that took lower tickets, so they are already running: nothing can
// deadlock. Workspace: a 64-bit ticket counter and N 32-bit counts, 128 bytes apart (zeroed
// before the launch), then N * chunks states.
template <typename T, int V, int THREADS, int K, class Op>
__global__ void __launch_bounds__(THREADS) rowRelay(const T* __restrict__ a, const T* __restrict__ b,
                                                    T* __restrict__ y, unsigned long long* ctr, i64 N, i64 L,
                                                    i64 chunks, i64 lead) {
  __shared__ State scratch[32];
  __shared__ unsigned long long ticket;
  if (threadIdx.x == 0) ticket = atomicAdd(ctr, 1ull);
  __syncthreads();
  // each row's count on a 128-byte line of its own, apart from the ticket counter: polled by waiting tasks
  unsigned* done = reinterpret_cast<unsigned*>(ctr) + 32;
  State* ws = reinterpret_cast<State*>(done + 32 * N);
  const bool fin = ticket & 1;
  const i64 g = (i64)(ticket >> 1) - (fin ? lead : 0);
  const i64 row = g < 0 ? -1 : g / chunks, c = g < 0 ? 0 : g % chunks;
  if (row < 0 || row >= N) return;  // the tickets before the first finish and after the last partial
  const i64 packs = L / V, off = row * L;
  const i64 first = c * THREADS * K + threadIdx.x;
  // A finishing task's read is the chunk's last and its output is not read again: both evict-first,
  // so that they leave the L2 to the chunks awaiting their second read (H200: [64, 2097152] float32
  // gradients 69% -> 75% of a copy, [256, 1048576] forward 74% -> 77%; plain stores and loads before).
  Pack<T, V> pa[K], pb[K];
  if (fin)
    load_packs<T, V, K, THREADS, Op, true>(a + off, b + off, first, packs, true, pa, pb);
  else
    load_packs<T, V, K, THREADS, Op>(a + off, b + off, first, packs, true, pa, pb);
  if (!fin) {
    const State s = block_to_warp0<Op, THREADS>(fold_packs<T, V, K, Op>(pa, pb), scratch);
    if (threadIdx.x == 0) {
      ws[row * chunks + c] = s;
      count_release(done + 32 * row);
    }
    return;
  }
  // The chunk's loads (above) are in flight while the row's partial states are awaited.
  if (threadIdx.x == 0)
    while (ld_acquire(done + 32 * row) < (unsigned)chunks) asm volatile("nanosleep.u32 256;" ::: "memory");
  __syncthreads();
  State s = Op::empty();
  for (i64 j = threadIdx.x; j < chunks; j += THREADS) s = Op::merge(s, ld_cg(ws + row * chunks + j));
  const State f = Op::finish(block_merge<Op, THREADS>(s, scratch));
  store_out<T, V, K, THREADS, Op, true>(y + off, first, packs, true, f, pa, pb);
}
