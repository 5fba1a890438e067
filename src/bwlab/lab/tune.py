"""`bwlab tune WORKLOAD`: time every candidate configuration of the workload's tunable
kernels on this GPU (each checked first, at small awkward cases and at the timed case) and
keep the fastest per key in a plan the workload's public API reads."""
from __future__ import annotations

from ..core import timing
from ..core.verify import poison
from ..core.workload import Workload
from .common import Log, quiet


def run_tune(w: Workload, reps: int = 30, warmup: int = 3, log: Log = quiet) -> tuple[dict, list[dict]]:
    """(best candidate per key, one measurement dict per candidate)."""
    import cupy

    groups = w.tune_groups()
    if not groups:
        raise ValueError(f"{w.name} has nothing to tune")
    best, rows = {}, []
    for g in groups:
        x = w.make_input(g.case, seed=1)
        expected = w.reference(g.case, x)
        out = w.new_output(g.case, x)
        top = None
        for cand in g.candidates:
            m = {"key": g.key, "candidate": list(cand) if isinstance(cand, tuple) else cand,
                 "what": g.describe(cand), "case": g.case.label, "bytes": w.bytes_moved(g.case)}
            rows.append(m)
            log(f"{g.key}: {g.describe(cand)}")
            check = None
            for small in g.check_cases:
                sx = w.make_input(small, seed=2)
                so = w.new_output(small, sx)
                poison(so)
                w_make = g.make(cand, sx, so)
                w_make()
                check = w.check(so, w.reference(small, sx))
                if not check.ok:
                    break
            run = g.make(cand, x, out)
            if check is None or check.ok:
                poison(out)
                run()
                check = w.check(out, expected)
            m["correct"], m["check"] = check.ok, str(check)
            if not check.ok:
                continue
            t = timing.time_gpu(run, warmup=warmup, reps=reps)
            m["median_ms"], m["gbs"], m["cv"] = t.median_ms, timing.gbs(m["bytes"], t.median_ms), t.cv
            if top is None or m["gbs"] > top["gbs"]:
                top = m
        if top is not None:
            best[g.key] = top["candidate"]
        del x, out, expected
        cupy.get_default_memory_pool().free_all_blocks()
    return best, rows
