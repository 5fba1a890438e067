// Wide matrices of 16-byte elements with a few rows (S x n -> n x S): one 16-byte element a
// thread, as a copy kernel moves vectors, with no shared memory. Output element o = j*S + s
// is element j of row s: a warp's 32 stores are one contiguous 512-byte run of the output,
// its loads S runs of about 512/S bytes, one in each row. Where S is that small the shared tile
// (skinnyTile) only adds its staging: CuPy's elementwise copy, which moves the same way, ran
// ahead of it at 2 to 4 rows (benchmarks/h200/transpose/wide-16).
// A thread takes U elements 32 apart, every load issued before the first store. 64-bit indices
// (n*S may pass 2^31); S is known at compile time, so o / S is a multiply. in and out must be
// 16-byte aligned (the dispatcher checks).
#include "vec.cuh"

constexpr int ELEMS_THREADS = 256;

template <int S, int U, bool STREAM>
__global__ void __launch_bounds__(ELEMS_THREADS)
wideElems(const byte* __restrict__ in, byte* __restrict__ out, i64 n) {
  static_assert(S >= 2 && S <= 64 && U >= 1, "short sides 2..64");
  const uint4* x = reinterpret_cast<const uint4*>(in);
  const i64 total = n * S;
  // the warp's first element: warps take runs of 32*U consecutive output elements
  const i64 o0 = ((i64)blockIdx.x * (ELEMS_THREADS / 32) + (threadIdx.x >> 5)) * (32 * U) + (threadIdx.x & 31);
  uint4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const i64 o = o0 + 32 * u, j = o / S;
    if (o < total) v[u] = x[(o - j * S) * n + j];
  }
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const i64 o = o0 + 32 * u;
    if (o < total) store16<STREAM>(out + 16 * o, v[u]);
  }
}
