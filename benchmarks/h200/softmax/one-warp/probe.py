"""Rows of 65 to 128 packs (bfloat16 rows of 520-1024, float32 rows of 260-512) on a block of one warp
(rowBlock, 4 packs a lane, a block a row) against the dispatch's rowWarp (4 warps a block, a warp a
row), softmax and log-softmax, about 256 MiB of input a case (run from this folder as
`PYTHONPATH=../../../../src python3 probe.py`). Every output, poisoned first, checked against float64;
then timed beside a copy of the same bytes (../meet-tree/probe.py's measure: events around batches of
8 calls, 3 alternating rounds), two rounds."""
import sys

import torch

from bwlab.core import build
from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, "../meet-tree")
from probe import columns, measure  # noqa: E402

DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}
LENGTHS = {"bfloat16": (520, 776, 1000, 1024), "float32": (260, 388, 500, 512)}


def main():
    cases = [(d, L, op) for d in DT for L in LENGTHS[d] for op in ("fwd", "log")]
    probs = {c: plans.Problem((256 << 20) // (c[1] * (2 if c[0] == "bfloat16" else 4)), c[1], 1, c[0], "forward",
                              c[2] == "log") for c in cases}
    kinds = {c: [("dispatch", plans.choose(p)), ("one warp", plans.row_block(p))] for c, p in probs.items()}
    regs = build.compile_each(plans.SRC["rows"], sorted({k.expression for v in kinds.values() for _, k in v}),
                              "sm_90").resources
    g0 = torch.Generator(device="cuda").manual_seed(0)
    s = torch.cuda.current_stream().cuda_stream
    print(f"{'rows':>8} {'L':>5} {'dtype':9} {'op':4} {'rnd':3} {'kernel':40} {'bad':>4} {'ms':>8} {'GB/s':>6} "
          f"{'%copy':>6}", flush=True)
    for rnd in ("r1", "r2"):
        for c in cases:
            d, L, op = c
            p = probs[c]
            x = (torch.randn(p.N, L, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            moved = 2 * x.numel() * x.element_size()
            for label, k in kinds[c]:
                run = runner(k, p.N, p.L, p.M, 0)
                fn = (lambda run=run: run(x.data_ptr(), 0, out.data_ptr(), 0, s))
                bad, ms, copy = measure(fn, out, x, None, -1, op, moved)
                tag = f"{label} {k.expression.split(',Forward')[0]} {regs[k.expression].registers}r"
                print(f"{p.N:8d} {L:5d} {d:9} {op:4} {rnd:3} {tag:40} " + columns(bad, ms, copy, moved), flush=True)
            x = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
