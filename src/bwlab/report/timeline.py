"""Stream scenarios and transfers rendered from their saved documents (no GPU): Gantt charts of
the measured timelines, the pipeline against its ideal, bandwidth and latency against size,
their tables, and a Markdown report. Charts are PNG bytes, as in charts.py."""
from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Optional

from ..core.files import write_bytes_atomic, write_text_atomic
from ..core.results import Run
from ..core.table import Column, TableData, num, pct
from .charts import _plt, _png
from .document import md_table

C = Column
L = lambda h, long=False: Column(h, "left", long)  # noqa: E731
COPY_COLORS = {"h2d": "#1f77b4", "d2h": "#ff7f0e"}
TRANSFERS_NOTE = ("GB/s = bytes that cross once / median GPU time (events), 10^9 bytes/s: a one-way copy of S bytes "
                  "moves S, both directions at once 2 x S, device to device 2 x S (read + write); latency = median "
                  "GPU time of one transfer; host = the caller's wait for it (issue + synchronize)")


def _holds(h: Optional[bool]) -> str:
    return {True: "yes", False: "NO", None: "-"}[h]


# --- Gantt charts -----------------------------------------------------------------------------

def _lanes(ops: list[dict]) -> list[str]:
    return list(dict.fromkeys(o["lane"] for o in ops))


def _color_map(keys):
    plt = _plt()
    keys = list(dict.fromkeys(keys))
    cmap = plt.get_cmap("tab10" if len(keys) <= 10 else "tab20")
    return {k: cmap(i % cmap.N) for i, k in enumerate(keys)}


def _case_title(case: dict) -> str:
    m = case.get("metrics", {})
    if case.get("error"):
        return f"{case['label']}: not measured ({case['error'][:80]})"
    if "total_ms" in m:
        t = f"{case['label']}: {m['total_ms']:.2f} ms"
        if m.get("ideal_ms"):
            t += f" (ideal {m['ideal_ms']:.2f} ms, {100 * (m['total_ms'] / m['ideal_ms'] - 1):+.0f}%)"
        return t + ("" if m.get("correct", True) else "  WRONG OUTPUT")
    ops = case.get("ops") or []
    if not ops:
        return case["label"]
    span = max(o["end_us"] for o in ops) - min(o["start_us"] for o in ops)
    return f"{case['label']}: span {span / 1e3:.2f} ms"


def _draw_case(ax, case: dict, colors: dict) -> None:
    ops = case.get("ops") or []
    lanes = _lanes(ops)
    end = max([o["end_us"] for o in ops] + [1.0]) / 1e3
    for o in ops:
        y = lanes.index(o["lane"])
        s, e = o["start_us"] / 1e3, o["end_us"] / 1e3
        key = o.get("group") or o["name"]
        color = colors.get(key, "#888888")
        hatch = {"h2d": "//", "d2h": "\\\\"}.get(o.get("kind"), None)
        ax.barh(y, max(e - s, end * 1e-4), left=s, height=0.6, color=color, edgecolor="black", linewidth=0.4,
                hatch=hatch, alpha=0.9)
        if "ready_us" in o and o["ready_us"] < o["start_us"]:  # queued behind another copy
            ax.plot([o["ready_us"] / 1e3, s], [y, y], color=color, lw=0.8, ls=":")
        if e - s > end * 0.035 and len(ops) <= 60:
            ax.text((s + e) / 2, y, o["name"], ha="center", va="center", fontsize=6.5)
    if not lanes:
        ax.text(0.5, 0.5, "not measured", transform=ax.transAxes, ha="center", va="center", fontsize=9)
    ax.set_yticks(range(len(lanes)), lanes, fontsize=7)
    ax.set_ylim(max(len(lanes), 1) - 0.5, -0.5)
    ax.set_xlim(0, end * 1.02)
    ax.set_title(_case_title(case), fontsize=8, loc="left")
    ax.grid(True, axis="x", alpha=0.25)
    ax.tick_params(axis="x", labelsize=7)


def _grid(name: str) -> tuple[int, int]:
    from ..workloads.streams import scenario

    try:
        return scenario(name).grid
    except ValueError:
        return (0, 1)


