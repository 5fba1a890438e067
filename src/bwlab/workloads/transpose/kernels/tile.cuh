// The tile machinery shared by tileAny (any.cu) and tileAlign (align.cu): the shared-memory
// layout of a TR x TC tile of E-byte elements, the store phase's gather of output vectors
// from 4-byte shared units, and the column-first tile order.
#pragma once
#include "vec.cuh"

// The shared read unit of the store phase: max(E, 4) bytes, G = max(1, 4/E) elements.
template <int E> struct Unit { typedef typename Elem<(E < 4 ? 4 : E)>::T T; };

// Output vector t (of G) from VE units u[0..VE): element k is element t of unit k.
template <int E>
__device__ __forceinline__ uint4 gather(const typename Unit<E>::T* u, int t);

template <>
__device__ __forceinline__ uint4 gather<16>(const uint4* u, int) { return u[0]; }

template <>
__device__ __forceinline__ uint4 gather<8>(const unsigned long long* u, int) {
  return make_uint4((unsigned)u[0], (unsigned)(u[0] >> 32), (unsigned)u[1], (unsigned)(u[1] >> 32));
}

template <>
__device__ __forceinline__ uint4 gather<4>(const unsigned* u, int) { return make_uint4(u[0], u[1], u[2], u[3]); }

template <>
__device__ __forceinline__ uint4 gather<2>(const unsigned* u, int t) {
  const unsigned sel = t ? 0x7632 : 0x5410;  // the high or the low half of each of two words
  return make_uint4(__byte_perm(u[0], u[1], sel), __byte_perm(u[2], u[3], sel),
                    __byte_perm(u[4], u[5], sel), __byte_perm(u[6], u[7], sel));
}

template <>
__device__ __forceinline__ uint4 gather<1>(const unsigned* u, int t) {
  const unsigned sel = t | ((4 + t) << 4);  // byte t of x, byte t of y
  unsigned w[4];
#pragma unroll
  for (int m = 0; m < 4; ++m) {
    const unsigned lo = __byte_perm(u[4 * m], u[4 * m + 1], sel);
    const unsigned hi = __byte_perm(u[4 * m + 2], u[4 * m + 3], sel);
    w[m] = __byte_perm(lo, hi, 0x5410);
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

template <int E, int TR, int TC>
struct TileShape {
  static constexpr int VE = 16 / E;               // elements per 16-byte vector
  static constexpr int G = E < 4 ? 4 / E : 1;     // elements per shared read unit
  static constexpr int PITCH = TC * E;            // bytes per row, plus 16 per VE rows
  static constexpr int BYTES = TR * PITCH + (TR / VE) * 16;
  static_assert(PITCH % 128 == 0, "a tile row must be a multiple of 128 bytes");
  static_assert(TR % (8 * VE) == 0, "tile rows: a multiple of 8 vectors");
  static_assert(TC % (4 * G) == 0, "tile columns: a multiple of 4 read units");
};

// Tile t of the launch order: matrix b, first row r0 and column c0 (tile columns first).
template <int TR, int TC>
__device__ __forceinline__ void tile_at(i64 t, i64 tiles_r, i64 per_matrix, i64& b, i64& r0, i64& c0) {
  i64 k, tc, tr;
  divmod(t, per_matrix, b, k);
  divmod(k, tiles_r, tc, tr);
  r0 = tr * TR;
  c0 = tc * TC;
}

