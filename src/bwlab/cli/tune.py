"""`bwlab tune WORKLOAD`: time the tunable configurations on this GPU and store its plan."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..core.files import output_file
from .common import WARMUP_GPU_HELP, WORKLOADS, console, handled, print_tables, require_gpu, workload


@handled
def tune(name: str = typer.Argument(..., metavar="WORKLOAD", help=f"the workload to tune: {WORKLOADS}"),
         reps: int = typer.Option(30, "--reps", min=1, metavar="N", help="timed repetitions per candidate"),
         warmup: int = typer.Option(3, "--warmup", min=0, metavar="N", help=WARMUP_GPU_HELP),
         out: Optional[Path] = typer.Option(None, "--out", metavar="FILE", help="also copy the plan here"),
         force: bool = typer.Option(False, "--force", help="replace FILE if it exists")):
    """Time every candidate configuration per key on this GPU; the public API uses the winners."""
    w = workload(name)
    copy = output_file(out, "plan.json", force) if out else None
    require_gpu("bwlab tune")
    from ..core.device import query
    from ..lab.tune import run_tune
    from ..report.tables import tune_table

    gpu = query().name
    with console.status("tuning") as status:
        best, ms = run_tune(w, reps, warmup, log=lambda m: status.update(m))
    print_tables([tune_table(best, ms)])
    path = w.save_plan(gpu, best, ms)
    if copy:
        w.save_plan(gpu, best, ms, str(copy))
    console.print(f"plan for {gpu} written to {path}; bwlab.{w.name} uses it from now on "
                  "(set BWLAB_PLANS to keep plans elsewhere)", markup=False)
    if any(m.get("correct") is False for m in ms):
        raise typer.Exit(3)
