// Shared helpers for every bwlab kernel family. Offsets are 64-bit everywhere:
// rows and cols each fit an int, but rows * cols may pass 2^31.
#pragma once

typedef long long i64;

// Global load through L2 only (what `-Xptxas -dlcm=cg` does for every load),
// or the default path that may also allocate in L1.
template <typename T, bool L2_ONLY>
__device__ __forceinline__ T load(const T* p) {
  if (L2_ONLY) return __ldcg(p);
  return *p;
}

// a / b and a % b for 0 <= a, 0 < b: 32-bit division when both fit (the usual case), else
// restoring division in 64 steps. Not the 64-bit `/`: its library call costs every kernel
// that contains it a stack frame and spills, even when that branch never runs.
__device__ __forceinline__ void divmod(i64 a, i64 b, i64& q, i64& r) {
  const unsigned long long n = a, d = b;
  if ((n | d) >> 32 == 0) {
    const unsigned q32 = (unsigned)n / (unsigned)d;
    q = q32;
    r = (unsigned)n - q32 * (unsigned)d;
    return;
  }
  unsigned long long qq = 0, rr = 0;
#pragma unroll 1
  for (int i = 63; i >= 0; --i) {
    rr = (rr << 1) | ((n >> i) & 1);
    if (rr >= d) { rr -= d; qq |= 1ull << i; }
  }
  q = qq;
  r = rr;
}

// An unsigned type of E bytes (E in 1, 2, 4, 8, 16): elements moved as raw bits.
template <int E> struct Elem;
template <> struct Elem<1> { typedef unsigned char T; };
template <> struct Elem<2> { typedef unsigned short T; };
template <> struct Elem<4> { typedef unsigned int T; };
template <> struct Elem<8> { typedef unsigned long long T; };
template <> struct Elem<16> { typedef uint4 T; };

// --- shared-memory addresses and asynchronous copies (sm_80 and later) -------------------
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  unsigned a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}

// 16 bytes global -> shared without registers; pred false writes 16 zero bytes instead.
__device__ __forceinline__ void cp_async16(void* dst, const void* src, bool pred) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
               :: "r"(smem_addr(dst)), "l"(src), "r"(pred ? 16 : 0) : "memory");
}
// 4 bytes global -> shared without registers (through L1: .cg takes 16 bytes only).
__device__ __forceinline__ void cp_async_word(unsigned dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(dst), "l"(src) : "memory");
}
// The same, reading only the first `valid` bytes (0..4) and writing zeros after them.
__device__ __forceinline__ void cp_async_word(unsigned dst, const void* src, int valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"(dst), "l"(src), "r"(valid) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Wait until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory"); }
__device__ __forceinline__ void cp_async_wait_all() {
  cp_async_commit();
  cp_async_wait<0>();
}
