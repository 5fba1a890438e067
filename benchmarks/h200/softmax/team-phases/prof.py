"""Where colsTeam's time goes: on a tree built with COLSTEAM_PROFILE 1 (prof.patch), thread 0 of each
block adds up its cycles (clock64) per phase of each strip and stores them after the team's states.
Each case runs the dispatch's colsTeam plan (or colsTeam forced with the GPU's resident blocks) on a
workspace grown to hold them, its output checked against float64 once, then 20 calls, then the
profiled one; the per-call time is the median of 100 calls between back-to-back events. Printed: the
mean over blocks of each phase a strip, in us at the SM clock given (default 1980 MHz), and its share.
`PYTHONPATH=<profile tree>/src python3 prof.py [MHz]` (from this folder); `prof.py time` on a tree
without the profile prints only the checks and the times a call."""
import statistics
import sys

import torch

from bwlab.workloads.softmax import plans

sys.path.insert(0, "../team-pipe")
sys.path.insert(0, "../meet-tree")
from cases import problem  # noqa: E402
from pipe import held_plan  # noqa: E402
from probe import DT, bad_count  # noqa: E402
from bwlab.workloads.softmax.launch import runner  # noqa: E402

CASES = [((4, 32768, 1024), 1, "bfloat16", "fwd"), ((4, 32768, 1024), 1, "float32", "fwd"),
         ((8, 16384, 1024), 1, "bfloat16", "fwd"), ((16, 8192, 1024), 1, "bfloat16", "fwd"),
         ((16, 8192, 1024), 1, "float32", "fwd"), ((8192, 8192), 0, "float32", "bwd"),
         ((8192, 8192), 0, "bfloat16", "bwd"), ((4, 32768, 1024), 1, "bfloat16", "bwd")]
PHASES = ["phase", "first", "land", "fold", "partial", "post", "wait", "gather", "write"]


def main(mhz, time_only=False):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    s = torch.cuda.current_stream().cuda_stream
    print(f"{'case':36} {'plan':9} {'us/call':>8} " + " ".join(f"{p:>8}" for p in PHASES[2:]) + "  (us a strip; "
          "then % of the block's cycles)")
    for shape, dim, d, op in CASES:
        p = problem(shape, dim, d, op)
        x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
        out = torch.empty_like(x)
        if op == "bwd":
            y = torch.softmax(x.float(), dim).to(DT[d])
            g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
        else:
            y, g = x, None
        c = held_plan(lambda h: plans.cols_team(p, h))
        blocks = c.grid[0]
        cols = 128 // 16 * (16 // x.element_size())
        prof_at = 128 * c.extra[0] + 2 * 8 * c.extra[0] * c.chunks * cols
        ws = torch.empty(prof_at + 80 * blocks, dtype=torch.uint8, device="cuda")
        run = runner(c, p.N, p.L, p.M, 0)
        fn = lambda: run(y.data_ptr(), g.data_ptr() if g is not None else 0, out.data_ptr(), ws.data_ptr(), s)  # noqa: E731
        out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        bad = bad_count(out, y, g, dim, op)
        for _ in range(20):
            fn()
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(100)]
        for a, b in ev:
            a.record()
            fn()
            b.record()
        torch.cuda.synchronize()
        us = 1e3 * statistics.median(a.elapsed_time(b) for a, b in ev)
        P = ws[prof_at:prof_at + 80 * blocks].view(torch.int64).view(blocks, 10).double().cpu()
        strips = P[:, 9].clamp(min=1)
        per = (P[:, :9] / strips[:, None]).mean(0) / mhz  # us a strip
        share = 100 * P[:, :9].sum(0) / P[:, :9].sum()
        name = f"{list(shape)} {d} {op}"
        if time_only:
            print(f"{name:36} T{c.chunks} G{c.extra[0]:<3} {us:8.1f}  bad={bad}", flush=True)
            continue
        print(f"{name:36} T{c.chunks} G{c.extra[0]:<3} {us:8.1f} " + " ".join(f"{v:8.2f}" for v in per[2:].tolist())
              + f"  bad={bad} strips={int(P[:, 9].max())}")
        print(f"{'':36} {'':9} {'':8} " + " ".join(f"{v:7.1f}%" for v in share[2:].tolist()))
        x = y = g = out = ws = None
        torch.cuda.empty_cache()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "time"]
    main(float(args[0]) if args else 1980.0, "time" in sys.argv[1:])
