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
  __shared__ __align__(16) byte s[TileShape<E, TR, TC>::BYTES];
  typedef typename Elem<E>::T T;
  const i64 tiles_r = (rows + TR - 1) / TR, tiles_c = (cols + TC - 1) / TC;
  const i64 per_matrix = tiles_r * tiles_c, total = per_matrix * batch;
  for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
    i64 b, r0, c0;
    tile_at<TR, TC>(t, tiles_r, per_matrix, b, r0, c0);
    const i64 base = b * rows * cols;
    tile_vec<E, TR, TC, THREADS>(reinterpret_cast<const T*>(in) + base + r0 * cols + c0, [=](int r) { return r * cols; },
                                 reinterpret_cast<T*>(out) + base + c0 * rows + r0, [=](int j) { return j * rows; },
                                 rows - r0, cols - c0, s);
    if (t + gridDim.x < total) __syncthreads();  // the block's next tile reuses the shared buffer
  }
}
