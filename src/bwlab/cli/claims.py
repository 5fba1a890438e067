"""`bwlab claims`: the claims ledger. Rules of thumb from classic CUDA teaching notes, each tested by
a small experiment on this GPU (kernels checked, then timed) and given a verdict with its numbers."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .common import (FORCE_HELP, SEED_HELP, WARMUP_GPU_HELP, bad, command_line, err, handled, parse_list, print_tables,
                     progress, require_gpu, results_folder, save_incomplete, written, UserError)

WRONG_EXIT = 3        # a kernel of some experiment gave a wrong result
UNMEASURED_EXIT = 1   # an experiment failed (its entry says why)
JSON, TABLE = "claims.json", "table.txt"


def _chosen(text: Optional[str]):
    from ..workloads.claims import select

    try:
        return select(parse_list(text))
    except ValueError as exc:
        raise bad(f"--only: {exc}") from None


def files_for(claims) -> list[str]:
    """Every file a run of these claims may write (checked before anything runs)."""
    from ..report.document import MD_FILE

    names = [JSON, TABLE, MD_FILE]
    for c in claims:
        names += [f"claim-{c.id}.png"] + [f"claim-{c.id}-{i + 1}.png" for i in range(len(c.charts))]
    return names


@handled
def claims(only: Optional[str] = typer.Option(None, "--only", metavar="A,B",
                                              help="claims to run, by name (default: all); --list names them"),
           list_only: bool = typer.Option(False, "--list", help="list every claim, its topic and whether it is "
                                                                "measured, then exit (no GPU needed)"),
           out: Optional[Path] = typer.Option(None, "--out", metavar="DIR",
                                              help="results folder (default: bwlab-results/claims-<time>)"),
           reps: int = typer.Option(30, "--reps", min=1, max=10000, metavar="N",
                                    help="timed repetitions per kernel (the median is kept)"),
           warmup: int = typer.Option(3, "--warmup", min=0, max=1000, metavar="N", help=WARMUP_GPU_HELP),
           seed: Optional[int] = typer.Option(None, "--seed", min=0, metavar="N", help=SEED_HELP),
           force: bool = typer.Option(False, "--force", help=FORCE_HELP),
           compare: Optional[list[Path]] = typer.Option(None, "--compare", metavar="CLAIMS.json",
                                                        help="compare saved ledgers, from two GPUs say: give it "
                                                             "once per file (two or more); no GPU needed")):
    """Test rules of thumb from classic CUDA teaching notes on this GPU: each claim's experiment checks
    its kernels' results, times them, and gives a verdict (holds, does not hold, depends, and on what)
    with the numbers behind it. Claims without an experiment yet are listed as not measured yet.

    Writes claims.json, table.txt, report.md and a bar chart per measured claim; `bwlab report
    claims.json --format html` renders the ledger again; `--compare A/claims.json --compare
    B/claims.json` prints two saved ledgers' verdicts side by side and where they differ.
    Exit codes: 0 measured, 1 an experiment failed, 2 a wrong value, 3 a kernel gave a wrong
    result.
    """
    chosen = _chosen(only)
    if compare:
        _compare(compare, {c.id for c in chosen} if only else None)
        return
    if list_only:
        _list(chosen)
        return
    require_gpu("bwlab claims")
    from ..lab import claims as lab

    measured = [c for c in chosen if c.measured]
    folder = results_folder(out, "claims", files_for(chosen), force)
    bar, log = progress(len(measured) + 1, "claims")
    with bar:
        run_doc = lab.measure(chosen, reps=reps, warmup=warmup, seed=seed, log=log, command=command_line())
    if not run_doc.complete:  # Ctrl-C: what was measured is kept, marked incomplete
        _write(run_doc, folder)
        save_incomplete(run_doc, folder / JSON)
    _write(run_doc, folder)
    wrong, missing = lab.wrong(run_doc), lab.unmeasured(run_doc)
    for line in missing:
        err.print(f"bwlab: not measured: {line}", markup=False, highlight=False, soft_wrap=True)
    if wrong:
        raise typer.Exit(WRONG_EXIT)
    if missing:
        raise typer.Exit(UNMEASURED_EXIT)


def _write(run_doc, folder: Path) -> None:
    from ..core.files import write_text_atomic
    from ..core.results import save
    from ..report import ledger
    from ..report.document import write_markdown
    from ..report.text import to_text

    save(run_doc, folder / JSON)
    tables = ledger.tables(run_doc)
    write_text_atomic(folder / TABLE, to_text(tables))
    md = write_markdown(run_doc, folder)
    print_tables(tables[1:2])
    written(folder / JSON, folder / TABLE, md)


def _compare(paths: list[Path], only) -> None:
    from ..core.results import load
    from ..lab.claims import ledger
    from ..report.ledger import compare_table

    if len(paths) < 2:
        raise bad("--compare: give two ledgers or more (--compare A.json --compare B.json)")
    runs = []
    for p in paths:
        try:
            run = load(p)  # its errors name the file
        except ValueError as exc:
            raise UserError(f"--compare: {exc}") from None  # exit 1, as every command that reads a file
        try:
            ledger(run)
        except ValueError as exc:
            raise UserError(f"--compare: {p}: {exc}") from None
        runs.append(run)
    labels = [r.device.get("name") or str(p) for r, p in zip(runs, paths)]
    if len(set(labels)) < len(labels):  # the same GPU twice: tell the files apart
        labels = [f"{lab} ({p})" for lab, p in zip(labels, paths)]
    print_tables([compare_table(runs, labels, only)])


def _list(chosen) -> None:
    from ..core.table import Column, TableData

    t = TableData("bwlab claims", [Column("claim", "left"), Column("status", "left"),
                                   Column("the claim (where it comes from)", "left", True)],
                  caption="measured: `bwlab claims` runs its experiment on this GPU and gives a verdict")
    for c in chosen:
        why = "" if c.measured or not c.why_not else f"; not measured yet because {c.why_not}"
        t.add(c.id, "measured" if c.measured else "not measured yet", f"{c.text} (from the {c.topic}){why}")
    print_tables([t])
