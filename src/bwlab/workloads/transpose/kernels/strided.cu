// The transpose of a view with any strides (negative included): out[b, j, i] = x[b, i, j],
// out C-contiguous.
// strided: any batch dimensions, merging or not. One thread per output element, threads along
// output rows, so the stores are coalesced; the loads go where the strides say (down a column
// of the view: a sector per element). The correct answer for every layout.
// bdims holds the batch dimensions, outermost first: extent[0..nb), then stride[0..nb) (elements).
// stridedTile: batches of one stride (or none). TR x TC tiles element by element through
// shared memory (tile_scalar, with the view's column stride), so a warp's loads run along a row
// of the view and its stores along a row of out.
#include "tile.cuh"

template <int E>
__global__ void __launch_bounds__(256)
strided(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 rs, i64 cs,
        const i64* __restrict__ bdims, int nb, i64 total) {
  typedef typename Elem<E>::T T;
  const T* x = reinterpret_cast<const T*>(in);
  T* y = reinterpret_cast<T*>(out);
  for (i64 o = (i64)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += (i64)gridDim.x * blockDim.x) {
    i64 rest, i, j, bi;
    divmod(o, rows, rest, i);
    divmod(rest, cols, rest, j);
    i64 off = i * rs + j * cs;
    for (int d = nb - 1; d >= 0; --d) {  // batch index, innermost dimension first
      divmod(rest, bdims[d], rest, bi);
      off += bi * bdims[nb + d];
    }
    y[o] = x[off];
  }
}

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
stridedTile(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 batch, i64 rs, i64 cs,
            i64 bstride) {
  __shared__ __align__(16) byte s[ScalarTile<E, TR, TC>::BYTES];
  typedef typename Elem<E>::T T;
  each_tile<TR, TC>(rows, cols, batch, [&](i64 b, i64 r0, i64 c0) {
    tile_scalar<E, TR, TC, THREADS>(reinterpret_cast<const T*>(in) + b * bstride + r0 * rs + c0 * cs, rs,
                                    reinterpret_cast<T*>(out) + b * rows * cols + c0 * rows + r0, rows, rows - r0,
                                    cols - c0, s, cs);
  });
}
