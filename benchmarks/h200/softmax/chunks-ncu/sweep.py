"""colsChunks compiled for more blocks an SM, after probe.py's profile (colsPartial 37% and colsFinish
46% of warps active against Triton's 86-96%): softmax and log-softmax gradients of bfloat16 down dim 1
of [4, 32768, 1024] (run from this folder as `PYTHONPATH=../../../../src python3 sweep.py`). Each
geometry launched directly, its output (poisoned first) checked against float64, then timed beside a
copy of the same bytes (../meet-tree/probe.py's measure), and torch.compile the same way; two rounds."""
import sys

import torch

from bwlab.core import build
from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, "../meet-tree")
from probe import against_copy, columns, measure  # noqa: E402

SHAPE = (4, 32768, 1024)
# (label, partial's blocks an SM, finish's packs in flight, finish's blocks an SM); 0: the defaults (3 and 4)
GEOMETRIES = [("dispatch", 0, 4, 0), ("part 4", 4, 4, 0), ("part 3", 3, 4, 0), ("fin U2", 0, 2, 0),
              ("fin U2 6", 0, 2, 6), ("fin U4 6", 0, 4, 6), ("part 4 fin U4 6", 4, 4, 6),
              ("part 4 fin U2 6", 4, 2, 6)]


def main():
    probs = {log: plans.Problem(SHAPE[0], SHAPE[1], SHAPE[2], "bfloat16", "backward", log) for log in (False, True)}
    ch = {(log, g[0]): plans.cols_chunks(p, 0, 8, 32, g[2], g[1], g[3]) for log, p in probs.items() for g in GEOMETRIES}
    ex = sorted({e for c in ch.values() for e in (c.expression, c.finish)})
    regs = build.compile_each(plans.SRC["colschunks"], ex, "sm_90").resources
    g0 = torch.Generator(device="cuda").manual_seed(0)
    s = torch.cuda.current_stream().cuda_stream
    dt = torch.bfloat16
    print(f"{'op':7} {'rnd':3} {'geometry':18} {'regs':>9} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}", flush=True)
    for rnd in ("r1", "r2"):
        for log in (False, True):
            x = (torch.randn(*SHAPE, device="cuda", generator=g0) * 3).to(dt)
            y = (torch.log_softmax if log else torch.softmax)(x.float(), 1).to(dt)
            g = torch.randn(*SHAPE, device="cuda", generator=g0).to(dt)
            out = torch.empty_like(y)
            moved = 3 * y.numel() * y.element_size()
            op = "logbwd" if log else "bwd"
            for label, *_ in GEOMETRIES:
                c = ch[log, label]
                ws = torch.empty(c.workspace_bytes, dtype=torch.uint8, device="cuda")
                run = runner(c, *SHAPE, 0)
                fn = (lambda run=run, ws=ws: run(y.data_ptr(), g.data_ptr(), out.data_ptr(), ws.data_ptr(), s))
                # log-softmax gradients are checked by the bench and the tests, not bad_count (softmax's)
                bad, ms, copy = measure(fn, out, y, g, 1, "bwd", moved, check=not log)
                r = f"{regs[c.expression].registers}/{regs[c.finish].registers}"
                print(f"{op:7} {rnd:3} {label:18} {r:>9} " + columns(bad, ms, copy, moved), flush=True)
            tc = torch.compile(lambda y, g: (torch.ops.aten._log_softmax_backward_data if log else
                                             torch.ops.aten._softmax_backward_data)(g, y, 1, dt), dynamic=False)
            with torch.no_grad():
                ms, copy = against_copy(lambda: tc(y, g), moved)
            print(f"{op:7} {rnd:3} {'torch.compile':18} {'':>9} " + columns(-1, ms, copy, moved), flush=True)
            x = y = g = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
