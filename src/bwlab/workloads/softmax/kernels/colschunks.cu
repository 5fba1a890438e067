// Softmax down a strided axis too long for a cluster to hold its strips: x read twice, in three
// launches. The first and the last take a block for every chunk of rows, so a long axis fills the
// GPU however few its columns; the middle one, a thread per column, is short. x is [N, L, M] reduced over
// L, cut into chunks of R rows (R, LX and BY are each launch's own: gradients read in chunks of 1024
// rows 128 bytes wide, as torch.compile splits such a reduction, and write in shorter, wider ones).
//  colsPartial: a block (LX, BY) takes LX packs of columns of one chunk; lane tx walks every
//               BY-th row of its columns, U packs in flight (evict-first loads: CS), the BY row
//               groups meet in shared memory, and the chunk's state per column goes to the
//               workspace [N][chunks][M].
//  colsMerge:   each column's chunk states merged in chunk order and finished, [N][M].
//  colsFinish:  each chunk of its own geometry written from its columns' finished states, U
//               packs a thread in flight. Its blocks run in the reverse order, so the first find
//               the chunks read last in L2. Its stores are streaming (evict-first): with plain
//               stores, [4, 32768, 1024] float32 ran at 45% of a copy, with them at 60%.
// Neighbouring blocks take neighbouring columns of the same rows, so the GPU reads whole rows
// of memory at a time. M % V == 0; V > 1 only with 16-byte aligned pointers.
// On sm_90 the merge and the write are programmatic dependent launches: each launch lets the next
// start as soon as its blocks are all running, so the next one's blocks take the SMs its last wave
// frees (and its launch latency is hidden), and wait there for it to finish before reading what it
// wrote. Launched plainly, the wait returns at once.
#include "softmax.cuh"

__device__ __forceinline__ void start_dependents() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Until the launch before this one has finished and its writes are visible
__device__ __forceinline__ void wait_for_prior() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Blocks an SM must hold: 64 registers a thread (128 for colsPartial's softmax gradients, which
// spill at 64 and 80; log-softmax gradients, a fold of g alone, fit 64 with 8 packs in flight and
// take 4 blocks of 256 through BLOCKS). Left to choose, NVRTC settled some instantiations at 32-48
// and spilled.
#define CHUNK_BLOCKS(threads) (1024 / (threads))
#define PARTIAL_BLOCKS(threads, inputs) ((inputs) == 2 ? 512 / (threads) : 1024 / (threads))

// Block b of (LX * V columns) x (R rows): its chunk, and the thread's first column.
struct ChunkBlock {
  i64 chunk, m;
  __device__ ChunkBlock(i64 b, i64 M, int V, int LX) {
    const i64 col_blocks = (M + LX * V - 1) / (LX * V);
    chunk = b / col_blocks;
    m = ((b % col_blocks) * LX + threadIdx.x) * V;
  }
};

template <typename T, int V, int LX, int BY, class Op, int U = 4, int BLOCKS = PARTIAL_BLOCKS(LX * BY, Op::IN),
          bool CS = false>
__global__ void __launch_bounds__(LX * BY, BLOCKS)
colsPartial(const T* __restrict__ a, const T* __restrict__ b, State* __restrict__ ws, i64 N, i64 L, i64 M, i64 R) {
  __shared__ State part[BY][LX * V];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const ChunkBlock at(blockIdx.x, M, V, LX);
  const i64 chunks = (L + R - 1) / R, lo = at.chunk * R, hi = min(L, lo + R);
  const bool live = at.m < M;
  start_dependents();
  for (i64 n = blockIdx.y; n < N; n += gridDim.y) {
    const i64 base = n * L * M + at.m;
    State s[V];
#pragma unroll
    for (int v = 0; v < V; ++v) s[v] = Op::empty();
    if (live) fold_rows<T, V, BY, Op, U, CS>(s, a, b, base, M, lo + ty, hi);
#pragma unroll
    for (int v = 0; v < V; ++v) part[ty][tx * V + v] = s[v];
    __syncthreads();
    if (live)
      for (int v = ty; v < V; v += BY) {  // one thread row a column of the pack
        State t = part[0][tx * V + v];
        for (int r = 1; r < BY; ++r) t = Op::merge(t, part[r][tx * V + v]);
        ws[(n * chunks + at.chunk) * M + at.m + v] = t;
      }
    __syncthreads();  // part is rewritten by the next n
  }
}

// Block (32, BY): 32 columns of one slice, BY runs of chunks merged side by side, then in order.
template <int BY, class Op>
__global__ void __launch_bounds__(32 * BY) colsMerge(const State* __restrict__ ws, State* __restrict__ fin, i64 N,
                                                     i64 M, i64 chunks) {
  __shared__ State part[BY][32];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const i64 col_blocks = (M + 31) / 32;
  const i64 n = blockIdx.x / col_blocks, m = (blockIdx.x % col_blocks) * 32 + tx;
  start_dependents();
  wait_for_prior();
  State s = Op::empty();
  if (m < M) {
    const State* src = ws + n * chunks * M + m;
    const i64 lo = ty * chunks / BY, hi = (ty + 1) * chunks / BY;
    i64 j = lo;
    for (; j + 4 <= hi; j += 4) {
      State u[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) u[i] = src[(j + i) * M];
#pragma unroll
      for (int i = 0; i < 4; ++i) s = Op::merge(s, u[i]);
    }
    for (; j < hi; ++j) s = Op::merge(s, src[j * M]);
  }
  part[ty][tx] = s;
  __syncthreads();
  if (ty == 0 && m < M) {
    for (int r = 1; r < BY; ++r) s = Op::merge(s, part[r][tx]);
    fin[n * M + m] = Op::finish(s);
  }
}

template <typename T, int V, int LX, int BY, int U, class Op>
__global__ void __launch_bounds__(LX * BY, CHUNK_BLOCKS(LX * BY))
colsFinish(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, const State* __restrict__ fin, i64 N,
           i64 L, i64 M, i64 R) {
  const int ty = threadIdx.y;
  const ChunkBlock at((i64)gridDim.x - 1 - blockIdx.x, M, V, LX);
  if (at.m >= M) return;
  const i64 lo = at.chunk * R, hi = min(L, lo + R);
  wait_for_prior();
  for (i64 n = (i64)gridDim.y - 1 - blockIdx.y; n < N; n += gridDim.y) {
    State f[V];
#pragma unroll
    for (int v = 0; v < V; ++v) f[v] = fin[n * M + at.m + v];
    const i64 base = n * L * M + at.m;
    i64 i = lo + ty;
    for (; i + (U - 1) * BY < hi; i += U * BY) {  // U packs in flight
      Pack<T, V> pa[U], pb[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        pa[u].load(a + base + (i + u * BY) * M);
        if (Op::IN == 2) pb[u].load(b + base + (i + u * BY) * M);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        Pack<T, V> o;
#pragma unroll
        for (int v = 0; v < V; ++v) o.set(v, Op::out(f[v], pa[u][v], Op::IN == 2 ? pb[u][v] : 0.f));
        o.store_cs(y + base + (i + u * BY) * M);
      }
    }
    for (; i < hi; i += BY) {
      Pack<T, V> pa, pb, o;
      pa.load(a + base + i * M);
      if (Op::IN == 2) pb.load(b + base + i * M);
#pragma unroll
      for (int v = 0; v < V; ++v) o.set(v, Op::out(f[v], pa[v], Op::IN == 2 ? pb[v] : 0.f));
      o.store_cs(y + base + i * M);
    }
  }
}
