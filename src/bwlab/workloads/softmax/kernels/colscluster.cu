// Softmax down a strided axis reading x from DRAM once: a cluster of C blocks owns a strip
// of W bytes of every row of one [L, M] slice (W / 16 packs wide). Each block copies its
// share of the rows (L / C of them) into shared memory with asynchronous copies, reduces its
// columns there, and the C partial states per column meet through distributed shared memory;
// the output is then written from the copy on chip. The strip must fit: the launcher picks C
// so that ceil(L / C) * W * IN bytes fit in a block's shared memory. M % V == 0 and 16-byte
// aligned pointers (every pack whole).
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

template <typename T, int C, int W, int THREADS, class Op>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(THREADS)
colsCluster(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, i64 N, i64 L, i64 M) {
  constexpr int V = 16 / sizeof(T);   // elements per pack
  constexpr int P = W / 16;           // packs per strip row
  constexpr int COLS = P * V;         // columns per strip
  // The reduction reads K columns at a time from shared memory: a 16-byte pack on strips of 128
  // bytes or more, one element on narrower ones (each measured faster on the H200 there).
  constexpr int K = P >= 8 ? V : 1;
  constexpr int LANES = COLS / K;     // threads across a strip row in the reduction
  constexpr int G = THREADS / LANES;  // row groups of the reduction
  constexpr int WARPS = THREADS / 32;
  static_assert(THREADS % 32 == 0 && 32 % LANES == 0 && THREADS % P == 0, "a warp holds whole strip rows");
  extern __shared__ __align__(16) unsigned char smem[];
  State* red = reinterpret_cast<State*>(smem);          // [WARPS][COLS] partials
  State* part = red + WARPS * COLS;                      // [COLS] this block's states (read by the cluster)
  State* fin = part + COLS;                              // [COLS] finished states
  T* sa = reinterpret_cast<T*>(fin + COLS);              // [rows][COLS] x (or y)
  const unsigned rank = cluster_rank();
  const i64 strip = blockIdx.x / C;
  const i64 lc = (L + C - 1) / C;
  const i64 r0 = rank * lc;
  const int rows = (int)max((i64)0, min(L, r0 + lc) - r0);
  T* sb = sa + (i64)lc * COLS;                           // [rows][COLS] the gradient (IN == 2)
  const i64 col0 = strip * COLS;
  const int t = threadIdx.x;
  for (i64 n = blockIdx.y; n < N; n += gridDim.y) {
    const i64 base = (n * L + r0) * M + col0;
    // 1. the block's rows of the strip into shared memory, all copies in flight at once
    for (int q = t; q < rows * P; q += THREADS) {
      const int r = q / P, p = q % P;
      const bool ok = col0 + p * V < M;
      const i64 off = base + r * M + p * V;
      cp_async16(sa + q * V, ok ? a + off : a, ok);
      if (Op::IN == 2) cp_async16(sb + q * V, ok ? b + off : b, ok);
    }
    cp_async_wait_all();
    __syncthreads();
    // 2. each thread K adjacent columns and every G-th row, four rows a fold; the warp's row
    // groups merged by shuffles, then the warps' partials per column
    {
      const int c = (t % LANES) * K, g = t / LANES;
      State s[K];
#pragma unroll
      for (int k = 0; k < K; ++k) s[k] = Op::empty();
      int r = g;
      for (; r + 3 * G < rows; r += 4 * G) {
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
      for (; r < rows; r += G) {
        float va[K], vb[K];
        load_k<T, K>(sa + r * COLS + c, va);
        if (Op::IN == 2) load_k<T, K>(sb + r * COLS + c, vb);
#pragma unroll
        for (int k = 0; k < K; ++k) Op::template fold<1>(s[k], va + k, vb + k);
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
#pragma unroll
        for (int o = LANES; o < 32; o <<= 1) {  // the lanes holding the same columns
          const State u = {__shfl_xor_sync(0xffffffffu, s[k].a, o), __shfl_xor_sync(0xffffffffu, s[k].b, o)};
          s[k] = Op::merge(s[k], u);
        }
        if ((t & 31) < LANES) red[(t / 32) * COLS + c + k] = s[k];
      }
    }
    __syncthreads();
    if (t < COLS) {
      State s = red[t];
      for (int w = 1; w < WARPS; ++w) s = Op::merge(s, red[w * COLS + t]);
      part[t] = s;
    }
    // 3. the cluster's C states per column, through distributed shared memory
    cluster_sync();
    if (t < COLS) {
      State s = load_remote(part + t, 0);
      for (int k = 1; k < C; ++k) s = Op::merge(s, load_remote(part + t, k));
      fin[t] = Op::finish(s);
    }
    cluster_sync();  // every block has read `part` before any rewrites it (next n) or exits
    // 4. the output from the copy on chip, 16-byte stores; a thread's packs share one column
    // pack (THREADS % P == 0), so its V finished states are read once
    State f[V];
#pragma unroll
    for (int v = 0; v < V; ++v) f[v] = fin[(t % P) * V + v];
    if (col0 + (t % P) * V < M)
      for (int q = t; q < rows * P; q += THREADS) {
        Pack<T, V> pa, pb, o;
        pa.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sa + q * V);
        if (Op::IN == 2) pb.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sb + q * V);
#pragma unroll
        for (int v = 0; v < V; ++v) o.set(v, Op::out(f[v], pa[v], Op::IN == 2 ? pb[v] : 0.f));
        o.store(y + base + (i64)(q / P) * M + (t % P) * V);
      }
    __syncthreads();  // the shared copy is overwritten by the next n
  }
}
