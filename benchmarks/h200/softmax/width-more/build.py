"""Build every kernel probe.py forces, 16 at once, before it runs (so that no timing waits on the
compiler), and print their registers and spills: `PYTHONPATH=../../../../src python3 build.py` (from this folder)."""
from bwlab.core import build
from bwlab.workloads.softmax import plans

from geometry import RUNS, forms, prob


def compile_all(jobs=16):
    """Every forced form's kernel, compiled at once before any timing (registers and spills printed)."""
    ex = sorted({c.expression for shapes, d, op in RUNS.values() for shape, dim in shapes
                 for _, make in forms(prob(shape, dim, d, op), op) if (c := make(0)) is not None})
    b = build.compile_each(plans.SRC["colscluster"], ex, "sm_90", jobs=jobs)
    for e in ex:
        r = b.resources[e]
        print(f"{r.registers:4} regs {r.spill_stores:3} spill {e}")


if __name__ == "__main__":
    compile_all()
