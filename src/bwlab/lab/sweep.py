"""Sweeps over any workload: every legal block shape per kernel, bandwidth against
working-set size, and the variants of a kernel's template parameters.

Each configuration is verified before it is timed (the workload's awkward cases, then the
swept case), with the same harness as the ladder. A Ctrl-C ends the sweep early: what was
measured is returned in a run marked incomplete, for the caller to save.
"""
from __future__ import annotations

from typing import Optional

from ..core import ceilings, launch, timing
from ..core.results import Run
from ..core.verify import poison
from ..core.workload import Case, KernelSpec, Workload
from .common import Log, fill_percentages, flusher, new_run, quiet, record, time_into
from .ladder import precheck, select

DEFAULT_BLOCKS = ((32, 32), (32, 16), (32, 8), (64, 16), (64, 8), (128, 8), (16, 16), (16, 32), (8, 32),
                  (128, 4), (256, 1), (32, 4))
DEFAULT_SIZES = (256, 512, 1024, 2048, 4096, 8192, 16384, 32768)


def block_choice_kernels(w: Workload) -> list[str]:
    """Ladder kernels whose block shape is a choice (more than one legal block)."""
    return [k.name for k in w.kernels() if k.role != "ceiling" and (k.blocks is None or len(k.blocks) > 1)]


def parse_sizes(text: str) -> list[int]:
    """'256..32768' -> powers of two from 256 to 32768; '1000,3000' -> as given."""
    try:
        if ".." in text:
            lo, hi = (int(v) for v in text.split(".."))
            if lo < 1 or hi < lo:
                raise ValueError
            out, n = [], lo
            while n <= hi:
                out.append(n)
                n *= 2
            return out
        sizes = [int(v) for v in text.split(",") if v.strip()]
        if not sizes or min(sizes) < 1:
            raise ValueError
        return sizes
    except ValueError:
        raise ValueError(f"sizes must be low..high (powers of two, 1 <= low <= high) or a list like "
                         f"1000,3000; got {text!r}") from None


def _measure(w: Workload, spec: KernelSpec, case: Case, x, expected, block, reps, warmup, flush, rec,
             checked_small: dict) -> None:
    out = w.new_output(case, x, spec.copies)
    prepared = w.prepare(spec, x, out, case, block)
    rec.block, rec.grid = list(prepared.block), list(prepared.grid)
    key = (spec.name, tuple(prepared.block))
    if key not in checked_small:  # the awkward cases once per (kernel, block)
        checked_small[key] = precheck(w, spec, case, prepared.block)
    pre = checked_small[key]
    poison(out)
    prepared.launch()
    check = pre if pre is not None and not pre.ok else w.check(out, expected)
    rec.correct, rec.check = check.ok, str(check)
    if not check.ok:
        rec.notes.append("wrong result: not timed")
        return
    time_into(rec, prepared.launch, warmup=warmup, reps=reps, flush=flush)


def _memcpy_gbs(x, reps, warmup, flush) -> float:
    import cupy

    src = x.reshape(-1).view(cupy.uint8)
    dst = cupy.empty_like(src)
    t = timing.time_gpu(ceilings.memcpy(src.data.ptr, dst.data.ptr, src.nbytes), warmup=warmup, reps=reps,
                        flush=flush)
    return timing.gbs(2 * src.nbytes, t.median_ms)


def _configs_sweep(procedure: str, w: Workload, specs_blocks, case: Case, reps: int, warmup: int,
                   progress: Log, command: str, config: dict) -> Run:
    """Time each (kernel, block) in specs_blocks at one case."""
    run, dev = new_run(procedure, w, {"shape": list(case.shape), "dtype": case.dtype, "reps": reps,
                                      "warmup": warmup, **config}, command)
    flush = flusher(w.bytes_moved(case), dev.l2_bytes)
    run.config["l2_flush"] = flush is not None
    for spec, _ in specs_blocks:
        launch.register(spec.source, spec.expressions())
    x = w.make_input(case, 0)
    expected = w.reference(case, x)
    checked_small: dict = {}
    try:
        run.ceilings = {"memcpy_gbs": _memcpy_gbs(x, reps, warmup, flush), "peak_gbs": dev.peak_bandwidth_gbs}
        for spec, block in specs_blocks:
            rec = record(w, case, spec.name, "kernel", spec.family, spec.role, block=list(block), origin=spec.origin,
                         lesson=spec.lesson)
            run.records.append(rec)
            try:
                spec.check_block(block)
            except ValueError as exc:
                rec.notes.append(f"skipped: {str(exc).split(': ', 1)[-1]}")
                continue
            progress(f"{spec.name} block {block[0]}x{block[1]}")
            try:
                _measure(w, spec, case, x, w.copy_of(x) if spec.copies else expected, block, reps, warmup,
                         flush, rec, checked_small)
                rec.resources = _resources(spec, tuple(rec.block or block), case.dtype, dev.arch)
            except ValueError as exc:  # refused at this shape (a grid limit)
                rec.notes.append(f"skipped: {str(exc).split(': ', 1)[-1]}")
    except KeyboardInterrupt:
        return _finish(run, complete=False)
    return _finish(run)


