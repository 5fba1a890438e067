"""16-bit forward and log-softmax on long strided axes with their rows folded in S groups as they
land (run from this folder as `PYTHONPATH=../../../../src python3 probe.py [long]`): colsCluster (clusters
of 16) and colsTeam (teams of 64 KiB and 96 KiB blocks) at S = 1, 2, 4 beside the dispatch. S > 1
was last measured before the two-pass fold (../sweeps/stages.txt), which made 16-bit forward fold
the whole share at once. Each geometry's output, poisoned first, is checked against a float64
reference (one unit in the last place), then timed beside a device-to-device copy of the same bytes
(../meet-tree/probe.py's measure)."""
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

CASES = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((8, 16384, 1024), 1)]
DT = {"bfloat16": torch.bfloat16, "float32": torch.float32}
OPS = ("fwd", "log")
K64 = 64 * 1024
K48 = 48 * 1024
# label, kind (c: colsCluster on 16 blocks, t: colsTeam), keyword arguments, blocks an SM the
# team's registers must allow (colsTeam's __launch_bounds__; 0: the shipped 2)
VARIANTS = [("cluster S1", "c", dict(stages=1), 0), ("cluster S2", "c", dict(stages=2), 0),
            ("cluster S4", "c", dict(stages=4), 0),
            ("team64 S1", "t", dict(budget=K64, S=1), 0), ("team64 S1 m3", "t", dict(budget=K64, S=1), 3),
            ("team64 S2 m3", "t", dict(budget=K64, S=2), 3), ("team64 S4 m3", "t", dict(budget=K64, S=4), 3),
            ("team48 S1 m4", "t", dict(budget=K48, S=1), 4), ("team48 S4 m4", "t", dict(budget=K48, S=4), 4),
            ("team96 S1", "t", dict(S=1), 0)]
F32 = ("team64 S4 m3", "team48 S4 m4", "team96 S4")  # float32 (forward folds in 4 groups)


# `probe.py long`: the axes past a cluster, every pass, teams at three blocks an SM beside the dispatch
LONG_CASES = [((4, 32768, 1024), 1), ((32768, 4096), 0), ((8, 16384, 1024), 1)]
LONG_OPS = ("fwd", "log", "bwd")
LONG_VARIANTS = [("team64 S1 m3", "t", dict(budget=K64, S=1), 3), ("team64 S2 m3", "t", dict(budget=K64, S=2), 3),
                 ("team64 S4 m3", "t", dict(budget=K64, S=4), 3), ("team96", "t", {}, 0)]


def wanted(label, d, op, long):
    """Whether a variant runs for this dtype and pass."""
    if not long:
        return (d == "float32") == (label in F32)
    if op == "bwd" or d == "float32":
        return "S1" not in label and "S2" not in label
    return "S4" not in label


def problem(shape, dim, d, op):
    N, M = math.prod(shape[:dim]), math.prod(shape[dim + 1:])
    return plans.Problem(N, shape[dim], M, d, "backward" if op == "bwd" else "forward", op == "log")


def choice(p, kind, kw, minb=0, held=0):
    """The variant's kernel. colsTeam's geometry as it was when these ran: 96 KiB blocks, registers
    for two an SM, 16-bit forward rows in 1 group and the others in 4, unless the variant says."""
    if kind == "c":
        return plans.cols_cluster(p, 256, budget=plans.SMEM_MAX, clusters=(16,), **kw)
    S = 4 if p.dtype == "float32" or p.op == "backward" else kw.get("S", 1)
    return plans.cols_team(p, held, budget=kw.get("budget", plans.TEAM_STRIP), S=S, minb=minb or 2)


def make(p, kind, kw, minb, regs):
    """(label suffix, call maker) or (None, reason)."""
    c = choice(p, kind, kw, minb)
    if c is None:
        return None, "no geometry"
    fn = _function(c.source, c.expression, c.smem, 0, c.cluster)
    r = regs.get(c.expression)
    if kind == "c":
        held = core_launch.max_active_clusters(fn, c.cluster, c.block, c.smem)
        tag = f"{r.registers}r {held}cl"
    else:
        held = core_launch.resident_blocks(fn, c.block[0], c.smem, 0)
        c = choice(p, kind, kw, minb, held)
        if c is None:
            return None, f"held {held}"
        tag = f"{r.registers}r T{c.chunks} G{c.extra[0]}"
    run = runner(c, p.N, p.L, p.M, 0)
    ws = torch.empty(max(1, c.workspace_bytes), dtype=torch.uint8, device="cuda")
    s = torch.cuda.current_stream().cuda_stream
    return tag, lambda a, b, y: (lambda: run(a.data_ptr(), b.data_ptr() if b is not None else 0, y.data_ptr(),
                                             ws.data_ptr(), s))


def main(long):
    cases, ops = (LONG_CASES, LONG_OPS) if long else (CASES, OPS)
    variants_all = LONG_VARIANTS if long else VARIANTS + [("team96 S4", "t", dict(S=4), 0)]
    ex = set()
    for shape, dim in cases:
        for d in DT:
            for op in ops:
                for label, kind, kw, minb in variants_all:
                    c = choice(problem(shape, dim, d, op), kind, kw, minb)
                    if c is not None and wanted(label, d, op, long):
                        ex.add(c.expression)
    regs = build.compile_each(plans.SRC["colscluster"], sorted(ex), "sm_90").resources
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'case':20} {'dtype':9} {'op':4} {'kernel':34} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}", flush=True)
    for rnd in ("r1", "r2"):
        for shape, dim in cases:
            for d in DT:
                x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
                for op in ops:
                    if d == "float32" and rnd == "r2" and not long:
                        continue
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
                    out = torch.empty_like(x)
                    variants = [(f"{rnd} api {kern.split(' ')[0]}", api)]
                    for label, kind, kw, minb in variants_all:
                        if not wanted(label, d, op, long):
                            continue
                        tag, mk = make(p, kind, kw, minb, regs)
                        if tag is None:
                            print(f"{str(list(shape)) + ' d' + str(dim):20} {d:9} {op:4} {label}: {mk}", flush=True)
                            continue
                        variants.append((f"{rnd} {label} {tag}", mk(y, g, out)))
                    moved = x.numel() * x.element_size() * (3 if op == "bwd" else 2)
                    for label, fn in variants:
                        bad, ms, copy = measure(fn, out, y, g, dim, op, moved)
                        print(f"{str(list(shape)) + ' d' + str(dim):20} {d:9} {op:4} {label:34} "
                              + columns(bad, ms, copy, moved), flush=True)
                    y = g = None
                x = out = None
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main("long" in sys.argv[1:])
