// Transposes with one tiny side (C <= 8 elements), where a tile would idle most threads:
// tall (n x C -> C x n) and wide (C x n -> n x C). One thread owns VE = 16/E positions
// along the long side: the C x VE block it moves is one contiguous run of 16*C bytes on
// the short-row side and C separate 16-byte vectors on the long-row side, all held in
// registers and rearranged with compile-time indices (C is a template parameter). The
// long-row side is fully coalesced; the short-row side's 16-byte pieces of a warp cover
// one contiguous range, so L1/L2 merge them into full sectors. Elements travel as raw
// bytes: bit-exact for every dtype. Tails and unaligned views take a scalar path.
#include "common.cuh"

typedef unsigned char byte;

__device__ __forceinline__ bool is_aligned16(const void* p) {
  return (reinterpret_cast<unsigned long long>(p) & 15) == 0;
}

// Copy element fi of word array `from` to element ti of `to` (indices known at compile
// time after unrolling, so both arrays stay in registers: shifts and masks, no local memory).
template <int E>
__device__ __forceinline__ void copy_elem(const unsigned* from, int fi, unsigned* to, int ti) {
  if (E >= 4) {
#pragma unroll
    for (int w = 0; w < E / 4; ++w) to[ti * (E / 4) + w] = from[fi * (E / 4) + w];
  } else {
    constexpr unsigned MASK = E == 1 ? 0xFFu : 0xFFFFu;
    const int fs = 8 * ((fi * E) & 3), ts = 8 * ((ti * E) & 3);
    const unsigned v = (from[(fi * E) >> 2] >> fs) & MASK;
    unsigned& d = to[(ti * E) >> 2];
    d = (d & ~(MASK << ts)) | (v << ts);
  }
}

__device__ __forceinline__ void unpack(uint4 v, unsigned* w) { w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w; }
__device__ __forceinline__ uint4 pack(const unsigned* w) { return make_uint4(w[0], w[1], w[2], w[3]); }

// TALL: in is n x C (row-major), out is C x n. WIDE: in is C x n, out is n x C.
// Thread u of the grid owns positions u*VE .. u*VE+VE-1 along n of matrix u / chunks; over
// a batch, its short-row run (16*C bytes) sits at byte u*16*C of that side's buffer. WIDE
// stages a warp's short rows in shared memory so the stores leave as consecutive 16-byte
// vectors per lane (the strided side of TALL is the loads, which L1 merges).
template <int E, int C, bool TALL>
__global__ void __launch_bounds__(256)
skinny(const byte* __restrict__ in_, byte* __restrict__ out_, i64 n, i64 batch) {
  typedef typename Elem<E>::T T;
  constexpr int VE = 16 / E;
  constexpr int S = C | 1;  // odd stride (in vectors) between lanes' staged runs: no bank conflicts
  __shared__ uint4 stage[TALL ? 1 : 256 * S];
  const T* in = reinterpret_cast<const T*>(in_);
  T* out = reinterpret_cast<T*>(out_);
  const i64 chunks = (n + VE - 1) / VE, total = chunks * batch, matrix = n * C;
  // The long rows (length n) start at multiples of n elements: aligned iff n*E % 16 == 0.
  const bool vec = (n % VE == 0) && is_aligned16(in_) && is_aligned16(out_);
  const int lane = threadIdx.x & 31;
  uint4* my_stage = stage + (threadIdx.x & ~31) * S;

  // Warp-uniform loop: all lanes reach the __syncwarp()s; lanes past the end idle.
  for (i64 base = (i64)blockIdx.x * blockDim.x + (threadIdx.x & ~31); base < total;
       base += (i64)gridDim.x * blockDim.x) {
    const i64 u = base + lane;
    const bool live = u < total;
    i64 b = 0, chunk = 0;
    if (live) divmod(u, chunks, b, chunk);
    const i64 p0 = chunk * VE;  // positions p0 .. p0+VE-1 along n
    const T* src = in + b * matrix;
    T* dst = out + b * matrix;
    if (vec) {
      // packed: the C x VE block as VE short rows of C; lines: as C long rows of VE (words)
      unsigned packed[4 * C] = {}, lines[4 * C] = {};  // zeroed: sub-word inserts read them
      if (TALL) {
        if (live) {
#pragma unroll
          for (int v = 0; v < C; ++v) unpack(reinterpret_cast<const uint4*>(src + p0 * C)[v], packed + 4 * v);
#pragma unroll
          for (int k = 0; k < VE; ++k)
#pragma unroll
            for (int j = 0; j < C; ++j) copy_elem<E>(packed, k * C + j, lines, j * VE + k);
#pragma unroll
          for (int j = 0; j < C; ++j) __stcs(reinterpret_cast<uint4*>(dst + j * n + p0), pack(lines + 4 * j));
        }
      } else {
        if (live) {
#pragma unroll
          for (int j = 0; j < C; ++j) unpack(*reinterpret_cast<const uint4*>(src + j * n + p0), lines + 4 * j);
#pragma unroll
          for (int k = 0; k < VE; ++k)
#pragma unroll
            for (int j = 0; j < C; ++j) copy_elem<E>(lines, j * VE + k, packed, k * C + j);
#pragma unroll
          for (int v = 0; v < C; ++v) my_stage[lane * S + v] = pack(packed + 4 * v);
        }
        __syncwarp();
        // The warp's short rows are one contiguous range of 32*C vectors from vector base*C.
        const i64 live_vectors = min((i64)32, total - base) * C;
        uint4* o = reinterpret_cast<uint4*>(out_) + base * C;
#pragma unroll
        for (int k = lane; k < 32 * C; k += 32)
          if (k < live_vectors) __stcs(o + k, my_stage[(k / C) * S + k % C]);
        __syncwarp();
      }
    } else if (live) {
      for (int k = 0; k < VE && p0 + k < n; ++k)
#pragma unroll
        for (int j = 0; j < C; ++j) {
          if (TALL) dst[j * n + p0 + k] = src[(p0 + k) * C + j];
          else dst[(p0 + k) * C + j] = src[j * n + p0 + k];
        }
    }
  }
}
