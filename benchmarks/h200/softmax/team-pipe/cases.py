"""The cases and plans of the colsTeamPipe probe (pipe.py): each strided case that runs colsTeam, or
that might, with the geometries tried for colsTeamPipe (two strips a block in flight)."""
from bwlab.workloads.softmax import plans

SHAPES = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((8, 16384, 1024), 1), ((4, 32768, 1024), 1)]
DTYPES = ("float32", "bfloat16")
OPS = ("fwd", "log", "bwd")
# (label, cols_team keywords): the block's bytes of strip rows over both halves, blocks an SM
PIPES = {
    "fwd": [("P64x3", dict(budget=64 * 1024, minb=3)), ("P96x2", dict(budget=96 * 1024, minb=2))],
    "bwd": [("P96x2", dict(budget=96 * 1024, minb=2)), ("P192x1", dict(budget=192 * 1024, minb=1))],
}


def problem(shape, dim, dtype, op):
    N = 1
    for n in shape[:dim]:
        N *= n
    M = 1
    for m in shape[dim + 1:]:
        M *= m
    return plans.Problem(N, shape[dim], M, dtype, "backward" if op == "bwd" else "forward", op == "log")


def pipe_plans(p, op, held=0):
    """(label, Choice) for each colsTeamPipe geometry of p (held: the GPU's resident blocks, 0 unknown)."""
    out = []
    for label, kw in PIPES["bwd" if op == "bwd" else "fwd"]:
        c = plans.cols_team(p, held, pipe=True, **kw)
        if c is not None:
            out.append((label, c))
    return out


def expressions():
    return sorted({c.expression for s, d in SHAPES for t in DTYPES for op in OPS
                   for _, c in pipe_plans(problem(s, d, t, op), op)})


if __name__ == "__main__":
    import sys
    from bwlab.core import build
    ex = expressions()
    b = build.compile_each(plans.SRC["colscluster"], ex, "sm_90", jobs=int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    for e, r in sorted(b.resources.items()):
        print(f"{r.registers:4} regs {r.spill_stores:4} spill {e}")
