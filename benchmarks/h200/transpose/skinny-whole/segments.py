"""What the tall transposes' write pattern costs alone: a copy kernel that reads each block's
S * L bytes contiguously and writes them as S segments of L bytes, one in each of S long rows
(block b's segment of row s at byte b * L of that row), the pattern of a tall tile with S
columns writing L bytes of each output row. 16-byte vectors, 256 threads, 8 loads a thread in
flight, streaming stores, about 256 MiB. Each output checked against the same permutation done by
CuPy, then timed (CUDA events, warm-up, median of 50) beside cudaMemcpy of the same bytes. From
this folder: PYTHONPATH=../../../../src python3 segments.py; `segments.py odd`: the rows one
16-byte vector longer than their data (an odd number of vectors apart, as an odd long side puts
them, instead of a power of two), S of 8 to 64; `segments.py pad P...`: the rows P vectors longer,
for each P given (P = 2: segments on 32-byte sectors, 8: on 128-byte lines); `segments.py shift
X...`: rows a power of two apart as in the first, the whole output X vectors past an allocation's
start (every segment off the grid by the same 16X bytes)."""
import cupy

from bwlab.core import timing, verify

SRC = r"""
extern "C" __global__ void __launch_bounds__(256) segs(const uint4* __restrict__ in, uint4* __restrict__ out,
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
        __stcs(out + s * (nblocks * LV + pad) + b * LV + j, v[k]);
      }
    }
  }
}
"""
kern = cupy.RawKernel(SRC, "segs")


def main(pad=0, shift=0):
    total = 2**28
    x = cupy.empty(total, cupy.uint8)
    verify.fill_random_bits(x, seed=3)
    whole = cupy.empty(total + 64 * 16 * pad + 16 * shift, cupy.uint8)
    out = whole[16 * shift:]
    stream = cupy.cuda.get_current_stream()
    copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, total, 3, stream.ptr),
                           warmup=5, reps=50).median_ms
    print(f"cudaMemcpy {2 * total / copy / 1e6:.0f} GB/s, rows padded by {pad} vectors, output shifted by {shift}")
    for rnd in range(2):
        for s in (8, 16, 32, 64) if pad or shift else (1, 8, 16, 32, 64):
            for L in (128, 256, 512, 1024, 2048, 4096):
                lv = L // 16
                nb = total // (s * L)
                args = (x, out, cupy.int64(nb), cupy.int32(s), cupy.int32(lv), cupy.int32(pad))
                run = lambda: kern((nb,), (256,), args)  # noqa: E731
                verify.poison(out)
                run()
                want = x.reshape(nb, s, L).transpose(1, 0, 2).reshape(s, -1)
                got = out[:s * (nb * L + 16 * pad)].reshape(s, -1)[:, :nb * L]
                ok = bool((got == want).all())
                t = timing.time_gpu(run, warmup=5, reps=50).median_ms
                copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, total, 3,
                                                                             stream.ptr), warmup=5, reps=50).median_ms
                print(f"round {rnd + 1} S={s:2} L={L:4}  {2 * total / t / 1e6:6.0f} GB/s  "
                      f"{100 * copy / t:5.1f}% of a copy  {'ok' if ok else 'BAD'}", flush=True)


if __name__ == "__main__":
    import sys
    if sys.argv[1:2] == ["pad"]:
        for p in sys.argv[2:]:
            main(int(p))
    elif sys.argv[1:2] == ["shift"]:
        for x in sys.argv[2:]:
            main(0, int(x))
    else:
        main(1 if sys.argv[1:] == ["odd"] else 0)
