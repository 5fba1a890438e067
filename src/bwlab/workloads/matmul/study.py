"""The coarsening study, read from a variants sweep (`bwlab sweep matmul --variants`): per
configuration its TFLOP/s beside what the compiler gave it (registers per thread, shared
memory, spills) and the occupancy those allow; a heatmap per kernel family; and where more
results per thread stop paying. Reads the run document only (no GPU)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from ...core.table import Column, TableData, num
from . import catalog

# sm_90 allocation rules (the CUDA occupancy calculator's): registers per warp in units of
# 256, shared memory per block in units of 128 bytes plus 1 KiB the driver keeps per block.
REG_UNIT, SMEM_UNIT, SMEM_RESERVED, MAX_BLOCKS = 256, 128, 1024, 32
STOPS = 5.0  # % gain below which more results per thread "stop paying"


@dataclass
class Occupancy:
    blocks: int      # resident blocks per SM
    warps: int       # resident warps per SM
    pct: float       # warps / the SM's maximum, %
    limit: str       # what caps it: "threads", "registers", "shared memory", "blocks"


def occupancy(threads: int, registers: int, smem: int, device: dict) -> Occupancy:
    """Theoretical occupancy of a block of `threads` threads using `registers` per thread and
    `smem` bytes of shared memory (static + dynamic), from the device's attributes."""
    max_warps = device.get("max_threads_per_sm", 2048) // 32
    warps = -(-threads // 32)
    caps = {"threads": max_warps // warps, "blocks": MAX_BLOCKS}
    if registers:
        per_warp = -(-registers * 32 // REG_UNIT) * REG_UNIT
        caps["registers"] = (device.get("regs_per_sm", 65536) // per_warp) // warps
    if smem:
        per_block = -(-smem // SMEM_UNIT) * SMEM_UNIT + SMEM_RESERVED
        caps["shared memory"] = device.get("smem_per_sm", 233472) // per_block
    limit = min(caps, key=lambda k: (caps[k], k != "threads"))
    blocks = caps[limit]
    return Occupancy(blocks, blocks * warps, 100.0 * blocks * warps / max_warps, limit)


@dataclass
class Point:
    name: str
    family: str      # coarse | regBlock | warpTile | sgemm
    tile: str        # the block's tile of C (and BK where it is a choice)
    per_thread: str  # results per thread, as a shape ("1x4", "8x8") or a count ("4")
    results: int
    threads: int
    tflops: Optional[float]
    registers: int
    smem: int        # static + dynamic bytes per block
    spills: int
    occ: Occupancy
    stages: int = 0


def _args(template: str) -> list[int]:
    m = re.search(r"<([^>]*)>", template)
    return [int(v) for v in m.group(1).replace("true", "1").replace("false", "0").split(",")] if m else []


def points(run) -> list[Point]:
    """One point per variant the run timed (or tried), with the catalog's geometry."""
    specs = {k.name: k for k in list(catalog.KERNELS) + list(catalog.variants())}
    out = []
    for r in run.records:
        spec = specs.get(r.name)
        if spec is None or r.kind != "kernel":
            continue
        res = r.resources or {}
        p = _args(spec.template)
        family = spec.template.split("<")[0]
        stages = 0
        if family == "coarse":
            tile, per = f"{p[0]}x{p[0] * p[1]}", f"1x{p[1]}"
        elif family in ("regBlock", "vecBlock"):
            tile, per = f"{p[0]}x{p[1]}", f"{p[3]}x{p[4]}"
        elif family in ("warpTile", "sgemm"):
            tile, per, stages = f"{p[0]}x{p[1]}x{p[2]}", f"{4 * p[5]}x{4 * p[6]}", p[7]
        else:
            tile, per = "x".join(map(str, spec.covers(*spec.block))), "1x1"
        threads = spec.block[0] * spec.block[1]
        smem = res.get("smem_bytes", 0) + getattr(spec, "shared", 0)
        regs = res.get("registers", 0)
        out.append(Point(r.name, family, tile, per, spec.results, threads,
                         r.gflops / 1e3 if r.gflops and r.correct else None, regs, smem,
                         res.get("spill_stores", 0) + res.get("spill_loads", 0),
                         occupancy(threads, regs, smem, run.device), stages))
    return out


def study_table(run) -> TableData:
    t = TableData(f"{run.device['name']}: the coarsening study, {_case(run)}",
                  [Column("kernel", "left"), Column("tile of C", "left"), Column("per thread", "left"),
                   Column("threads"), Column("TFLOP/s"), Column("regs"), Column("smem KiB"), Column("spills"),
                   Column("blocks/SM"), Column("occupancy %"), Column("occupancy set by", "left")],
                  caption="TFLOP/s = 2 M N K / median time; registers, shared memory (static + dynamic) and spills "
                          "from the compiler's report; occupancy: resident warps / the SM's maximum, from those "
                          "and the device's attributes (theoretical)")
    for p in sorted(points(run), key=lambda p: -(p.tflops or 0)):
        t.add(p.name, p.tile, p.per_thread, str(p.threads), num(p.tflops) if p.tflops else "-", str(p.registers),
              f"{p.smem / 1024:.1f}", str(p.spills), str(p.occ.blocks), f"{p.occ.pct:.0f}", p.occ.limit,
              flag="bad" if p.spills else "")
    return t


def stops_paying(run) -> list[str]:
    """Per family and tile: the smallest results-per-thread count that no larger count beats
    by STOPS % or more."""
    lines = []
    groups: dict = {}
    for p in points(run):
        if p.tflops and p.family in ("coarse", "regBlock"):
            key = (p.family, p.tile if p.family == "regBlock" else p.tile.split("x")[0])
            groups.setdefault(key, []).append(p)
    for (family, tile), pts in groups.items():
        best = max(pts, key=lambda p: p.tflops)
        # the fastest shape of each results-per-thread count (1x4, 2x2 and 4x1 are all 4), by count
        per = sorted({p.results: max((q for q in pts if q.results == p.results), key=lambda q: q.tflops)
                      for p in pts}.items())
        # the smallest count that no larger one beats by STOPS % or more
        stop = next((a for i, (_, a) in enumerate(per[:-1])
                     if max(b.tflops for _, b in per[i + 1:]) < a.tflops * (1 + STOPS / 100)), None)
        where = (f"stops paying after {stop.results} per thread ({stop.tflops:.1f} TFLOP/s, {stop.registers} "
                 f"registers, occupancy {stop.occ.pct:.0f}%)" if stop else "still paying at the largest factor")
        what = f"{tile} x {tile} threads" if family == "coarse" else f"{tile} tile"
        lines.append(f"{family}, {what}: best {best.tflops:.1f} TFLOP/s at {best.results} results per thread; {where}")
    return lines


def stops_table(run) -> TableData:
    t = TableData("where more results per thread stop paying", [Column("finding", "left", True)],
                  caption=f"'stops paying': no larger count of results per thread is {STOPS:g}% faster or more")
    for line in stops_paying(run):
        t.add(line)
    return t


def _case(run) -> str:
    return "x".join(map(str, run.config.get("shape", []))) + f" {run.config.get('dtype', '')}"


def heatmap(run) -> bytes:
    """Three panels: the taught kernel (tile x coarsening factor), register blocking (tile x
    results per thread), and every variant's TFLOP/s against its results per thread."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    pts = points(run)
    fig, axes = plt.subplots(1, 3, figsize=(20, 6.4), dpi=110, gridspec_kw={"width_ratios": [1, 1.5, 1.4]},
                             layout="constrained")
    vmax = max([p.tflops or 0 for p in pts] + [1])

    def grid(ax, family, rows_of, cols_of, title, xlabel, ylabel):
        sel = [p for p in pts if p.family == family]
        rows = sorted({rows_of(p) for p in sel}, key=_dims)
        cols = sorted({cols_of(p) for p in sel}, key=_dims)
        z = np.full((len(rows), len(cols)), np.nan)
        for p in sel:
            i, j = rows.index(rows_of(p)), cols.index(cols_of(p))
            z[i, j] = p.tflops if p.tflops else np.nan
            label = f"{p.tflops:.1f}" if p.tflops else "-"
            ax.text(j, i, f"{label}\n{p.registers} regs\nocc {p.occ.pct:.0f}%" + (f"\n{p.spills} B spill" if p.spills
                    else ""), ha="center", va="center", fontsize=7,
                    color="white" if (p.tflops or 0) < 0.6 * vmax else "black")
        im = ax.imshow(z, cmap="viridis", vmin=0, vmax=vmax, aspect="auto")
        ax.set_xticks(range(len(cols)), cols)
        ax.set_yticks(range(len(rows)), rows)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=9)
        return im

    im = grid(axes[0], "coarse", lambda p: p.tile.split("x")[0] + " x " + p.tile.split("x")[0],
              lambda p: str(p.results), "taught coarsening: coarse<TILE, CF>", "coarsening factor CF (results per "
              "thread, along a row)", "threads per block (TILE x TILE)")
    grid(axes[1], "regBlock", lambda p: p.tile, lambda p: p.per_thread, "2-D register blocking: regBlock",
         "results per thread (TM x TN)", "tile of C per block")
    ax = axes[2]
    colors = {"coarse": "#d62728", "regBlock": "#ff7f0e", "warpTile": "#2ca02c", "sgemm": "#1f77b4"}
    for fam, col in colors.items():
        sel = [p for p in pts if p.family == fam and p.tflops]
        if sel:
            ax.scatter([p.results for p in sel], [p.tflops for p in sel], s=[10 + 2 * p.occ.pct for p in sel],
                       color=col, alpha=0.7, label=fam)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("results per thread (coarsening), marker area ~ occupancy")
    ax.set_ylabel("TFLOP/s")
    ax.set_title("every variant: TFLOP/s against results per thread", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.colorbar(im, ax=axes[1], label="TFLOP/s = 2 M N K / median time", shrink=0.9)
    fig.suptitle(f"{run.device['name']}: the coarsening study, {_case(run)} (registers and occupancy from the "
                 "compiler's report and the device's attributes)", fontsize=10)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _dims(text: str):
    return tuple(int(v) for v in re.findall(r"\d+", text))
