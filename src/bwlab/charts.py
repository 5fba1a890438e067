"""PNG charts from run documents (matplotlib, no GPU): the ladder bars, the block-sweep
heatmap, bandwidth against size. Every chart says what GB/s means."""
from __future__ import annotations

from pathlib import Path

from .results import Run

BW_LABEL = "GB/s = (bytes read + bytes written) / median time"


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def ladder_chart(run: Run, path) -> None:
    """Horizontal bars, one per kernel and peer, with the peak, cudaMemcpy and best-copy lines."""
    plt = _plt()
    recs = [r for r in run.records if r.kind != "cpu" and (r.gbs or r.correct is False)]
    fig, ax = plt.subplots(figsize=(10, 0.28 * len(recs) + 1.8), dpi=110)
    ys = range(len(recs))
    for y, r in zip(ys, recs):
        wrong = r.correct is False
        color = "#d62728" if wrong else ("#2ca02c" if r.kind == "peer" else "#1f77b4")
        ax.barh(y, r.gbs or 0, color=color, hatch="//" if wrong else None)
        ax.text((r.gbs or 0) + 20, y, "WRONG: not timed" if wrong else f"{r.gbs:.0f}", va="center", fontsize=7)
    ax.set_yticks(list(ys), [r.name for r in recs], fontsize=7)
    ax.invert_yaxis()
    c = run.ceilings
    for value, label, style in ((c.get("peak_gbs"), "theoretical peak", "-"), (c.get("memcpy_gbs"), "cudaMemcpy", "--"),
                                (c.get("best_copy_gbs"), f"best copy ({c.get('best_copy')})", ":")):
        if value:
            ax.axvline(value, color="k", ls=style, lw=1, label=f"{label} {value:.0f}")
    shape = run.config.get("shape", ["?", "?"])
    ax.set_title(f"{run.device['name']}: transpose ladder, {shape[0]}x{shape[1]} {run.config.get('dtype', '')}",
                 fontsize=10)
    ax.set_xlabel(BW_LABEL + " (blue: bwlab kernels, green: peers, red: wrong)")
    ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def heatmap(run: Run, path) -> None:
    """Kernel x block -> GB/s of a block sweep; skipped blocks grey, wrong ones marked."""
    plt = _plt()
    import numpy as np

    kernels = list(dict.fromkeys(r.name for r in run.records))
    blocks = [tuple(b) for b in run.config["blocks"]]
    grid = np.full((len(kernels), len(blocks)), np.nan)
    text = [["skip"] * len(blocks) for _ in kernels]
    for r in run.records:
        i, j = kernels.index(r.name), blocks.index(tuple(r.block))
        if r.gbs:
            grid[i, j], text[i][j] = r.gbs, f"{r.gbs:.0f}"
        elif r.correct is False:
            text[i][j] = "WRONG"
    fig, ax = plt.subplots(figsize=(1.0 * len(blocks) + 3, 0.42 * len(kernels) + 1.8), dpi=110)
    cmap = plt.get_cmap("viridis").with_extremes(bad="#dddddd")
    im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, aspect="auto")
    for i in range(len(kernels)):
        for j in range(len(blocks)):
            ax.text(j, i, text[i][j], ha="center", va="center", fontsize=6.5,
                    color="white" if np.isfinite(grid[i, j]) and grid[i, j] < np.nanmax(grid) * 0.6 else "black")
    ax.set_xticks(range(len(blocks)), [f"{a}x{b}" for a, b in blocks], fontsize=7)
    ax.set_yticks(range(len(kernels)), kernels, fontsize=7)
    fig.colorbar(im, ax=ax, label=BW_LABEL)
    shape = run.config["shape"]
    ax.set_title(f"{run.device['name']}: block-shape sweep, {shape[0]}x{shape[1]} {run.config['dtype']} "
                 "(grey: block not legal for the kernel)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def size_chart(run: Run, path) -> None:
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
    ax.set_title(f"{run.device['name']}: bandwidth against size ({run.config.get('dtype', '')}, n x n)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def charts_for(run: Run, folder) -> list[Path]:
    """Every chart that applies to this run, written into folder; their paths."""
    from . import roofline

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    kind = run.config.get("kind", "ladder")
    made = []
    if kind == "ladder":
        made += [folder / "ladder.png", folder / "roofline.png"]
        ladder_chart(run, made[0])
        roofline.plot(run, made[1])
    elif kind == "sweep blocks":
        made.append(folder / "heatmap.png")
        heatmap(run, made[0])
    elif kind == "sweep sizes":
        made.append(folder / "sizes.png")
        size_chart(run, made[0])
    return made
