// Softmax down a strided axis reading x from DRAM once: a cluster of C blocks owns a strip
// of W bytes of every row of one [L, M] slice (W / 16 packs wide). Each block copies its
// share of the rows (L / C of them) into shared memory with asynchronous copies, reduces its
// columns there, and the C partial states per column meet through distributed shared memory;
// the output is then written from the copy on chip. The strip must fit: the launcher picks C
// so that ceil(L / C) * W * IN bytes fit in a block's shared memory. M % V == 0 and 16-byte
// aligned pointers (every pack whole).
#include "softmax.cuh"

template <typename T, int C, int W, int THREADS, class Op>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(THREADS)
colsCluster(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, i64 N, i64 L, i64 M) {
  constexpr int V = 16 / sizeof(T);   // elements per pack
  constexpr int P = W / 16;           // packs per strip row
  constexpr int COLS = P * V;         // columns per strip
  constexpr int G = THREADS / COLS;   // row groups of the reduction
  static_assert(THREADS % COLS == 0 && G >= 1, "THREADS must be a multiple of the strip's columns");
  extern __shared__ __align__(16) unsigned char smem[];
  State* red = reinterpret_cast<State*>(smem);          // [G][COLS] partials
  State* part = red + G * COLS;                          // [COLS] this block's states (read by the cluster)
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
    // 2. each thread one column and every G-th row; then the G partials per column
    {
      const int c = t % COLS, g = t / COLS;
      State s = Op::empty();
      int r = g;
      for (; r + 3 * G < rows; r += 4 * G) {
        float va[4], vb[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          va[u] = to_f(sa[(r + u * G) * COLS + c]);
          vb[u] = Op::IN == 2 ? to_f(sb[(r + u * G) * COLS + c]) : 0.f;
        }
        Op::template fold<4>(s, va, vb);
      }
      for (; r < rows; r += G) {
        const float va = to_f(sa[r * COLS + c]), vb = Op::IN == 2 ? to_f(sb[r * COLS + c]) : 0.f;
        Op::template fold<1>(s, &va, &vb);
      }
      red[g * COLS + c] = s;
    }
    __syncthreads();
    if (t < COLS) {
      State s = red[t];
      for (int g = 1; g < G; ++g) s = Op::merge(s, red[g * COLS + t]);
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
    // 4. the output from the copy on chip, 16-byte stores
    for (int q = t; q < rows * P; q += THREADS) {
      const int r = q / P, p = q % P;
      if (col0 + p * V >= M) continue;
      Pack<T, V> pa, pb, o;
      pa.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sa + q * V);
      if (Op::IN == 2) pb.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sb + q * V);
#pragma unroll
      for (int v = 0; v < V; ++v) o.set(v, Op::out(fin[p * V + v], pa[v], Op::IN == 2 ? pb[v] : 0.f));
      o.store(y + base + (i64)r * M + p * V);
    }
    __syncthreads();  // the shared copy is overwritten by the next n
  }
}
