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

// Every TR x TC tile of `batch` rows x cols matrices, in the launch order above, striding over
// the grid: tile(b, r0, c0) moves one through the block's shared buffer.
template <int TR, int TC, class Tile>
__device__ __forceinline__ void each_tile(i64 rows, i64 cols, i64 batch, Tile tile) {
  const i64 tiles_r = (rows + TR - 1) / TR, per_matrix = tiles_r * ((cols + TC - 1) / TC), total = per_matrix * batch;
  for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
    i64 b, r0, c0;
    tile_at<TR, TC>(t, tiles_r, per_matrix, b, r0, c0);
    tile(b, r0, c0);
    if (t + gridDim.x < total) __syncthreads();  // the block's next tile reuses the shared buffer
  }
}

// One TR x TC tile through shared memory with 16-byte vectors (the body of tileAny and of
// tileBatched): input row r of the tile starts at x + in_row(r), output row j at y + out_row(j)
// (offsets in elements; typed pointers: byte arithmetic here costs registers); nr, nc: input
// rows and columns left in the matrix. Needs nr, nc and every row offset in whole vectors (VE
// elements) and 16-byte aligned x and y, so every vector is wholly inside or outside the
// matrix and edge tiles keep the vector path.
template <int E, int TR, int TC, int THREADS, class InRow, class OutRow>
__device__ __forceinline__ void tile_vec(const typename Elem<E>::T* __restrict__ x, InRow in_row,
                                         typename Elem<E>::T* __restrict__ y, OutRow out_row, i64 nr, i64 nc,
                                         byte* s) {
  typedef TileShape<E, TR, TC> S;
  typedef typename Unit<E>::T U;
  constexpr int VE = S::VE, G = S::G, WARPS = THREADS / 32;
  constexpr int LOAD_PATCHES = (TR / 4) * (TC / (8 * VE));   // 4 rows x 8 vectors each
  constexpr int STORE_PATCHES = (TC / (4 * G)) * (TR / (8 * VE));  // 4 units x 8 vectors each
  static_assert(THREADS % 32 == 0 && LOAD_PATCHES % WARPS == 0 && STORE_PATCHES % WARPS == 0,
                "threads must divide the tile's patches");
  constexpr int NL = LOAD_PATCHES / WARPS, NS = STORE_PATCHES / WARPS;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int pr = lane >> 3, pv = lane & 7;
  const bool full = nr >= TR && nc >= TC;
  uint4 v[NL];
#pragma unroll
  for (int i = 0; i < NL; ++i) {  // every load in flight before the first shared store
    const int p = warp + i * WARPS;
    const int r = (p / (TC / (8 * VE))) * 4 + pr, c = ((p % (TC / (8 * VE))) * 8 + pv) * VE;
    if (full || (r < nr && c < nc)) v[i] = *reinterpret_cast<const uint4*>(x + in_row(r) + c);
  }
#pragma unroll
  for (int i = 0; i < NL; ++i) {
    const int p = warp + i * WARPS;
    const int r = (p / (TC / (8 * VE))) * 4 + pr, c = ((p % (TC / (8 * VE))) * 8 + pv) * VE;
    *reinterpret_cast<uint4*>(s + r * S::PITCH + (r / VE) * 16 + c * E) = v[i];
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < NS; ++q) {
    const int p = warp + q * WARPS;
    const int j = (p / (TR / (8 * VE))) * 4 * G + pr * G;       // first of G output rows
    const int i = ((p % (TR / (8 * VE))) * 8 + pv) * VE;        // first of VE output columns
    U u[VE];
#pragma unroll
    for (int e = 0; e < VE; ++e)
      u[e] = *reinterpret_cast<const U*>(s + (i + e) * S::PITCH + (i / VE) * 16 + j * E);
#pragma unroll
    for (int g = 0; g < G; ++g)
      if (full || (j + g < nc && i < nr)) __stcs(reinterpret_cast<uint4*>(y + out_row(j + g) + i), gather<E>(u, g));
  }
}

// Shared-memory bytes of tile_scalar's padded tile: consecutive rows in consecutive banks.
template <int E, int TR, int TC>
struct ScalarTile {
  static constexpr int PITCH = TC * E + (E < 4 ? 4 : E);
  static constexpr int BYTES = TR * PITCH;
};

