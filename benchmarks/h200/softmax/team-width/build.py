"""Build every colsTeam kernel width.py forces, 16 at once, before it runs (so that no timing waits on
the compiler): `PYTHONPATH=../../../../src python3 build.py RUN[,RUN...] [JOBS]` (from this folder)."""
import sys

from bwlab.core import build
from bwlab.workloads.softmax import plans

sys.path.insert(0, "../team-pipe")
from cases import problem  # noqa: E402
from geometry import expressions  # noqa: E402

if __name__ == "__main__":
    ex = sorted({e for run in sys.argv[1].split(",") for e in expressions(run, problem, plans.cols_team)})
    b = build.compile_each(plans.SRC["colscluster"], ex, "sm_90", jobs=int(sys.argv[2]) if len(sys.argv) > 2 else 16)
    for e in ex:
        r = b.resources[e]
        print(f"{r.registers:4} regs {r.spill_stores:3} spill {e}")
