"""What every procedure shares: a new results document, timing one record, and turning
times into bandwidth and percentages of the ceilings measured in the same run."""
from __future__ import annotations

import datetime as dt
from typing import Callable, Optional

from ..core import device, timing
from ..core.results import Record, Run
from ..core.workload import COPY_ROLES, Case, Workload

Log = Callable[[str], None]


def quiet(_: str) -> None:
    pass


def new_run(procedure: str, w: Optional[Workload], config: dict, command: str) -> tuple[Run, device.DeviceSpec]:
    dev = device.query()
    run = Run(device=dev.to_dict(), environment=device.environment(dev.index), command=command,
              created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              config={"procedure": procedure, "workload": w.name if w else "", **config}, complete=False)
    return run, dev


def record(w: Workload, case: Case, name: str, kind: str, family: str, role: str, **kw) -> Record:
    """A record of the case's bytes; its FLOPs too, except for a copy (a ceiling, bound or floor)."""
    return Record(name, kind, family, role, list(case.shape), case.dtype, w.bytes_moved(case), workload=w.name,
                  params=dict(case.params), flops=0 if role in COPY_ROLES else w.flops(case), **kw)


def time_into(rec: Record, fn, *, warmup: int, reps: int, flush=None) -> None:
    """Time fn with the GPU harness into rec (bandwidth and FLOP/s from rec's bytes and FLOPs)."""
    t = timing.time_gpu(fn, warmup=warmup, reps=reps, flush=flush)
    fill_timing(rec, t)


def fill_timing(rec: Record, t: timing.Timing) -> None:
    rec.timing, rec.gbs = t.to_dict(), timing.gbs(rec.bytes, t.median_ms)
    if rec.flops:
        rec.gflops = rec.flops / (t.median_ms * 1e-3) / 1e9
    if t.noisy:
        rec.notes.append(f"noisy: CV {100 * t.cv:.1f}%")


def fill_percentages(run: Run, memcpy_of=lambda r: None) -> None:
    """% of the theoretical peak, of cudaMemcpy and of the best copy kernel, per record.
    memcpy_of(record) gives the cudaMemcpy GB/s of that record's case (default: the run's)."""
    peak = run.device["peak_bandwidth_gbs"]
    memcpy = run.ceilings.get("memcpy_gbs")
    best = run.ceilings.get("best_copy_gbs")
    for r in run.records:
        if r.gbs is None:
            continue
        r.pct_peak = 100 * r.gbs / peak
        m = memcpy_of(r) or memcpy
        r.pct_memcpy = 100 * r.gbs / m if m else None
        r.pct_best_copy = 100 * r.gbs / best if best else None


def flusher(nbytes: int, l2_bytes: int):
    """An L2 flush between repetitions when the working set could partly stay in L2."""
    return timing.L2Flusher(l2_bytes) if timing.needs_flush(nbytes, l2_bytes) else None


def after_run(run: Run, index: int) -> None:
    """The clocks under load, next to the idle ones read at the start."""
    after = device.nvidia_smi("clocks.sm,clocks.mem,temperature.gpu", index)
    if after:
        run.environment["after_run"] = dict(zip(("sm_clock_mhz", "mem_clock_mhz", "temperature_c"), after))