def gantt(scn: dict, device: str = "", only: Optional[list[str]] = None) -> bytes:
    """One panel per case (lanes: streams, or the pipeline's copy engines and SMs), time in ms
    from the case's first stamp; the verdict below."""
    plt = _plt()
    cases = [c for c in scn["cases"] if only is None or c["label"] in only]
    n = max(1, len(cases))
    rows, cols = _grid(scn["name"])
    if rows * cols != n:  # the scenario's own layout only when every case is there
        rows, cols = n, 1
    lanes = [len(_lanes(c.get("ops") or [])) or 1 for c in cases]
    per_row = [max(lanes[r * cols:(r + 1) * cols] or [1]) for r in range(rows)]
    height = sum(0.9 + 0.22 * k for k in per_row) + 1.6
    fig, axes = plt.subplots(rows, cols, figsize=(11 if cols == 1 else 13, height), dpi=100, squeeze=False,
                             gridspec_kw={"height_ratios": [0.9 + 0.22 * k for k in per_row]})
    keys = [o.get("group") or o["name"] for c in cases for o in (c.get("ops") or [])]
    colors = _color_map(keys)
    for i, ax in enumerate(axes.flat):
        if i < len(cases):
            _draw_case(ax, cases[i], colors)
            if i // cols == rows - 1 or i + cols >= len(cases):
                ax.set_xlabel("ms (kernels: %globaltimer stamps per block; copies: CUDA events)", fontsize=7)
        else:
            ax.axis("off")
    v = scn.get("verdict") or {}
    head = f"{device + ': ' if device else ''}{scn.get('title', scn['name'])}  [claim holds: {_holds(v.get('holds'))}]"
    fig.suptitle(head, fontsize=10, x=0.01, ha="left")
    text = "\n".join(textwrap.wrap(v.get("text", ""), 150 if cols == 1 else 180)[:6])
    fig.text(0.01, 0.01, text, fontsize=7, va="bottom", ha="left")
    if any("group" in o for c in cases for o in (c.get("ops") or [])):
        from matplotlib.patches import Patch

        groups = list(dict.fromkeys(o["group"] for c in cases for o in (c.get("ops") or []) if "group" in o))
        handles = [Patch(color=colors[g], label=g) for g in groups]
        handles += [Patch(facecolor="white", edgecolor="black", hatch="//", label="copy in"),
                    Patch(facecolor="white", edgecolor="black", hatch="\\\\", label="copy out")]
        fig.legend(handles=handles, loc="upper right", fontsize=7, ncol=min(len(handles), 10), frameon=False)
    bottom = (0.25 + 0.13 * text.count("\n") + 0.2) / height
    fig.tight_layout(rect=(0, bottom, 1, 1 - 0.3 / height))
    return _png(fig)


