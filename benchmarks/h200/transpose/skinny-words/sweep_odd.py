"""skinnyTile against skinnyWords (tall, short sides that do not fill words), forced, 256 MiB."""
import cupy
from bwlab.core import timing, verify
from bwlab.workloads.transpose import plans
from bwlab.workloads.transpose.calls import launch

stream = cupy.cuda.get_current_stream().ptr
DT = {1: "u1", 2: "u2"}
print(f"{'E':>2} {'S':>3} {'rows':8} {'tile':>11} {'words':>11} {'memcpy':>7}  words kernel")
for e, shorts in ((1, (5, 6, 7, 9, 13, 17, 24, 31, 33, 48, 63)), (2, (3, 5, 9, 16, 17, 33, 63))):
    for s in shorts:
        if not plans.skinnytile_words(e, s, True):
            continue  # 2-byte short sides not filling words: no longer built (see COMMAND)
        for aligned in (True, False):
            n = (256 << 20) // (s * e)
            n = n - n % 16 if aligned else n + 1 - n % 2
            x = cupy.empty((n, s), DT[e])
            verify.fill_random_bits(x, seed=s + n)
            ref = cupy.ascontiguousarray(x.T)
            out = cupy.empty((s, n), DT[e])
            res = {}
            for words in (False, True):
                expr = plans.skinnytile_expression(e, True, words, s)
                ch = plans.Choice("tall-tile", e, plans.SKINNYTILE, expr, plans.SKINNYTILE_THREADS)
                out.fill(0)
                f = lambda: launch(ch, x.data.ptr, out.data.ptr, 1, n, s, x.nbytes, 0, stream)
                f()
                ok = bool((out == ref).all())
                t = timing.time_gpu(f, warmup=5, reps=50)
                res[words] = (ok, timing.gbs(2 * x.nbytes, t.median_ms), expr)
            mc = timing.gbs(2 * x.nbytes, timing.time_gpu(
                lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3, stream),
                warmup=5, reps=50).median_ms)
            t, w = res[False], res[True]
            print(f"{e:>2} {s:>3} {'aligned' if aligned else 'odd':8} {t[1]:6.0f} {100*t[1]/mc:3.0f}%{'' if t[0] else '!BAD'}"
                  f" {w[1]:6.0f} {100*w[1]/mc:3.0f}%{'' if w[0] else '!BAD'} {mc:7.0f}  {w[2]}", flush=True)
            del x, ref, out
