"""The runs of probe.py (and build.py) and the forms each forces."""
import dataclasses
import sys

from bwlab.workloads.softmax import plans

sys.path.insert(0, "../team-pipe")
from cases import problem  # noqa: E402

SHAPES = [((8192, 8192), 0), ((2, 8192, 8192), 1), ((16384, 8192), 0), ((4096, 8192), 0), ((4096, 16384), 0),
          ((8192, 4096), 0)]
RUNS = {"lbwd": (SHAPES, "float32", "lbwd"), "terms": (SHAPES, "bfloat16", "fwd")}


def prob(shape, dim, dtype, op):
    p = problem(shape, dim, dtype, "bwd" if op == "lbwd" else op)
    return dataclasses.replace(p, log=True) if op == "lbwd" else p


def with_terms(c):
    """c (colsTeam on 256-byte strips, no stored terms) with stored terms forced on."""
    if c is None:
        return None
    assert c.expression.endswith(" >") and ",true" not in c.expression, c.expression
    return dataclasses.replace(c, expression=c.expression[:-2] + ",true >")


def forms(p, op):
    """(label, make) for the forced forms of p: make(held) -> the Choice for `held` resident blocks."""
    out = [(f"team W{W}", lambda h, W=W: plans.cols_team(p, h, W=W)) for W in (128, 256)]
    if op == "fwd":
        out.append(("team W256E", lambda h: with_terms(plans.cols_team(p, h, W=256))))
    return out
