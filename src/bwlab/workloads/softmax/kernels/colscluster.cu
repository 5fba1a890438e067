// Softmax down a strided axis reading x from DRAM once: a cluster of C blocks owns a strip
// of W bytes of every row of one [L, M] slice (W / 16 packs wide). Each block copies its
// share of the rows (L / C of them) into shared memory with asynchronous copies, reduces its
// columns there (group by group as the copies land), and the C partial states per column meet
// through distributed shared memory; the output is then written from the copy on chip. The
// arithmetic between the copies is what limits it (a block's fold, meeting and write are
// latency-bound chains), so each is overlapped where it can be. The strip must fit: the
// launcher picks C so that ceil(L / C) * W * IN bytes fit in a block's shared memory.
// M % V == 0 and 16-byte aligned pointers (every pack whole).
#include "softmax.cuh"

// K consecutive elements from shared memory as floats (K == 1, or one 16-byte pack).
template <typename T, int K>
__device__ __forceinline__ void load_k(const T* p, float* out) {
  if constexpr (K == 1) {
    out[0] = to_f(*p);
  } else {
    Pack<T, K> pk;
    pk.raw = *reinterpret_cast<const typename Pack<T, K>::R*>(p);
#pragma unroll
    for (int i = 0; i < K; ++i) out[i] = pk[i];
  }
}

// One block's share of a strip: its geometry and the four steps of the kernel below.
template <typename T, int W, int THREADS, class Op>
struct Share {
  static constexpr int V = 16 / sizeof(T);   // elements per pack
  static constexpr int P = W / 16;           // packs per strip row
  static constexpr int COLS = P * V;         // columns per strip
  // The reduction reads K columns at a time from shared memory: a 16-byte pack on strips of 128
  // bytes or more, one element on narrower ones (each measured faster on the H200 there).
  static constexpr int K = P >= 8 ? V : 1;
  static constexpr int LANES = COLS / K;     // threads across a strip row in the reduction
  static constexpr int G = THREADS / LANES;  // row groups of the reduction
  static constexpr int WARPS = THREADS / 32;
  static_assert(THREADS % 32 == 0 && 32 % LANES == 0 && THREADS % P == 0, "a warp holds whole strip rows");
  // shared memory: [WARPS][COLS] partials, [COLS] this block's states (read by the cluster),
  // [COLS] finished states, then the strip's rows of x (and of the gradient)
  static constexpr int STATES = (WARPS + 2) * COLS;

  // Rows [lo, hi) of the share (at `base`, the strip's first column) into shared memory, as
  // asynchronous copies; packs past the last column read as zeros.
  static __device__ __forceinline__ void copy_in(T* sa, T* sb, const T* a, const T* b, i64 base, i64 col0,
                                                 i64 M, int lo, int hi) {
    for (int q = lo * P + threadIdx.x; q < hi * P; q += THREADS) {
      const int r = q / P, p = q % P;
      const bool ok = col0 + p * V < M;
      const i64 off = base + r * M + p * V;
      cp_async16(sa + q * V, ok ? a + off : a, ok);
      if (Op::IN == 2) cp_async16(sb + q * V, ok ? b + off : b, ok);
    }
  }

