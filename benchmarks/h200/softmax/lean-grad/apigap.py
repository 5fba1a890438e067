"""Why the dispatch's colsTeam times below the same kernel forced (../width-more/lbwd.txt, probe.txt here:
1.5-4 points of a copy on the same expression and grid): softmax gradients, float32 [8192, 8192] dim 0 and
[4, 32768, 1024] dim 1. Each form timed the probes' way (batches of 8 calls between events, median of 9,
three rounds against a copy) and call by call (an event pair around each call, synchronised between calls:
the GPU's time alone): the API, the forced kernel on one workspace, the forced kernel on a fresh workspace a
call (as the API allocates), and the API's host time a call (perf_counter over 200 calls on a small case).
`PYTHONPATH=../../../../src python3 apigap.py` (from this folder)."""
import statistics
import sys
import time

import torch

sys.path[:0] = ["../team-pipe", "../meet-tree", "../width-more"]
import bwlab  # noqa: E402
from geometry import prob  # noqa: E402
from bwlab.workloads.softmax import calls  # noqa: E402
from probe import against_copy  # noqa: E402
from bwlab.workloads.softmax.launch import runner  # noqa: E402


def single_ms(fn, reps=20):
    out = []
    for _ in range(reps):
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b))
    return statistics.median(out)


def main():
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim in (((8192, 8192), 0), ((4, 32768, 1024), 1)):
        p = prob(shape, dim, "float32", "bwd")
        y = torch.softmax(torch.randn(*shape, device="cuda", generator=g0), dim)
        g = torch.randn(*shape, device="cuda", generator=g0)
        out = torch.empty_like(y)
        moved = 3 * y.numel() * 4
        bwlab.softmax_backward(y, g, dim, out=out)  # the API's plan for this problem, as it ran
        c = calls.plan_for(p, 0).choice
        run = runner(c, p.N, p.L, p.M, 0)
        ws = torch.empty(c.workspace_bytes, dtype=torch.uint8, device="cuda")
        s = lambda: torch.cuda.current_stream().cuda_stream  # noqa: E731
        forms = {
            "api": lambda: bwlab.softmax_backward(y, g, dim, out=out),
            "forced, one workspace": lambda: run(y.data_ptr(), g.data_ptr(), out.data_ptr(), ws.data_ptr(), s()),
            "forced, fresh workspace": lambda: run(y.data_ptr(), g.data_ptr(), out.data_ptr(),
                                                   torch.empty(c.workspace_bytes, dtype=torch.uint8,
                                                               device="cuda").data_ptr(), s()),
        }
        print(f"{list(shape)} float32 gradients dim {dim}: {bwlab.explain_softmax(y, dim, backward=True)[:60]}; "
              f"forced {c.expression} grid {c.grid[0]}", flush=True)
        for rnd in (1, 2):
            for label, fn in forms.items():
                ms, copy = against_copy(fn, moved)
                one = single_ms(fn)
                print(f"  r{rnd} {label:24} batched {ms * 1e3:7.1f} us ({100 * copy / ms:5.1f}% of a copy)  "
                      f"alone {one * 1e3:7.1f} us", flush=True)
    x = torch.randn(64, 256, device="cuda")
    yy, gg, oo = torch.softmax(x, 0), torch.randn_like(x), torch.empty_like(x)
    for label, fn in (("api small backward [64, 256] dim 0", lambda: bwlab.softmax_backward(yy, gg, 0, out=oo)),
                      ("api small forward [64, 256] dim 0", lambda: bwlab.softmax(x, 0, out=oo))):
        fn()
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(200):
            fn()
        host = (time.perf_counter() - t) / 200
        torch.cuda.synchronize()
        print(f"  {label}: {host * 1e6:.1f} us of host time a call", flush=True)


if __name__ == "__main__":
    main()
