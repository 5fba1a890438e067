"""float32 log-softmax gradients on lean teams (y read at the write, Share::LEAN_U rows in flight) against
the teams that hold both, where the plans hold both (fewer than TEAM_LEAN_ROWS32 rows) and beyond: the
dispatch ("api"), colsTeam forced on 128- and 256-byte strips, lean and not, 96 KiB of strip rows a block,
two an SM. ../width-more/probe.py's run (every output poisoned and checked against float64 in round 1,
timed beside a copy of the same bytes, two rounds), its kernels compiled first (registers and spills
printed): `PYTHONPATH=../../../../src python3 rows.py` (from this folder)."""
import importlib.util
import sys

from bwlab.core import build
from bwlab.workloads.softmax import plans

sys.path[:0] = ["../meet-tree", "../team-pipe", "../width-more"]
import geometry  # noqa: E402

ROWS = [((2048, 32768), 0), ((32, 4096, 1024), 1), ((4096, 8192), 0), ((4096, 16384), 0), ((8192, 4096), 0),
        ((2, 8192, 8192), 1), ((8192, 8192), 0), ((16, 8192, 1024), 1), ((16384, 8192), 0), ((8, 16384, 1024), 1)]


def forms(p, op):
    """width-more's lean forms, two blocks an SM only"""
    return [(label, make) for label, make in geometry.forms(p, op) if not label.endswith("x3")]


def main():
    geometry.RUNS["rows32"] = (ROWS, "float32", "lean")
    spec = importlib.util.spec_from_file_location("width_more_probe", "../width-more/probe.py")
    width_more = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(width_more)
    width_more.forms = forms
    ex = sorted({c.expression for s, dim in ROWS for _, make in forms(geometry.prob(s, dim, "float32", "lean"), "lean")
                 if (c := make(0)) is not None})
    b = build.compile_each(plans.SRC["colscluster"], ex, "sm_90", jobs=16)
    for e in ex:
        print(f"# {b.resources[e].registers:4} regs {b.resources[e].spill_stores:3} spill {e}", flush=True)
    width_more.main("rows32")


if __name__ == "__main__":
    main()
