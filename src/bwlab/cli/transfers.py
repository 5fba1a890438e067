"""`bwlab transfers`: host-device, device-device and GPU-GPU copies, bandwidth and latency by size."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..core.errors import UserError
from .common import (FORCE_HELP, WARMUP_HELP, bad, command_line, console, err, handled, parse, print_tables,
                     require_gpu, results_folder, written)

FILES = ("transfers.json", "table.txt", "report.md", "transfers.png")
WRONG_EXIT = 3
LARGEST = 4 << 30  # host buffers are 4 x the largest size (pinned and pageable), plus torch's


def _write(run_doc, folder: Path) -> None:
    from ..core.files import write_text_atomic
    from ..core.results import save
    from ..report.text import to_text
    from ..report.timeline import transfers_tables, write_transfers

    save(run_doc, folder / "transfers.json")
    tables = transfers_tables(run_doc)
    write_text_atomic(folder / "table.txt", to_text(tables))
    print_tables(tables)
    written(folder / "transfers.json", folder / "table.txt", *write_transfers(run_doc, folder))


@handled
def transfers(out: Optional[Path] = typer.Option(None, "--out", metavar="DIR",
                                                 help="results folder (default: bwlab-results/transfers-<time>)"),
              max_size: str = typer.Option("1G", "--max-size", metavar="SIZE",
                                           help="largest transfer, e.g. 16M or 1GiB (sizes: the smallest x 4, x 16, "
                                                "... up to it)"),
              min_size: str = typer.Option("4K", "--min-size", metavar="SIZE", help="smallest transfer"),
              reps: int = typer.Option(50, "--reps", min=1, max=10000, metavar="N",
                                       help="timed transfers per size up to 64 MiB (fewer above: at least 10, or N "
                                            "when smaller)"),
              warmup: int = typer.Option(2, "--warmup", min=0, max=1000, metavar="N", help=WARMUP_HELP),
              peers: bool = typer.Option(True, "--peers/--no-peers", help="also time torch's copies in the same run"),
              render: Optional[Path] = typer.Option(None, "--render", metavar="TRANSFERS.json",
                                                    help="draw a saved transfers.json again into --out (default: "
                                                    "<name>-render/ beside it; no GPU)"),
              force: bool = typer.Option(False, "--force", help=FORCE_HELP)):
    """Host to device, device to host, both at once (two streams), from pinned and pageable memory;
    device to device; GPU to GPU where there are two. Bandwidth and latency against size, with
    torch's copies of the same kinds measured in the same run (goal: pinned within 5% of torch).

    Exit codes: 0 measured, 1 no GPU or a file in the way, 2 a wrong value, 3 a copy delivered
    wrong bytes.
    """
    from ..lab.transfers import parse_size, sizes

    if render is not None:
        _render(render, out, force)
        return
    hi, lo = parse("--max-size", parse_size, max_size), parse("--min-size", parse_size, min_size)
    if hi > LARGEST:
        raise bad(f"--max-size: at most 4G, got {max_size}")
    size_list = parse("--min-size/--max-size", sizes, hi, lo)
    require_gpu("bwlab transfers")
    from ..core.results import save
    from ..lab.transfers import run_transfers

    folder = results_folder(out, "transfers", FILES, force)
    latest: list = []

    def keep(run_doc):
        latest[:] = [run_doc]
        save(run_doc, folder / "transfers.json")

    try:
        with console.status("transfers") as status:
            run_doc = run_transfers(size_list, reps, warmup, peers, log=lambda m: status.update(f"transfers: {m}"),
                                    command=command_line(), on_record=keep)
    except KeyboardInterrupt:
        if latest:
            _write(latest[0], folder)
            err.print(f"interrupted: {len(latest[0].records)} records kept in {folder} (marked incomplete)",
                      markup=False)
        raise typer.Exit(130)
    _write(run_doc, folder)
    wrong = [f"{r.name} {r.family} {r.shape[0]} B" for r in run_doc.records if r.correct is False]
    if wrong:
        err.print(f"bwlab: wrong bytes after: {', '.join(wrong)}", markup=False)
        raise typer.Exit(WRONG_EXIT)


def _render(path: Path, out: Optional[Path], force: bool) -> None:
    from ..core.results import load

    try:
        run_doc = load(path)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if run_doc.procedure != "transfers":
        raise UserError(f"{path} is a {run_doc.procedure} document, not one of bwlab transfers")
    _write(run_doc, results_folder(out or path.parent / f"{path.stem}-render", "transfers", FILES, force))
