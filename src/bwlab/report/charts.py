"""PNG charts from results documents (matplotlib, no GPU): the ladder bars, the block-sweep
heatmap, bandwidth against size, a bench against its peers, and the roofline. Each chart is returned as PNG bytes, so
documents embed them or write them beside themselves; every chart says what GB/s means."""
from __future__ import annotations

import io

from ..core.results import Run

BW_LABEL = "GB/s = (bytes read + bytes written) / median time"
COLORS = {"kernel": "#1f77b4", "api": "#17becf", "peer": "#2ca02c", "wrong": "#d62728"}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(fig) -> bytes:
    plt = _plt()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def _case(run: Run) -> str:
    c = run.config
    return f"{'x'.join(map(str, c.get('shape', [])))} {c.get('dtype', '')}".strip()


def ladder_chart(run: Run) -> bytes:
    """Horizontal bars, one per kernel and peer, with the peak, cudaMemcpy and best-copy lines;
    the legend sits below the plot, where it hides no bar."""
    plt = _plt()
    recs = [r for r in run.records if r.kind != "cpu" and (r.gbs or r.correct is False)]
    height = 0.28 * len(recs) + 2.6
    fig, ax = plt.subplots(figsize=(10, height), dpi=110)
    top = max([r.gbs or 0 for r in recs] + [run.ceilings.get("peak_gbs") or 0])
    for y, r in enumerate(recs):
        wrong = r.correct is False
        color = COLORS["wrong"] if wrong else COLORS.get(r.kind, "#1f77b4")
        ax.barh(y, r.gbs or 0, color=color, hatch="//" if wrong else None)
        ax.text((r.gbs or 0) + top * 0.005, y, "WRONG: not timed" if wrong else f"{r.gbs:.0f}", va="center",
                fontsize=7)
    ax.set_yticks(range(len(recs)), [r.name for r in recs], fontsize=7)
    ax.set_ylim(len(recs) - 0.5, -0.5)
    ax.set_xlim(0, top * 1.12)
    c = run.ceilings
    for value, label, style in ((c.get("peak_gbs"), "theoretical peak", "-"), (c.get("memcpy_gbs"), "cudaMemcpy", "--"),
                                (c.get("best_copy_gbs"), f"best copy kernel ({c.get('best_copy')})", ":")):
        if value:
            ax.axvline(value, color="k", ls=style, lw=1, label=f"{label}: {value:.0f}")
    from matplotlib.patches import Patch

    handles, labels = ax.get_legend_handles_labels()
    for kind, label in (("kernel", "bwlab kernels"), ("api", "bwlab's public API"), ("peer", "peers"),
                        ("wrong", "wrong result (not timed)")):
        if any((r.kind == kind and r.correct is not False) or (kind == "wrong" and r.correct is False) for r in recs):
            handles.append(Patch(color=COLORS[kind]))
            labels.append(label)
    ax.set_title(f"{run.device['name']}: {run.workload} ladder, {_case(run)}", fontsize=10)
    ax.set_xlabel(BW_LABEL)
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.75 / height, 1, 1))
    return _png(fig)


def heatmap(run: Run) -> bytes:
    """Kernel x block -> GB/s of a block sweep; blocks a kernel cannot take are grey."""
    plt = _plt()
    import numpy as np

    kernels = list(dict.fromkeys(r.name for r in run.records))
    blocks = [tuple(b) for b in run.config["blocks"]]
    grid = np.full((len(kernels), len(blocks)), np.nan)
    text = [["-"] * len(blocks) for _ in kernels]
    for r in run.records:
        i, j = kernels.index(r.name), blocks.index(tuple(r.block))
        if r.gbs:
            grid[i, j], text[i][j] = r.gbs, f"{r.gbs:.0f}"
        elif r.correct is False:
            text[i][j] = "WRONG"
    fig, ax = plt.subplots(figsize=(1.0 * len(blocks) + 3.5, 0.42 * len(kernels) + 2.2), dpi=110)
    cmap = plt.get_cmap("viridis").with_extremes(bad="#dddddd")
    im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, aspect="auto")
    top = np.nanmax(grid) if np.isfinite(grid).any() else 1
    for i in range(len(kernels)):
        for j in range(len(blocks)):
            dark = np.isfinite(grid[i, j]) and grid[i, j] < top * 0.6
            ax.text(j, i, text[i][j], ha="center", va="center", fontsize=6.5, color="white" if dark else "black")
    ax.set_xticks(range(len(blocks)), [f"{a}x{b}" for a, b in blocks], fontsize=7)
    ax.set_yticks(range(len(kernels)), kernels, fontsize=7)
    ax.set_xlabel("block (threads along x by threads along y)")
    ax.set_ylabel("kernel")
    fig.colorbar(im, ax=ax, label=BW_LABEL)
    ax.set_title(f"{run.device['name']}: block-shape sweep, {_case(run)} (grey '-': block not legal for the kernel)",
                 fontsize=9)
    fig.tight_layout()
    return _png(fig)


