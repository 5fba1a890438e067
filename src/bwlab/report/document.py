"""A saved run rendered as a document, without a GPU: Markdown (charts as PNG files beside
it), one self-contained HTML file (charts embedded), or CSV (one row per record)."""
from __future__ import annotations

import base64
import csv
import html
import io
import re
from pathlib import Path

from ..core.files import write_bytes_atomic, write_text_atomic
from ..core.results import Run
from ..core.table import TableData
from . import charts
from .tables import BW_NOTE, tables_for

CSV_FIELDS = ("workload", "name", "kind", "family", "role", "shape", "dtype", "params", "block", "bytes", "flops",
              "median_ms", "cv", "gbs", "gflops", "pct_peak", "pct_memcpy", "pct_best_copy", "correct", "notes")
MD_FILE = "report.md"


def title(run: Run) -> str:
    return (" ".join(p for p in ("bwlab", run.workload, run.procedure) if p) + f": {run.device['name']}"
            + ("" if run.complete else " (INCOMPLETE: interrupted)"))


def header(run: Run) -> list[tuple[str, str]]:
    env = ", ".join(f"{k} {v}" for k, v in run.environment.items() if not isinstance(v, dict) and v is not None)
    return [("created", run.created or "-"), ("command", run.command or "-"), ("environment", env or "-")]


# The claims ledger (procedure "claims") has tables and charts of its own.
def _tables(run: Run) -> list[TableData]:
    if run.procedure == "claims":
        from . import ledger
        return ledger.tables(run)
    return tables_for(run)


def _charts(run: Run) -> dict[str, bytes]:
    if run.procedure == "claims":
        from . import ledger
        return ledger.charts(run)
    return charts.charts_for(run)


def output_names(run: Run) -> list[str]:
    """The files write_markdown creates."""
    if run.procedure == "claims":
        from . import ledger
        return [MD_FILE, *ledger.chart_names(run)]
    return [MD_FILE, *charts.charts_for_names(run)]


_MD_SPECIAL = re.compile(r"([\\`*_|<>\[\]])")


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def md_table(t: TableData) -> str:
    lines = ["| " + " | ".join(_md(c.header) for c in t.columns) + " |",
             "|" + "".join("---:|" if c.align == "right" else "---|" for c in t.columns)]
    for row in t.rows:
        lines.append("| " + " | ".join(_md(cell).replace("\n", " ") for cell in row) + " |")
    out = f"**{_md(t.title)}**\n\n" + "\n".join(lines)
    return out + (f"\n\n{_md(t.caption)}" if t.caption else "")


def markdown(run: Run, chart_names) -> str:
    parts = [f"# {_md(title(run))}", ""]
    parts += [f"- {k}: `{v}`" if k == "command" else f"- {k}: {_md(v)}" for k, v in header(run)]
    parts += ["", _md(BW_NOTE), ""]
    parts += [f"![{Path(n).stem}]({n})\n" for n in chart_names]
    for t in _tables(run):
        parts += [md_table(t), ""]
    return "\n".join(parts)


def write_markdown(run: Run, folder) -> Path:
    """report.md and its charts, written into folder (the caller decides what may be replaced)."""
    folder = Path(folder)
    pngs = _charts(run)
    for name, data in pngs.items():
        write_bytes_atomic(folder / name, data)
    return write_text_atomic(folder / MD_FILE, markdown(run, list(pngs)))


STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1300px;color:#222}
table{border-collapse:collapse;margin:1em 0 0.3em;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px}
th{background:#f0f0f0}td.r{text-align:right}caption{font-weight:bold;text-align:left;padding:4px 0}
tr.bad td{color:#b00000;font-weight:bold}.note{color:#555;font-size:12px;margin:0 0 1.5em}
img{max-width:100%;border:1px solid #eee;margin:0.5em 0}dt{font-weight:bold}dd{margin:0 0 0.4em 1em}"""


def html_table(t: TableData) -> str:
    heads = "".join(f"<th>{html.escape(c.header)}</th>" for c in t.columns)
    body = ""
    for row, flag in zip(t.rows, t.flags):
        cells = "".join(f"<td{' class=r' if c.align == 'right' else ''}>{html.escape(v)}</td>"
                        for c, v in zip(t.columns, row))
        body += f"<tr{' class=bad' if flag == 'bad' else ''}>{cells}</tr>"
    foot = f"<p class='note'>{html.escape(t.caption)}</p>" if t.caption else ""
    return f"<table><caption>{html.escape(t.title)}</caption><thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table>{foot}"


def html_page(run: Run) -> str:
    """One file, images embedded as data URIs: it can be mailed or opened anywhere."""
    imgs = "".join(f"<figure><img alt='{html.escape(Path(n).stem)}' src='data:image/png;base64,"
                   f"{base64.b64encode(d).decode()}'></figure>" for n, d in _charts(run).items())
    head = "".join(f"<dt>{html.escape(k)}</dt><dd>{'<code>' + html.escape(v) + '</code>' if k == 'command' else html.escape(v)}</dd>"
                   for k, v in header(run))
    body = "".join(html_table(t) for t in _tables(run))
    t = html.escape(title(run))
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{t}</title><style>{STYLE}</style></head>"
            f"<body><h1>{t}</h1><dl>{head}</dl><p class='note'>{html.escape(BW_NOTE)}</p>{imgs}{body}</body></html>")


def write_html(run: Run, target) -> Path:
    return write_text_atomic(Path(target), html_page(run))


def csv_text(run: Run) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(CSV_FIELDS)
    for r in run.records:
        vals = {**r.__dict__, "median_ms": r.median_ms, "cv": r.cv}
        row = []
        for f in CSV_FIELDS:
            v = vals[f]
            if f in ("shape", "block") and v:
                v = "x".join(map(str, v))
            elif f == "notes":
                v = "; ".join(v)
            elif f == "params":
                v = ";".join(f"{k}={x}" for k, x in v.items())
            row.append("" if v is None else v)
        w.writerow(row)
    return buf.getvalue()


def write_csv(run: Run, target) -> Path:
    return write_text_atomic(Path(target), csv_text(run))
