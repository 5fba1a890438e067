"""colsTeam beside the dispatch on long strided axes (run from this folder as
`PYTHONPATH=../../../../src python3 probe.py [quick | first]`): colsCluster's strips on a team of ordinary
blocks meeting through global memory, so a strip's rows may span any number of blocks (up to every
block the GPU holds at once), each block refilling its shared memory with its next strip's rows as
it writes one out. Each geometry's output, poisoned first, is checked against a float64 reference,
then timed beside a device-to-device copy of the same bytes (../meet-tree/probe.py's measure)."""
import math
import sys

import torch

import bwlab
from bwlab.core import build
from bwlab.core import launch as core_launch
from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.launch import _function, runner

sys.path.insert(0, "../meet-tree")
from probe import columns, measure  # noqa: E402

CASES = [((4, 32768, 1024), 1), ((32768, 4096), 0), ((8, 16384, 1024), 1), ((16, 8192, 1024), 1), ((8192, 8192), 0),
         ((16, 4096, 1024), 1), ((32, 2048, 1024), 1), ((64, 1024, 2048), 1)]
DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}
OPS = ("fwd", "log", "bwd")
K64 = {"budget": 64 * 1024}  # the first runs' TEAM_STRIP; the dispatch's is 96 KiB
# label -> cols_team's keyword arguments
VARIANTS = {"t256": K64, "t128": dict(K64, threads=128), "96K": {}, "t128 96K": {"threads": 128}}
# `probe.py first`: the first sweep, on the first five cases
FIRST = {"t256": K64, "t256 S1": dict(K64, S=1), "t128": dict(K64, threads=128), "t512": dict(K64, threads=512),
         "W256": dict(K64, W=256), "96K": {}}


def problem(shape, dim, d, op):
    N, M = math.prod(shape[:dim]), math.prod(shape[dim + 1:])
    return plans.Problem(N, shape[dim], M, d, "backward" if op == "bwd" else "forward", op == "log")


def team(p, kw):
    """(choice, call maker) of colsTeam at kw with as many teams as the GPU holds, or (None, reason)."""
    c = plans.cols_team(p, **kw)
    if c is None:
        return None, "no geometry"
    fn = _function(c.source, c.expression, c.smem, 0)
    held = core_launch.resident_blocks(fn, c.block[0], c.smem, 0)
    c = plans.cols_team(p, held, **kw)
    if c is None:
        return None, f"held {held}"
    run = runner(c, p.N, p.L, p.M, 0)
    ws = torch.empty(c.workspace_bytes, dtype=torch.uint8, device="cuda")
    s = torch.cuda.current_stream().cuda_stream
    return c, lambda a, b, y: (lambda: run(a.data_ptr(), b.data_ptr() if b is not None else 0, y.data_ptr(),
                                           ws.data_ptr(), s))


def variants_for(i):
    if "first" in sys.argv[1:]:
        return list(FIRST.items())[:1 if i >= 3 else None]
    return list(VARIANTS.items())


def precompile(cases):
    ex = set()
    for shape, dim in cases:
        for d in DT:
            for op in OPS:
                for kw in list(VARIANTS.values()) + list(FIRST.values()):
                    c = plans.cols_team(problem(shape, dim, d, op), **kw)
                    if c is not None:
                        ex.add(c.expression)
    build.compile_each(plans.SRC["colscluster"], sorted(ex), "sm_90")


def main(quick):
    cases = CASES[:5] if "first" in sys.argv[1:] else CASES[:1] if quick else CASES
    precompile(cases)
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'case':20} {'dtype':9} {'op':4} {'kernel':30} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}", flush=True)
    for i, (shape, dim) in enumerate(cases):
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            for op in OPS:
                p = problem(shape, dim, d, op)
                if op == "bwd":
                    y = torch.softmax(x.float(), dim).to(DT[d])
                    g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                    api = lambda: bwlab.softmax_backward(y, g, dim, out=out)  # noqa: E731
                    kern = bwlab.explain_softmax(y, dim, backward=True)
                else:
                    y, g = x, None
                    api = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
                    kern = bwlab.explain_softmax(x, dim, log=op == "log")
                out = torch.empty_like(y)
                moved = y.numel() * y.element_size() * (3 if op == "bwd" else 2)
                variants = [(kern.split(" ")[0], api)]
                for label, kw in variants_for(i):
                    c, make = team(p, kw)
                    if c is None:
                        print(f"{str(list(shape)) + ' d' + str(dim):20} {d:9} {op:4} {label}: {make}", flush=True)
                        continue
                    variants.append((f"{label} T{c.chunks} G{c.extra[0]}", make(y, g, out)))
                for label, fn in variants:
                    bad, ms, copy = measure(fn, out, y, g, dim, op, moved)
                    print(f"{str(list(shape)) + ' d' + str(dim):20} {d:9} {op:4} {label:30} "
                          + columns(bad, ms, copy, moved), flush=True)
                out = y = g = None
            x = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main("quick" in sys.argv[1:])
