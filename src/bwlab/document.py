"""A saved run rendered as a document, without a GPU: Markdown (charts as PNG files beside
it), one self-contained HTML file (charts embedded), or CSV (one row per record)."""
from __future__ import annotations

import base64
import csv
import html
import io
from pathlib import Path

from . import charts, report
from .results import Run, write_text_atomic

CSV_FIELDS = ("name", "kind", "family", "role", "shape", "dtype", "block", "bytes", "median_ms", "cv",
              "gbs", "pct_peak", "pct_memcpy", "pct_best_copy", "correct", "notes")


def _title(run: Run) -> str:
    kind = run.config.get("kind", "ladder")
    return f"bwlab {kind}: {run.device['name']}" + ("" if run.complete else " (INCOMPLETE: interrupted)")


def tables(run: Run) -> list:
    """The rich tables that describe this run, in reading order."""
    kind = run.config.get("kind", "ladder")
    out = [report.device_table(run.device)]
    if kind == "ladder":
        out.append(report.ladder_table(run))
        if any(r.counters for r in run.records):
            out.append(report.counters_table(run))
        from . import roofline

        out.append(report.roofline_table(roofline.analyze(run)))
    elif kind == "bench transpose":
        out += [report.bench_table(run), report.misses_table(run)]
    elif kind == "profile":
        out.append(report.counters_table(run))
    elif kind in ("sweep blocks", "sweep sizes"):
        out.append(report.sweep_table(run))
    return out


def _md_table(table) -> str:
    """A rich Table as a Markdown table (cells as plain text)."""
    heads = [c.header for c in table.columns]
    cols = [[report.plain(c) for c in col._cells] for col in table.columns]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for row in zip(*cols):
        lines.append("| " + " | ".join(cell.replace("|", "/").replace("\n", " ") for cell in row) + " |")
    title = f"**{report.plain(table.title)}**\n\n" if table.title else ""
    caption = f"\n\n_{report.plain(table.caption)}_" if table.caption else ""
    return title + "\n".join(lines) + caption


def _html_table(table) -> str:
    heads = "".join(f"<th>{html.escape(str(c.header))}</th>" for c in table.columns)
    cols = [[report.plain(c) for c in col._cells] for col in table.columns]
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in zip(*cols))
    cap = f"<caption>{html.escape(report.plain(table.title or ''))}</caption>"
    foot = f"<p class='note'>{html.escape(report.plain(table.caption))}</p>" if table.caption else ""
    return f"<table>{cap}<thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table>{foot}"


def _header(run: Run) -> list[str]:
    return [f"# {_title(run)}", "", f"- created: {run.created}", f"- command: `{run.command}`",
            f"- environment: " + ", ".join(f"{k} {v}" for k, v in run.environment.items() if not isinstance(v, dict)),
            "", f"_{report.BW_NOTE}_", ""]


def write_markdown(run: Run, folder) -> Path:
    folder = Path(folder)
    pngs = charts.charts_for(run, folder)
    parts = _header(run)
    for p in pngs:
        parts += [f"![{p.stem}]({p.name})", ""]
    for t in tables(run):
        parts += [_md_table(t), ""]
    target = folder / "report.md"
    write_text_atomic(target, "\n".join(parts))
    return target


STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1300px}
table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px}
th{background:#f0f0f0}caption{font-weight:bold;text-align:left;padding:4px 0}.note{color:#555;font-size:12px}
img{max-width:100%;border:1px solid #eee;margin:0.5em 0}"""


def write_html(run: Run, target, workdir=None) -> Path:
    """One file, images embedded as data URIs: it can be mailed or opened anywhere."""
    import tempfile

    target = Path(target)
    with tempfile.TemporaryDirectory() as tmp:
        pngs = charts.charts_for(run, workdir or tmp)
        imgs = "".join(f"<figure><img alt='{p.stem}' src='data:image/png;base64,"
                       f"{base64.b64encode(p.read_bytes()).decode()}'></figure>" for p in pngs)
    head = "".join(f"<p>{html.escape(line.lstrip('#- _'))}</p>" for line in _header(run)[2:] if line.strip())
    body = "".join(_html_table(t) for t in tables(run))
    doc = (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(_title(run))}</title>"
           f"<style>{STYLE}</style></head><body><h1>{html.escape(_title(run))}</h1>{head}{imgs}{body}</body></html>")
    write_text_atomic(target, doc)
    return target


def write_csv(run: Run, target) -> Path:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(CSV_FIELDS)
    for r in run.records:
        vals = {**r.__dict__, "median_ms": r.median_ms, "cv": r.cv}
        w.writerow(["x".join(map(str, vals[f])) if f in ("shape", "block") and vals[f] else
                    "; ".join(vals[f]) if f == "notes" else ("" if vals[f] is None else vals[f]) for f in CSV_FIELDS])
    write_text_atomic(Path(target), buf.getvalue())
    return Path(target)
