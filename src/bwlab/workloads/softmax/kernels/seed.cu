// The classic first softmax: one block per (n, m) column of an [N, L, M] array, its threads
// striding down the reduced axis L, three passes (max, sum of exp, write) each reduced
// through a shared-memory tree. Bugs of the original, fixed here:
//  - it did not compile: `sum` declared twice, `num` undeclared, `stride` for `stride1`;
//  - a race: the shared slot read as the block's sum was overwritten by the next column's
//    max before every thread had read it (a __syncthreads() was missing);
//  - the sum used the fast __expf while the output used exp: the probabilities did not add
//    up to one; one exponential is used for both;
//  - int offsets overflowed past 2^31 elements; the block size had to be a power of two
//    no larger than a fixed 256-slot array (it is a template parameter here).
// Kept on purpose (the lesson): lanes of a warp read elements M apart, three reads of x.
#include "softmax.cuh"

template <typename T, int THREADS, bool LOG>
__global__ void __launch_bounds__(THREADS) softmaxSeed(const T* __restrict__ x, T* __restrict__ y,
                                                       i64 N, i64 L, i64 M) {
  static_assert((THREADS & (THREADS - 1)) == 0, "the tree reduction needs a power-of-two block");
  __shared__ float temp[THREADS];
  const int tid = threadIdx.x;
  for (i64 m = blockIdx.y; m < M; m += gridDim.y) {
    const T* in = x + blockIdx.x * L * M + m;
    T* out = y + blockIdx.x * L * M + m;
    float mx = -INFINITY;
    for (i64 i = tid; i < L; i += THREADS) mx = fmaxf(mx, to_f(in[i * M]));
    temp[tid] = mx;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
      if (tid < s) temp[tid] = fmaxf(temp[tid], temp[tid + s]);
      __syncthreads();
    }
    mx = temp[0];
    __syncthreads();  // everyone has read the max before the slots are reused
    float sum = 0.f;
    for (i64 i = tid; i < L; i += THREADS) sum += expf(to_f(in[i * M]) - mx);
    temp[tid] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
      if (tid < s) temp[tid] += temp[tid + s];
      __syncthreads();
    }
    sum = temp[0];
    __syncthreads();  // the fix: the next column's max must not overwrite the sum being read
    const float lse = mx + logf(sum);
    for (i64 i = tid; i < L; i += THREADS) {
      const float v = to_f(in[i * M]);
      out[i * M] = from_f<T>(LOG ? v - lse : expf(v - mx) / sum);
    }
  }
}
