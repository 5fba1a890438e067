// Softmax down a strided axis: x is [N, L, M] (M > 1) reduced over L, threads along the
// contiguous axis M so that every warp reads whole rows of memory. Three rungs:
//  colsThree:  one thread per column, three passes (max, sum, write): coalesced, 3 reads.
//  colsOnline: the running max and sum in one pass (the sum rescaled when the max grows),
//              then the write pass: 2 reads.
//  colsSplit:  V-element packs (16 bytes) per thread and BY threads sharing each column's
//              rows, partial states merged in shared memory: enough threads in flight to fill
//              the GPU when N * M is small. Still 2 reads. Takes any Op (forward or backward).
#include "softmax.cuh"

template <typename T, int BX, bool LOG>
__global__ void __launch_bounds__(BX) colsThree(const T* __restrict__ x, T* __restrict__ y, i64 N, i64 L, i64 M) {
  const i64 m = blockIdx.x * (i64)BX + threadIdx.x;
  if (m >= M) return;
  for (i64 n = blockIdx.y; n < N; n += gridDim.y) {
    const T* in = x + n * L * M + m;
    T* out = y + n * L * M + m;
    float mx = -INFINITY, sum = 0.f;
    for (i64 i = 0; i < L; ++i) mx = maxnan(mx, to_f(in[i * M]));
    for (i64 i = 0; i < L; ++i) sum += ex2((to_f(in[i * M]) - mx) * LOG2E);
    const State f = Forward<LOG>::finish({mx, sum - 1.f});  // the state keeps the sum less one
    for (i64 i = 0; i < L; ++i) out[i * M] = from_f<T>(Forward<LOG>::out(f, to_f(in[i * M]), 0.f));
  }
}

template <typename T, int BX, bool LOG>
__global__ void __launch_bounds__(BX) colsOnline(const T* __restrict__ x, T* __restrict__ y, i64 N, i64 L, i64 M) {
  typedef Forward<LOG> Op;
  const i64 m = blockIdx.x * (i64)BX + threadIdx.x;
  if (m >= M) return;
  for (i64 n = blockIdx.y; n < N; n += gridDim.y) {
    const T* in = x + n * L * M + m;
    T* out = y + n * L * M + m;
    State s = Op::empty();
    i64 i = 0;
    for (; i + 4 <= L; i += 4) {  // four rows in flight, one rescale per four
      float v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = to_f(in[(i + u) * M]);
      Op::template fold<4>(s, v, v);
    }
    for (; i < L; ++i) {
      const float v = to_f(in[i * M]);
      Op::template fold<1>(s, &v, &v);
    }
    const State f = Op::finish(s);
    for (i64 r = 0; r < L; ++r) out[r * M] = from_f<T>(Op::out(f, to_f(in[r * M]), 0.f));
  }
}

// Block (32, BY): lane tx owns columns [(bx * 32 + tx) * V, + V); thread row ty takes rows
// ty, ty + BY, ...; a = x (or y), b = the gradient for a backward Op.
template <typename T, int V, int BY, class Op>
__global__ void __launch_bounds__(32 * BY) colsSplit(const T* __restrict__ a, const T* __restrict__ b,
                                                     T* __restrict__ y, i64 N, i64 L, i64 M) {
  __shared__ State part[BY][32 * V];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const i64 m0 = (blockIdx.x * (i64)32 + tx) * V;
  const bool live = m0 < M;  // M % V == 0: a pack is all in or all out
  for (i64 n = blockIdx.y; n < N; n += gridDim.y) {
    const i64 base = n * L * M + m0;
    State s[V];
#pragma unroll
    for (int v = 0; v < V; ++v) s[v] = Op::empty();
    if (live) {
      fold_rows<T, V, BY, Op>(s, a, b, base, M, ty, L);
    }
#pragma unroll
    for (int v = 0; v < V; ++v) part[ty][tx * V + v] = s[v];
    __syncthreads();
#pragma unroll
    for (int v = 0; v < V; ++v) {
      State t = part[0][tx * V + v];
      for (int r = 1; r < BY; ++r) t = Op::merge(t, part[r][tx * V + v]);
      s[v] = Op::finish(t);
    }
    __syncthreads();  // part is rewritten by the next n
    if (!live) continue;
    for (i64 i = ty; i < L; i += BY) {
      Pack<T, V> pa, pb, o;
      pa.load(a + base + i * M);
      if (Op::IN == 2) pb.load(b + base + i * M);
#pragma unroll
      for (int v = 0; v < V; ++v) o.set(v, Op::out(s[v], pa[v], Op::IN == 2 ? pb[v] : 0.f));
      o.store(y + base + i * M);
    }
  }
}