def pipeline_chart(scn: dict, device: str = "") -> bytes:
    """Pipeline time against the number of streams, pinned and pageable, with their ideals."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 4.8), dpi=100)
    data = scn.get("data", {})
    for memory, color in (("pinned", "#1f77b4"), ("pageable", "#d62728")):
        pts = sorted((c["metrics"]["streams"], c["metrics"]["total_ms"]) for c in scn["cases"]
                     if c.get("metrics", {}).get("memory") == memory and c["metrics"].get("total_ms"))
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color=color, label=f"{memory} host memory")
        d = data.get(memory, {})
        if d.get("ideal_ms"):
            ax.axhline(d["ideal_ms"], color=color, ls="--", lw=1, label=f"{memory} ideal {d['ideal_ms']:.2f} ms")
        if d.get("serial_ms"):
            ax.axhline(d["serial_ms"], color=color, ls=":", lw=1, label=f"{memory} stages one after another")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("streams (chunk i on stream i mod streams)")
    ax.set_ylabel("time of the whole pipeline, ms (median)")
    ax.set_ylim(bottom=0)
    mib = data.get("total_bytes", 0) / (1 << 20)
    ax.set_title(f"{device + ': ' if device else ''}copy in, compute, copy out: {mib:.0f} MiB in "
                 f"{data.get('chunks', '?')} chunks", fontsize=9)
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return _png(fig)


def streams_chart_names(doc: dict) -> list[str]:
    names = [f"gantt-{s['name']}.png" for s in doc["scenarios"]]
    if any(s["name"] == "pipeline" for s in doc["scenarios"]):
        names.append("pipeline.png")
    return names


def streams_charts(doc: dict) -> dict[str, bytes]:
    device = doc.get("device", {}).get("name", "")
    out = {f"gantt-{s['name']}.png": gantt(s, device) for s in doc["scenarios"]}
    for s in doc["scenarios"]:
        if s["name"] == "pipeline":
            out["pipeline.png"] = pipeline_chart(s, device)
    return out


# --- stream tables -----------------------------------------------------------------------------

def verdict_table(doc: dict) -> TableData:
    t = TableData(f"{doc['device']['name']}: stream scenarios, measured on the GPU",
                  [L("scenario"), L("claim holds"), L("what was measured", True)],
                  caption="kernel spans from %globaltimer stamps per block; overlap = time both ran / the shorter "
                          "kernel's duration")
    for s in doc["scenarios"]:
        v = s.get("verdict") or {}
        t.add(s["name"], _holds(v.get("holds")), v.get("text", ""), flag="bad" if v.get("holds") is False else "")
    return t


def cases_table(doc: dict) -> TableData:
    t = TableData("timelines", [L("scenario"), L("case"), C("span ms"), C("peak at once"), C("mean at once"),
                                C("SMs"), L("notes", True)])
    for s in doc["scenarios"]:
        if s["name"] == "pipeline":
            continue
        for c in s["cases"]:
            m, ops = c.get("metrics", {}), c.get("ops") or []
            sms = sorted({x for o in ops for x in o.get("sms", [])})
            notes = "; ".join(([c["error"]] if c.get("error") else []) + c.get("notes", []))
            t.add(s["name"], c["label"], num(m["span_us"] / 1e3) if "span_us" in m else "-",
                  m.get("peak_concurrency", "-"), num(m.get("concurrency")), len(sms) if sms else "-", notes,
                  flag="bad" if c.get("error") else "")
    return t


def pipeline_table(scn: dict) -> TableData:
    d = scn.get("data", {})
    cap = []
    for memory in ("pinned", "pageable"):
        x = d.get(memory)
        if x:
            both = f", in and out at once {x['t_both_ms']:.3f} ms" if x.get("t_both_ms") else ""
            tot = (f"; all chunks, each stage on its own: {x['total_in_ms']:.2f} ms in, {x['total_compute_ms']:.2f} ms "
                   f"compute, {x['total_out_ms']:.2f} ms out" if x.get("total_compute_ms") else "")
            cap.append(f"{memory}: one chunk alone takes {x['t_in_ms']:.3f} ms in, {x['t_compute_ms']:.3f} ms "
                       f"compute, {x['t_out_ms']:.3f} ms out{both}{tot}; ideal {x['ideal_ms']:.2f} ms")
    ratio = f", compute {d['compute_ratio']:g}x the copy-in time" if d.get("compute_ratio") else ""
    t = TableData(f"pipeline: {d.get('total_bytes', 0) / (1 << 20):.0f} MiB in {d.get('chunks', '?')} chunks, "
                  f"{d.get('iters', '?')} FMAs per element{ratio}",
                  [C("streams"), L("host memory"), C("ms (median)"), C("ideal ms"), C("over ideal"),
                   C("x 1 stream"), L("correct")],
                  caption="ideal = the busiest stage over all chunks (measured on its own, chunks on the most "
                          "streams) + one chunk of each other stage (timed alone). " + "; ".join(cap))
    one = {c["metrics"]["memory"]: c["metrics"]["total_ms"] for c in scn["cases"]
           if c.get("metrics", {}).get("streams") == 1 and c["metrics"].get("total_ms")}
    for c in scn["cases"]:
        m = c.get("metrics", {})
        if not m.get("total_ms"):
            continue
        over = m.get("over_ideal")
        base = one.get(m["memory"])
        t.add(m["streams"], m["memory"], num(m["total_ms"]), num(m.get("ideal_ms")),
              "-" if over is None else f"{100 * (over - 1):+.1f}%", "-" if not base else f"{base / m['total_ms']:.2f}x",
              {True: "yes", False: "NO", None: "-"}[m.get("correct")], flag="bad" if m.get("correct") is False else "")
    return t


def streams_tables(doc: dict) -> list[TableData]:
    out = [verdict_table(doc)]
    if any(s["name"] != "pipeline" for s in doc["scenarios"]):
        out.append(cases_table(doc))
    out += [pipeline_table(s) for s in doc["scenarios"] if s["name"] == "pipeline"]
    return out


def _md(text: str) -> str:
    from .document import _md as esc

    return esc(text)


def streams_markdown(doc: dict, chart_names) -> str:
    parts = [f"# bwlab streams: {_md(doc['device']['name'])}" + ("" if doc.get("complete", True) else
                                                                    " (INCOMPLETE: interrupted)"), "",
             f"- created: {_md(doc.get('created') or '-')}", f"- command: `{doc.get('command') or '-'}`", ""]
    parts += [md_table(verdict_table(doc)), ""]
    names = set(chart_names)
    for s in doc["scenarios"]:
        parts += [f"## {_md(s.get('title', s['name']))} (`{s['name']}`)", "", f"Claim: {_md(s.get('claim', ''))}", "",
                  f"Measured (claim holds: {_holds((s.get('verdict') or {}).get('holds'))}): "
                  f"{_md((s.get('verdict') or {}).get('text', ''))}", ""]
        if f"gantt-{s['name']}.png" in names:
            parts += [f"![{s['name']}](gantt-{s['name']}.png)", ""]
        if s["name"] == "pipeline":
            if "pipeline.png" in names:
                parts += ["![pipeline](pipeline.png)", ""]
            parts += [md_table(pipeline_table(s)), ""]
    if any(s["name"] != "pipeline" for s in doc["scenarios"]):
        parts += [md_table(cases_table(doc)), ""]
    return "\n".join(parts)


def streams_html(doc: dict) -> str:
    """One self-contained page: verdicts, then per scenario its claim, verdict and charts (embedded)."""
    import base64
    import html

    from .document import STYLE, html_table

    e = html.escape
    pngs = streams_charts(doc)

    def img(name: str) -> str:
        if name not in pngs:
            return ""
        data = base64.b64encode(pngs[name]).decode()
        return f"<figure><img alt='{e(name)}' src='data:image/png;base64,{data}'></figure>"

    t = e(f"bwlab streams: {doc['device']['name']}"
          + ("" if doc.get("complete", True) else " (INCOMPLETE: interrupted)"))
    parts = [f"<h1>{t}</h1><dl><dt>created</dt><dd>{e(doc.get('created') or '-')}</dd><dt>command</dt>"
             f"<dd><code>{e(doc.get('command') or '-')}</code></dd></dl>", html_table(verdict_table(doc))]
    for s in doc["scenarios"]:
        v = s.get("verdict") or {}
        parts += [f"<h2>{e(s.get('title', s['name']))} ({e(s['name'])})</h2><p>Claim: {e(s.get('claim', ''))}</p>"
                  f"<p>Measured (claim holds: {_holds(v.get('holds'))}): {e(v.get('text', ''))}</p>",
                  img(f"gantt-{s['name']}.png")]
        if s["name"] == "pipeline":
            parts += [img("pipeline.png"), html_table(pipeline_table(s))]
    if any(s["name"] != "pipeline" for s in doc["scenarios"]):
        parts.append(html_table(cases_table(doc)))
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{t}</title><style>{STYLE}</style></head>"
            f"<body>{''.join(parts)}</body></html>")


STREAMS_CSV = ("scenario", "case", "op", "lane", "kind", "group", "start_us", "end_us", "clock", "sms")


def streams_csv(doc: dict) -> str:
    """One row per op of every measured timeline."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(STREAMS_CSV)
    for s in doc["scenarios"]:
        for c in s["cases"]:
            for o in c.get("ops") or []:
                sms = len(o["sms"]) if "sms" in o else o.get("sm_count", "")
                w.writerow([s["name"], c["label"], o["name"], o.get("lane", ""), o.get("kind", ""), o.get("group", ""),
                            o["start_us"], o["end_us"], o.get("clock", ""), sms])
    return buf.getvalue()


