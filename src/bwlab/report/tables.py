"""The tables of every procedure, built from a results document as plain TableData (the
renderers in text.py and document.py draw them). A workload may add its own tables."""
from __future__ import annotations

from typing import Optional

from ..core.results import Run, params_key
from ..core.table import Column, TableData, count, ms, num, pct, ratio
from ..core.workload import COPY_ROLES

BW_NOTE = "GB/s = (bytes read + bytes written) / median time, 10^9 bytes/s"
C = Column
L = lambda h, long=False: Column(h, "left", long)  # noqa: E731


def shape_text(shape) -> str:
    return "x".join(f"{v:_}" if v >= 1_000_000 else str(v) for v in shape)


def _ok(correct: Optional[bool]) -> str:
    return {True: "yes", False: "NO", None: "-"}[correct]


def device_table(d: dict, ceilings: Optional[dict] = None) -> TableData:
    t = TableData(f"{d['name']} ({d['arch']})", [L("what"), L("value")])
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
        ("peak bandwidth (mem clock x 2 x bus / 8)", f"{num(d['peak_bandwidth_gbs'])} GB/s"),
        ("peak FP32 (SMs x lanes x 2 x clock)", f"{num(d.get('peak_fp32_gflops'))} GFLOP/s"),
        ("peak FP64", f"{num(d.get('peak_fp64_gflops'))} GFLOP/s"),
    ]
    for name, gbs in (ceilings or {}).items():
        share = "" if gbs is None else f" ({100 * gbs / d['peak_bandwidth_gbs']:.0f}% of peak)"
        rows.append((f"measured: {name}", f"{num(gbs)} GB/s{share}"))
    for k, v in rows:
        t.add(k, v)
    return t


def kernels_table(entries) -> TableData:
    """entries: (workload name, KernelSpec, Resources of its default instantiation or None)."""
    t = TableData("bwlab kernels", [L("kernel"), L("workload"), L("role"), L("block"), C("regs"), C("smem B"),
                                    C("spills"), L("lesson (origin; source file; what was fixed)", True)],
                  caption="registers / shared memory / spills from the compiler's report (ptxas -v)")
    for wname, s, r in entries:
        where = f"{s.origin}; {s.family}.cu" + (f"; fixed: {s.fixed}" if s.fixed else "")
        t.add(s.name, wname, s.role, f"{s.block[0]}x{s.block[1]}", "-" if r is None else r.registers,
              "-" if r is None else r.smem_bytes, "-" if r is None else r.spills, f"{s.lesson} ({where})")
    return t


def _case_text(c: dict) -> str:
    params = "".join(f", {k}={v}" for k, v in (c.get("params") or {}).items())
    return f"{shape_text(c['shape'])} {c['dtype']}{params}"


def ladder_table(run: Run) -> TableData:
    c, ceil = run.config, run.ceilings
    title = (f"{run.device['name']}: {run.workload} ladder, {_case_text(c)}, "
             + ("INCOMPLETE (interrupted), " if not run.complete else "")
             + f"median of {c['reps']} after {c['warmup']} warm-up" + (", L2 flushed" if c.get("l2_flush") else ""))
    caption = (f"{BW_NOTE}. Peak {num(ceil.get('peak_gbs'))} GB/s (from the device's attributes); cudaMemcpy "
               f"{num(ceil.get('memcpy_gbs'))} GB/s; best copy kernel {ceil.get('best_copy') or '-'} "
               f"{num(ceil.get('best_copy_gbs'))} GB/s, all measured in this run")
    flops = any(r.flops for r in run.records)
    profiled = any(r.counters for r in run.records)
    cols = [L("kernel / peer"), L("role"), L("block"), C("ms"), C("CV%"), C("GB/s")]
    cols += [C("GFLOP/s")] if flops else []
    cols += [C("% peak"), C("% memcpy"), C("% best copy"), L("correct")]
    cols += [C("ld/st sect/req"), C("DRAM %"), C("smem confl")] if profiled else []
    cols += [L("notes", True)]
    t = TableData(title, cols, caption=caption)
    for r in run.records:
        cv = r.cv
        cells = [r.name, r.role, "x".join(map(str, r.block)) if r.block else "-", ms(r.median_ms),
                 pct(None if cv is None else 100 * cv), num(r.gbs)]
        cells += [num(r.gflops) if r.role not in COPY_ROLES else "-"] if flops else []  # a copy does no FLOPs
        cells += [pct(r.pct_peak), pct(r.pct_memcpy), pct(r.pct_best_copy), _ok(r.correct)]
        if profiled:
            k = r.counters or {}
            sect = (f"{k['ld_sectors_per_req']:.0f}/{k['st_sectors_per_req']:.0f}"
                    if "ld_sectors_per_req" in k and "st_sectors_per_req" in k else "-")
            confl = k.get("smem_ld_conflicts", 0) + k.get("smem_st_conflicts", 0) if k else None
            cells += [sect, num(k.get("dram_pct")), count(confl)]
        cells.append("; ".join(r.notes))
        t.add(*cells, flag="bad" if r.correct is False else "")
    return t


