// Tile transposes of a batch of matrices laid out anywhere: the building block of
// bwlab.permute when the fastest-varying input and output axes differ. The tile's columns run
// along the input's unit-stride axis, its rows along the output's. The batch is up to MAX_DIMS
// further axes, each with its own input and output stride, so a permutation of any rank is one
// launch: the tile loop decodes a tile's batch index into the two offsets (a few divisions per
// tile, amortised over its kilobytes).
// tileBatched moves 16-byte vectors (tile_vec). When a fastest axis is short (16 floats, say), a
// tile along it alone would be mostly empty, so tileFolded lets each side fold in its next axis: the
// input's axis of stride n (contiguous with the unit-stride axis of extent n) on the column side,
// the output's second-fastest axis on the row side. A row or column index g of the folded pair
// then lies at (g & mask) * s1 + (g >> shift) * s2 (extents of powers of two); an unfolded side
// has a shift beyond any index. scalarBatched moves elements (tile_scalar), for pitches,
// strides or pointers that are not whole vectors.
#include "tile.cuh"

#define MAX_DIMS 6

struct BatchDims {  // outermost first; strides in elements, negative allowed
  i64 n[MAX_DIMS], si[MAX_DIMS], so[MAX_DIMS];
};

struct Fold {  // offset of index g along a (possibly folded) side: (g & mask) * s1 + (g >> shift) * s2
  i64 s1, s2;
  int shift;
  __device__ __forceinline__ i64 at(i64 g) const { return (g & ((1ll << shift) - 1)) * s1 + (g >> shift) * s2; }
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

// rows: input rows (along the output's fastest axis, folded or not), cols: input columns
// (along the input's unit-stride axis); rf gives an input row's input offset, cf an input
// column's output offset. Rows are contiguous in the output and columns in the input.
// FOLD=false reads only rf.s1 and cf.s1 (the row pitches): the plain tile, whose address
// arithmetic is a multiply per row; the folded one costs a mask, a shift and two multiplies
// more, which measured about 7% of memcpy on an H200 where nothing folds.
template <int E, int TR, int TC, int THREADS, bool FOLD>
__device__ __forceinline__ void batched_vec(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols,
                                            const Fold& rf, const Fold& cf, const BatchDims& d, int nd, i64 batch) {
  __shared__ __align__(16) byte s[TileShape<E, TR, TC>::BYTES];
  typedef typename Elem<E>::T T;
  const i64 tiles_r = (rows + TR - 1) / TR, per_matrix = tiles_r * ((cols + TC - 1) / TC), total = per_matrix * batch;
  for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
    i64 oi, oo, r0, c0;
    batched_tile<TR, TC>(t, tiles_r, per_matrix, d, nd, oi, oo, r0, c0);
    if (FOLD)
      tile_vec<E, TR, TC, THREADS>(reinterpret_cast<const T*>(in) + oi + c0, [&](int r) { return rf.at(r0 + r); },
                                   reinterpret_cast<T*>(out) + oo + r0, [&](int j) { return cf.at(c0 + j); },
                                   rows - r0, cols - c0, s);
    else
      tile_vec<E, TR, TC, THREADS>(reinterpret_cast<const T*>(in) + oi + r0 * rf.s1 + c0, [&](int r) { return r * rf.s1; },
                                   reinterpret_cast<T*>(out) + oo + c0 * cf.s1 + r0, [&](int j) { return j * cf.s1; },
                                   rows - r0, cols - c0, s);
    if (t + gridDim.x < total) __syncthreads();
  }
}

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
tileBatched(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, Fold rf, Fold cf,
            BatchDims d, int nd, i64 batch) {
  batched_vec<E, TR, TC, THREADS, false>(in, out, rows, cols, rf, cf, d, nd, batch);
}

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
tileFolded(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, Fold rf, Fold cf,
           BatchDims d, int nd, i64 batch) {
  batched_vec<E, TR, TC, THREADS, true>(in, out, rows, cols, rf, cf, d, nd, batch);
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

// tileRows: tiles whose elements are whole rows of W bytes (64 in bwlab.permute), for bwlab.permute when
// the input and output share a short fastest axis (their rows) but not the next one. Gathering
// such rows one by one reads W bytes from each of many places; a TR x TC tile of rows instead
// reads TC rows that are adjacent in the input (one run of TC * W bytes) and writes TR rows that
// are adjacent in the output (TR * W bytes). Same arguments as scalarBatched, in units of rows.
// A tile row is padded by one row (W bytes), so a column of the tile read as 16-byte vectors
// spreads over all the banks.
template <int W, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
tileRows(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 ldi, i64 ldo,
         BatchDims d, int nd, i64 batch) {
  constexpr int NV = W / 16, PITCH = (TC + 1) * W, LOADS = TR * TC * NV / THREADS;
  static_assert(W % 16 == 0 && TR * TC * NV % THREADS == 0, "whole vectors, whole tiles per block");
  __shared__ __align__(16) byte s[TR * PITCH];
  const i64 tiles_r = (rows + TR - 1) / TR, per_matrix = tiles_r * ((cols + TC - 1) / TC), total = per_matrix * batch;
  for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
    i64 oi, oo, r0, c0;
    batched_tile<TR, TC>(t, tiles_r, per_matrix, d, nd, oi, oo, r0, c0);
    const i64 nr = rows - r0, nc = cols - c0;
    const byte* x = in + (oi + r0 * ldi + c0) * W;
    byte* y = out + (oo + c0 * ldo + r0) * W;
    uint4 v[LOADS];
#pragma unroll
    for (int k = 0; k < LOADS; ++k) {  // input row r of the tile: TC adjacent rows, one run
      const int p = threadIdx.x + k * THREADS, r = p / (TC * NV), q = p % (TC * NV);
      if (r < nr && q / NV < nc) v[k] = *reinterpret_cast<const uint4*>(x + r * ldi * W + q * 16);
    }
#pragma unroll
    for (int k = 0; k < LOADS; ++k) {
      const int p = threadIdx.x + k * THREADS;
      *reinterpret_cast<uint4*>(s + (p / (TC * NV)) * PITCH + (p % (TC * NV)) * 16) = v[k];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < LOADS; ++k) {  // output row c of the tile: TR adjacent rows, one run
      const int p = threadIdx.x + k * THREADS, c = p / (TR * NV), q = p % (TR * NV), r = q / NV;
      if (c < nc && r < nr)
        __stcs(reinterpret_cast<uint4*>(y + c * ldo * W + q * 16),
               *reinterpret_cast<const uint4*>(s + r * PITCH + c * W + (q % NV) * 16));
    }
    if (t + gridDim.x < total) __syncthreads();  // the block's next tile reuses the shared buffer
  }
}
