"""The tall tiles' write pattern alone (../skinny-whole/segments.py's copy kernel: each block reads S * L
bytes contiguously and writes them as S segments of L bytes in S long rows) under three store kinds:
evict-first (st.global.cs, what the tall tiles use), plain write-back (st.global.wb) and L2-only
(st.global.cg). Rows padded by P 16-byte vectors: P = 0 puts every segment on a 256-byte boundary, P = 1
at varying 16-byte offsets (as an odd long side does), P = 8 128 bytes off in alternate rows. Each
output checked, then timed (CUDA events, 5 warm-ups, median of 50) beside cudaMemcpy of the same bytes.
From this folder: PYTHONPATH=../../../../src python3 segments_store.py"""
import cupy

from bwlab.core import timing, verify

SRC = r"""
template <int MODE>
__global__ void __launch_bounds__(256) segs(const uint4* __restrict__ in, uint4* __restrict__ out,
                                            long long nblocks, int S, int LV, int pad) {
  const long long b = blockIdx.x;
  const int T = S * LV;
  const uint4* src = in + b * T;
  for (int base = 0; base < T; base += 256 * 8) {
    uint4 v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int i = base + k * 256 + threadIdx.x;
      if (i < T) v[k] = src[i];
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int i = base + k * 256 + threadIdx.x;
      if (i < T) {
        const int s = i / LV, j = i - s * LV;
        uint4* p = out + s * (nblocks * LV + pad) + b * LV + j;
        if (MODE == 0) __stcs(p, v[k]);
        else if (MODE == 1) *p = v[k];
        else __stcg(p, v[k]);
      }
    }
  }
}
"""
MODES = {0: "cs", 1: "wb", 2: "cg"}
mod = cupy.RawModule(code=SRC, name_expressions=[f"segs<{m}>" for m in MODES])
kern = {m: mod.get_function(f"segs<{m}>") for m in MODES}


def main():
    total = 2**28
    x = cupy.empty(total, cupy.uint8)
    verify.fill_random_bits(x, seed=3)
    stream = cupy.cuda.get_current_stream()
    for rnd in range(2):
        for pad in (0, 1, 8):
            out = cupy.empty(total + 64 * 16 * pad, cupy.uint8)
            copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, total, 3,
                                                                         stream.ptr), warmup=5, reps=50).median_ms
            for s, L in ((32, 512), (64, 512), (32, 1024), (64, 1024)):
                lv = L // 16
                nb = total // (s * L)
                args = (x, out, cupy.int64(nb), cupy.int32(s), cupy.int32(lv), cupy.int32(pad))
                for m, name in MODES.items():
                    def run(m=m):
                        kern[m]((nb,), (256,), args)
                    verify.poison(out)
                    run()
                    want = x.reshape(nb, s, L).transpose(1, 0, 2).reshape(s, -1)
                    got = out[:s * (nb * L + 16 * pad)].reshape(s, -1)[:, :nb * L]
                    ok = bool((got == want).all())
                    t = timing.time_gpu(run, warmup=5, reps=50).median_ms
                    print(f"round {rnd + 1} pad={pad} S={s:2} L={L:4} {name}  {2 * total / t / 1e6:6.0f} GB/s  "
                          f"{100 * copy / t:5.1f}% of a copy  {'ok' if ok else 'BAD'}", flush=True)


if __name__ == "__main__":
    main()
