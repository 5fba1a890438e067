// The copy ceilings every workload is measured against: kernels that move the same bytes
// as the workload's ideal kernel (one read, one write) and do nothing else.
#include "common.cuh"

// 16 bytes per access, UNROLL independent accesses per thread issued before the
// first store: the bytes in flight per thread are what reaches the DRAM roof.
// The base pointers are 16-byte aligned (allocator); the last nbytes % 16 bytes
// are copied one by one by the first threads.
template <int UNROLL>
__global__ void copyVec(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
                        i64 nbytes) {
  const i64 nvec = nbytes / 16;
  const uint4* __restrict__ src = reinterpret_cast<const uint4*>(in);
  uint4* __restrict__ dst = reinterpret_cast<uint4*>(out);
  const i64 base = (i64)blockIdx.x * blockDim.x * UNROLL + threadIdx.x;
  uint4 v[UNROLL];
#pragma unroll
  for (int k = 0; k < UNROLL; ++k) {
    const i64 i = base + (i64)k * blockDim.x;
    if (i < nvec) v[k] = src[i];
  }
#pragma unroll
  for (int k = 0; k < UNROLL; ++k) {
    const i64 i = base + (i64)k * blockDim.x;
    if (i < nvec) dst[i] = v[k];
  }
  const i64 tail = nbytes - nvec * 16;
  const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tail) out[nvec * 16 + t] = in[nvec * 16 + t];
}