// Chains of dependent address steps a side in the element tiles: short enough to keep the
// accesses flowing (measured on the H200: 8 for 2- to 8-byte elements, 1 for bytes).
template <int E, int NE>
struct Chains { static constexpr int N = E == 1 ? 1 : NE < 8 ? NE : 8; };

// The store phase of the element tiles: thread (lj, li) writes element li of output rows lj +
// k*CS of the tile, read from shared memory at li * SPITCH + shift + column * E (shift: the
// byte offset of the tile's input row li in shared memory); rr x cc: the tile's input rows and
// columns inside the matrix.
template <int E, int TR, int TC, int THREADS, int SPITCH>
__device__ __forceinline__ void store_columns(const byte* s, int shift, typename Elem<E>::T* __restrict__ dst,
                                              i64 ldo, int rr, int cc) {
  typedef typename Elem<E>::T T;
  constexpr int NE = TR * TC / THREADS, CS = THREADS / TR, CH = Chains<E, NE>::N;
  const int lj = threadIdx.x / TR, li = threadIdx.x % TR;
  const byte* row = s + li * SPITCH + shift;
  T* y[CH];
  const i64 ystep = CS * ldo;
#pragma unroll
  for (int j = 0; j < CH; ++j) y[j] = dst + (lj + j * CS) * ldo + li;
  if (rr == TR && cc == TC) {
#pragma unroll
    for (int k = 0; k < NE; ++k) {  // lanes along output rows
      __stcs(y[k % CH], *reinterpret_cast<const T*>(row + (lj + k * CS) * E));
      y[k % CH] += CH * ystep;
    }
  } else {
    const bool row_out = li < rr;
#pragma unroll
    for (int k = 0; k < NE; ++k) {
      if (row_out && lj + k * CS < cc) __stcs(y[k % CH], *reinterpret_cast<const T*>(row + (lj + k * CS) * E));
      y[k % CH] += CH * ystep;
    }
  }
}

// One TR x TC tile element by element (the body of tileScalar and scalarBatched), for any
// pitches and alignment: src, ldi, dst, ldo, nr, nc as for tile_vec; cs: the input's column
// stride (1 but for stridedTile). Each thread keeps one column of the input tile (rows lr +
// k*RS) and one of the output tile (rows lj + k*CS), all its loads in flight before the first
// shared store. A tile wholly inside the matrix (all but the edge tiles) skips the bounds
// tests, and addresses step by a 64-bit constant: with a 64-bit multiply and 64-bit tests per
// element the kernel had run some 50 instructions an element, issue-bound on the H200.
template <int E, int TR, int TC, int THREADS>
__device__ __forceinline__ void tile_scalar(const typename Elem<E>::T* __restrict__ src, i64 ldi,
                                            typename Elem<E>::T* __restrict__ dst, i64 ldo, i64 nr, i64 nc, byte* s,
                                            i64 cs = 1) {
  typedef typename Elem<E>::T T;
  constexpr int SPITCH = ScalarTile<E, TR, TC>::PITCH;
  constexpr int NE = TR * TC / THREADS, RS = THREADS / TC, CH = Chains<E, NE>::N;
  static_assert(THREADS % TC == 0 && THREADS % TR == 0 && NE <= 32, "thread layout of the tile");
  const int lr = threadIdx.x / TC, lc = threadIdx.x % TC;
  const int rr = (int)min(nr, (i64)TR), cc = (int)min(nc, (i64)TC);  // the tile's rows and columns inside
  const T* x[CH];
  const i64 xstep = RS * ldi;
#pragma unroll
  for (int j = 0; j < CH; ++j) x[j] = src + (lr + j * RS) * ldi + lc * cs;
  T v[NE];
  if (rr == TR && cc == TC) {
#pragma unroll
    for (int k = 0; k < NE; ++k) {  // lanes along input rows
      v[k] = *x[k % CH];
      x[k % CH] += CH * xstep;
    }
  } else {
    const bool col_in = lc < cc;
#pragma unroll
    for (int k = 0; k < NE; ++k) {
      if (col_in && lr + k * RS < rr) v[k] = *x[k % CH];
      x[k % CH] += CH * xstep;
    }
  }
#pragma unroll
  for (int k = 0; k < NE; ++k) *reinterpret_cast<T*>(s + (lr + k * RS) * SPITCH + lc * E) = v[k];
  __syncthreads();
  store_columns<E, TR, TC, THREADS, SPITCH>(s, 0, dst, ldo, rr, cc);
}
