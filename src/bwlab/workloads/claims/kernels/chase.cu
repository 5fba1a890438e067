// Latency by pointer chasing: one thread follows a chain of dependent loads, so nothing hides
// each load's latency; clock64() around the chain gives SM cycles per step. Each kernel writes
// where the chain ended (checked against the host's walk) and the cycles it took.
#include "common.cuh"

// A chain in global memory. L2_ONLY loads skip L1 (ld.global.cg). `next` holds, at the start
// of each visited 128-byte line, the word index of the next line: the working set decides
// which level serves the loads.
template <bool L2_ONLY>
__global__ void chaseGlobal(const unsigned* next, unsigned start, int steps, unsigned* out, long long* cycles) {
  unsigned j = start;
  const long long t0 = clock64();
  for (int s = 0; s < steps; ++s) j = L2_ONLY ? __ldcg(next + j) : next[j];
  const long long t1 = clock64();
  out[0] = j;
  cycles[0] = t1 - t0;
}

// A chain of 1024 words in shared memory (the block copies it in first).
extern "C" __global__ void chaseShared(const unsigned* __restrict__ next, unsigned start, int steps, unsigned* out,
                                       long long* cycles) {
  __shared__ unsigned s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = next[i];
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned j = start;
  const long long t0 = clock64();
  for (int k = 0; k < steps; ++k) j = s[j];
  const long long t1 = clock64();
  out[0] = j;
  cycles[0] = t1 - t0;
}

// A chain of 64 words in a thread's own array. Indexed by data, the array cannot live in
// registers: the compiler places it in local memory (device memory, cached in L1). Declared
// as deliberate local-memory use (a stack frame, no spills).
extern "C" __global__ void chaseLocal(const unsigned* __restrict__ next, unsigned start, int steps, unsigned* out,
                                      long long* cycles) {
  unsigned a[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) a[i] = next[i];
  unsigned j = start;
  const long long t0 = clock64();
  for (int k = 0; k < steps; ++k) j = a[j];
  const long long t1 = clock64();
  out[0] = j;
  cycles[0] = t1 - t0;
}

// A chain of 1024 words in constant memory (filled from the host before the launch).
__constant__ unsigned chaseTable[1024];

extern "C" __global__ void chaseConstant(unsigned start, int steps, unsigned* out, long long* cycles) {
  unsigned j = start;
  const long long t0 = clock64();
  for (int k = 0; k < steps; ++k) j = chaseTable[j];
  const long long t1 = clock64();
  out[0] = j;
  cycles[0] = t1 - t0;
}

// The register baseline: a chain of dependent integer multiply-adds, x = x * x + c, each waiting
// for the last, with no memory access at all. (An affine step such as x * a + c would not do: the
// compiler may fold several steps of it into one.)
extern "C" __global__ void chainRegister(unsigned seed, int steps, unsigned* out, long long* cycles) {
  unsigned x = seed;
  const long long t0 = clock64();
  for (int k = 0; k < steps; ++k) x = x * x + 1013904223u;
  const long long t1 = clock64();
  out[0] = x;
  cycles[0] = t1 - t0;
}
