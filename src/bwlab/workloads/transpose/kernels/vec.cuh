// 16-byte vectors at any byte offset: realigning two aligned vectors, loading next to the
// ends of a buffer without reading past them, and storing only some bytes of a vector.
// Used wherever a row of the matrix does not start on a 16-byte boundary.
#pragma once
#include "common.cuh"

typedef unsigned char byte;
typedef unsigned long long u64;

// Bytes s .. s+15 of the 32 bytes a:b (little endian, a first), 0 <= s < 16: an 8-byte and a
// 4-byte select, then a funnel shift by the remaining bytes. No dynamic register indexing.
__device__ __forceinline__ uint4 realign(uint4 a, uint4 b, int s) {
  const bool h8 = s & 8, h4 = s & 4;
  const unsigned c0 = h8 ? a.z : a.x, c1 = h8 ? a.w : a.y, c2 = h8 ? b.x : a.z;
  const unsigned c3 = h8 ? b.y : a.w, c4 = h8 ? b.z : b.x, c5 = h8 ? b.w : b.y;
  const unsigned d0 = h4 ? c1 : c0, d1 = h4 ? c2 : c1, d2 = h4 ? c3 : c2;
  const unsigned d3 = h4 ? c4 : c3, d4 = h4 ? c5 : c4;
  const unsigned sh = 8 * (s & 3);
  return make_uint4(__funnelshift_r(d0, d1, sh), __funnelshift_r(d1, d2, sh), __funnelshift_r(d2, d3, sh),
                    __funnelshift_r(d3, d4, sh));
}

__device__ __forceinline__ uint4 shfl(uint4 v, int src) {
  return make_uint4(__shfl_sync(0xffffffffu, v.x, src), __shfl_sync(0xffffffffu, v.y, src),
                    __shfl_sync(0xffffffffu, v.z, src), __shfl_sync(0xffffffffu, v.w, src));
}

__device__ __forceinline__ unsigned byte_of(uint4 v, int k) {  // k known at compile time after unrolling
  const unsigned w = k < 4 ? v.x : k < 8 ? v.y : k < 12 ? v.z : v.w;
  return (w >> (8 * (k & 3))) & 0xffu;
}

// The aligned 16 bytes at p; bytes outside [lo, hi) are not read (they come back as zero).
__device__ __forceinline__ uint4 load16_guarded(const byte* p, u64 lo, u64 hi) {
  const u64 a = reinterpret_cast<u64>(p);
  if (a >= lo && a + 16 <= hi) return *reinterpret_cast<const uint4*>(p);
  unsigned w0 = 0u, w1 = 0u, w2 = 0u, w3 = 0u;  // scalars, not an array: no local memory
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    const unsigned v = (a + k >= lo && a + k < hi) ? (unsigned)p[k] << (8 * (k & 3)) : 0u;
    if (k < 4) w0 |= v; else if (k < 8) w1 |= v; else if (k < 12) w2 |= v; else w3 |= v;
  }
  return make_uint4(w0, w1, w2, w3);
}

// Store the pieces of the 16 bytes at p (aligned) whose offsets lie in [lo, hi): pieces of E
// bytes (8 for 16-byte elements, whose boundaries an 8-byte-aligned buffer may shift by 8).
template <int E>
__device__ __forceinline__ void store_part(byte* p, uint4 v, int lo, int hi) {
  constexpr int P = E > 8 ? 8 : E;
#pragma unroll
  for (int k = 0; k < 16; k += P) {
    if (k < lo || k >= hi) continue;
    if (P == 1) {
      p[k] = (byte)byte_of(v, k);
    } else if (P == 2) {
      reinterpret_cast<unsigned short*>(p)[k / 2] = (unsigned short)(byte_of(v, k) | byte_of(v, k + 1) << 8);
    } else if (P == 4) {
      reinterpret_cast<unsigned*>(p)[k / 4] = k == 0 ? v.x : k == 4 ? v.y : k == 8 ? v.z : v.w;
    } else {
      reinterpret_cast<uint2*>(p)[k / 8] = k == 0 ? make_uint2(v.x, v.y) : make_uint2(v.z, v.w);
    }
  }
}

// A whole aligned 16-byte store: evict-first (STREAM, st.global.cs) or plain (st.global.wb). The
// aligned vector tiles (tile_vec) keep evict-first. The kernels whose blocks write short pieces of
// many output rows, or rows off the 16-byte grid (skinnyTile, skinnyWords, widePerm, tallPerm,
// tileWhole, tileWholeWords), take plain stores: on the H200 (256 MiB and 1 GiB,
// benchmarks/h200/transpose/store-policy) 36 of 42 such shapes ran 0.5 to 5.6 points of a copy
// faster with them, the other 6 level (-0.3 to +0.4), and a copy writing the tall tiles' pattern
// 0.5-2 points faster; tileAny<4> lost 21 points with them. Lines kept in L2 until the neighbouring
// block has written its other bytes, not evicted first, may be why.
template <bool STREAM>
__device__ __forceinline__ void store16(byte* p, uint4 v) {
  if (STREAM) __stcs(reinterpret_cast<uint4*>(p), v);
  else __stwb(reinterpret_cast<uint4*>(p), v);  // not `*p = v`: the same asm as __stcs, which some
                                                // kernels near their register bound need unspilled
}

// Store the aligned vector v at p, only its bytes inside [lo, hi) (absolute addresses):
// a whole 16-byte store (store16<STREAM>) when all of it is inside.
template <int E, bool STREAM = true>
__device__ __forceinline__ void store16_clipped(byte* p, uint4 v, u64 lo, u64 hi) {
  const u64 a = reinterpret_cast<u64>(p);
  if (a >= lo && a + 16 <= hi) {
    store16<STREAM>(p, v);
  } else if (a + 16 > lo && a < hi) {
    store_part<E>(p, v, a < lo ? (int)(lo - a) : 0, a + 16 > hi ? (int)(hi - a) : 16);
  }
}

// The aligned word at p (read-only for the kernel), the L2 fetching the whole 128-byte line on a
// miss (for warps whose words of a row span two lines, the other part read by a neighbour).
__device__ __forceinline__ unsigned load4_l2_128(const byte* p) {
  unsigned w;
  asm("ld.global.nc.L2::128B.u32 %0, [%1];" : "=r"(w) : "l"(p));
  return w;
}

// The aligned 8 bytes at p, as load4_l2_128 (for warps reading 256 bytes of a row).
__device__ __forceinline__ uint2 load8_l2_128(const byte* p) {
  uint2 w;
  asm("ld.global.nc.L2::128B.v2.u32 {%0, %1}, [%2];" : "=r"(w.x), "=r"(w.y) : "l"(p));
  return w;
}

// 0, from a test that never holds (n >= 0) on every word of w: an address or lane offset that
// makes the instructions using it wait for all of w's loads. Left to itself the compiler may
// interleave loads with their first uses (the more so near its register limit), and a warp then
// has only some of its loads in flight.
template <int N>
__device__ __forceinline__ int after_all(const unsigned (&w)[N], i64 n) {
  unsigned all = 0u;
#pragma unroll
  for (int i = 0; i < N; ++i) all ^= w[i];
  return all == 0u && n < 0;
}
