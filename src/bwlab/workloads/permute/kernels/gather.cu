// The permutation element by element: out[o] = x[offset(o)], out C-contiguous, one thread per
// output element (threads along the output, so stores are coalesced; loads go where the strides
// say). Correct for every layout (any strides, negative included, any rank up to MAX_DIMS after
// merging axes), so it is the ladder's first rung and the planner's last resort; the other
// kernels take the layouts that can be fast. 64-bit offsets and indices throughout.
#include "common.cuh"

#define MAX_DIMS 8

typedef unsigned char byte;

struct GatherDims {  // output axes, outermost first: extent and input stride (elements)
  i64 n[MAX_DIMS], si[MAX_DIMS];
};

template <int E>
__global__ void __launch_bounds__(256)
gatherElems(const byte* __restrict__ in, byte* __restrict__ out, GatherDims d, int nd, i64 total) {
  typedef typename Elem<E>::T T;
  const T* x = reinterpret_cast<const T*>(in);
  T* y = reinterpret_cast<T*>(out);
  for (i64 o = (i64)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += (i64)gridDim.x * blockDim.x) {
    i64 rest = o, off = 0;
#pragma unroll
    for (int k = MAX_DIMS - 1; k >= 0; --k) {  // innermost axis first; unrolled: d stays in parameter space
      if (k < nd) {
        i64 q, i;
        divmod(rest, d.n[k], q, i);
        off += i * d.si[k];
        rest = q;
      }
    }
    y[o] = x[off];
  }
}
