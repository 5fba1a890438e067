// The production tile transpose behind bwlab.transpose(): any element size E in {1, 2, 4,
// 8, 16} bytes, any extent, batches, 64-bit offsets. Elements are moved as raw bytes, so
// every dtype of that size (NaN payloads, -0.0, bool) is bit-exact.
//
// Vector path (both matrix pitches and both base pointers 16-byte aligned; edge tiles too):
// every global access is a 16-byte vector of VE = 16/E elements and every warp access
// covers four full 128-byte lines, as in tileVec. Narrow elements are packed: the store
// phase reads 4-byte shared words holding G = 4/E neighbouring input columns of VE
// consecutive input rows and rebuilds G output vectors with byte permutes (__byte_perm).
// Shared layout: row r at r*TC*E + (r/VE)*16 bytes. The row pitch is a multiple of 128
// bytes and each group of VE rows is shifted by 16 bytes, so the 16-byte writes of the
// load phase and the unit reads of the store phase both hit 32 distinct banks for every E.
//
// tileScalar, for pitches that are not a multiple of 16 bytes or offset views: element by
// element, all of a thread's loads in flight first, through a classic padded tile (pitch TC*E + 4 bytes, at least one element), so
// consecutive rows fall in consecutive banks; the same tile order and shared buffer.
//
// Tile order (both kernels): one 1-D grid walks the batches, and inside a matrix the tile columns first
// (all tile rows of a column, then the next column), so the blocks resident together
// write long runs of each output row; stores are evict-first (__stcs). Both choices came
// from the variants sweep of tileVec on the H200. The grid may be smaller than the tile
// count: blocks stride over tiles, so any count is covered.
#include "common.cuh"

typedef unsigned char byte;

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

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
tileAny(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 batch) {
  // Needs rows % VE == 0, cols % VE == 0 and 16-byte aligned pointers (the launcher checks).
  typedef TileShape<E, TR, TC> S;
  typedef typename Elem<E>::T T;
  typedef typename Unit<E>::T U;
  constexpr int VE = S::VE, G = S::G, WARPS = THREADS / 32;
  constexpr int LOAD_PATCHES = (TR / 4) * (TC / (8 * VE));   // 4 rows x 8 vectors each
  constexpr int STORE_PATCHES = (TC / (4 * G)) * (TR / (8 * VE));  // 4 units x 8 vectors each
  static_assert(THREADS % 32 == 0 && LOAD_PATCHES % WARPS == 0 && STORE_PATCHES % WARPS == 0,
                "threads must divide the tile's patches");
  constexpr int NL = LOAD_PATCHES / WARPS, NS = STORE_PATCHES / WARPS;
  __shared__ __align__(16) byte s[S::BYTES];

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int pr = lane >> 3, pv = lane & 7;
  const i64 tiles_r = (rows + TR - 1) / TR, tiles_c = (cols + TC - 1) / TC;
  const i64 per_matrix = tiles_r * tiles_c, total = per_matrix * batch;

  for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
    i64 b, r0, c0;
    tile_at<TR, TC>(t, tiles_r, per_matrix, b, r0, c0);
    const T* src = reinterpret_cast<const T*>(in) + b * rows * cols;
    T* dst = reinterpret_cast<T*>(out) + b * rows * cols;
    // Every vector is wholly inside or outside the matrix (extents are multiples of VE),
    // so edge tiles keep the vector path with one predicate per vector.
    const bool full = r0 + TR <= rows && c0 + TC <= cols;
    uint4 v[NL];
#pragma unroll
    for (int i = 0; i < NL; ++i) {  // every load in flight before the first shared store
      const int p = warp + i * WARPS;
      const int r = (p / (TC / (8 * VE))) * 4 + pr, c = ((p % (TC / (8 * VE))) * 8 + pv) * VE;
      if (full || (r0 + r < rows && c0 + c < cols))
        v[i] = *reinterpret_cast<const uint4*>(src + (r0 + r) * cols + c0 + c);
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
        if (full || (c0 + j + g < cols && r0 + i < rows))
          __stcs(reinterpret_cast<uint4*>(dst + (c0 + j + g) * rows + r0 + i), gather<E>(u, g));
    }
    if (t + gridDim.x < total) __syncthreads();  // the block's next tile reuses the shared buffer
  }
}

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
tileScalar(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 batch) {
  typedef typename Elem<E>::T T;
  constexpr int SPITCH = TC * E + (E < 4 ? 4 : E);  // padded: consecutive rows, consecutive banks
  constexpr int NE = TR * TC / THREADS, RS = THREADS / TC, CS = THREADS / TR;
  static_assert(THREADS % TC == 0 && THREADS % TR == 0 && NE <= 16, "thread layout of the tile");
  __shared__ __align__(16) byte s[TR * SPITCH];
  const i64 tiles_r = (rows + TR - 1) / TR, tiles_c = (cols + TC - 1) / TC;
  const i64 per_matrix = tiles_r * tiles_c, total = per_matrix * batch;
  // A thread keeps one column of the input tile (rows lr + k*RS) and one column of the output
  // tile (rows lj + k*CS): one 64-bit address per side, stepped by a constant.
  const int lr = threadIdx.x / TC, lc = threadIdx.x % TC, lj = threadIdx.x / TR, li = threadIdx.x % TR;

  for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
    i64 b, r0, c0;
    tile_at<TR, TC>(t, tiles_r, per_matrix, b, r0, c0);
    const T* src = reinterpret_cast<const T*>(in) + b * rows * cols + (r0 + lr) * cols + c0 + lc;
    T* dst = reinterpret_cast<T*>(out) + b * rows * cols + (c0 + lj) * rows + r0 + li;
    const bool col_in = c0 + lc < cols, row_out = r0 + li < rows;
    T v[NE];
#pragma unroll
    for (int k = 0; k < NE; ++k)  // lanes along input rows; all loads in flight first
      if (col_in && r0 + lr + k * RS < rows) v[k] = src[(i64)k * RS * cols];
#pragma unroll
    for (int k = 0; k < NE; ++k) *reinterpret_cast<T*>(s + (lr + k * RS) * SPITCH + lc * E) = v[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < NE; ++k)  // lanes along output rows
      if (row_out && c0 + lj + k * CS < cols)
        __stcs(dst + (i64)k * CS * rows, *reinterpret_cast<const T*>(s + li * SPITCH + (lj + k * CS) * E));
    if (t + gridDim.x < total) __syncthreads();
  }
}