def bench_table(run: Run) -> TableData:
    """One row per case of a bench: the API and every peer in GB/s, side by side."""
    peers = [p for p in run.config["peers"] if p != "bwlab"]
    t = TableData(f"{run.device['name']}: bwlab.{run.workload} against what users would call"
                  + ("" if run.complete else " (INCOMPLETE)"),
                  [L("shape"), L("dtype"), L("bwlab runs"), C("bwlab"), C("% memcpy"), *[C(p) for p in peers],
                   C("x torch")],
                  caption=f"{BW_NOTE}. % memcpy: against cudaMemcpy of the same bytes in the same case. "
                          "x torch: bwlab / torch. '*': a goal missed (listed below); '-': not run (see the JSON); "
                          "'!': returned a view without moving the data (not compared)")
    # a miss names its case's parameters (older files: shape and dtype only, matching every such case)
    missed = {(tuple(m["shape"]), m["dtype"], params_key(m["params"]) if "params" in m else None)
              for m in run.config.get("misses", [])}
    for (shape, dtype, params), by in run.by_case().items():
        bw = by.get("bwlab")
        if bw is None:
            continue
        torch = by.get("torch")
        moved = torch is not None and torch.gbs and torch.moved
        star = "*" if {(shape, dtype, params), (shape, dtype, None)} & missed else ""
        what = shape_text(shape) + "".join(f" {v}" for k, v in params if k == "view")
        t.add(what, dtype, bw.origin.split(":")[0] if bw.origin else "-",
              "WRONG" if bw.correct is False else num(bw.gbs) + star, pct(bw.pct_memcpy),
              *[(num(by[p].gbs) + ("" if by[p].moved else "!"))
                if p in by else "-" for p in peers],
              ratio(bw.gbs / torch.gbs if bw.gbs and moved else None),
              flag="bad" if bw.correct is False else "")
    return t


def params_text(params: tuple) -> str:
    """A case's parameters in words: "dim 1 log", "dim -1 backward"."""
    return " ".join(k if v is True else str(v) if k == "op" else f"{k} {v}" for k, v in params if v is not False)


def misses_table(run: Run) -> TableData:
    goals = run.config.get("goals", "")
    t = TableData("goals missed", [L("case"), L("dtype"), L("miss", True), L("why", True)],
                  caption=(goals + ". " if goals else "") + ("none missed" if not run.config.get("misses") else ""))
    for m in run.config.get("misses", []):
        case = " ".join(p for p in (shape_text(m["shape"]), params_text(params_key(m.get("params") or {}))) if p)
        t.add(case, m["dtype"], m["miss"], m["why"])
    return t


def tune_table(best: dict, measurements: list[dict]) -> TableData:
    t = TableData("bwlab tune: candidate configurations", [L("key"), L("candidate"), L("case"), C("GB/s"), C("CV%"),
                                                           L("correct"), L("chosen")], caption=BW_NOTE)
    for m in measurements:
        chosen = best.get(m["key"]) == m["candidate"]
        key = " ".join(map(str, m["key"])) if isinstance(m["key"], (tuple, list)) else m["key"]
        t.add(key, m["what"], m["case"], num(m.get("gbs")),
              pct(100 * m["cv"] if m.get("cv") is not None else None), _ok(m.get("correct")), "<-" if chosen else "",
              flag="bad" if m.get("correct") is False else "")
    return t


COUNTER_COLUMNS = (("ld sect/req", "ld_sectors_per_req", "{:.1f}"), ("st sect/req", "st_sectors_per_req", "{:.1f}"),
                   ("ld eff%", "ld_efficiency_pct", "{:.0f}"), ("st eff%", "st_efficiency_pct", "{:.0f}"),
                   ("smem ld confl", "smem_ld_conflicts", None), ("smem st confl", "smem_st_conflicts", None),
                   ("DRAM %", "dram_pct", "{:.0f}"), ("occup %", "occupancy_pct", "{:.0f}"),
                   ("regs", "registers", "{:.0f}"), ("smem B", "smem_per_block", "{:.0f}"),
                   ("ncu us", "duration_ns", "{:.1f}"))


