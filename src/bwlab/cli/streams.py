"""`bwlab streams`: what CUDA streams let run at once, measured on the GPU and drawn as timelines."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..core.errors import UserError
from .common import (FORCE_HELP, bad, command_line, console, err, handled, parse_list, print_tables, require_gpu,
                     results_folder, written)

WRONG_EXIT = 3        # the pipeline's output differed from the reference
UNMEASURED_EXIT = 1   # a scenario could not be measured (its row says why)
MAX_STREAMS = 64


def _names(text: Optional[str]) -> list[str]:
    from ..lab.streams import NAMES

    names = parse_list(text) or list(NAMES)
    unknown = [n for n in names if n not in NAMES]
    if unknown:
        raise bad(f"--scenarios: {', '.join(unknown)} not among {', '.join(NAMES)}")
    return list(dict.fromkeys(names))


def _counts(text: str) -> list[int]:
    try:
        counts = [int(v) for v in parse_list(text) or []]
    except ValueError:
        raise bad(f"--streams must be stream counts like 1,2,4,8, got {text!r}") from None
    if not counts or any(c < 1 or c > MAX_STREAMS for c in counts):
        raise bad(f"--streams: each count must be 1 to {MAX_STREAMS}, got {text!r}")
    return sorted(set(counts))


def files_for(names) -> list[str]:
    return (["streams.json", "table.txt", "report.md"] + [f"gantt-{n}.png" for n in names]
            + (["pipeline.png"] if "pipeline" in names else []))


def _write(doc: dict, folder: Path) -> None:
    from ..core.files import write_text_atomic
    from ..lab.streams import save
    from ..report.text import to_text
    from ..report.timeline import streams_tables, write_streams

    save(doc, folder / "streams.json")
    tables = streams_tables(doc)
    write_text_atomic(folder / "table.txt", to_text(tables))
    print_tables(tables)
    paths = write_streams(doc, folder)
    written(folder / "streams.json", folder / "table.txt", *paths)


@handled
def streams(scenarios: Optional[str] = typer.Option(None, "--scenarios", metavar="A,B",
                                                    help="scenarios to run (default: all); --list names them"),
            out: Optional[Path] = typer.Option(None, "--out", metavar="DIR",
                                               help="results folder (default: bwlab-results/streams-<time>)"),
            kernel_ms: float = typer.Option(2.0, "--kernel-ms", min=0.01, max=1000.0, metavar="MS",
                                            help="how long each spin kernel runs"),
            pipeline_mib: int = typer.Option(256, "--pipeline-mib", min=1, max=16384, metavar="MIB",
                                             help="bytes the pipeline copies in (and as many out)"),
            chunks: int = typer.Option(16, "--chunks", min=1, max=4096, metavar="N", help="chunks of the pipeline"),
            stream_counts: str = typer.Option("1,2,4,8", "--streams", metavar="N1,N2",
                                              help="stream counts the pipeline runs on"),
            reps: int = typer.Option(3, "--reps", min=1, max=1000, metavar="N",
                                     help="passes of each pipeline case (the median is kept)"),
            compute_ratio: float = typer.Option(1.5, "--compute-ratio", min=0.01, max=100.0, metavar="R",
                                                help="the pipeline's compute time per chunk over its copy-in time "
                                                     "(at 1 or below, copies in and out share the link and bound it)"),
            render: Optional[Path] = typer.Option(None, "--render", metavar="STREAMS.json",
                                                  help="draw a saved streams.json again into --out (default: "
                                                  "<name>-render/ beside it; no GPU)"),
            list_only: bool = typer.Option(False, "--list", help="list the scenarios and their claims, then exit"),
            force: bool = typer.Option(False, "--force", help=FORCE_HELP)):
    """Stream scenarios (null stream, non-blocking streams, per-thread default stream, events, hardware
    queues, a copy-compute-copy pipeline) timed by the kernels themselves (%globaltimer, %smid):
    a Gantt chart and a verdict with numbers per scenario.

    Cases that depend on CUDA_DEVICE_MAX_CONNECTIONS or CUPY_CUDA_PER_THREAD_DEFAULT_STREAM run in
    child processes with the variable set. Exit codes: 0 measured, 1 a scenario could not be
    measured, 2 a wrong value, 3 the pipeline's output was wrong.
    """
    names = _names(scenarios)
    counts = _counts(stream_counts)
    if list_only:
        _list()
        return
    if render is not None:
        _render(render, out, force)
        return
    require_gpu("bwlab streams")
    from ..lab import streams as lab

    folder = results_folder(out, "streams", files_for(names), force)
    latest: list = []

    def keep(doc):
        latest[:] = [doc]
        lab.save(doc, folder / "streams.json")

    try:
        with console.status("streams") as status:
            doc = lab.measure(names, command=command_line(), log=lambda m: status.update(f"streams: {m}"),
                              on_scenario=keep, kernel_us=kernel_ms * 1e3, pipeline_mib=pipeline_mib, chunks=chunks,
                              stream_counts=counts, reps=reps, compute_ratio=compute_ratio)
    except KeyboardInterrupt:
        if latest:
            _write(latest[0], folder)
            err.print(f"interrupted: {len(latest[0]['scenarios'])} scenarios kept in {folder} (marked incomplete)",
                      markup=False)
        raise typer.Exit(130)
    _write(doc, folder)
    wrong, missing = lab.wrong(doc), lab.unmeasured(doc)
    for line in missing:
        err.print(f"bwlab: not measured: {line}", markup=False, highlight=False, soft_wrap=True)
    if wrong:
        err.print(f"bwlab: wrong pipeline output: {', '.join(wrong)}", markup=False)
        raise typer.Exit(WRONG_EXIT)
    if missing:
        raise typer.Exit(UNMEASURED_EXIT)


def _list() -> None:
    from ..core.table import Column, TableData
    from ..workloads.streams import SCENARIOS

    t = TableData("bwlab streams: scenarios", [Column("scenario", "left"), Column("process", "left"),
                                               Column("claim tested", "left", True)])
    for s in SCENARIOS:
        t.add(s.name, "child" if s.child else "this", s.claim)
    print_tables([t])


def _render(path: Path, out: Optional[Path], force: bool) -> None:
    from ..lab.streams import load

    try:
        doc = load(path)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    folder = results_folder(out or path.parent / f"{path.stem}-render", "streams",
                            files_for([s["name"] for s in doc["scenarios"]]), force)
    _write(doc, folder)
