"""The row kernels' block size across row lengths, after probe.py (run from this folder as
`PYTHONPATH=../../../../src python3 sweep.py`): rowWarp on blocks of 32, 64 and 128 threads for rows
of 1 to 128 packs, and rowBlock at 1, 2, 4 and 8 packs a thread for rows of 256 to 1024 packs;
softmax, log-softmax and gradients, float32 and bfloat16, about 256 MiB an input. Every output
(poisoned first) checked against float64, then timed beside a copy of the same bytes (probe.py's
measure); two rounds."""
import runpy

import torch

from bwlab.core import build
from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.launch import runner

P = runpy.run_path("probe.py", run_name="roof_probe")
DT, block, columns, measure = P["DT"], P["block"], P["columns"], P["measure"]
OPS = ("fwd", "log", "bwd")


def cases():
    for d, vec in (("float32", 4), ("bfloat16", 8)):
        for packs in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024):
            for op in OPS:
                if op == "log" and packs not in (8, 128, 512):
                    continue
                yield d, packs * vec, op


def variants(p):
    packs = p.L // p.vec
    out = [("dispatch", plans.choose(p))]
    if packs <= 128:
        K, R = plans.warp_geometry(packs)
        out += [(f"warp K{K} R{R} t{t}", plans.row_warp(p, K, R, t)) for t in (32, 64, 128)]
        if packs > 64:
            out += [("block t32 K4", block(p, 32, 4))]
    else:
        out += [(f"block t{packs // k} K{k}", block(p, packs // k, k)) for k in (1, 2, 4, 8)
                if 32 <= packs // k <= 1024 and k * (2 if p.op == "backward" else 1) * 16 <= 128]
    seen, uniq = set(), []
    for label, c in out:
        if c is not None and (c.expression not in seen or label == "dispatch"):
            seen.add(c.expression)
            uniq.append((label, c))
    return uniq


def main():
    probs = {(d, L, op): plans.Problem((256 << 20) // (L * (4 if d == "float32" else 2)), L, 1, d,
                                       "backward" if op == "bwd" else "forward", op == "log")
             for d, L, op in cases()}
    ex = {c.expression for p in probs.values() for _, c in variants(p)}
    regs = build.compile_each(plans.SRC["rows"], sorted(ex), "sm_90").resources
    g0 = torch.Generator(device="cuda").manual_seed(0)
    s = torch.cuda.current_stream().cuda_stream
    print(f"{'rows':>8} {'L':>5} {'dtype':9} {'op':4} {'rnd':3} {'kernel':44} {'bad':>4} {'ms':>8} {'GB/s':>6} "
          f"{'%copy':>6}", flush=True)
    for rnd in ("r1", "r2"):
        for (d, L, op), p in probs.items():
            x = (torch.randn(p.N, L, device="cuda", generator=g0) * 3).to(DT[d])
            if op == "bwd":
                y = torch.softmax(x.float(), -1).to(DT[d])
                g = torch.randn(p.N, L, device="cuda", generator=g0).to(DT[d])
            else:
                y, g = x, None
            out = torch.empty_like(y)
            moved = y.numel() * y.element_size() * (3 if op == "bwd" else 2)
            for label, c in variants(p):
                run = runner(c, p.N, p.L, p.M, 0)
                fn = (lambda run=run: run(y.data_ptr(), g.data_ptr() if g is not None else 0, out.data_ptr(), 0, s))
                bad, ms, copy = measure(fn, out, y, g, -1, op, moved)
                tag = f"{label} {c.expression.split('<')[0]} {regs[c.expression].registers}r"
                print(f"{p.N:8d} {L:5d} {d:9} {op:4} {rnd:3} {tag:44} " + columns(bad, ms, copy, moved), flush=True)
            x = y = g = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
