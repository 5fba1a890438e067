// tileScalar: the tile transpose element by element, for rows that do not start on 16-byte
// boundaries (odd extents, offset views, pitched and reversed rows). Each thread keeps one
// column of the input tile (rows lr + k*RS) and one column of the output tile (rows lj +
// k*CS): one 64-bit address per side, stepped by a constant; all of a thread's loads are in
// flight before the first shared store. The shared tile is padded (pitch TC*E + 4 bytes, at
// least one element), so consecutive rows fall in consecutive banks. Same tile order as
// tileAny (tile columns first) and evict-first stores. For 2- to 8-byte elements the
// coalesced element accesses beat realigning 16-byte vectors (tileAlign) on the H200;
// `bwlab tune transpose` measures both on this GPU.
// The input has row stride ld and batch stride bstride (elements, negative allowed); the
// output is C-contiguous.
#include "tile.cuh"

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
tileScalar(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 batch, i64 ld,
           i64 bstride) {
  __shared__ __align__(16) byte s[ScalarTile<E, TR, TC>::BYTES];
  typedef typename Elem<E>::T T;
  const i64 tiles_r = (rows + TR - 1) / TR, tiles_c = (cols + TC - 1) / TC;
  const i64 per_matrix = tiles_r * tiles_c, total = per_matrix * batch;
  for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
    i64 b, r0, c0;
    tile_at<TR, TC>(t, tiles_r, per_matrix, b, r0, c0);
    tile_scalar<E, TR, TC, THREADS>(reinterpret_cast<const T*>(in) + b * bstride + r0 * ld + c0, ld,
                                    reinterpret_cast<T*>(out) + b * rows * cols + c0 * rows + r0, rows, rows - r0,
                                    cols - c0, s);
    if (t + gridDim.x < total) __syncthreads();
  }
}
