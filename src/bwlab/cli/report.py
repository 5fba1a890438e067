"""`bwlab report` and `bwlab roofline`: render any saved results file, without a GPU."""
from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from ..core.errors import UserError
from ..core.files import output_file, output_folder, write_bytes_atomic
from .common import handled, print_tables, written


class Format(str, Enum):
    md = "md"
    html = "html"
    csv = "csv"


def _load(path: Path):
    from ..core.results import load

    try:
        return load(path)
    except ValueError as exc:
        raise UserError(str(exc)) from None


@handled
def report(results: Path = typer.Argument(..., metavar="RESULTS.json", help="a saved bwlab results file "
                                          "(run, bench, sweep, profile, transfers, streams or claims)"),
           fmt: Format = typer.Option(Format.md, "--format", case_sensitive=False,
                                      help="md: Markdown with PNG charts beside it; html: one self-contained file; "
                                           "csv: one row per record"),
           out: Optional[Path] = typer.Option(None, "--out", metavar="PATH", help="folder (md) or file (html, csv); default: "
                                              "beside the JSON, as <name>-report/, <name>.html or <name>.csv"),
           force: bool = typer.Option(False, "--force", help="replace files of the same names")):
    """Render a saved results file as Markdown and charts, one HTML page, or CSV."""
    from ..report import document, timeline

    try:
        run_doc = timeline.load_document(results)  # nothing is written for a file that cannot be read
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if not isinstance(run_doc, dict) and run_doc.procedure == "claims":
        from ..lab.claims import ledger
        try:
            ledger(run_doc)  # a malformed ledger is refused before anything is written
        except ValueError as exc:
            raise UserError(f"{results}: {exc}") from None
    r = timeline if timeline.renders(run_doc) else document  # streams and transfers draw their own
    if fmt == Format.md:
        folder = output_folder(out or results.with_name(f"{results.stem}-report"), r.output_names(run_doc), force)
        target = r.write_markdown(run_doc, folder)
    elif fmt == Format.html:
        target = r.write_html(run_doc, output_file(out or results.with_suffix(".html"), f"{results.stem}.html", force))
    else:
        target = r.write_csv(run_doc, output_file(out or results.with_suffix(".csv"), f"{results.stem}.csv", force))
    written(target)


@handled
def roofline(results: list[Path] = typer.Argument(..., metavar="RESULTS.json", help="one or more run.json "
                                                  "(bwlab run) or profile.json (bwlab profile) from one GPU: "
                                                  "several share one chart"),
             png: Optional[Path] = typer.Option(None, "--png", metavar="FILE", help="where to write the chart "
                                                "(default: <name>-roofline.png beside the first JSON)"),
             force: bool = typer.Option(False, "--force", help="replace FILE if it exists")):
    """Attained bandwidth and FLOP/s against the theoretical and measured roofs; a diagnosis per kernel."""
    from ..report import roofline as rl
    from ..report.tables import roofline_table

    docs = [_load(r) for r in results]
    for path, run_doc in zip(results, docs):
        if run_doc.procedure not in ("ladder", "profile"):
            raise UserError(f"{path} is a {run_doc.procedure} document; the roofline reads a ladder run "
                            "(bwlab run) or a profile (bwlab profile)")
    try:
        _, points = rl.combine(docs)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    first = results[0]
    target = output_file(png or first.with_name(f"{first.stem}-roofline.png"), "roofline.png", force, "--png")
    print_tables([roofline_table(points)])
    write_bytes_atomic(target, rl.plot(docs))
    written(target)