  // Fold rows [lo, hi) into the thread's states: K adjacent columns and every G-th row
  // (lo a multiple of G), four rows a fold.
  static __device__ __forceinline__ void fold(State (&s)[K], const T* sa, const T* sb, int lo, int hi) {
    if constexpr (Op::KNOWN_MAX && sizeof(T) == 2) {
      fold_known(s, sa, lo, hi);
      return;
    }
    const int c = (threadIdx.x % LANES) * K;
    int r = lo + threadIdx.x / LANES;
    for (; r + 3 * G < hi; r += 4 * G) {
      float va[4][K], vb[4][K];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        load_k<T, K>(sa + (r + u * G) * COLS + c, va[u]);
        if (Op::IN == 2) load_k<T, K>(sb + (r + u * G) * COLS + c, vb[u]);
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const float xa[4] = {va[0][k], va[1][k], va[2][k], va[3][k]};
        const float xb[4] = {vb[0][k], vb[1][k], vb[2][k], vb[3][k]};
        Op::template fold<4>(s[k], xa, xb);
      }
    }
    for (; r < hi; r += G) {
      float va[K], vb[K];
      load_k<T, K>(sa + r * COLS + c, va);
      if (Op::IN == 2) load_k<T, K>(sb + r * COLS + c, vb);
#pragma unroll
      for (int k = 0; k < K; ++k) Op::template fold<1>(s[k], va + k, vb + k);
    }
  }

  // The 16-bit forward fold in two passes over the rows on chip: their max first (two columns
  // an instruction), then their terms with the max known, so that no term is rescaled and no
  // row branches: 8 instructions an element where the online fold took 13 (bfloat16). float32,
  // whose max takes an instruction an element, measured level or slower this way.
  static __device__ __forceinline__ void fold_known(State (&s)[K], const T* sa, int lo, int hi) {
    const int c = (threadIdx.x % LANES) * K, first = lo + threadIdx.x / LANES;
    Pack<T, K> mx;
    mx.fill(-INFINITY);
    int r = first;
    for (; r + 3 * G < hi; r += 4 * G) {
      Pack<T, K> p[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) p[u].load(sa + (r + u * G) * COLS + c);
#pragma unroll
      for (int u = 0; u < 4; ++u) pack_max(mx, p[u]);
    }
    for (; r < hi; r += G) {
      Pack<T, K> p;
      p.load(sa + r * COLS + c);
      pack_max(mx, p);
    }
    float sub[K], sum[K], ones[K];  // sub: the max subtracted (0 for a max of -inf)
#pragma unroll
    for (int k = 0; k < K; ++k) { sub[k] = Op::shift(mx[k]); sum[k] = 0.f; ones[k] = 0.f; }
    for (r = first; r + 3 * G < hi; r += 4 * G) {
      float v[4][K];
#pragma unroll
      for (int u = 0; u < 4; ++u) load_k<T, K>(sa + (r + u * G) * COLS + c, v[u]);
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int k = 0; k < K; ++k) Op::term(sum[k], ones[k], v[u][k] - sub[k]);
    }
    for (; r < hi; r += G) {
      float v[K];
      load_k<T, K>(sa + r * COLS + c, v);
#pragma unroll
      for (int k = 0; k < K; ++k) Op::term(sum[k], ones[k], v[k] - sub[k]);
    }
#pragma unroll
    for (int k = 0; k < K; ++k) s[k] = Op::merge(s[k], Op::state(mx[k], sum[k], ones[k]));
  }

  // The threads' states to one finished state per column in `fin`: the warp's row groups by
  // shuffles, the warps' partials through shared memory, the cluster's C blocks through
  // distributed shared memory. Every thread of every block of the cluster calls it.
  template <int C>
  static __device__ __forceinline__ void finish(State (&s)[K], State* red, State* part, State* fin) {
    const int t = threadIdx.x, c = (t % LANES) * K;
#pragma unroll
    for (int k = 0; k < K; ++k) {
#pragma unroll
      for (int o = LANES; o < 32; o <<= 1) {  // the lanes holding the same columns
        const State u = {__shfl_xor_sync(0xffffffffu, s[k].a, o), __shfl_xor_sync(0xffffffffu, s[k].b, o)};
        s[k] = Op::merge(s[k], u);
      }
      if ((t & 31) < LANES) red[(t / 32) * COLS + c + k] = s[k];
    }
    __syncthreads();
    meet<Op, C, WARPS, COLS, THREADS>(red, part, fin);
  }

  // The output of `rows` rows from the copy on chip, 16-byte stores; a thread's packs share
  // one column pack (THREADS % P == 0), so its V finished states are read once. The stores are
  // streaming (evict-first): on the H200, [16, 8192, 1024] float32 went from 66% of a copy to 73%.
  static __device__ __forceinline__ void write_out(const State* fin, const T* sa, const T* sb, T* y, i64 base,
                                                   i64 col0, i64 M, int rows) {
    const int t = threadIdx.x;
    State f[V];
#pragma unroll
    for (int v = 0; v < V; ++v) f[v] = fin[(t % P) * V + v];
    if (col0 + (t % P) * V >= M) return;
    T* out = y + base + (i64)(t / P) * M + (t % P) * V;  // row q / P, moving THREADS / P rows a step
    const i64 step = (i64)(THREADS / P) * M;
    for (int q = t; q < rows * P; q += THREADS, out += step) {
      Pack<T, V> pa, pb, o;
      pa.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sa + q * V);
      if (Op::IN == 2) pb.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sb + q * V);
