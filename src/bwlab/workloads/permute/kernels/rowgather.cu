// The permutation when the input and output share their fastest axis: every output row (the
// innermost output axis, W bytes) is one contiguous run of the input, so the permutation is a
// gather of rows. Threads walk the output in V-byte chunks (V = 16 where the row length, the
// input strides and both pointers allow, else the largest power of two that divides them all),
// so loads and stores are both coalesced runs of whole vectors. Each chunk's input offset is
// decoded from its index with 32-bit multiply-shift divisions (divisors prepared on the host):
// at 16 bytes a chunk, a 64-bit division per axis would make the kernel compute-bound.
// Needs fewer than 2^31 chunks (the planner takes the element gather beyond).
#include "common.cuh"

#define MAX_DIMS 7

typedef unsigned char byte;

// n / d as __umulhi(n, m) >> s, for n < 2^31 (m, s from the host; d == 1 handled apart).
struct FastDiv {
  unsigned d, m, s;
};

__device__ __forceinline__ unsigned fast_div(unsigned n, const FastDiv& f) {
  return f.d == 1 ? n : __umulhi(n, f.m) >> f.s;
}

struct RowDims {  // the outer output axes, outermost first: extent (as a divisor), input stride in bytes
  FastDiv n[MAX_DIMS];
  i64 si[MAX_DIMS];
};

template <int V>
__device__ __forceinline__ i64 row_chunk_offset(unsigned q, const FastDiv& per_row, const RowDims& d, int nd) {
  unsigned rest = fast_div(q, per_row);
  i64 off = (i64)(q - rest * per_row.d) * V;
#pragma unroll
  for (int k = MAX_DIMS - 1; k >= 0; --k) {  // innermost axis first; unrolled: d stays in parameter space
    if (k < nd) {
      const unsigned next = fast_div(rest, d.n[k]);
      off += (i64)(rest - next * d.n[k].d) * d.si[k];
      rest = next;
    }
  }
  return off;
}

template <int V, int U>
__global__ void __launch_bounds__(256)
gatherRows(const byte* __restrict__ in, byte* __restrict__ out, RowDims d, int nd, FastDiv per_row,
           unsigned chunks) {
  typedef typename Elem<V>::T T;
  const unsigned stride = gridDim.x * blockDim.x;
  for (unsigned q0 = blockIdx.x * blockDim.x + threadIdx.x; q0 < chunks; q0 += U * stride) {
    T v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {  // U loads in flight per thread
      const unsigned q = q0 + u * stride;
      if (q < chunks) v[u] = *reinterpret_cast<const T*>(in + row_chunk_offset<V>(q, per_row, d, nd));
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const unsigned q = q0 + u * stride;
      if (q < chunks) __stcs(reinterpret_cast<T*>(out) + q, v[u]);
    }
  }
}