def counters_table(run: Run) -> TableData:
    """Nsight Compute counters per kernel (records that carry them)."""
    t = TableData(f"{run.device['name']}: Nsight Compute counters, {_case_text(run.config)} "
                  "(ncu --clock-control none)",
                  [L("kernel")] + [C(h) for h, _, _ in COUNTER_COLUMNS],
                  caption="sect/req: 32-byte sectors per warp request (4 = a coalesced 4-byte access, 32 = one per "
                          "lane); eff%: useful bytes per sector; confl: shared-memory bank conflicts")
    for r in run.records:
        if not r.counters:
            continue
        cells = []
        for _, key, fmt in COUNTER_COLUMNS:
            v = r.counters.get(key)
            if key == "duration_ns" and v is not None:
                v = v / 1e3
            cells.append("-" if v is None else count(v) if fmt is None else fmt.format(v))
        t.add(r.name, *cells)
    return t


def roofline_table(points) -> TableData:
    flops = any(p.flops for p in points)
    cols = [L("kernel"), C("GB/s"), C("% peak"), C("% meas.")]
    cols += [C("FLOP"), C("I"), C("I ideal"), C("GFLOP/s"), C("% FP32 peak"), C("% FP32 meas.")] if flops else []
    cols += [L("bound"), L("diagnosis", True)]
    caption = ("% of the theoretical peak / of the ceiling measured in the same run" +
               ("; I = FLOP per DRAM byte (profiled bytes when counters exist, else the ideal bytes); I ideal = "
                "FLOP per useful byte (read + written once)" if flops else
                "; no kernel here does floating-point work, so only the bandwidth roof applies"))
    t = TableData("roofline: where each kernel sits, and what bounds it", cols, caption=caption)
    for p in points:
        cells = [p.name, num(p.gbs), pct(p.pct_bw_peak), pct(p.pct_bw_measured)]
        if flops and p.flops:
            cells += [count(p.flops), f"{p.intensity:.3g}", f"{p.ideal_intensity:.3g}", num(p.gflops),
                      pct(p.pct_flops_peak),
                      pct(p.pct_flops_measured)]
        elif flops:  # a copy among kernels that compute
            cells += ["-"] * 6
        cells += [p.verdict.bound, p.verdict.text]
        t.add(*cells)
    return t


def sweep_table(run: Run) -> TableData:
    """A block, size or variants sweep: one row per (kernel, configuration)."""
    sizes = run.procedure == "sweep-sizes"
    what = {"sweep-sizes": "size", "sweep-blocks": "block-shape", "sweep-variants": "variants"}[run.procedure]
    t = TableData(f"{run.device['name']}: {run.workload} {what} sweep" + ("" if run.complete else " (INCOMPLETE)"),
                  [L("kernel"), L("size" if sizes else "block"), C("working set MiB" if sizes else "grid"),
                   C("GB/s"), C("% peak"), C("% memcpy"), L("correct"), L("notes", True)],
                  caption=f"{BW_NOTE}; % memcpy against cudaMemcpy in the same run"
                          + ("; L2 not flushed" if sizes else ""))
    for r in run.records:
        where = shape_text(r.shape) if sizes else ("x".join(map(str, r.block)) if r.block else "-")
        extra = f"{r.bytes / 2**20:.1f}" if sizes else ("x".join(map(str, r.grid)) if r.grid else "-")
        t.add(r.name, where, extra, num(r.gbs), pct(r.pct_peak), pct(r.pct_memcpy), _ok(r.correct),
              "; ".join(r.notes), flag="bad" if r.correct is False else "")
    return t


def best_blocks_lines(run: Run) -> list[str]:
    from ..lab.sweep import best_blocks

    return [f"{k}: fastest block {b[0]}x{b[1]} at {gbs:.0f} GB/s, {gain:.2f}x its slowest legal block"
            for k, (b, gbs, gain) in best_blocks(run).items()]


def tables_for(run: Run) -> list[TableData]:
    """Every table that describes this run, in reading order: the procedure's, then the workload's."""
    from . import roofline

    out = [device_table(run.device)]
    p = run.procedure
    if p == "ladder":
        out.append(ladder_table(run))
        if any(r.counters for r in run.records):
            out.append(counters_table(run))
        out.append(roofline_table(roofline.analyze(run)))
    elif p == "bench":
        out += [bench_table(run), misses_table(run)]
    elif p == "profile":
        out.append(counters_table(run))
    elif p.startswith("sweep-"):
        out.append(sweep_table(run))
    try:
        from ..workloads import get

        out += get(run.workload).tables(run)
    except ValueError:
        pass  # a workload this version does not know: the generic tables only
    return out