#pragma unroll
      for (int v = 0; v < V; ++v) o.set(v, Op::out(f[v], pa[v], Op::IN == 2 ? pb[v] : 0.f));
      o.store_cs(out);
    }
  }
};

// S: the block's rows land in S groups, each folded as soon as it is on chip while the later
// ones are still on their way (S == 1: fold after the whole share has landed).
template <typename T, int C, int W, int THREADS, int S, class Op>
__device__ __forceinline__ void cols_cluster(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y,
                                             i64 N, i64 L, i64 M) {
  typedef Share<T, W, THREADS, Op> Sh;
  static_assert(S >= 1 && S <= 8, "at most 8 groups of copies in flight");
  extern __shared__ __align__(16) unsigned char smem[];
  State* red = reinterpret_cast<State*>(smem);
  State* part = red + Sh::WARPS * Sh::COLS;
  State* fin = part + Sh::COLS;
  T* sa = reinterpret_cast<T*>(red + Sh::STATES);        // [rows][COLS] x (or y)
  const i64 lc = (L + C - 1) / C;
  T* sb = sa + lc * Sh::COLS;                             // [rows][COLS] the gradient (IN == 2)
  const i64 r0 = cluster_rank() * lc;
  const int rows = (int)max((i64)0, min(L, r0 + lc) - r0);
  // rows a group: a multiple of G, so that a thread's rows (every G-th) are the same in each
  const int per = ((rows + S - 1) / S + Sh::G - 1) / Sh::G * Sh::G;
  const i64 col0 = (blockIdx.x / C) * Sh::COLS;
  for (i64 n = blockIdx.y; n < N; n += gridDim.y) {
    const i64 base = (n * L + r0) * M + col0;
    // 1. the block's rows of the strip into shared memory, all copies in flight at once
    for (int s = 0; s < S; ++s) {
      Sh::copy_in(sa, sb, a, b, base, col0, M, min(rows, s * per), min(rows, (s + 1) * per));
      cp_async_commit();
    }
    // 2. folded group by group as they land
    State st[Sh::K];
#pragma unroll
    for (int k = 0; k < Sh::K; ++k) st[k] = Op::empty();
    for (int s = 0; s < S; ++s) {
      cp_async_wait_upto(S - 1 - s);
      __syncthreads();
      Sh::fold(st, sa, sb, min(rows, s * per), min(rows, (s + 1) * per));
    }
    // 3. the cluster's states per column
    Sh::template finish<C>(st, red, part, fin);
    // 4. the output from the copy on chip
    Sh::write_out(fin, sa, sb, y, base, col0, M, rows);
    cluster_wait();   // every block has read this one's `part`
    __syncthreads();  // the shared copy is overwritten by the next n
  }
}

template <typename T, int C, int W, int THREADS, int S, class Op>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(THREADS)
colsCluster(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, i64 N, i64 L, i64 M) {
  cols_cluster<T, C, W, THREADS, S, Op>(a, b, y, N, L, M);
}

// NVRTC 13.0 settles this one (float16 log-softmax, a strip on one block) at 64 registers and
// spills; told two blocks an SM it takes 96, so at most two blocks share an SM where a short axis
// would have let more in. Told the same, the others took 20-60% more registers than they need.
template <>
__global__ void __cluster_dims__(1, 1, 1) __launch_bounds__(256, 2)
colsCluster<half16, 1, 128, 256, 1, Forward<true> >(const half16* __restrict__ a, const half16* __restrict__ b,
                                                    half16* __restrict__ y, i64 N, i64 L, i64 M) {
  cols_cluster<half16, 1, 128, 256, 1, Forward<true> >(a, b, y, N, L, M);
}
