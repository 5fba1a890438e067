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