# --- transfers ---------------------------------------------------------------------------------

def _size(n: int) -> str:
    for unit, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= unit and n % unit == 0:
            return f"{n // unit} {name}"
    return f"{n} B"


def _pairs(run: Run):
    """(mode, size) -> {library: record}, in the order measured."""
    out: dict = {}
    for r in run.records:
        out.setdefault((r.name, r.shape[0]), {})[r.family] = r
    return out


def transfers_table(run: Run) -> TableData:
    t = TableData(f"{run.device['name']}: host-device transfers", [
        L("transfer"), C("size"), C("GB/s"), C("torch GB/s"), C("% torch"), C("latency us"), C("torch us"),
        C("host us"), L("check"), L("notes", True)], caption=TRANSFERS_NOTE)
    skipped = sorted({n for r in run.records if r.family == "torch" for n in r.notes if n.startswith("skipped")})
    if skipped:
        t.caption += "; torch: " + "; ".join(skipped)
    for (mode, size), libs in _pairs(run).items():
        mine = libs.get("cudaMemcpyAsync")
        torch = libs.get("torch")
        if mine is None:
            continue
        share = 100 * mine.gbs / torch.gbs if mine.gbs and torch is not None and torch.gbs else None
        theirs = [f"torch: {n}" for n in (torch.notes if torch is not None else []) if not n.startswith("skipped")]
        notes = "; ".join(mine.notes + theirs)
        t.add(mode, _size(size), num(mine.gbs), num(torch.gbs) if torch is not None else "-", pct(share),
              num(mine.params.get("latency_us")), num(torch.params.get("latency_us")) if torch is not None else "-",
              num(mine.params.get("host_us")), {True: "ok", False: "WRONG", None: "-"}[mine.correct], notes,
              flag="bad" if mine.correct is False else "")
    return t


