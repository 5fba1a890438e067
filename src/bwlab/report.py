"""Rendering: rich tables for the terminal and plain-text tables for results folders.

Everything here reads a results.Run (or a DeviceSpec), never the GPU.
"""
from __future__ import annotations

import io
from typing import Optional

from rich.console import Console
from rich.table import Table

from .results import Run

BW_NOTE = "GB/s = (bytes read + bytes written) / median time, 10^9 bytes/s"


def _f(v: Optional[float], fmt: str = "{:.0f}") -> str:
    return "-" if v is None else fmt.format(v)


def device_table(d: dict, ceilings: Optional[dict] = None) -> Table:
    t = Table(title=f"{d['name']} ({d['arch']})", show_header=False)
    t.add_column("what", style="bold")
    t.add_column("value")
    mib = 1 << 20
    rows = [
        ("compute capability", f"{d['cc'][0]}.{d['cc'][1]}"),
        ("SMs", str(d["sm_count"])),
        ("SM clock (max)", f"{d['sm_clock_khz'] / 1e3:.0f} MHz"),
        ("memory clock", f"{d['mem_clock_khz'] / 1e3:.0f} MHz"),
        ("memory bus", f"{d['bus_width_bits']} bit"),
        ("memory", f"{d['total_mem_bytes'] / (1 << 30):.1f} GiB"),
        ("L2 cache", f"{d['l2_bytes'] / mib:.0f} MiB"),
        ("shared memory / block (opt-in)", f"{d['smem_per_block'] // 1024} KiB ({d['smem_per_block_optin'] // 1024} KiB)"),
        ("shared memory / SM", f"{d['smem_per_sm'] // 1024} KiB"),
        ("registers / block, / SM", f"{d['regs_per_block']}, {d['regs_per_sm']}"),
        ("threads / block, / SM", f"{d['max_threads_per_block']}, {d['max_threads_per_sm']}"),
        ("peak bandwidth (mem clock x 2 x bus / 8)", f"{d['peak_bandwidth_gbs']:.0f} GB/s"),
        ("peak FP32 (SMs x lanes x 2 x clock)", _f(d.get("peak_fp32_gflops"), "{:.0f} GFLOP/s")),
        ("peak FP64", _f(d.get("peak_fp64_gflops"), "{:.0f} GFLOP/s")),
    ]
    for name, gbs in (ceilings or {}).items():
        pct = "" if gbs is None else f"  ({100 * gbs / d['peak_bandwidth_gbs']:.0f}% of peak)"
        rows.append((f"measured: {name}", _f(gbs, "{:.0f} GB/s") + pct))
    for k, v in rows:
        t.add_row(k, v)
    return t


def kernels_table(specs, resources: dict) -> Table:
    """resources: kernel name -> build.Resources of its default instantiation (or None)."""
    t = Table(title="bwlab kernel catalog", caption="registers / shared memory / spills from ptxas -v")
    for col in ("kernel", "role", "block", "regs", "smem B", "spills"):
        t.add_column(col, no_wrap=True)
    t.add_column("lesson (origin; source; fix)", overflow="fold", ratio=1)
    for s in specs:
        r = resources.get(s.name)
        where = f"{s.origin}; {s.family}.cu" + (f"; fixed: {s.fixed}" if s.fixed else "")
        t.add_row(s.name, s.role, f"{s.block[0]}x{s.block[1]}",
                  "-" if r is None else str(r.registers), "-" if r is None else str(r.smem_bytes),
                  "-" if r is None else str(r.spill_stores + r.spill_loads),
                  f"{s.lesson}\n[dim]{where}[/]")
    return t