def _resources(spec: KernelSpec, block, dtype: str, arch: str) -> Optional[dict]:
    """The compiler's report for the instantiation a record ran (registers, shared memory, spills)."""
    from dataclasses import asdict

    res = launch.build_for(spec.source, arch).resources.get(spec.expression(dtype, block))
    return asdict(res) if res is not None else None


def block_sweep(w: Workload, kernels: Optional[list[str]] = None, blocks=DEFAULT_BLOCKS,
                case: Optional[Case] = None, reps: int = 30, warmup: int = 3, progress: Log = quiet,
                command: str = "") -> Run:
    names = kernels or block_choice_kernels(w)
    specs = select(w.kernels(), names, "kernel")
    case = case or w.size_case(8192, w.dtypes[0])
    return _configs_sweep("sweep-blocks", w, [(s, b) for s in specs for b in blocks], case, reps, warmup,
                          progress, command, {"blocks": [list(b) for b in blocks], "kernels": names})


def variants_sweep(w: Workload, case: Optional[Case] = None, reps: int = 30, warmup: int = 3,
                   progress: Log = quiet, command: str = "") -> Run:
    specs = list(w.variants())
    if not specs:
        raise ValueError(f"{w.name} declares no kernel variants to sweep")
    case = case or w.default_case()
    return _configs_sweep("sweep-variants", w, [(s, s.block) for s in specs], case, reps, warmup, progress,
                          command, {"variants": len(specs)})


def size_sweep(w: Workload, kernels: Optional[list[str]] = None, sizes=DEFAULT_SIZES, dtype: Optional[str] = None,
               reps: int = 30, warmup: int = 3, progress: Log = quiet, command: str = "") -> Run:
    """n x n for each n; L2 is NOT flushed: the point is to see where the cache ends."""
    import cupy

    names = kernels or list(w.size_kernels)
    specs = select(w.kernels(), names, "kernel")
    dtype = dtype or w.dtypes[0]
    run, dev = new_run("sweep-sizes", w, {"sizes": list(sizes), "dtype": dtype, "reps": reps, "warmup": warmup,
                                          "kernels": names, "l2_flush": False, "l2_bytes": dev_l2()}, command)
    run.ceilings = {"peak_gbs": dev.peak_bandwidth_gbs}
    for spec in specs:
        launch.register(spec.source, spec.expressions())
    try:
        for n in sizes:
            case = w.size_case(n, dtype)
            x = w.make_input(case, n)
            expected = w.reference(case, x)
            checked_small: dict = {}
            for spec in specs:
                rec = record(w, case, spec.name, "kernel", spec.family, spec.role, origin=spec.origin)
                run.records.append(rec)
                progress(f"{spec.name} at {case.label}")
                _measure(w, spec, case, x, w.copy_of(x) if spec.copies else expected, spec.block, reps, warmup,
                         None, rec, checked_small)
            mc = record(w, case, "cudaMemcpy", "peer", "peer", "ceiling")
            mc.gbs, mc.correct = _memcpy_gbs(x, reps, warmup, None), True
            run.records.append(mc)
            del x, expected
            cupy.get_default_memory_pool().free_all_blocks()
    except KeyboardInterrupt:
        return _finish(run, complete=False)
    return _finish(run)


def dev_l2() -> int:
    from ..core.device import query

    return query().l2_bytes


def _finish(run: Run, complete: bool = True) -> Run:
    run.complete = complete
    if run.procedure == "sweep-sizes":  # each size against its own cudaMemcpy
        memcpy = {tuple(r.shape): r.gbs for r in run.records if r.name == "cudaMemcpy"}
        fill_percentages(run, lambda r: memcpy.get(tuple(r.shape)))
    else:
        fill_percentages(run)
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
