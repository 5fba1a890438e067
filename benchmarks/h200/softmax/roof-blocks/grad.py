"""rowBlock gradients at one pack a thread (the dispatch) against the packs a thread before it
(BLOCK_K's, or one warp where 2 * BLOCK_K packs a lane hold the row) on the rows sweep.py did not
time: lengths that are not a power of two in packs (whole warps idle) and log-softmax gradients
(run from this folder as `PYTHONPATH=../../../../src python3 grad.py`). Softmax gradients checked
against float64 (bad); log-softmax ones are checked by the tests, not here (bad = -1). Timed as in
sweep.py, two rounds."""
import runpy

import torch

from bwlab.core import build
from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.launch import runner

P = runpy.run_path("probe.py", run_name="roof_probe")
DT, block, columns, measure = P["DT"], P["block"], P["columns"], P["measure"]
LENGTHS = {"float32": (516, 1000, 2056, 4096), "bfloat16": (1032, 2056, 3000, 4096)}


def before(p):
    """The geometry rowBlock took before one pack a thread."""
    packs, K = p.L // p.vec, plans.BLOCK_K[plans.ITEMSIZE[p.dtype], p.inputs]
    if plans.cdiv(packs, 32) <= 2 * K:
        return block(p, 32, plans._pow2(plans.cdiv(packs, 32)))
    return block(p, min(1024, max(64, plans._pow2(plans.cdiv(packs, K)))), K)


def main():
    probs = {(d, L, log): plans.Problem((256 << 20) // (L * (4 if d == "float32" else 2)), L, 1, d, "backward", log)
             for d in LENGTHS for L in LENGTHS[d] for log in (False, True)}
    kinds = {k: [("dispatch", plans.choose(p)), ("before", before(p))] for k, p in probs.items()}
    regs = build.compile_each(plans.SRC["rows"], sorted({c.expression for v in kinds.values() for _, c in v}),
                              "sm_90").resources
    g0 = torch.Generator(device="cuda").manual_seed(0)
    s = torch.cuda.current_stream().cuda_stream
    print(f"{'rows':>8} {'L':>5} {'dtype':9} {'op':6} {'rnd':3} {'kernel':44} {'bad':>4} {'ms':>8} {'GB/s':>6} "
          f"{'%copy':>6}", flush=True)
    for rnd in ("r1", "r2"):
        for (d, L, log), p in probs.items():
            x = (torch.randn(p.N, L, device="cuda", generator=g0) * 3).to(DT[d])
            y = (torch.log_softmax if log else torch.softmax)(x.float(), -1).to(DT[d])
            g = torch.randn(p.N, L, device="cuda", generator=g0).to(DT[d])
            out = torch.empty_like(y)
            moved = 3 * y.numel() * y.element_size()
            for label, c in kinds[d, L, log]:
                run = runner(c, p.N, p.L, p.M, 0)
                fn = (lambda run=run: run(y.data_ptr(), g.data_ptr(), out.data_ptr(), 0, s))
                bad, ms, copy = measure(fn, out, y, g, -1, "bwd", moved, check=not log)
                tag = f"{label} {c.expression.split(',Backward')[0]} {regs[c.expression].registers}r"
                print(f"{p.N:8d} {L:5d} {d:9} {'logbwd' if log else 'bwd':6} {rnd:3} {tag:44} "
                      + columns(bad, ms, copy, moved), flush=True)
            x = y = g = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
