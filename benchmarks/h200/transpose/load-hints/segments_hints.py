"""The tall tiles' write pattern alone (../skinny-whole/segments.py's copy kernel: each block reads
S * L bytes contiguously and writes them as S segments of L bytes in S long rows) under L2 eviction
policies on its loads and stores. Rows padded by P 16-byte vectors: P = 0 puts every segment on a
256-byte boundary, P = 1 at varying 16-byte offsets (as an odd long side does). Modes (load, store):
plain/wb (what the tall tiles do now), plain/cs, evict-first loads/wb, no-L1-allocate loads/wb,
plain loads/evict-last stores, evict-first loads/evict-last stores. Each output checked, then timed
(CUDA events, 5 warm-ups, median of 50) beside cudaMemcpy of the same bytes, two rounds.
From this folder: PYTHONPATH=../../../../src python3 segments_hints.py"""
import cupy

from bwlab.core import timing, verify

SRC = r"""
__device__ __forceinline__ unsigned long long policy_first() {
  unsigned long long p; asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p)); return p;
}
__device__ __forceinline__ unsigned long long policy_last() {
  unsigned long long p; asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p)); return p;
}
template <int LD>
__device__ __forceinline__ uint4 load(const uint4* p, unsigned long long pol) {
  uint4 v;
  if (LD == 0) return __ldg(p);
  if (LD == 1)
    asm("ld.global.nc.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(pol));
  if (LD == 2)
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
template <int ST>
__device__ __forceinline__ void store(uint4* p, uint4 v, unsigned long long pol) {
  if (ST == 0) __stwb(p, v);
  if (ST == 1) __stcs(p, v);
  if (ST == 2)
    asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;"
                 :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "l"(pol) : "memory");
}
template <int LD, int ST>
__global__ void __launch_bounds__(256) segs(const uint4* __restrict__ in, uint4* __restrict__ out,
                                            long long nblocks, int S, int LV, int pad) {
  const unsigned long long pf = policy_first(), pl = policy_last();
  const long long b = blockIdx.x;
  const int T = S * LV;
  const uint4* src = in + b * T;
  for (int base = 0; base < T; base += 256 * 8) {
    uint4 v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int i = base + k * 256 + threadIdx.x;
      if (i < T) v[k] = load<LD>(src + i, pf);
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int i = base + k * 256 + threadIdx.x;
      if (i < T) {
        const int s = i / LV, j = i - s * LV;
        store<ST>(out + s * (nblocks * LV + pad) + b * LV + j, v[k], pl);
      }
    }
  }
}
"""
MODES = {"plain/wb": (0, 0), "plain/cs": (0, 1), "first/wb": (1, 0), "noL1/wb": (2, 0), "plain/last": (0, 2),
         "first/last": (1, 2)}
mod = cupy.RawModule(code=SRC, options=("-std=c++17",),
                     name_expressions=[f"segs<{a},{b}>" for a, b in MODES.values()])


def main():
    total = 2**28
    x = cupy.empty(total, cupy.uint8)
    verify.fill_random_bits(x, seed=3)
    whole = cupy.empty(total + 64 * 16 * 2, cupy.uint8)
    stream = cupy.cuda.get_current_stream()
    for rnd in range(2):
        for pad in (0, 1):
            for s in (32, 41, 64):
                for L in (512, 1024):
                    lv, nb = L // 16, total // (s * L)
                    moved = nb * s * L
                    out = whole
                    copy = timing.time_gpu(
                        lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, moved, 3, stream.ptr),
                        warmup=5, reps=50).median_ms
                    want = x[:moved].reshape(nb, s, L).transpose(1, 0, 2).reshape(s, -1)
                    for name, (a, b) in MODES.items():
                        kern = mod.get_function(f"segs<{a},{b}>")
                        args = (x, out, cupy.int64(nb), cupy.int32(s), cupy.int32(lv), cupy.int32(pad))
                        run = lambda: kern((nb,), (256,), args)  # noqa: E731
                        verify.poison(out)
                        run()
                        got = out[:s * (nb * L + 16 * pad)].reshape(s, -1)[:, :nb * L]
                        ok = bool((got == want).all())
                        t = timing.time_gpu(run, warmup=5, reps=50).median_ms
                        print(f"round {rnd + 1} pad={pad} S={s:2} L={L:4} {name:10} {2 * moved / t / 1e6:6.0f} GB/s "
                              f"{100 * copy / t:5.1f}% of a copy  {'ok' if ok else 'BAD'}", flush=True)


if __name__ == "__main__":
    main()
