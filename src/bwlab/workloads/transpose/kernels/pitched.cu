// The transpose between two pitched matrices: rows x cols at row pitch ldi into cols x rows at
// row pitch ldo (pitches in elements), touching nothing between the rows of either. It is the
// local step of bwlab.distributed.transpose: a shard's own block goes straight into its
// columns of the result, and each peer's block into that peer's receive buffer over NVLink.
// The caller sizes the grid (blocks stride over tiles, in tileAny's order), so a launch whose
// speed the link sets can leave multiprocessors to the local work running beside it.
// pitchedVec: 16-byte vectors (tile_vec); needs 16-byte aligned pointers and rows, cols, ldi
// and ldo in whole vectors. pitchedScalar: element by element (tile_scalar), any alignment.
#include "tile.cuh"

// Every TR x TC tile of a rows x cols matrix, in tileAny's order, striding over the grid:
// tile(r0, c0) moves one through the block's shared buffer.
template <int TR, int TC, class Tile>
__device__ __forceinline__ void each_tile(i64 rows, i64 cols, Tile tile) {
  const i64 tiles_r = (rows + TR - 1) / TR, total = tiles_r * ((cols + TC - 1) / TC);
  for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
    i64 b, r0, c0;
    tile_at<TR, TC>(t, tiles_r, total, b, r0, c0);
    tile(r0, c0);
    if (t + gridDim.x < total) __syncthreads();  // the block's next tile reuses the shared buffer
  }
}

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
pitchedVec(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 ldi, i64 ldo) {
  __shared__ __align__(16) byte s[TileShape<E, TR, TC>::BYTES];
  typedef typename Elem<E>::T T;
  each_tile<TR, TC>(rows, cols, [&](i64 r0, i64 c0) {
    tile_vec<E, TR, TC, THREADS>(reinterpret_cast<const T*>(in) + r0 * ldi + c0, [=](int r) { return r * ldi; },
                                 reinterpret_cast<T*>(out) + c0 * ldo + r0, [=](int j) { return j * ldo; },
                                 rows - r0, cols - c0, s);
  });
}

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
pitchedScalar(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 ldi, i64 ldo) {
  __shared__ __align__(16) byte s[ScalarTile<E, TR, TC>::BYTES];
  typedef typename Elem<E>::T T;
  each_tile<TR, TC>(rows, cols, [&](i64 r0, i64 c0) {
    tile_scalar<E, TR, TC, THREADS>(reinterpret_cast<const T*>(in) + r0 * ldi + c0, ldi,
                                    reinterpret_cast<T*>(out) + c0 * ldo + r0, ldo, rows - r0, cols - c0, s);
  });
}