def size_chart(run: Run) -> bytes:
    """GB/s against working set (read + write bytes), log x, L2 size marked."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=110)
    for name in dict.fromkeys(r.name for r in run.records):
        pts = sorted((r.bytes, r.gbs) for r in run.records if r.name == name and r.gbs)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", ms=3, label=name)
    l2 = run.config.get("l2_bytes") or run.device.get("l2_bytes")
    if l2:
        ax.axvline(l2, color="k", ls="--", lw=1, label=f"L2 = {l2 / 2**20:.0f} MiB")
    ax.axhline(run.device["peak_bandwidth_gbs"], color="grey", ls=":", lw=1, label="theoretical DRAM peak")
    ax.set_xscale("log")
    ax.set_xlabel("working set: bytes read + bytes written (L2 not flushed)")
    ax.set_ylabel(BW_LABEL)
    ax.set_title(f"{run.device['name']}: {run.workload}, bandwidth against size ({run.config.get('dtype', '')}, n x n)",
                 fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.2)
    fig.tight_layout()
    return _png(fig)


def _case_label(r) -> str:
    from .tables import params_text, shape_text

    return " ".join(p for p in (shape_text(r.shape), r.dtype, params_text(r.case_params)) if p)


def bench_bars(run: Run) -> tuple[list[str], list[tuple[str, dict[str, float]]]]:
    """(bar names, [(case label, {name: % of cudaMemcpy})]) of a bench: the public API first,
    then each peer; a name missing from a case was not timed (wrong result, not run, or no
    copy made)."""
    names = ["bwlab"] + [p for p in run.config.get("peers", []) if p not in ("bwlab", "cudaMemcpy")]
    rows = []
    for by in run.by_case().values():
        if "bwlab" in by:
            rows.append((_case_label(by["bwlab"]), {n: by[n].pct_memcpy for n in names if n in by and by[n].timed
                                                    and by[n].pct_memcpy is not None and by[n].moved}))
    return names, rows


def bench_chart(run: Run) -> bytes:
    """One group of horizontal bars per case of a bench: the public API and each peer as % of
    cudaMemcpy of the same bytes in the same case (the line at 100%)."""
    plt = _plt()
    names, rows = bench_bars(run)
    colors = dict(zip(names, ("#17becf", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")))
    bar = 0.8 / len(names)
    height = 0.22 * len(rows) * len(names) + 2.4
    fig, ax = plt.subplots(figsize=(10, height), dpi=110)
    top = max([100.0] + [v for _, vals in rows for v in vals.values()])
    for i, name in enumerate(names):
        ys = [y - 0.4 + (i + 0.5) * bar for y, (_, vals) in enumerate(rows) if name in vals]
        vs = [vals[name] for _, vals in rows if name in vals]
        ax.barh(ys, vs, height=bar, color=colors.get(name, "#bcbd22"), label=name)
        if name == "bwlab":
            for y, v in zip(ys, vs):
                ax.text(v + top * 0.005, y, f"{v:.0f}%", va="center", fontsize=6)
    ax.axvline(100, color="k", ls="--", lw=1, label="cudaMemcpy of the same bytes")
    ax.set_yticks(range(len(rows)), [label for label, _ in rows], fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(0, top * 1.08)
    ax.set_xlabel("% of cudaMemcpy measured in the same case (GB/s counting bytes read + written); "
                  "no bar: not timed", fontsize=8)
    ax.set_title(f"{run.device['name']}: bwlab.{run.workload} against what users would call", fontsize=10)
    ax.grid(True, axis="x", alpha=0.2)
    fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=len(names) + 1, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.6 / height, 1, 1))
    return _png(fig)


def charts_for(run: Run) -> dict[str, bytes]:
    """Every chart that applies to this run: file name -> PNG bytes."""
    from . import roofline

    p = run.procedure
    if p == "ladder":
        return {"ladder.png": ladder_chart(run), "roofline.png": roofline.plot(run)}
    if p == "sweep-blocks":
        return {"heatmap.png": heatmap(run)}
    if p == "sweep-sizes":
        return {"sizes.png": size_chart(run)}
    if p == "bench":
        return {"bench.png": bench_chart(run)}
    return {}


def charts_for_names(run: Run) -> list[str]:
    """The file names charts_for(run) produces (without drawing them)."""
    return {"ladder": ["ladder.png", "roofline.png"], "sweep-blocks": ["heatmap.png"],
            "sweep-sizes": ["sizes.png"], "bench": ["bench.png"]}.get(run.procedure, [])
