"""Roofline: arithmetic intensity, attained bandwidth and FLOP/s against the theoretical and
measured ceilings, and a diagnosis in words. Reads a run document only (no GPU)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from ..core.results import Run
from ..core.workload import COPY_ROLES

NEAR = 80.0      # % of the measured ceiling that counts as "at the roof"
FAR = 60.0       # below this on both resources: neither bounds the kernel
WASTE = 0.8      # useful / DRAM bytes below this: traffic is being wasted
CONFLICTS = 10.0  # bank conflicts per KiB moved above which shared memory is the bottleneck
EXTRA_FLOPS = 1.25  # executed / useful FLOPs above this: floating-point work is being wasted
FMA_CONFLICTS = 0.1  # bank conflicts per warp-wide FMA above which shared memory holds the FMAs back


@dataclass
class Verdict:
    bound: str   # "memory" | "compute" | "wasted traffic" | "wasted compute" | "shared memory" | "latency" | "mixed"
    text: str


def diagnose(pct_bw: float, pct_flops: float, dram_pct: Optional[float] = None,
             useful_ratio: Optional[float] = None, ld_eff: Optional[float] = None,
             st_eff: Optional[float] = None, conflicts_per_kb: Optional[float] = None,
             flop_ratio: Optional[float] = None, intensity: Optional[float] = None,
             ridge: Optional[float] = None, conflicts_per_fma: Optional[float] = None) -> Verdict:
    """The usual rules. pct_bw / pct_flops: useful bandwidth and FLOP/s as % of the measured
    ceilings; dram_pct: DRAM throughput % of peak (ncu); useful_ratio: useful bytes / DRAM
    bytes (ncu); ld_eff / st_eff: useful bytes per global sector, % (ncu); conflicts_per_kb:
    shared-memory bank conflicts per KiB moved (ncu); flop_ratio: FLOPs executed (ncu) / the
    algorithm's FLOPs; intensity: FLOP per DRAM byte; ridge: the intensity where the bandwidth
    roof meets the FP32 roof; conflicts_per_fma: bank conflicts per warp-wide FMA instruction
    (ncu). A kernel right of the ridge (or, without counters, nearer the
    FP32 roof than the bandwidth roof) is on the compute side: the memory rules do not apply."""
    worst_eff = min((e for e in (ld_eff, st_eff) if e is not None), default=None)
    if pct_flops >= NEAR:  # at the FP32 roof, whatever its traffic looks like (a matmul re-reads tiles)
        return Verdict("compute", f"compute-bound at {pct_flops:.0f}% of the FP32 ceiling")
    if flop_ratio is not None and flop_ratio > EXTRA_FLOPS and pct_flops >= pct_bw:
        return Verdict("wasted compute", f"{pct_flops:.0f}% of FP32 against {pct_bw:.0f}% of bandwidth, but it "
                       f"executes {flop_ratio:.1f}x the FLOPs the algorithm needs: recomputation or redundant work; "
                       "compute less (keep what can be kept)")
    compute_side = intensity >= ridge if intensity is not None and ridge else pct_flops > pct_bw
    if compute_side:
        where = (f"right of the ridge (I = {intensity:.3g} FLOP/B, ridge {ridge:.3g})" if intensity is not None
                 and ridge else f"{pct_flops:.0f}% of FP32 against {pct_bw:.0f}% of bandwidth")
        if conflicts_per_fma is not None and conflicts_per_fma > FMA_CONFLICTS:
            return Verdict("shared memory", f"compute side, {where}, at {pct_flops:.0f}% of the FP32 ceiling: "
                           f"shared-memory bank conflicts ({conflicts_per_fma:.2f} per warp FMA) stall the operand "
                           "reads; pad or transpose the tiles, read them as float4")
        return Verdict("latency", f"compute side, {where}, but at {pct_flops:.0f}% of the FP32 ceiling: the FMAs "
                       "are not issued fast enough (issue or latency bound); more independent FMAs per thread "
                       "(register blocking), fewer shared-memory loads per FMA, copies overlapped with the FMAs")
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
    if pct_bw < FAR and pct_flops < FAR:
        return Verdict("latency", f"latency or launch-configuration bound: {pct_bw:.0f}% of bandwidth and "
                       f"{pct_flops:.0f}% of FP32; bandwidth is the nearer roof but far off, so memory latency is "
                       "not hidden: more bytes in flight per thread or more warps")
    return Verdict("mixed", f"{pct_bw:.0f}% of bandwidth, {pct_flops:.0f}% of FP32: near neither roof")


@dataclass
class Point:
    name: str
    kind: str
    flops: float           # the algorithm's FLOPs (executed FLOPs from the counters if it declares none)
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
    ideal_intensity: float = 0.0        # FLOP per useful byte: what an ideal kernel would move
    flop_ratio: Optional[float] = None  # FLOPs executed (counters) / the algorithm's
    workload: str = ""


def ceilings(run: Run) -> dict:
    """The roofs: theoretical (attributes) and measured (cudaMemcpy or the best copy; FMA kernel)."""
    d, c = run.device, run.ceilings
    return {"bw_peak": d["peak_bandwidth_gbs"], "bw_measured": c.get("memcpy_gbs") or c.get("best_copy_gbs"),
            "flops_peak": d.get("peak_fp32_gflops"), "flops_measured": c.get("fp32_gflops")}


def ridge(ceil: dict) -> Optional[float]:
    """The intensity (FLOP/B) where the bandwidth roof meets the FP32 roof (measured if both were)."""
    bw = ceil["bw_measured"] or ceil["bw_peak"]
    fl = ceil["flops_measured"] or ceil["flops_peak"]
    return fl / bw if bw and fl else None


def analyze(run: Run, ceil: Optional[dict] = None) -> list[Point]:
    """Every timed, correct record as a point; ceil: the roofs to judge against (default: the run's)."""
    ceil = ceil or ceilings(run)
    rdg = ridge(ceil)
    points = []
    for r in run.records:
        if not r.gbs or r.kind == "cpu" or r.correct is False or r.median_ms is None:
            continue
        secs = r.median_ms * 1e-3
        cnt = r.counters or {}
        executed = cnt.get("fadd", 0) + cnt.get("fmul", 0) + 2 * cnt.get("ffma", 0) if cnt else 0
        # a copy does no FLOPs (runs saved before records said so carry the case's on their ceilings)
        flops = 0.0 if r.role in COPY_ROLES else float(r.flops or 0) or float(executed)
        flop_ratio = executed / r.flops if executed and r.flops else None
        dram = (cnt.get("dram_read_bytes", 0) + cnt.get("dram_write_bytes", 0)) or None
        gflops = flops / secs / 1e9
        pct_bw = 100 * r.gbs / ceil["bw_measured"] if ceil["bw_measured"] else 100 * r.gbs / ceil["bw_peak"]
        fm = ceil["flops_measured"] or ceil["flops_peak"]
        pct_fl = 100 * gflops / fm if fm else 0.0
        intensity = flops / (dram or r.bytes)
        conflicts = cnt.get("smem_ld_conflicts", 0) + cnt.get("smem_st_conflicts", 0) if cnt else None
        if r.precision:
            verdict = Verdict("other precision", f"computes in {r.precision} ({gflops / 1e3:.3g} TFLOP/s), so the "
                              "FP32 roof does not bound it")
        elif ceil["flops_peak"] and gflops > ceil["flops_peak"]:  # a run saved before records said so
            verdict = Verdict("other precision", f"{gflops / 1e3:.3g} TFLOP/s, above the FP32 peak of "
                              f"{ceil['flops_peak'] / 1e3:.3g}: not FP32 arithmetic (tensor cores, another "
                              "precision), so the FP32 roof does not bound it")
        else:
            verdict = diagnose(pct_bw, pct_fl, cnt.get("dram_pct"), r.bytes / dram if dram else None,
                               cnt.get("ld_efficiency_pct"), cnt.get("st_efficiency_pct"),
                               conflicts / (r.bytes / 1024) if conflicts is not None else None,
                               flop_ratio, intensity if dram else None, rdg if dram else None,
                               conflicts / (cnt["ffma"] / 32) if conflicts is not None and cnt.get("ffma") else None)
        points.append(Point(r.name, r.kind, flops, r.bytes, dram, intensity, r.gbs, gflops,
                            100 * r.gbs / ceil["bw_peak"], pct_bw,
                            100 * gflops / ceil["flops_peak"] if ceil["flops_peak"] else 0.0,
                            100 * gflops / ceil["flops_measured"] if ceil["flops_measured"] else None, verdict,
                            flops / r.bytes if r.bytes else 0.0, flop_ratio, r.workload or run.workload))
    return points


BOUND_COLORS = {"memory": "#2ca02c", "compute": "#1f77b4", "wasted traffic": "#d62728",
                "wasted compute": "#e377c2", "shared memory": "#9467bd", "latency": "#ff7f0e", "mixed": "#8c564b",
                "other precision": "#7f7f7f"}


def combine(runs: Sequence[Run]) -> tuple[dict, list[Point]]:
    """The roofs (from the runs' device; each measured ceiling the highest any run measured: a
    run whose case is small measures its copy below what the memory delivers) and every run's
    points judged against them. ValueError if the runs come from different GPUs."""
    names = {r.device.get("name") for r in runs}
    if len(names) > 1:
        raise ValueError(f"the runs come from different GPUs ({', '.join(sorted(map(str, names)))}): one roofline "
                         "needs one device")
    ceil = ceilings(runs[0])
    for r in runs[1:]:
        c = ceilings(r)
        for key in ("bw_measured", "flops_measured"):
            ceil[key] = max((v for v in (ceil[key], c[key]) if v), default=None)
    pts = [p for r in runs for p in analyze(r, ceil)]
    if len({r.workload for r in runs}) > 1:
        for p in pts:
            p.name = f"{p.workload}: {p.name}"
    return ceil, pts


BOUND_MARKERS = ("o", "s", "^", "D", "v", "P")


def plot(run: Run | Sequence[Run], path=None, title: Optional[str] = None) -> bytes:
    """The roofline as PNG bytes (also written to path if given), of one run or of several
    runs on one GPU (say a matmul ladder beside a transpose ladder). Left: the log-log
    roofline for kernels that do floating-point work, a marker shape per workload; where
    counters give the DRAM bytes, a filled marker at I = FLOP / DRAM bytes and a hollow one
    at the ideal I = FLOP / useful bytes, joined. Right: every kernel's attained bandwidth
    against the bandwidth roofs, coloured by its diagnosis (FLOP-free kernels have I = 0, so
    their whole story is their distance below the bandwidth roof)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    runs = [run] if isinstance(run, Run) else list(run)
    ceil, pts = combine(runs)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(15, 7), dpi=110, gridspec_kw={"width_ratios": [1.1, 1.25]})
    flop_pts = [p for p in pts if p.flops]
    ivals = [v for p in flop_pts for v in (p.intensity, p.ideal_intensity) if v > 0]
    xs = np.logspace(np.log10(min(ivals + [1.0]) / 4), np.log10(max(ivals + [100.0]) * 4), 200)
    for label, bw, fl, ls, col in (("theoretical", ceil["bw_peak"], ceil["flops_peak"], "-", "#444444"),
                                   ("measured", ceil["bw_measured"], ceil["flops_measured"] or ceil["flops_peak"],
                                    "--", "#1f77b4")):
        if bw and fl:
            ax.plot(xs, np.minimum(bw * xs, fl), ls, color=col, lw=2,
                    label=f"{label}: {bw:.0f} GB/s, {fl / 1e3:.1f} TFLOP/s FP32")
    marker = {w: BOUND_MARKERS[i % len(BOUND_MARKERS)] for i, w in enumerate(dict.fromkeys(p.workload for p in pts))}
    for p in flop_pts:
        col = BOUND_COLORS.get(p.verdict.bound, "k")
        if p.dram_bytes and p.ideal_intensity:
            ax.plot([p.ideal_intensity, p.intensity], [p.gflops, p.gflops], ":", color=col, lw=1, zorder=2)
            ax.scatter([p.ideal_intensity], [p.gflops], s=30, facecolors="none", edgecolors=col, zorder=3,
                       marker=marker[p.workload])
        ax.scatter([p.intensity], [p.gflops], s=30, color=col, zorder=3, marker=marker[p.workload])
        ax.annotate(p.name, (p.intensity, p.gflops), xytext=(5, 3), textcoords="offset points", fontsize=6.5)
    if any(p.dram_bytes for p in flop_pts):
        ax.scatter([], [], s=30, color="#777777", label="filled: I = FLOP / DRAM bytes (ncu)")
        ax.scatter([], [], s=30, facecolors="none", edgecolors="#777777", label="hollow: ideal I = FLOP / useful bytes")
    if len(marker) > 1:
        for w, m in marker.items():
            ax.scatter([], [], s=30, color="#777777", marker=m, label=w)
    if not flop_pts:
        ax.text(0.03, 0.97, "no kernel in this run does floating-point work:\ntheir bandwidth is on the right",
                transform=ax.transAxes, ha="left", va="top", fontsize=9, color="#555555")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity I, FLOP per DRAM byte")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("roofline (FP32)", fontsize=10)
    ax.legend(loc="lower right", fontsize=7)
    ax.grid(True, which="both", alpha=0.2)

    order = sorted(pts, key=lambda p: p.gbs)
    x = np.arange(len(order))
    bx.scatter(x, [p.gbs for p in order], s=36, zorder=3, color=[BOUND_COLORS.get(p.verdict.bound, "k") for p in order])
    for value, label, style in ((ceil["bw_peak"], "theoretical peak", "-"),
                                (ceil["bw_measured"], "cudaMemcpy (measured)", "--")):
        if value:
            bx.axhline(value, color="#444444", ls=style, lw=1)
            bx.text(-0.4, value, f" {label} {value:.0f}", va="bottom", fontsize=7)
    bx.set_xticks(x, [p.name for p in order], rotation=60, ha="right", fontsize=7)
    bx.set_xlim(-0.6, max(len(order), 1) - 0.4)
    bx.set_ylim(0, 1.12 * max([ceil["bw_peak"] or 0] + [p.gbs for p in order]))
    bx.set_ylabel("GB/s = (bytes read + bytes written) / median time")
    bx.set_title("attained bandwidth against the bandwidth roof, coloured by diagnosis", fontsize=10)
    for bound, col in BOUND_COLORS.items():
        if any(p.verdict.bound == bound for p in order):
            bx.scatter([], [], color=col, label=bound)
    bx.legend(loc="lower right", fontsize=7, title="bound (diagnosis)", title_fontsize=7)
    bx.grid(True, axis="y", alpha=0.2)
    fig.suptitle(title or (f"{runs[0].device['name']}: {runs[0].workload} {runs[0].procedure}, {_case(runs[0])}"
                           if len(runs) == 1 else f"{runs[0].device['name']}: "
                           + ", ".join(f"{r.workload} {_case(r)}" for r in runs)), fontsize=11)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    data = buf.getvalue()
    if path is not None:
        from ..core.files import write_bytes_atomic

        write_bytes_atomic(path, data)
    return data


def _case(run: Run) -> str:
    c = run.config
    return f"{'x'.join(map(str, c.get('shape', [])))} {c.get('dtype', '')}".strip()
