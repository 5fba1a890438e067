"""Roofline: arithmetic intensity, attained bandwidth and FLOP/s against the theoretical and
measured ceilings, and a diagnosis in words. Reads a run document only (no GPU)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .results import Run

NEAR = 80.0      # % of the measured ceiling that counts as "at the roof"
FAR = 60.0       # below this on both resources: neither bounds the kernel
WASTE = 0.8      # useful / DRAM bytes below this: traffic is being wasted
CONFLICTS = 10.0  # bank conflicts per KiB moved above which shared memory is the bottleneck
ZERO_FLOP_X = 0.01  # where FLOP-free kernels are drawn on the log intensity axis


@dataclass
class Verdict:
    bound: str   # "memory" | "compute" | "wasted traffic" | "shared memory" | "latency" | "mixed"
    text: str


def diagnose(pct_bw: float, pct_flops: float, dram_pct: Optional[float] = None,
             useful_ratio: Optional[float] = None, ld_eff: Optional[float] = None,
             st_eff: Optional[float] = None, conflicts_per_kb: Optional[float] = None) -> Verdict:
    """The usual rules. pct_bw / pct_flops: useful bandwidth and FLOP/s as % of the measured
    ceilings; dram_pct: DRAM throughput % of peak (ncu); useful_ratio: useful bytes / DRAM
    bytes (ncu); ld_eff / st_eff: useful bytes per global sector, % (ncu); conflicts_per_kb:
    shared-memory bank conflicts per KiB moved (ncu)."""
    worst_eff = min((e for e in (ld_eff, st_eff) if e is not None), default=None)
    if useful_ratio is not None and useful_ratio < WASTE and (dram_pct or 0) >= FAR:
        return Verdict("wasted traffic", f"DRAM is {dram_pct:.0f}% busy but only {100 * useful_ratio:.0f}% of the "
                       "bytes it moves are the kernel's: re-reads or partly used sectors")
    if worst_eff is not None and worst_eff < 50 and pct_bw < NEAR:
        side = "stores" if st_eff is not None and st_eff == worst_eff else "loads"
        return Verdict("wasted traffic", f"uncoalesced {side}: {worst_eff:.0f}% of each 32-byte sector is used, "
                       "the rest is moved for nothing")
    if conflicts_per_kb is not None and conflicts_per_kb > CONFLICTS and pct_bw < NEAR:
        return Verdict("shared memory", f"shared-memory bank conflicts ({conflicts_per_kb:.0f} per KiB moved) "
                       "serialise the tile's column accesses: pad or swizzle the tile")
    if pct_bw >= NEAR and pct_flops < FAR:
        return Verdict("memory", f"memory-bound at {pct_bw:.0f}% of the measured bandwidth: only fewer bytes "
                       "would make it faster")
    if pct_flops >= NEAR and pct_bw < FAR:
        return Verdict("compute", f"compute-bound at {pct_flops:.0f}% of the FP32 ceiling")
    if pct_bw < FAR and pct_flops < FAR:
        return Verdict("latency", f"latency or launch-configuration bound: {pct_bw:.0f}% of bandwidth and "
                       f"{pct_flops:.0f}% of FP32; more bytes in flight per thread or more warps")
    return Verdict("mixed", f"{pct_bw:.0f}% of bandwidth, {pct_flops:.0f}% of FP32: near neither roof")


@dataclass
class Point:
    name: str
    kind: str
    flops: float
    bytes: float           # useful bytes (read + written)
    dram_bytes: Optional[float]
    intensity: float       # FLOP per DRAM byte (useful bytes when no counters)
    gbs: float
    gflops: float
    pct_bw_peak: float
    pct_bw_measured: float
    pct_flops_peak: float
    pct_flops_measured: Optional[float]
    verdict: Verdict


def ceilings(run: Run) -> dict:
    d, c = run.device, run.ceilings
    return {"bw_peak": d["peak_bandwidth_gbs"], "bw_measured": c.get("memcpy_gbs") or c.get("best_copy_gbs"),
            "flops_peak": d.get("peak_fp32_gflops"), "flops_measured": c.get("fp32_gflops")}


def analyze(run: Run) -> list[Point]:
    ceil = ceilings(run)
    points = []
    for r in run.records:
        if not r.gbs or r.kind == "cpu" or r.correct is False:
            continue
        secs = r.median_ms * 1e-3
        cnt = r.counters or {}
        flops = float(r.flops or 0)
        if cnt and not flops:
            flops = cnt.get("fadd", 0) + cnt.get("fmul", 0) + 2 * cnt.get("ffma", 0)
        dram = (cnt.get("dram_read_bytes", 0) + cnt.get("dram_write_bytes", 0)) or None
        gflops = flops / secs / 1e9
        pct_bw = 100 * r.gbs / ceil["bw_measured"] if ceil["bw_measured"] else 100 * r.gbs / ceil["bw_peak"]
        fm = ceil["flops_measured"] or ceil["flops_peak"]
        pct_fl = 100 * gflops / fm if fm else 0.0
        conflicts = cnt.get("smem_ld_conflicts", 0) + cnt.get("smem_st_conflicts", 0) if cnt else None
        verdict = diagnose(pct_bw, pct_fl, cnt.get("dram_pct"), r.bytes / dram if dram else None,
                           cnt.get("ld_efficiency_pct"), cnt.get("st_efficiency_pct"),
                           conflicts / (r.bytes / 1024) if conflicts is not None else None)
        points.append(Point(r.name, r.kind, flops, r.bytes, dram, flops / (dram or r.bytes), r.gbs, gflops,
                            100 * r.gbs / ceil["bw_peak"], pct_bw,
                            100 * gflops / ceil["flops_peak"] if ceil["flops_peak"] else 0.0,
                            100 * gflops / ceil["flops_measured"] if ceil["flops_measured"] else None, verdict))
    return points


def plot(run: Run, path, title: Optional[str] = None) -> None:
    """Log-log roofline PNG: theoretical and measured roofs, one labelled point per kernel.
    FLOP-free kernels (all of the transpose ladder) sit at I = ZERO_FLOP_X, at the height
    ZERO_FLOP_X x GB/s, so their distance below the slanted roof is their bandwidth gap."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    ceil = ceilings(run)
    pts = analyze(run)
    fig, ax = plt.subplots(figsize=(11, 7), dpi=110)
    xs = np.logspace(-3, 3, 200)
    roofs = [("theoretical", ceil["bw_peak"], ceil["flops_peak"], "-", "#444444"),
             ("measured", ceil["bw_measured"], ceil["flops_measured"] or ceil["flops_peak"], "--", "#1f77b4")]
    for label, bw, fl, ls, col in roofs:
        if not bw or not fl:
            continue
        ax.plot(xs, np.minimum(bw * xs, fl), ls, color=col, lw=2,
                label=f"{label}: {bw:.0f} GB/s, {fl / 1e3:.1f} TFLOP/s FP32")
    zero = sorted((p for p in pts if p.flops == 0), key=lambda p: p.gbs)
    colors = {"kernel": "#d62728", "peer": "#2ca02c"}
    for p in pts:
        x = p.intensity if p.flops else ZERO_FLOP_X
        y = p.gflops if p.flops else ZERO_FLOP_X * p.gbs
        ax.scatter([x], [y], s=28, color=colors.get(p.kind, "k"), zorder=3)
        if p.flops:
            ax.annotate(p.name, (x, y), xytext=(5, 3), textcoords="offset points", fontsize=7)
    if zero:  # labels in a column to the right, spread evenly, with leader lines
        ys = np.logspace(np.log10(ZERO_FLOP_X * zero[0].gbs * 0.25), np.log10(ZERO_FLOP_X * zero[-1].gbs * 3), len(zero))
        for p, ly in zip(zero, ys):
            ax.annotate(f"{p.name} {p.gbs:.0f} GB/s", (ZERO_FLOP_X, ZERO_FLOP_X * p.gbs), xytext=(0.04, ly),
                        textcoords="data", fontsize=6.5, va="center",
                        arrowprops=dict(arrowstyle="-", lw=0.4, color="#999999"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1e-3, 1e3)
    ax.set_xlabel("arithmetic intensity, FLOP per DRAM byte")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(title or f"Roofline, {run.device['name']}: FLOP-free kernels drawn at I = {ZERO_FLOP_X} "
                 f"(height = {ZERO_FLOP_X} x GB/s)", fontsize=10)
    ax.scatter([], [], color=colors["kernel"], label="bwlab kernel")
    ax.scatter([], [], color=colors["peer"], label="peer")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(True, which="both", alpha=0.2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
