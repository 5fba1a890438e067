"""What the tall transposes' write pattern costs alone: a copy kernel that reads each block's
S * L bytes contiguously and writes them as S segments of L bytes, one in each of S long rows
(block b's segment of row s at byte b * L of that row), the pattern of a tall tile with S
columns writing L bytes of each output row. 16-byte vectors, 256 threads, 8 loads a thread in
flight, streaming stores, about 256 MiB. Each output checked against the same permutation done by
CuPy, then timed (CUDA events, warm-up, median of 50) beside cudaMemcpy of the same bytes. From
this folder: PYTHONPATH=../../../../src python3 segments.py"""
import cupy

from bwlab.core import timing, verify

SRC = r"""
extern "C" __global__ void __launch_bounds__(256) segs(const uint4* __restrict__ in, uint4* __restrict__ out,
                                                       long long nblocks, int S, int LV) {
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
        __stcs(out + s * nblocks * LV + b * LV + j, v[k]);
      }
    }
  }
}
"""
kern = cupy.RawKernel(SRC, "segs")


def main():
    total = 2**28
    x = cupy.empty(total, cupy.uint8)
    verify.fill_random_bits(x, seed=3)
    out = cupy.empty_like(x)
    stream = cupy.cuda.get_current_stream()
    copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, total, 3, stream.ptr),
                           warmup=5, reps=50).median_ms
    print(f"cudaMemcpy {2 * total / copy / 1e6:.0f} GB/s")
    for rnd in range(2):
        for s in (1, 8, 16, 32, 64):
            for L in (128, 256, 512, 1024, 2048, 4096):
                lv = L // 16
                nb = total // (s * L)
                run = lambda: kern((nb,), (256,), (x, out, cupy.int64(nb), cupy.int32(s), cupy.int32(lv)))  # noqa: E731
                verify.poison(out)
                run()
                want = x.reshape(nb, s, L).transpose(1, 0, 2).reshape(-1)
                ok = bool((out == want).all())
                t = timing.time_gpu(run, warmup=5, reps=50).median_ms
                copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, total, 3,
                                                                             stream.ptr), warmup=5, reps=50).median_ms
                print(f"round {rnd + 1} S={s:2} L={L:4}  {2 * total / t / 1e6:6.0f} GB/s  "
                      f"{100 * copy / t:5.1f}% of a copy  {'ok' if ok else 'BAD'}", flush=True)


if __name__ == "__main__":
    main()
