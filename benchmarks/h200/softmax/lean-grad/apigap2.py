"""Where the dispatch's colsTeam loses its few microseconds a call against the same kernel forced
(apigap.txt): softmax gradients, float32 [8192, 8192] dim 0. Host time a call over 40 back-to-back calls
(no synchronisation until the end; against the GPU's time a call, it says whether the host waits on the
GPU at each launch), for the API, the forced kernel (memset and cooperative launch) and the forced kernel
launched plainly (not cooperatively: its grid fits the GPU, so every block is resident anyway here; timing
only), each also timed in batches against a copy, two rounds.
`PYTHONPATH=../../../../src python3 apigap2.py` (from this folder)."""
import sys
import time

import torch

sys.path[:0] = ["../team-pipe", "../meet-tree", "../width-more"]
import bwlab  # noqa: E402
from bwlab.core import launch as core_launch  # noqa: E402
from bwlab.workloads.softmax import calls  # noqa: E402
from bwlab.workloads.softmax.launch import _function, runner  # noqa: E402
from geometry import prob  # noqa: E402
from probe import against_copy  # noqa: E402


def host_us(fn, n=40):
    fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    host = (time.perf_counter() - t) / n
    torch.cuda.synchronize()
    gpu = (time.perf_counter() - t) / n
    return host * 1e6, gpu * 1e6


def main():
    g0 = torch.Generator(device="cuda").manual_seed(0)
    shape, dim = (8192, 8192), 0
    p = prob(shape, dim, "float32", "bwd")
    y = torch.softmax(torch.randn(*shape, device="cuda", generator=g0), dim)
    g = torch.randn(*shape, device="cuda", generator=g0)
    out = torch.empty_like(y)
    moved = 3 * y.numel() * 4
    bwlab.softmax_backward(y, g, dim, out=out)
    c = calls.plan_for(p, 0).choice
    run = runner(c, p.N, p.L, p.M, 0)
    ws = torch.empty(c.workspace_bytes, dtype=torch.uint8, device="cuda")
    fn = _function(c.source, c.expression, c.smem, 0, c.cluster)
    tail = [("i64", p.N), ("i64", p.L), ("i64", p.M), ("i64", c.chunks), ("i64", c.extra[0])]
    plain = core_launch.PackedLaunch(fn, c.grid, c.block, [("ptr", 0)] * 4 + tail, c.smem, False)
    s = lambda: torch.cuda.current_stream().cuda_stream  # noqa: E731

    def plain_run():
        core_launch.memset_async(ws.data_ptr(), c.zeroed, s())
        plain(s(), y.data_ptr(), g.data_ptr(), out.data_ptr(), ws.data_ptr())

    forms = {"api": lambda: bwlab.softmax_backward(y, g, dim, out=out),
             "forced cooperative": lambda: run(y.data_ptr(), g.data_ptr(), out.data_ptr(), ws.data_ptr(), s()),
             "forced plain launch": plain_run}
    print(f"{list(shape)} float32 gradients dim {dim}: {c.expression} grid {c.grid[0]}", flush=True)
    for rnd in (1, 2):
        for label, f in forms.items():
            out.fill_(float("nan"))
            f()
            torch.cuda.synchronize()
            ok = bool(torch.isfinite(out).all())
            h, gpu = host_us(f)
            ms, copy = against_copy(f, moved)
            print(f"  r{rnd} {label:20} host {h:6.1f} us a call, wall {gpu:6.1f} us a call; batched {ms * 1e3:6.1f} us "
                  f"({100 * copy / ms:5.1f}% of a copy) finite={ok}", flush=True)


if __name__ == "__main__":
    main()
