// Softmax down a long strided axis with both passes in one launch (rowRelay's schedule, for
// columns): a group is a strip of COLS = P * V columns of one [L, M] slice down all L rows, a
// task a chunk of RC of its rows (RC * P packs, K a thread). Each block takes a ticket as it
// starts; step t holds the partial tasks of group t and then the finishing tasks of group
// t - lag, so a chunk's second read comes soon after its first, from L2. Rows of P * 16 bytes
// keep the reads DRAM-friendly with no cluster: every SM takes part.
// A partial task folds its chunk per column and stores COLS states; the last of a group to
// count itself in done[g] merges the group's states once and marks them final (done[g] =
// chunks + 1). A finishing task issues its chunk's loads, waits for the mark, and writes the
// chunk. Tasks wait only on lower tickets, already running: nothing can deadlock.
// Workspace: a 64-bit ticket counter and G 32-bit counts (zeroed before the launch), then
// G * chunks partial states and G * COLS final ones. M % V == 0, 16-byte aligned pointers.
#include "softmax.cuh"

template <typename T, int P, int RC, int THREADS, class Op>
__global__ void __launch_bounds__(THREADS) colsRelay(const T* __restrict__ a, const T* __restrict__ b,
                                                     T* __restrict__ y, unsigned long long* ctr, i64 N, i64 L,
                                                     i64 M, i64 lag) {
  constexpr int V = 16 / sizeof(T);
  constexpr int COLS = P * V;
  constexpr int STEP = THREADS / P;   // rows between a thread's packs
  constexpr int K = RC / STEP;        // packs a thread
  constexpr int WARPS = THREADS / 32;
  constexpr int SHARE = THREADS / COLS;  // threads merging one column's chunk states
  static_assert(P <= 32 && 32 % P == 0 && RC % STEP == 0 && THREADS % COLS == 0 && COLS >= 32,
                "whole strip rows per warp, and red[] holds a state per thread");
  __shared__ State red[WARPS][COLS];
  __shared__ State fin[COLS];
  __shared__ unsigned long long ticket;
  __shared__ bool last;
  if (threadIdx.x == 0) ticket = atomicAdd(ctr, 1ull);
  __syncthreads();
  const i64 CB = (M + COLS - 1) / COLS, G = N * CB, chunks = (L + RC - 1) / RC;
  unsigned* done = reinterpret_cast<unsigned*>(ctr + 1);
  State* part = reinterpret_cast<State*>(ctr + 1 + (G + 1) / 2);
  State* final_ = part + G * chunks * COLS;
  const i64 step = (i64)(ticket / (2 * chunks)), w = (i64)(ticket % (2 * chunks));
  const bool finishing = w >= chunks;
  const i64 g = finishing ? step - lag : step, c = finishing ? w - chunks : w;
  if (g < 0 || g >= G) return;  // the steps before the first finish and after the last partial
  const int t = threadIdx.x, p = t % P;
  const i64 n = g / CB, col = (g % CB) * COLS + p * V, r0 = c * RC + t / P;
  const bool live = col < M;
  const i64 base = (n * L + r0) * M + col;
  Pack<T, V> pa[K], pb[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (live && r0 + k * STEP < L) {
      pa[k].load(a + base + (i64)k * STEP * M);
      if (Op::IN == 2) pb[k].load(b + base + (i64)k * STEP * M);
    } else {
      pa[k].fill(Op::pad());
      if (Op::IN == 2) pb[k].fill(Op::pad());
    }
  }
  if (!finishing) {
    // the chunk per column: the thread's K rows, the warp's lanes on the same pack, the warps
    State s[V];
#pragma unroll
    for (int i = 0; i < V; ++i) {
      float va[K], vb[K];
#pragma unroll
      for (int k = 0; k < K; ++k) { va[k] = pa[k][i]; vb[k] = Op::IN == 2 ? pb[k][i] : 0.f; }
      s[i] = Op::empty();
      Op::template fold<K>(s[i], va, vb);
#pragma unroll
      for (int o = P; o < 32; o <<= 1) {
        const State u = {__shfl_xor_sync(0xffffffffu, s[i].a, o), __shfl_xor_sync(0xffffffffu, s[i].b, o)};
        s[i] = Op::merge(s[i], u);
      }
      if ((t & 31) < P) red[t / 32][p * V + i] = s[i];
    }
    __syncthreads();
    State* mine = part + (g * chunks + c) * COLS;
    if (t < COLS) {
      State m = red[0][t];
      for (int j = 1; j < WARPS; ++j) m = Op::merge(m, red[j][t]);
      mine[t] = m;
      __threadfence();
    }
    __syncthreads();
    if (t == 0) last = atomicAdd(done + g, 1u) == (unsigned)(chunks - 1);
    __syncthreads();
    if (!last) return;
    // the group's last partial task: every chunk's states merged once, then marked final
    __threadfence();
    const int cc = t % COLS, share = t / COLS;
    State m = Op::empty();
    for (i64 j = share; j < chunks; j += SHARE) m = Op::merge(m, ld_cg(part + (g * chunks + j) * COLS + cc));
    State* sm = &red[0][0];  // WARPS * COLS >= THREADS states
    __syncthreads();
    sm[t] = m;
    __syncthreads();
    if (t < COLS) {
      for (int j = 1; j < SHARE; ++j) m = Op::merge(m, sm[j * COLS + t]);
      final_[g * COLS + t] = Op::finish(m);
      __threadfence();
    }
    __syncthreads();
    if (t == 0) atomicAdd(done + g, 1u);
    return;
  }
  // The chunk's loads (above) are in flight while the group's final states are awaited.
  if (t == 0)
    while (ld_acquire(done + g) <= (unsigned)chunks) asm volatile("nanosleep.u32 256;" ::: "memory");
  __syncthreads();
  if (t < COLS) fin[t] = ld_cg(final_ + g * COLS + t);
  __syncthreads();
  if (!live) return;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (r0 + k * STEP >= L) continue;
    Pack<T, V> o;
#pragma unroll
    for (int i = 0; i < V; ++i) o.set(i, Op::out(fin[p * V + i], pa[k][i], Op::IN == 2 ? pb[k][i] : 0.f));
    o.store(y + base + (i64)k * STEP * M);
  }
}
