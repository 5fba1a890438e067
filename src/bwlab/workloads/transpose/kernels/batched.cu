// Tile transposes of a batch of matrices laid out anywhere: the building block of
// bwlab.permute when the fastest-varying input and output axes differ. Matrix (r, c) of the
// input is element r * ldi + c (input rows ldi apart, columns adjacent); the output holds its
// transpose at c * ldo + r. The batch is up to MAX_DIMS further axes, each with its own input
// and output stride, so a permutation of any rank is one launch: the tile loop decodes a
// tile's batch index into the two offsets (a few divisions per tile, amortised over its
// kilobytes). tileBatched moves 16-byte vectors (tile_vec: pitches, strides, extents and
// pointers in whole vectors); scalarBatched moves elements (tile_scalar: anything else).
#include "tile.cuh"

#define MAX_DIMS 6

struct BatchDims {  // outermost first; strides in elements, negative allowed
  i64 n[MAX_DIMS], si[MAX_DIMS], so[MAX_DIMS];
};

// Tile t: input and output offsets (elements) of its matrix, its first row and column.
template <int TR, int TC>
__device__ __forceinline__ void batched_tile(i64 t, i64 tiles_r, i64 per_matrix, const BatchDims& d, int nd,
                                             i64& oi, i64& oo, i64& r0, i64& c0) {
  i64 b;
  tile_at<TR, TC>(t, tiles_r, per_matrix, b, r0, c0);
  oi = 0;
  oo = 0;
  for (int k = nd - 1; k >= 0; --k) {  // innermost batch axis first
    i64 q, i;
    divmod(b, d.n[k], q, i);
    oi += i * d.si[k];
    oo += i * d.so[k];
    b = q;
  }
}

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
tileBatched(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 ldi, i64 ldo,
            BatchDims d, int nd, i64 batch) {
  __shared__ __align__(16) byte s[TileShape<E, TR, TC>::BYTES];
  typedef typename Elem<E>::T T;
  const i64 tiles_r = (rows + TR - 1) / TR, per_matrix = tiles_r * ((cols + TC - 1) / TC), total = per_matrix * batch;
  for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
    i64 oi, oo, r0, c0;
    batched_tile<TR, TC>(t, tiles_r, per_matrix, d, nd, oi, oo, r0, c0);
    tile_vec<E, TR, TC, THREADS>(reinterpret_cast<const T*>(in) + oi + r0 * ldi + c0, ldi,
                                 reinterpret_cast<T*>(out) + oo + c0 * ldo + r0, ldo, rows - r0, cols - c0, s);
    if (t + gridDim.x < total) __syncthreads();
  }
}

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
scalarBatched(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 ldi, i64 ldo,
              BatchDims d, int nd, i64 batch) {
  __shared__ __align__(16) byte s[ScalarTile<E, TR, TC>::BYTES];
  typedef typename Elem<E>::T T;
  const i64 tiles_r = (rows + TR - 1) / TR, per_matrix = tiles_r * ((cols + TC - 1) / TC), total = per_matrix * batch;
  for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
    i64 oi, oo, r0, c0;
    batched_tile<TR, TC>(t, tiles_r, per_matrix, d, nd, oi, oo, r0, c0);
    tile_scalar<E, TR, TC, THREADS>(reinterpret_cast<const T*>(in) + oi + r0 * ldi + c0, ldi,
                                    reinterpret_cast<T*>(out) + oo + c0 * ldo + r0, ldo, rows - r0, cols - c0, s);
    if (t + gridDim.x < total) __syncthreads();
  }
}
