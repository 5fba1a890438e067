// The transpose between two pitched matrices: rows x cols at row pitch ldi into cols x rows at
// row pitch ldo (pitches in elements), touching nothing between the rows of either. It is the
// local step of bwlab.distributed.transpose: a shard's own block goes straight into its
// columns of the result, and each peer's block into that peer's receive buffer over NVLink.
// The caller sizes the grid (blocks stride over tiles, in tileAny's order), so a launch whose
// speed the link sets can leave multiprocessors to the local work running beside it.
// pitchedVec: 16-byte vectors (tile_vec); needs 16-byte aligned pointers and rows, cols, ldi
// and ldo in whole vectors. pitchedScalar: element by element (tile_scalar), any alignment.
#include "tile.cuh"

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
pitchedVec(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 ldi, i64 ldo) {
  __shared__ __align__(16) byte s[TileShape<E, TR, TC>::BYTES];
  typedef typename Elem<E>::T T;
  each_tile<TR, TC>(rows, cols, 1, [&](i64, i64 r0, i64 c0) {
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
  each_tile<TR, TC>(rows, cols, 1, [&](i64, i64 r0, i64 c0) {
    tile_scalar<E, TR, TC, THREADS>(reinterpret_cast<const T*>(in) + r0 * ldi + c0, ldi,
                                    reinterpret_cast<T*>(out) + c0 * ldo + r0, ldo, rows - r0, cols - c0, s);
  });
}