def transfers_summary(run: Run) -> TableData:
    """Per transfer: bandwidth at the largest size, latency at the smallest."""
    sizes = sorted({r.shape[0] for r in run.records})
    lo, hi = (sizes[0], sizes[-1]) if sizes else (0, 0)
    t = TableData(f"summary: GB/s at {_size(hi)}, latency at {_size(lo)}",
                  [L("transfer"), C("GB/s"), C("torch GB/s"), C("latency us"), C("torch latency us")])
    pairs = _pairs(run)
    for mode in dict.fromkeys(r.name for r in run.records):
        big, small = pairs.get((mode, hi), {}), pairs.get((mode, lo), {})
        g = lambda d, lib, f: f(d[lib]) if lib in d and d[lib].gbs else None  # noqa: E731
        t.add(mode, num(g(big, "cudaMemcpyAsync", lambda r: r.gbs)), num(g(big, "torch", lambda r: r.gbs)),
              num(g(small, "cudaMemcpyAsync", lambda r: r.params.get("latency_us"))),
              num(g(small, "torch", lambda r: r.params.get("latency_us"))))
    return t


def goals_table(run: Run) -> TableData:
    from ..lab.transfers import GOAL_RATIO, GOAL_SIZE, goals

    t = TableData(f"goal: pinned copies at least {100 * GOAL_RATIO:.0f}% of torch's GB/s at every size from "
                  f"{_size(GOAL_SIZE)} up", [L("transfer"), L("met"), L("numbers", True)])
    for mode, met, text in goals(run):
        t.add(mode, _holds(met), text, flag="bad" if met is False else "")
    return t


def transfers_tables(run: Run) -> list[TableData]:
    return [transfers_summary(run), goals_table(run), transfers_table(run)]


def transfers_chart(run: Run) -> bytes:
    """Bandwidth and latency against size, one line per transfer (torch dashed)."""
    plt = _plt()
    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 5.2), dpi=100)
    modes = list(dict.fromkeys(r.name for r in run.records))
    colors = _color_map(modes)
    for mode in modes:
        for lib, style in (("cudaMemcpyAsync", "o-"), ("torch", "x--")):
            pts = sorted((r.shape[0], r.gbs, r.params.get("latency_us")) for r in run.records
                         if r.name == mode and r.family == lib and r.gbs)
            if not pts:
                continue
            label = mode if lib == "cudaMemcpyAsync" else f"{mode} (torch)"
            a.plot([p[0] for p in pts], [p[1] for p in pts], style, color=colors[mode], ms=3, lw=1, label=label)
            b.plot([p[0] for p in pts], [p[2] for p in pts], style, color=colors[mode], ms=3, lw=1, label=label)
    for ax in (a, b):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("transfer size, bytes")
        ax.grid(True, which="both", alpha=0.2)
    b.set_yscale("log")
    a.set_ylabel("GB/s (bytes across once / median GPU time)")
    b.set_ylabel("latency: median GPU time per transfer, us")
    a.set_title(f"{run.device['name']}: bandwidth against size", fontsize=9)
    b.set_title("latency against size", fontsize=9)
    a.legend(fontsize=6.5, ncol=2)
    fig.tight_layout()
    return _png(fig)


