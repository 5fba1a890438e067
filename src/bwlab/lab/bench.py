"""`bwlab bench WORKLOAD`: the workload's public API against what users would otherwise call,
over its bench cases, each result checked on the GPU before it is timed. GB/s = (bytes read
+ bytes written) / median time; % memcpy is against cudaMemcpy of the same bytes in the same
case. The workload's goals are evaluated per case; every miss gets a line with its reason."""
from __future__ import annotations

from typing import Callable, Optional

from ..core import ceilings, timing
from ..core.arrays import release_cached_memory
from ..core.results import Record, Run
from ..core.verify import poison
from ..core.workload import Case, Workload
from .common import Log, flusher, new_run, quiet, record, time_into

API = "bwlab"
NO_COPY = 1.5  # faster than this times cudaMemcpy: the peer returned without moving the data
NO_COPY_NOTE = "no copy: returned a view of x (the data did not move)"




def reps_for(nbytes: int, reps: Optional[int]) -> int:
    if reps:
        return reps
    return 100 if nbytes < (1 << 30) else 30 if nbytes < (16 << 30) else 10


def bench_case(w: Workload, case: Case, peers: list[str], reps: Optional[int], warmup: int, l2_bytes: int,
               seed: int, log: Log) -> list[Record]:
    import cupy

    x = w.make_input(case, seed)
    expected = w.reference(case, x)
    nbytes = w.bytes_moved(case)
    flush = flusher(nbytes, l2_bytes)
    n = reps_for(nbytes, reps)
    records = []
    for name in [API, "cudaMemcpy", *peers]:
        rec = record(w, case, name, "api" if name == API else "peer", "peer",
                     "ceiling" if name == "cudaMemcpy" else w.operation)
        records.append(rec)
        log(f"{case.label}: {name}")
        fn = result = out = None
        try:
            if name == "cudaMemcpy":
                src = w.copy_of(x).reshape(-1).view(cupy.uint8)
                if 2 * src.nbytes != nbytes:  # e.g. a backward pass reads two tensors: copy the case's bytes
                    src = cupy.zeros(nbytes // 2, cupy.uint8)
                dst = cupy.empty_like(src)
                fn = ceilings.memcpy(src.data.ptr, dst.data.ptr, src.nbytes)
                rec.correct, rec.check = True, "a copy (not checked)"
            else:
                p = w.peer(name)
                rec.origin = p.origin if name != API else w.explain(x, case)
                rec.precision = p.precision
                why = p.unavailable(case.dtype)
                if why:
                    rec.notes.append(f"skipped: {why}")
                    continue
                out = w.new_output(case, x)
                poison(out)
                fn, result = p.make(x, out, case)
                fn()
                check = w.check(result(), expected)
                rec.correct, rec.check = check.ok, str(check)
                if not check.ok:
                    rec.notes.append("wrong result: not timed")
                    continue
            if case.param("timing") == "wall":  # host-bound: wall clock per call, not GPU events
                from .common import fill_timing

                fill_timing(rec, timing.time_wall(fn, calls=1000, reps=5, warmup=max(warmup, 50)))
                rec.notes.append("wall-clock per call of 1000 back-to-back calls (host work included)")
            else:
                time_into(rec, fn, warmup=warmup, reps=n, flush=flush)
        except NotImplementedError as exc:
            rec.notes.append(f"skipped: {exc}")
        except Exception as exc:  # out of memory, or a peer failing: say so, go on
            rec.correct = None
            oom = "OutOfMemory" in exc.__class__.__name__
            rec.notes.append(f"skipped: does not fit beside the {2 * nbytes / 2**30:.1f} GiB of input and output"
                             if oom else f"skipped: {exc.__class__.__name__}: {str(exc)[:160]}")
        finally:
            fn = result = out = None
            release_cached_memory()
    memcpy = next((r.gbs for r in records if r.name == "cudaMemcpy" and r.gbs), None)
    for r in records:
        if r.gbs and memcpy:
            r.pct_memcpy = 100 * r.gbs / memcpy
            if r.gbs > NO_COPY * memcpy and case.param("timing") != "wall":
                r.notes.append(NO_COPY_NOTE)
    return records


def run_bench(w: Workload, cases: Optional[list[Case]] = None, peers: Optional[list[str]] = None,
              reps: Optional[int] = None, warmup: int = 3, seed: int = 0, log: Log = quiet, command: str = "",
              on_record: Callable[[Run], None] = lambda r: None) -> Run:
    cases = cases if cases is not None else w.bench_cases("main")
    peers = list(w.bench_peers) if peers is None else peers
    run, dev = new_run("bench", w, {"cases": [{"shape": list(c.shape), "dtype": c.dtype, "params": dict(c.params)}
                                              for c in cases], "peers": [API, "cudaMemcpy", *peers], "reps": reps,
                                    "warmup": warmup, "seed": seed, "goals": w.goal_note}, command)
    run.ceilings = {"peak_gbs": dev.peak_bandwidth_gbs}
    misses = []
    try:
        for case in cases:
            release_cached_memory()
            try:
                recs = bench_case(w, case, peers, reps, warmup, dev.l2_bytes, seed, log)
            except Exception as exc:  # the input does not fit: say so, go on
                recs = [record(w, case, API, "api", "peer", w.operation,
                               notes=[f"skipped: {exc.__class__.__name__}: {str(exc)[:160]}"])]
            release_cached_memory()
            run.records.extend(recs)
            for m in w.goals(case, recs):
                api = next((r.origin for r in recs if r.name == API), "")
                misses.append({"shape": list(case.shape), "dtype": case.dtype, "params": dict(case.params),
                               "miss": m, "why": w.why_missed(case, api)})
            run.config["misses"] = misses
            on_record(run)
    except KeyboardInterrupt:
        return run
    peak = dev.peak_bandwidth_gbs
    for r in run.records:
        if r.gbs:
            r.pct_peak = 100 * r.gbs / peak
    run.complete = True
    return run