def ladder_table(run: Run) -> Table:
    c = run.config
    ceil = run.ceilings
    title = (f"{run.device['name']}: {c['shape'][0]}x{c['shape'][1]} {c['dtype']}, "
             + ("INCOMPLETE (interrupted), " if not run.complete else "") +
             f"median of {c['reps']} after {c['warmup']} warm-up"
             + (", L2 flushed" if c.get("l2_flush") else ""))
    caption = (f"{BW_NOTE}. peak {_f(ceil.get('peak_gbs'))} GB/s (attributes); cudaMemcpy "
               f"{_f(ceil.get('memcpy_gbs'))} GB/s; best copy kernel {ceil.get('best_copy') or '-'} "
               f"{_f(ceil.get('best_copy_gbs'))} GB/s, all in this run")
    t = Table(title=title, caption=caption)
    for col, just in (("#", "right"), ("kernel / peer", "left"), ("role", "left"), ("block", "left"),
                      ("ms", "right"), ("CV%", "right"), ("GB/s", "right"), ("% peak", "right"),
                      ("% memcpy", "right"), ("% best copy", "right"), ("correct", "center"),
                      ("notes", "left")):
        t.add_column(col, justify=just, overflow="fold")
    profiled = any(r.counters for r in run.records)
    counter_cols = (("ld/st sect/req", None), ("DRAM %", "dram_pct"), ("smem confl", None)) if profiled else ()
    for head, _ in counter_cols:
        t.add_column(head, justify="right")
    for i, r in enumerate(run.records, 1):
        ok = {True: "yes", False: "[bold red]NO[/]", None: "-"}[r.correct]
        cv = r.cv
        extra = []
        if profiled:
            c = r.counters or {}
            sect = (f"{c['ld_sectors_per_req']:.0f}/{c['st_sectors_per_req']:.0f}"
                    if "ld_sectors_per_req" in c and "st_sectors_per_req" in c else "-")
            confl = c.get("smem_ld_conflicts", 0) + c.get("smem_st_conflicts", 0) if c else None
            extra = [sect, _f(c.get("dram_pct")), _f(confl, "{:.3g}")]
        t.add_row(str(i), r.name, r.role, "x".join(map(str, r.block)) if r.block else "-",
                  _f(r.median_ms, "{:.3f}"), _f(None if cv is None else 100 * cv, "{:.1f}"),
                  _f(r.gbs), _f(r.pct_peak), _f(r.pct_memcpy), _f(r.pct_best_copy), ok,
                  "; ".join(r.notes), *extra)
    return t


def to_text(*renderables, width: int = 200) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, force_terminal=False)
    for r in renderables:
        console.print(r)
    return buf.getvalue()


def _shape_text(shape) -> str:
    return "x".join(f"{v:,}".replace(",", "_") if v >= 1_000_000 else str(v) for v in shape)


def bench_table(run: Run) -> Table:
    """One row per (shape, dtype) of a `bwlab bench transpose` run: GB/s side by side."""
    peers = [p for p in run.config["peers"] if p != "bwlab"]
    t = Table(title=f"{run.device['name']}: bwlab.transpose vs what users would call",
              caption=f"{BW_NOTE}. % memcpy: against cudaMemcpy of the same bytes in the same case. "
                      "x torch: bwlab / torch. '*' = goal missed (see misses); '-' = not run (notes in JSON)")
    for col in ("shape", "dtype", "bwlab kernel"):
        t.add_column(col, no_wrap=True)
    for col in ("bwlab", "% memcpy", *peers, "x torch"):
        t.add_column(col, justify="right")
    cases: dict[tuple, dict] = {}
    for r in run.records:
        cases.setdefault((tuple(r.shape), r.dtype), {})[r.name] = r
    missed = {(tuple(m["shape"]), m["dtype"]) for m in run.config.get("misses", [])}
    for (shape, dtype), by in cases.items():
        bw = by.get("bwlab")
        if bw is None:
            continue
        wrong = bw.correct is False
        torch = by.get("torch")
        ratio = bw.gbs / torch.gbs if bw.gbs and torch and torch.gbs else None
        star = "*" if (shape, dtype) in missed else ""
        kernel = bw.origin.split(":")[0] if bw.origin else "-"
        t.add_row(_shape_text(shape), dtype, kernel,
                  "[bold red]WRONG[/]" if wrong else _f(bw.gbs) + star, _f(bw.pct_memcpy, "{:.1f}"),
                  *[_f(by[p].gbs) if p in by else "-" for p in peers], _f(ratio, "{:.1f}"))
    return t


def misses_table(run: Run) -> Table:
    t = Table(title="goals missed (input >= 256 MiB)", caption="none" if not run.config.get("misses") else None)
    for col in ("shape", "dtype", "miss", "why"):
        t.add_column(col, overflow="fold")
    for m in run.config.get("misses", []):
        t.add_row(_shape_text(m["shape"]), m["dtype"], m["miss"], m["why"])
    return t


def tune_table(plan: dict, measurements: list[dict]) -> Table:
    t = Table(title="bwlab tune: tile configurations of tileAny", caption=BW_NOTE)
    for col in ("bytes/elem", "tile", "threads", "shape", "GB/s", "CV%", "correct", "chosen"):
        t.add_column(col, justify="right")
    for m in measurements:
        e, cfg = m["itemsize"], tuple(m["tile"])
        t.add_row(str(e), f"{cfg[0]}x{cfg[1]}", str(cfg[2]), "x".join(map(str, m["shape"])),
                  _f(m.get("gbs")), _f(100 * m["cv"] if m.get("cv") is not None else None, "{:.1f}"),
                  "yes" if m.get("correct") else "[bold red]NO[/]", "<-" if plan.get(e) == cfg else "")
    return t


