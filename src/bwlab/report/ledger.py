"""The claims ledger rendered from a saved claims document (no GPU): a summary table (claim,
verdict, where it comes from), one table per measured claim (its numbers, with the claim, the
experiment and the verdict in words as the caption), the claims not measured yet with the reason,
and bar charts where a picture says more."""
from __future__ import annotations

import io

from ..core.results import Run
from ..core.table import Column, TableData, num
from ..lab.claims import ledger
from ..workloads.claims import VERDICTS
from .tables import device_table

L = lambda h, long=False: Column(h, "left", long)  # noqa: E731
UNITS = (("_gbs", "GB/s"), ("_ms", "ms"), ("_cycles", "SM cycles"), ("_geval_s", "G evaluations/s"),
         ("_gflops", "GFLOP/s"), ("_max_ulp", "ulp"), ("_max_abs", "absolute"), ("_mhz", "MHz"),
         ("_bits", "bits"), ("_registers", "registers"), ("_bytes", "bytes"), ("_per_sm", "per SM"))
NOTE = ("holds / does not hold / depends: the verdict on this GPU, from the numbers measured in this run; "
        "every kernel's result was checked before it was timed")


def unit(key: str) -> str:
    return next((u for suffix, u in UNITS if key.endswith(suffix)), "")


def value(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, int):
        return str(v)
    return num(v) if abs(v) >= 1e-3 or v == 0 else f"{v:.3g}"


def _verdict(e: dict) -> str:
    return e["status"] + (f" (on {e['depends_on']})" if e.get("depends_on") else "")


def summary_table(run: Run) -> TableData:
    entries = ledger(run)
    counts = {}
    for e in entries:
        counts[e["status"]] = counts.get(e["status"], 0) + 1
    title = (f"{run.device['name']}: claims ledger" + ("" if run.complete else " (INCOMPLETE: interrupted)")
             + (" (quick check sizes: the numbers mean little)" if run.config.get("small") else ""))
    t = TableData(title, [L("claim"), L("verdict"), L("the claim (where it comes from)", True)],
                  caption=NOTE + ". " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    for e in entries:
        t.add(e["id"], e["status"], f"{e['claim']} (from the {e['topic']})",
              flag="bad" if e.get("wrong") else "")
    return t


def claim_table(run: Run, e: dict) -> TableData:
    caption = (f"Claim: {e['claim']} (from the {e['topic']}). Experiment: {e['experiment']} "
               f"Verdict: {_verdict(e)}. {e['verdict']}")
    t = TableData(f"{e['id']}: {_verdict(e)}", [L("measured"), Column("value"), L("unit")], caption=caption)
    for k, v in e.get("numbers", {}).items():
        t.add(k, value(v), unit(k))
    if not e.get("numbers"):
        t.add("-", "-", "")
    return t


def pending_table(run: Run) -> TableData:
    t = TableData("claims not measured yet", [L("claim"), L("the claim", True), L("why not yet", True)])
    for e in ledger(run):
        if e["status"] == "not measured yet":
            t.add(e["id"], f"{e['claim']} (from the {e['topic']})", e["verdict"])
    return t


def compare_table(runs: list[Run], labels: list[str], only=None) -> TableData:
    """The verdicts of several ledgers side by side (one column per ledger, labelled), claims in
    the first ledger's order, then any the others have; `only`: the claim ids to keep."""
    by = [{e["id"]: e for e in ledger(r)} for r in runs]
    ids = list(dict.fromkeys(i for b in by for i in b))
    ids = [i for i in ids if only is None or i in only]
    t = TableData("claims ledgers compared", [L("claim")] + [L(lab, True) for lab in labels] + [L("same")])
    differ = []
    for i in ids:
        cells = [_verdict(b[i]) if i in b else "-" for b in by]
        measured = [b[i]["status"] for b in by if i in b and b[i]["status"] in VERDICTS]
        same = "-" if len(measured) < 2 else "yes" if len(set(measured)) == 1 else "NO"
        if same == "NO":
            differ.append(i)
        t.add(i, *cells, same)
    t.caption = ("'same': whether the ledgers that measured the claim agree; "
                 + (f"they differ on {len(differ)} claim{'s' if len(differ) > 1 else ''}: {', '.join(differ)}"
                    if differ else "they agree on every claim they measured"))
    return t


def tables(run: Run) -> list[TableData]:
    """Every table of a claims document, in reading order."""
    out = [device_table(run.device), summary_table(run)]
    out += [claim_table(run, e) for e in ledger(run) if e["status"] != "not measured yet"]
    pending = pending_table(run)
    return out + ([pending] if pending.rows else [])


def chart_names(run: Run) -> list[str]:
    names = []
    for e in ledger(run):
        charts = [c for c in e.get("charts", []) if c.get("bars")]
        names += [f"claim-{e['id']}.png" if len(charts) == 1 else f"claim-{e['id']}-{i + 1}.png"
                  for i in range(len(charts))]
    return names


def charts(run: Run) -> dict[str, bytes]:
    """One bar chart per chart of each measured claim: file name -> PNG bytes."""
    out = {}
    names = iter(chart_names(run))
    for e in ledger(run):
        for c in e.get("charts", []):
            if c.get("bars"):
                out[next(names)] = bar_chart(run, e, c)
    return out


def bar_chart(run: Run, e: dict, chart: dict) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bars = chart["bars"]
    height = 0.35 * len(bars) + 1.9
    fig, ax = plt.subplots(figsize=(8.5, height), dpi=110)
    values = [v for _, v in bars]
    ax.barh(range(len(bars)), values, color="#1f77b4")
    top = max(values) if values else 1
    for y, v in enumerate(values):
        ax.text(v * (1.02 if chart.get("log") else 1) + (0 if chart.get("log") else top * 0.01), y, value(v),
                va="center", fontsize=7)
    ax.set_yticks(range(len(bars)), [label for label, _ in bars], fontsize=8)
    ax.set_ylim(len(bars) - 0.5, -0.5)
    if chart.get("log"):
        ax.set_xscale("log")
        ax.set_xlim(min(v for v in values if v > 0) / 2, top * 3)
    else:
        ax.set_xlim(0, top * 1.15)
    ax.set_xlabel(chart["unit"])
    ax.set_title(f"{run.device['name']}: {e['id']} ({chart['title']})\nverdict: {_verdict(e)}", fontsize=9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()
