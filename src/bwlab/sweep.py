"""Sweeps: every legal block shape per kernel, and bandwidth against working-set size.

Both verify before timing (awkward shapes against NumPy, then the swept shape on the GPU)
and time with the same harness as the ladder. A Ctrl-C ends the sweep early: what was
measured is returned in a run marked incomplete, for the caller to save.
"""
from __future__ import annotations

import datetime as dt
from typing import Callable, Optional

from . import catalog, device, harness, verify
from .launch import Launcher, check_block, grid_for
from .results import Record, Run

DEFAULT_BLOCKS = ((32, 32), (32, 16), (32, 8), (64, 16), (64, 8), (128, 8), (16, 16), (16, 32), (8, 32),
                  (128, 4), (256, 1), (32, 4))
DEFAULT_SIZES = (256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
SIZE_KERNELS = ("copyVec", "naiveCol", "tile32Pad", "tileVec")
Progress = Callable[[str], None]


def default_block_kernels() -> list[str]:
    """Ladder kernels whose block shape is a choice (more than one legal block)."""
    return [k.name for k in catalog.KERNELS if k.args == "matrix" and (k.blocks is None or len(k.blocks) > 1)]


def parse_sizes(text: str) -> list[int]:
    """'256..32768' -> powers of two from 256 to 32768; '1000,3000' -> as given."""
    if ".." in text:
        lo, hi = (int(v) for v in text.split(".."))
        if lo < 1 or hi < lo:
            raise ValueError(f"size range must be low..high with 1 <= low <= high, got {text!r}")
        out, n = [], lo
        while n <= hi:
            out.append(n)
            n *= 2
        return out
    return [int(v) for v in text.split(",") if v.strip()]


def _new_run(kind: str, config: dict, command: str) -> tuple[Run, device.DeviceSpec]:
    dev = device.query()
    run = Run(device=dev.to_dict(), environment=device.environment(dev.index), command=command,
              created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              config={"kind": kind, **config}, complete=False)
    return run, dev


def _measure(launcher, spec, x, out, block, ref, reps, warmup, flush, rec: Record) -> None:
    from .ladder import precheck

    launch, grid, block = launcher.prepare(spec, x, out, block)
    rec.block, rec.grid = list(block), list(grid)
    pre = precheck(launcher, spec, x.dtype.name, block)
    verify.poison(out)
    launch()
    check = pre if not pre.ok else verify.compare(out, ref)
    rec.correct, rec.check = check.ok, str(check)
    if not check.ok:
        rec.notes.append("wrong result: not timed")
        return
    t = harness.time_gpu(launch, warmup=warmup, reps=reps, flush=flush)
    rec.timing, rec.gbs = t.to_dict(), harness.gbs(rec.bytes, t.median_ms)
    if t.noisy:
        rec.notes.append(f"noisy: CV {100 * t.cv:.1f}%")


def _memcpy(run: Run, x, reps, warmup, flush) -> Optional[float]:
    from . import peers

    t = harness.time_gpu(peers.get("cudaMemcpy").make(x), warmup=warmup, reps=reps, flush=flush)
    return harness.gbs(2 * x.nbytes, t.median_ms)


def block_sweep(kernels: Optional[list[str]] = None, blocks=DEFAULT_BLOCKS, shape=(8192, 8192),
                dtype: str = "float32", reps: int = 30, warmup: int = 3, progress: Progress = lambda m: None,
                command: str = "") -> Run:
    import cupy

    names = kernels or default_block_kernels()
    specs = catalog.select(names)
    run, dev = _new_run("sweep blocks", {"shape": list(shape), "dtype": dtype, "reps": reps, "warmup": warmup,
                                         "blocks": [list(b) for b in blocks], "kernels": names}, command)
    rows, cols = shape
    nbytes = 2 * rows * cols * verify.random_host((1, 1), dtype).itemsize
    flush = harness.L2Flusher(dev.l2_bytes) if harness.needs_flush(nbytes, dev.l2_bytes) else None
    run.config["l2_flush"] = flush is not None
    launcher = Launcher(dev.arch)
    x = verify.random_device(shape, dtype, 0)
    ref_t = cupy.ascontiguousarray(x.T)
    try:
        run.ceilings = {"memcpy_gbs": _memcpy(run, x, reps, warmup, flush), "peak_gbs": dev.peak_bandwidth_gbs}
        for spec in specs:
            out = cupy.empty(spec.output_shape(rows, cols), dtype=x.dtype)
            for block in blocks:
                rec = Record(spec.name, "kernel", spec.family, spec.role, [rows, cols], dtype, nbytes,
                             block=list(block), origin=spec.origin)
                run.records.append(rec)
                try:
                    check_block(spec, block)
                    grid_for(spec, rows, cols, block, x.dtype.itemsize)
                except ValueError as exc:
                    rec.notes.append(f"skipped: {str(exc).split(': ', 1)[-1]}")
                    continue
                progress(f"{spec.name} block {block[0]}x{block[1]}")
                _measure(launcher, spec, x, out, block, ref_t if spec.transposes else x, reps, warmup, flush, rec)
            del out
    except KeyboardInterrupt:
        return _finish(run, complete=False)
    return _finish(run)


def size_sweep(kernels=SIZE_KERNELS, sizes=DEFAULT_SIZES, dtype: str = "float32", reps: int = 30,
               warmup: int = 3, progress: Progress = lambda m: None, command: str = "") -> Run:
    """n x n for each n; L2 is NOT flushed: the point is to see where the cache ends."""
    import cupy

    specs = catalog.select(list(kernels))
    run, dev = _new_run("sweep sizes", {"sizes": list(sizes), "dtype": dtype, "reps": reps, "warmup": warmup,
                                        "kernels": list(kernels), "l2_flush": False}, command)
    run.config["l2_bytes"] = dev.l2_bytes
    run.ceilings = {"peak_gbs": dev.peak_bandwidth_gbs}
    launcher = Launcher(dev.arch)
    try:
        for n in sizes:
            x = verify.random_device((n, n), dtype, n)
            ref_t = cupy.ascontiguousarray(x.T)
            nbytes = 2 * x.nbytes
            for spec in specs:
                rec = Record(spec.name, "kernel", spec.family, spec.role, [n, n], dtype, nbytes, origin=spec.origin)
                run.records.append(rec)
                progress(f"{spec.name} at {n}x{n}")
                out = cupy.empty((n, n), dtype=x.dtype)
                _measure(launcher, spec, x, out, spec.block, ref_t if spec.transposes else x, reps, warmup, None, rec)
            mc = Record("cudaMemcpy", "peer", "peer", "ceiling", [n, n], dtype, nbytes)
            mc.gbs, mc.correct = _memcpy(run, x, reps, warmup, None), True
            run.records.append(mc)
            del x, ref_t
            cupy.get_default_memory_pool().free_all_blocks()
    except KeyboardInterrupt:
        return _finish(run, complete=False)
    return _finish(run)


def _finish(run: Run, complete: bool = True) -> Run:
    run.complete = complete
    memcpy = run.ceilings.get("memcpy_gbs")
    for r in run.records:
        if r.gbs:
            r.pct_peak = 100 * r.gbs / run.device["peak_bandwidth_gbs"]
            if memcpy:
                r.pct_memcpy = 100 * r.gbs / memcpy
    return run


def best_blocks(run: Run) -> dict[str, tuple[list[int], float, float]]:
    """kernel -> (fastest block, its GB/s, speed-up over the kernel's slowest legal block)."""
    out = {}
    for name in dict.fromkeys(r.name for r in run.records):
        timed = [r for r in run.records if r.name == name and r.gbs]
        if timed:
            best, worst = max(timed, key=lambda r: r.gbs), min(timed, key=lambda r: r.gbs)
            out[name] = (best.block, best.gbs, best.gbs / worst.gbs)
    return out
