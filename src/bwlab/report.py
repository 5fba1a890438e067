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
    for i, r in enumerate(run.records, 1):
        ok = {True: "yes", False: "[bold red]NO[/]", None: "-"}[r.correct]
        cv = r.cv
        t.add_row(str(i), r.name, r.role, "x".join(map(str, r.block)) if r.block else "-",
                  _f(r.median_ms, "{:.3f}"), _f(None if cv is None else 100 * cv, "{:.1f}"),
                  _f(r.gbs), _f(r.pct_peak), _f(r.pct_memcpy), _f(r.pct_best_copy), ok,
                  "; ".join(r.notes))
    return t


def to_text(*renderables, width: int = 200) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, force_terminal=False)
    for r in renderables:
        console.print(r)
    return buf.getvalue()
