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
// Rows that do not start on 16-byte boundaries take tileAlign (align.cu), which realigns them.
//
// Tile order: one 1-D grid walks the batches, and inside a matrix the tile columns first
// (all tile rows of a column, then the next column), so the blocks resident together
// write long runs of each output row; stores are evict-first (__stcs). Both choices came
// from the variants sweep of tileVec on the H200. The grid may be smaller than the tile
// count: blocks stride over tiles, so any count is covered.
#include "tile.cuh"

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
