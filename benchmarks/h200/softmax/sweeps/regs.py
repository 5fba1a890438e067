"""colsRegs on [8192, 16, 1024] dim 1 (run as `PYTHONPATH=src python3
benchmarks/h200/softmax/sweeps/regs.py`): the dispatch's choice, then every pack width V (columns
a thread), block size and blocks-per-SM bound of colsRegs, each forced into the public API's plan
cache, checked against a float64 reference on the first 64 of the N slices (output poisoned with
NaN first; a quick screen of 2^-7 relative for 16-bit, the GPU tests hold the real tolerance), then
timed (events around batches of 4 calls, median of 25) beside a device copy of the same bytes.
Variants that spill are listed first; the bench's cudaMemcpy ceiling differs from this copy's."""
import torch

from bwlab.core import build
from bwlab.core.launch import arch_of
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner
from sweep import copy_gbs, timed  # this folder's sweep: events around batches of calls, the median

N, L, M = 8192, 16, 1024


def variants(p):
    base = plans.choose(p)
    out = [("chosen " + base.expression, base)]
    ct, op = plans.CTYPE[p.dtype], plans.OPS[p.op, p.log]
    for V in (8, 4, 2) if p.dtype != "float32" else (4, 2):
        for t in (128, 256):
            for mb in (1, 2, 3, 4):
                expr = f"colsRegs<{ct},{V},16,{t},{mb},{op} >"
                grid = (max(1, -(-N * (M // V) // t)), 1, 1)
                c = plans.Choice("colsRegs", plans.SRC["colsregs"], expr, grid, (t, 1, 1), 0, "cols")
                out.append((f"V{V} t{t} mb{mb}", c))
    return out


CASES = [("bfloat16", "forward", False), ("bfloat16", "forward", True), ("bfloat16", "backward", False),
         ("float32", "forward", False)]

if __name__ == "__main__":
    arch = arch_of(0)
    exprs = {}
    for d, op, log in CASES:
        for _, c in variants(plans.Problem(N, L, M, d, op, log)):
            exprs.setdefault(c.source, set()).add(c.expression)
    for src, e in exprs.items():
        r = build.compile_each(src, sorted(e), arch)
        for k, v in r.resources.items():
            if v.spill_stores or v.spill_loads:
                print("spill", k, v.registers, v.spill_stores, flush=True)
    dt = {"float32": torch.float32, "bfloat16": torch.bfloat16}
    for d, op, log in CASES:
        g = torch.Generator(device="cuda").manual_seed(1)
        x = (torch.randn(N, L, M, device="cuda", generator=g) * 3).to(dt[d])
        grad = torch.randn(N, L, M, device="cuda", generator=g).to(dt[d]) if op == "backward" else None
        if op == "forward":
            ref = (torch.log_softmax if log else torch.softmax)(x[:64].double(), 1)
        else:
            y64, g64 = x[:64].double(), grad[:64].double()
            ref = y64 * (g64 - (y64 * g64).sum(1, keepdim=True))
        out = torch.empty_like(x)
        moved = x.numel() * x.element_size() * (3 if op == "backward" else 2)
        copy = copy_gbs(moved)
        p = plans.Problem(N, L, M, d, op, log)
        for label, c in variants(p):
            calls._plans[(p, 0)] = calls.Plan(c, runner(c, N, L, M, 0))
            out.fill_(float("nan"))
            calls.run(x, 1, log, out, None, grad=grad)
            torch.cuda.synchronize()
            err = (out[:64].double() - ref).abs()
            tol = (1e-5 if d == "float32" else 2 ** -7) * (ref.abs() + 1) + 1e-6
            bad = int((~(err <= tol)).sum())
            ms = timed(lambda: calls.run(x, 1, log, out, None, grad=grad), reps=25)
            gb = moved / ms / 1e6
            print(f"{d[:4]} {op[:3]} log={int(log)}  {label:44s} {gb:6.0f} GB/s {100 * gb / copy:5.1f}%  bad={bad}",
                  flush=True)
        calls._plans.clear()