def transfers_markdown(run: Run, chart_names) -> str:
    parts = [f"# bwlab transfers: {_md(run.device['name'])}" + ("" if run.complete else " (INCOMPLETE: interrupted)"),
             "", f"- created: {_md(run.created or '-')}", f"- command: `{run.command or '-'}`", "",
             _md(TRANSFERS_NOTE), ""]
    parts += [f"![{n.rsplit('.', 1)[0]}]({n})\n" for n in chart_names]
    parts += [md_table(t) + "\n" for t in transfers_tables(run)]
    return "\n".join(parts)


# --- writing a results folder ----------------------------------------------------------------

REPORT = "report.md"


def write_streams(doc: dict, folder) -> list[Path]:
    """The Gantt charts, the pipeline chart and report.md, written into folder."""
    folder = Path(folder)
    pngs = streams_charts(doc)
    paths = [write_bytes_atomic(folder / name, data) for name, data in pngs.items()]
    return paths + [write_text_atomic(folder / REPORT, streams_markdown(doc, list(pngs)))]


def write_transfers(run: Run, folder) -> list[Path]:
    folder = Path(folder)
    chart = write_bytes_atomic(folder / "transfers.png", transfers_chart(run))
    return [chart, write_text_atomic(folder / REPORT, transfers_markdown(run, [chart.name]))]


def transfers_html(run: Run) -> str:
    """One self-contained page: the chart embedded, then the tables."""
    import base64
    import html

    from .document import STYLE, html_table

    e = html.escape
    t = e(f"bwlab transfers: {run.device['name']}" + ("" if run.complete else " (INCOMPLETE: interrupted)"))
    chart = base64.b64encode(transfers_chart(run)).decode()
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{t}</title><style>{STYLE}</style></head>"
            f"<body><h1>{t}</h1><dl><dt>created</dt><dd>{e(run.created or '-')}</dd><dt>command</dt>"
            f"<dd><code>{e(run.command or '-')}</code></dd></dl><p class='note'>{e(TRANSFERS_NOTE)}</p>"
            f"<figure><img alt='transfers' src='data:image/png;base64,{chart}'></figure>"
            + "".join(html_table(x) for x in transfers_tables(run)) + "</body></html>")


# --- `bwlab report` for these documents: the same four calls as report.document -----------------

def load_document(path):
    """A saved results file for `bwlab report`: a Run, or a streams document (a dict)."""
    from ..core.files import read_json
    from ..core.results import load as load_run
    from ..lab import streams

    doc = read_json(path)  # a ValueError in one line when it cannot be read
    schema = doc.get("schema") if isinstance(doc, dict) else None
    return streams.load(path) if schema == streams.SCHEMA else load_run(path)


def renders(doc) -> bool:
    """Documents drawn here rather than by report.document: streams documents, transfers runs."""
    return isinstance(doc, dict) or doc.procedure == "transfers"


def output_names(doc) -> list[str]:
    return [REPORT, *(streams_chart_names(doc) if isinstance(doc, dict) else ["transfers.png"])]


def write_markdown(doc, folder) -> Path:
    """report.md and its charts, as bwlab streams and bwlab transfers write them."""
    return (write_streams(doc, folder) if isinstance(doc, dict) else write_transfers(doc, folder))[-1]


def write_html(doc, target) -> Path:
    return write_text_atomic(Path(target), streams_html(doc) if isinstance(doc, dict) else transfers_html(doc))


def write_csv(doc, target) -> Path:
    """Streams: one row per op of every timeline; transfers: one row per record."""
    from .document import csv_text

    return write_text_atomic(Path(target), streams_csv(doc) if isinstance(doc, dict) else csv_text(doc))
