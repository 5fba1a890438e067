// Kernels that stamp their own timeline: each block writes, from the GPU's global nanosecond
// clock (%globaltimer) and the id of the SM it ran on (%smid), when it started and when it
// ended. Stream scenarios read these stamps back, so overlaps are measured on the GPU, not
// inferred from host clocks. No toolkit header is needed: the clock and the SM id are PTX
// special registers read with inline assembly.
//
// Each block b writes four 64-bit words at stamps[4 * b]: start ns, end ns, SM at start, SM
// at end (blocks do not migrate between SMs, so the two SM ids agree; both are kept as a check).
#include "common.cuh"

typedef unsigned long long u64;

__device__ __forceinline__ u64 globaltimer() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// Thread 0 of the block takes the start stamp before the block's work ...
__device__ __forceinline__ void stamp_start(u64& t0, unsigned& sm0) {
  if (threadIdx.x == 0) {
    t0 = globaltimer();
    sm0 = smid();
  }
}

// ... and the end stamp after every thread of the block has finished it.
__device__ __forceinline__ void stamp_end(u64* __restrict__ stamps, u64 t0, unsigned sm0) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const u64 t1 = globaltimer();
    u64* s = stamps + 4 * (i64)blockIdx.x;
    s[0] = t0;
    s[1] = t1;
    s[2] = sm0;
    s[3] = smid();
  }
}

// A kernel that occupies its blocks for spin_ns of wall time (thread 0 watches the clock; the
// other threads wait at the barrier). Duration does not depend on what else runs, so a
// timeline of spin kernels shows only what the streams allowed to run at once.
extern "C" __global__ void spin(u64* __restrict__ stamps, i64 spin_ns) {
  u64 t0 = 0;
  unsigned sm0 = 0;
  stamp_start(t0, sm0);
  if (threadIdx.x == 0) {
    while ((i64)(globaltimer() - t0) < spin_ns) {
    }
  }
  stamp_end(stamps, t0, sm0);
}

// The compute stage of the copy-compute-copy pipeline: iters dependent FMAs per element,
// grid-stride over n floats (compute-bound from a few hundred iterations on). The result of
// an element depends only on its input and iters, so any grid gives the same bits.
extern "C" __global__ void fmaChain(const float* __restrict__ in, float* __restrict__ out, i64 n, int iters,
                                    u64* __restrict__ stamps) {
  u64 t0 = 0;
  unsigned sm0 = 0;
  stamp_start(t0, sm0);
  const i64 stride = (i64)gridDim.x * blockDim.x;
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float x = in[i];
#pragma unroll 4
    for (int k = 0; k < iters; ++k) x = fmaf(x, 0.9999f, 1.0e-4f);
    out[i] = x;
  }
  stamp_end(stamps, t0, sm0);
}

// One stamp from one thread: ties the GPU clock to the CUDA events recorded around it.
extern "C" __global__ void stamp(u64* __restrict__ out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    out[0] = globaltimer();
    out[1] = smid();
  }
}
