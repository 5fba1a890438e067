"""`bwlab profile WORKLOAD`: Nsight Compute counters of the workload's kernels."""
from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Optional

import typer

from .common import (FORCE_HELP, WORKLOADS, command_line, handled, parse, parse_list, print_tables, require_gpu,
                     results_folder, workload, written)

FILES = ("profile.json", "profile.txt", "ncu_raw.csv")


@handled
def profile(name: str = typer.Argument(..., metavar="WORKLOAD",
                                       help=f"the workload whose kernels are profiled: {WORKLOADS}"),
            kernels: Optional[str] = typer.Option(None, "--kernels", metavar="A,B", help="kernels (default: the whole ladder)"),
            shape: Optional[str] = typer.Option(None, "--shape", metavar="SHAPE", help="the case (default: the size sweep's "
                                                "8192x8192, above L2, so DRAM counters mean DRAM)"),
            dtype: Optional[str] = typer.Option(None, "--dtype", metavar="DTYPE", help="element type (default: the workload's)"),
            out: Optional[Path] = typer.Option(None, "--out", metavar="DIR", help="results folder "
                                               "(default: bwlab-results/profile-<workload>-<time>)"),
            force: bool = typer.Option(False, "--force", help=FORCE_HELP)):
    """Nsight Compute counters per kernel: sectors per request, efficiency, bank conflicts, DRAM, occupancy."""
    from ..lab.ladder import select

    w = workload(name)
    case = parse("--shape/--dtype", w.parse_case, shape, dtype) if shape else \
        w.size_case(8192, dtype or w.dtypes[0])
    names = [k.name for k in parse("--kernels", select, w.kernels(), parse_list(kernels), "kernel")]
    require_gpu("bwlab profile")
    from ..core.device import environment, query
    from ..core.files import write_text_atomic
    from ..core.results import Run, save
    from ..lab.common import record
    from ..lab.profiling import run_ncu
    from ..report.ncu import counters
    from ..report.tables import counters_table
    from ..report.text import to_text

    folder = results_folder(out, f"profile-{w.name}", FILES, force)
    raw = run_ncu(w, names, case)
    spec = query()
    run_doc = Run(device=spec.to_dict(), environment=environment(spec.index), command=command_line(),
                  created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                  config={"procedure": "profile", "workload": w.name, "shape": list(case.shape), "dtype": case.dtype,
                          "ncu": "--clock-control none --csv --page raw"})
    for kc in counters(raw, names):
        k = w.kernel(kc.name)
        t = kc.values.get("duration_ns", 0) / 1e6
        rec = record(w, case, kc.name, "kernel", k.family, k.role, counters=kc.values, origin=kc.kernel,
                     correct=True, check="checked at the awkward cases before profiling",
                     notes=["time: one launch under ncu"])
        if t:
            rec.timing = {"median_ms": t, "mean_ms": t, "std_ms": 0.0, "min_ms": t, "reps": 1}
            rec.gbs = rec.bytes / (t * 1e-3) / 1e9
        run_doc.records.append(rec)
    run_doc.ceilings = {"peak_gbs": spec.peak_bandwidth_gbs}
    save(run_doc, folder / "profile.json")
    write_text_atomic(folder / "ncu_raw.csv", raw)
    table = counters_table(run_doc)
    write_text_atomic(folder / "profile.txt", to_text([table]))
    print_tables([table])
    written(folder / "profile.json", folder / "profile.txt", folder / "ncu_raw.csv")
