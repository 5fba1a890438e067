// The transpose of a view with any strides (negative included, batch dimensions that do not
// merge): out[b, j, i] = x[b, i, j], out C-contiguous. One thread per output element, threads
// along output rows, so the stores are coalesced; the loads go where the strides say. The
// correct answer for every layout; the tile kernels take the layouts that can be fast.
// bdims holds the batch dimensions, outermost first: extent[0..nb), then stride[0..nb) (elements).
#include "common.cuh"

typedef unsigned char byte;

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
