"""The runs of probe.py (and build.py) and the forms each forces."""
import dataclasses
import sys

from bwlab.workloads.softmax import plans

sys.path.insert(0, "../team-pipe")
from cases import problem  # noqa: E402

SHAPES = [((8192, 8192), 0), ((2, 8192, 8192), 1), ((16384, 8192), 0), ((4096, 8192), 0), ((4096, 16384), 0),
          ((8192, 4096), 0)]
# log-softmax gradients holding only the gradient on chip (colsTeam's LEAN), on the strided backward cases
LONG = [((4, 32768, 1024), 1), ((16, 8192, 1024), 1), ((8192, 8192), 0), ((8, 16384, 1024), 1), ((32768, 4096), 0)]
RUNS = {"lbwd": (SHAPES, "float32", "lbwd"), "terms": (SHAPES, "bfloat16", "fwd"),
        "lean32": (LONG, "float32", "lean"), "lean16": (LONG, "bfloat16", "lean")}


def prob(shape, dim, dtype, op):
    grad = op in ("lbwd", "lean")
    p = problem(shape, dim, dtype, "bwd" if grad else op)
    return dataclasses.replace(p, log=True) if grad else p


def with_terms(c):
    """c (colsTeam on 256-byte strips, no stored terms) with stored terms forced on."""
    if c is None:
        return None
    assert c.expression.endswith(" >") and ",true" not in c.expression, c.expression
    return dataclasses.replace(c, expression=c.expression[:-2] + ",true >")


def forms(p, op):
    """(label, make) for the forced forms of p: make(held) -> the Choice for `held` resident blocks."""
    if op == "lean":  # 96 KiB of strip rows a block, two an SM (the gradients' geometry), or 64 KiB, three
        return [(f"{'lean' if lean else 'team'} W{W}{'x3' if x3 else ''}",
                 lambda h, W=W, lean=lean, x3=x3: plans.cols_team(p, h, W=W, lean=lean, **(
                     dict(budget=64 * 1024, minb=3) if x3 else {})))
                for lean, W, x3 in ((False, 128, 0), (False, 256, 0), (True, 128, 0), (True, 256, 0), (True, 128, 1),
                                    (True, 256, 1))]
    out = [(f"team W{W}", lambda h, W=W: plans.cols_team(p, h, W=W)) for W in (128, 256)]
    if op == "fwd":
        out.append(("team W256E", lambda h: with_terms(plans.cols_team(p, h, W=256))))
    return out