COUNTER_COLUMNS = (("ld sect/req", "ld_sectors_per_req", "{:.1f}"), ("st sect/req", "st_sectors_per_req", "{:.1f}"),
                   ("ld eff%", "ld_efficiency_pct", "{:.0f}"), ("st eff%", "st_efficiency_pct", "{:.0f}"),
                   ("smem ld confl", "smem_ld_conflicts", "{:.0f}"), ("smem st confl", "smem_st_conflicts", "{:.0f}"),
                   ("DRAM %", "dram_pct", "{:.0f}"), ("occup %", "occupancy_pct", "{:.0f}"),
                   ("regs", "registers", "{:.0f}"), ("smem B", "smem_per_block", "{:.0f}"),
                   ("ncu us", "duration_ns", "{:.1f}"))


def counters_table(run: Run) -> Table:
    """Nsight Compute counters per kernel (records that carry them)."""
    c = run.config
    shape = c.get("shape", ["?", "?"])
    t = Table(title=f"{run.device['name']}: Nsight Compute counters, {shape[0]}x{shape[1]} {c.get('dtype', '')} "
                    "(ncu --clock-control none)",
              caption="sect/req: 32-byte sectors per warp request (4 = a coalesced 4-byte access, 32 = one per "
                      "lane); eff%: useful bytes per sector; confl: shared-memory bank conflicts")
    t.add_column("kernel", no_wrap=True)
    for head, _, _ in COUNTER_COLUMNS:
        t.add_column(head, justify="right")
    for r in run.records:
        if not r.counters:
            continue
        vals = []
        for _, key, fmt in COUNTER_COLUMNS:
            v = r.counters.get(key)
            vals.append(_f(v / 1e3 if key == "duration_ns" and v is not None else v, fmt))
        t.add_row(r.name, *vals)
    return t


def roofline_table(points) -> Table:
    t = Table(title="roofline: where each kernel sits, and what bounds it",
              caption="I = FLOP per DRAM byte (ncu bytes when profiled, else useful bytes); % of theoretical peak "
                      "/ of the ceiling measured in the same run")
    for col in ("kernel", "FLOP", "I", "GB/s", "% peak", "% meas.", "GFLOP/s", "% FP32 peak", "% FP32 meas.",
                "bound", "diagnosis"):
        t.add_column(col, justify="left" if col in ("kernel", "bound", "diagnosis") else "right",
                     overflow="fold", no_wrap=col in ("kernel", "bound"))
    for p in points:
        t.add_row(p.name, _f(p.flops, "{:.3g}"), _f(p.intensity, "{:.3g}"), _f(p.gbs), _f(p.pct_bw_peak),
                  _f(p.pct_bw_measured), _f(p.gflops, "{:.3g}"), _f(p.pct_flops_peak, "{:.2g}"),
                  _f(p.pct_flops_measured, "{:.2g}"), p.verdict.bound, p.verdict.text)
    return t


def plain(cell) -> str:
    """A table cell (str or rich renderable) as plain text, markup removed."""
    from rich.text import Text

    if isinstance(cell, Text):
        return cell.plain
    return Text.from_markup(str(cell)).plain if cell is not None else ""


def sweep_table(run: Run) -> Table:
    """A block or size sweep: one row per (kernel, config)."""
    sizes = run.config.get("kind") == "sweep sizes"
    t = Table(title=f"{run.device['name']}: {'size' if sizes else 'block-shape'} sweep"
                    + ("" if run.complete else " (INCOMPLETE)"),
              caption=f"{BW_NOTE}; % memcpy against cudaMemcpy in the same run"
                      + ("; L2 not flushed" if sizes else ""))
    for col in ("kernel", "size" if sizes else "block", "working set MiB" if sizes else "grid", "GB/s",
                "% peak", "% memcpy", "correct", "notes"):
        t.add_column(col, justify="left" if col in ("kernel", "notes") else "right", overflow="fold")
    for r in run.records:
        where = "x".join(map(str, r.shape)) if sizes else ("x".join(map(str, r.block)) if r.block else "-")
        extra = f"{r.bytes / 2**20:.1f}" if sizes else ("x".join(map(str, r.grid)) if r.grid else "-")
        ok = {True: "yes", False: "[bold red]NO[/]", None: "-"}[r.correct]
        t.add_row(r.name, where, extra, _f(r.gbs), _f(r.pct_peak), _f(r.pct_memcpy), ok, "; ".join(r.notes))
    return t
