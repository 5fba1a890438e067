"""skinnyTile against skinnyWords, forced, 256 MiB inputs, aligned and misaligned long rows."""
import sys
import cupy
import numpy as np
from bwlab.core import timing, verify
from bwlab.workloads.transpose import plans
from bwlab.workloads.transpose.calls import launch

stream = cupy.cuda.get_current_stream().ptr
rows_out = []
DT = {1: "u1", 2: "u2"}
for e in (1, 2):
    for tall in (True, False):
        for s in ((4, 8, 16, 32, 64) if e == 1 else (2, 4, 8, 16, 32, 64)):
            for aligned in (True, False):
                n = (256 << 20) // (s * e)
                n = n - n % 16 if aligned else n + 1 - n % 2
                shape = (n, s) if tall else (s, n)
                x = cupy.empty(shape, DT[e])
                verify.fill_random_bits(x, seed=s + n)
                ref = cupy.ascontiguousarray(x.T)
                out = cupy.empty(shape[::-1], DT[e])
                res = {}
                for words in (False, True) if tall else (False,):  # wide skinnyWords was removed since
                    ch = plans.Choice("tall-tile" if tall else "wide-tile", e, plans.SKINNYTILE,
                                      plans.skinnytile_expression(e, tall, words), plans.SKINNYTILE_THREADS)
                    out.fill(0xAB if e == 1 else 0xABCD)
                    f = lambda: launch(ch, x.data.ptr, out.data.ptr, 1, shape[0], shape[1], x.nbytes, 0, stream)
                    f()
                    ok = bool((out == ref).all())
                    t = timing.time_gpu(f, warmup=5, reps=50)
                    res[words] = (ok, timing.gbs(2 * x.nbytes, t.median_ms))
                tc = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes,
                                                                          3, stream), warmup=5, reps=50)
                mc = timing.gbs(2 * x.nbytes, tc.median_ms)
                rows_out.append((e, "tall" if tall else "wide", s, "aligned" if aligned else "odd", n,
                                 res[False], res[True], mc))
                del x, ref, out
print(f"{'E':>2} {'orient':6} {'S':>3} {'rows':8} {'tile':>12} {'words':>12} {'memcpy':>7}")
for e, o, s, a, n, t, w, mc in rows_out:
    print(f"{e:>2} {o:6} {s:>3} {a:8} {t[1]:6.0f} {100*t[1]/mc:3.0f}%{'' if t[0] else '!BAD'} "
          f"{w[1]:6.0f} {100*w[1]/mc:3.0f}%{'' if w[0] else '!BAD'} {mc:7.0f}")
