// Helpers shared by the matmul kernels: C (M x N) = A (M x K) . B (K x N), all row-major
// float32. Extents are ints (the launcher keeps each below 2^31 - 1024); offsets that
// multiply two extents are 64-bit (i64, from common.cuh).
#pragma once
#include "common.cuh"

// Asynchronous global -> shared copies (sm_80+) to shared addresses (smem_addr, the commit and
// the wait: common.cuh). src_bytes < the copy size zero-fills the rest, so an out-of-bounds
// element costs no branch: it is copied as 0 bytes from a valid address (the caller passes the
// matrix's base pointer then).
__device__ __forceinline__ void cp_async4(unsigned dst, const float* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 4 : 0)
               : "memory");
}
__device__ __forceinline__ void cp_async16(unsigned dst, const float* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0)
               : "memory");
}

__device__ __forceinline__ bool aligned16(const void* p) { return ((unsigned long long)p & 15) == 0; }
