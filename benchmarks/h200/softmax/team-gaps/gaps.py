"""The team kernels' untimed corners, each case through the public API (the dispatch's kernel) beside
the kernel the dispatch would take without teams (calls.plan_for(..., teams=False)) and, for `G`,
colsTeam forced with fewer teams, every output poisoned and checked against float64 in the first
round, timed beside a copy of the same bytes (../meet-tree/probe.py's measure), two rounds:
`PYTHONPATH=../../../../src python3 gaps.py [f16] [rows] [G]` (from this folder; none: all three).
  f16:  float16 on every strided case the dispatch gives colsTeam (float16 runs the bfloat16 kernels'
        code with another conversion, and had not been timed on them).
  rows: 16-bit gradients down 24576 rows (the dispatch interpolates teams between 8192 and 32768).
  G:    colsTeam with 16 to 24 teams where the strips do not divide evenly among them."""
import sys

import torch

import bwlab
from bwlab.workloads.softmax import calls, plans

sys.path.insert(0, "../team-pipe")
from cases import problem  # noqa: E402
from pipe import columns, forced, held_plan, measure  # noqa: E402

DT = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
TEAM_SHAPES = [((4, 32768, 1024), 1), ((8, 16384, 1024), 1), ((32768, 4096), 0), ((16, 8192, 1024), 1),
               ((8192, 8192), 0)]
F16 = [(s, d, "float16", op) for s, d in TEAM_SHAPES for op in ("fwd", "log", "bwd")]
ROWS = [((6, 24576, 1024), 1, t, "bwd") for t in ("bfloat16", "float16")] + [((24576, 4096), 0, "bfloat16", "bwd")]
GS = [(s, d, t, op) for s, d in [((8192, 8192), 0), ((16, 8192, 1024), 1)] for t in ("float32", "bfloat16")
      for op in ("fwd", "bwd")]


def forms(p, which):
    """(label, Choice) besides the API: the dispatch's kernel without teams; for G, teams 16-24."""
    out = []
    if which in ("f16", "rows"):
        alt = calls.plan_for(p, 0, teams=False).choice
        out.append((f"noteam {alt.kernel}", alt))
    if which == "G":
        for g in (16, 19, 22):  # (past the GPU's resident blocks: skipped)
            T = plans.cols_team(p).chunks
            c = held_plan(lambda h: plans.cols_team(p, h, G=g) if h == 0 or g * T <= h else None)
            if c is not None:
                out.append((f"team T{c.chunks} G{g}", c))
    return out


def main(which):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    cases = [(c, w) for w, cs in (("f16", F16), ("rows", ROWS), ("G", GS)) if w in which for c in cs]
    for rnd in (1, 2):
        for (shape, dim, d, op), w in cases:
            p = problem(shape, dim, d, op)
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            if op == "bwd":
                y = torch.softmax(x.float(), dim).to(DT[d])
                g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                api = lambda: bwlab.softmax_backward(y, g, dim, out=out)  # noqa: E731
                kern = bwlab.explain_softmax(y, dim, backward=True)
            else:
                y, g = x, None
                api = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
                kern = bwlab.explain_softmax(x, dim, log=op == "log")
            moved = x.numel() * x.element_size() * (3 if op == "bwd" else 2)
            name = kern.split(" ")[0]
            if name == "colsTeam":
                team = calls.plan_for(p, 0).choice
                name += f" T{team.chunks} G{team.extra[0]}"
            runs = [(f"api {name}", api)] + [(lab, forced(c, p, y, g, out)) for lab, c in forms(p, w)]
            for label, fn in runs:
                bad, ms, copy = measure(fn, out, y, g, dim, op, moved, rnd == 1)
                print(f"r{rnd} {w:4} {str(list(shape)):18} {d:9} {op} {label:26} " + columns(bad, ms, copy, moved),
                      flush=True)
            x = y = g = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main([w for w in ("f16", "rows", "G") if w in sys.argv[1:]] or ["f16", "rows", "G"])
