"""`bwlab run`: the main job. For each workload: the device facts, its whole ladder and its
peers at one case, each kernel checked then timed, written to a folder with a report."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..core.errors import UserError
from ..core.files import output_folder
from .common import (FORCE_HELP, REPS_HELP, SEED_HELP, WARMUP_GPU_HELP, WORKLOADS, bad, command_line, console, err,
                     handled, parse, parse_list, parse_pair, parse_params, print_tables, progress, require_gpu,
                     results_folder, save_incomplete, workloads, written)

WRONG_EXIT = 3  # a kernel or peer gave a wrong result


# What a run writes in each workload's folder.
FILES = ("run.json", "table.txt", "ncu_raw.csv", "report.md", "ladder.png", "roofline.png")


def profile_into(w, run_doc, names, case) -> str:
    """Nsight Compute counters of the named kernels, stored on their records; the raw CSV."""
    from ..lab.profiling import run_ncu
    from ..report.ncu import counters

    with console.status(f"ncu: profiling {len(names)} kernels in a child process"):
        raw = run_ncu(w, names, case)
    for kc in counters(raw, names):
        run_doc.record(kc.name).counters = kc.values
    return raw


@handled
def run(names: Optional[list[str]] = typer.Argument(None, metavar="WORKLOAD",
                                                    help=f"workloads to run: {WORKLOADS} (default: all)"),
        out: Optional[Path] = typer.Option(None, "--out", metavar="DIR",
                                           help="results folder; one subfolder per workload "
                                                "(default: bwlab-results/run-<time>)"),
        shape: Optional[str] = typer.Option(None, "--shape", metavar="SHAPE", help="the case, e.g. 16384x16384 "
                                            "(default: the workload's; needs one workload)"),
        dtype: Optional[str] = typer.Option(None, "--dtype", metavar="DTYPE", help="element type (default: the workload's)"),
        param: Optional[list[str]] = typer.Option(None, "--param", metavar="KEY=VALUE",
                                                  help="a parameter of the case, repeatable, e.g. dim=0 or "
                                                       "log=true for softmax"),
        kernels: Optional[str] = typer.Option(None, "--kernels", metavar="A,B", help="kernels to run (default: all)"),
        peers: Optional[str] = typer.Option(None, "--peers", metavar="A,B", help="peers to run, or 'none' (default: all)"),
        block: Optional[str] = typer.Option(None, "--block", metavar="BXxBY", help="block for kernels that take it, e.g. 32x8"),
        reps: int = typer.Option(100, "--reps", min=1, metavar="N", help=REPS_HELP),
        warmup: int = typer.Option(3, "--warmup", min=0, metavar="N", help=WARMUP_GPU_HELP),
        seed: Optional[int] = typer.Option(None, "--seed", min=0, metavar="N", help=SEED_HELP),
        cpu: bool = typer.Option(True, "--cpu/--no-cpu", help="time the NumPy reference on the CPU too"),
        profile: bool = typer.Option(False, "--profile", help="also collect Nsight Compute counters per kernel"),
        force: bool = typer.Option(False, "--force", help=FORCE_HELP)):
    """The main job: each workload's kernel ladder and peers, checked, timed, written with a report."""
    from ..lab.ladder import run_ladder, select

    chosen = workloads(names)
    specific = shape or dtype or kernels or peers or block or param
    if specific and len(chosen) != 1:
        raise bad("--shape, --dtype, --param, --kernels, --peers and --block need exactly one workload, e.g. "
                  "`bwlab run transpose --shape 8192x8192`")
    params = parse_params(param)
    plans = []
    for w in chosen:  # every value checked before any GPU work
        cases = ([parse("--shape/--dtype/--param", w.parse_case, shape, dtype, **params)]
                 if shape or dtype or params else w.ladder_cases())
        knames = parse_list(kernels)
        pnames = [] if peers == "none" else parse_list(peers)
        parse("--kernels", select, w.kernels(), knames, "kernel")
        parse("--peers", select, w.peers(), pnames, "peer")
        for case in cases:
            plans.append((w, case, knames, pnames, len(cases) > 1))
    blk = parse_pair(block, "--block") if block else None
    require_gpu("bwlab run")
    base = results_folder(out, "run", [], force)  # refused now, before measuring, if files are in the way
    folders = {(w.name, case): output_folder(base / w.name / (case_folder(case) if many else ""), FILES, force)
               for w, case, _, _, many in plans}
    any_wrong = False
    for w, case, knames, pnames, _ in plans:
        total = len(select(w.kernels(), knames, "kernel")) + len(w.peers()) + 8
        bar, log = progress(total, f"{w.name} ladder")
        with bar:
            run_doc = run_ladder(w, case, knames, pnames, blk, warmup, reps, seed, cpu, log=log,
                                 command=command_line())
        folder = folders[w.name, case]
        if not run_doc.complete:
            save_incomplete(run_doc, folder / "run.json")
        raw = None
        if profile:
            ladder = {k.name for k in w.kernels()}  # the workload's kernels (the core copies are not profiled)
            good = [r.name for r in run_doc.records if r.kind == "kernel" and r.correct and r.name in ladder]
            try:
                raw = profile_into(w, run_doc, good, case)
            except UserError as exc:
                err.print(f"bwlab: counters not collected: {exc}", markup=False)
        any_wrong |= _write(run_doc, folder, raw)
    if any_wrong:
        raise typer.Exit(WRONG_EXIT)


def case_folder(case) -> str:
    """A folder name for one of several ladder cases: '16x8192x1024-float32-dim1'."""
    extra = "".join(f"-{k}{v}" for k, v in case.params)
    return f"{'x'.join(map(str, case.shape))}-{case.dtype}{extra}".replace("=", "")


def _write(run_doc, folder: Path, raw: Optional[str]) -> bool:
    from ..core.files import write_text_atomic
    from ..core.results import save
    from ..report.document import write_markdown
    from ..report.tables import tables_for
    from ..report.text import to_text

    save(run_doc, folder / "run.json")
    if raw:
        write_text_atomic(folder / "ncu_raw.csv", raw)
    tables = tables_for(run_doc)
    write_text_atomic(folder / "table.txt", to_text(tables))
    print_tables(tables)
    md = write_markdown(run_doc, folder)
    written(folder / "run.json", folder / "table.txt", md, "and its charts")
    wrong = [r.name for r in run_doc.records if r.correct is False]
    if wrong:
        err.print(f"bwlab: wrong results (not timed): {', '.join(wrong)}", markup=False)
    return bool(wrong)
