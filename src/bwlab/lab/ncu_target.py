"""The child that bwlab runs under ncu: each kernel once, the profiler open around that
launch only (ncu --profile-from-start off), in the order given. Each kernel is checked at
the workload's awkward cases first (outside the profiled range), so counters never describe
a wrong kernel."""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workload", required=True)
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--shape", required=True)
    ap.add_argument("--dtype", required=True)
    a = ap.parse_args(argv)
    import cupy

    from ..workloads import get
    from .ladder import precheck

    w = get(a.workload)
    case = w.parse_case(a.shape, a.dtype)
    x = w.make_input(case, 0)
    rt = cupy.cuda.runtime
    for name in a.kernels.split(","):
        spec = w.kernel(name)
        check = precheck(w, spec, case, spec.block)
        if check is not None and not check.ok:
            print(f"bwlab: {name} is wrong ({check}); not profiled", file=sys.stderr)
            return 2
        prepared = w.prepare(spec, x, w.new_output(case, x, spec.copies), case)
        prepared.launch()  # warm: module loaded, caches in their usual state
        cupy.cuda.Device().synchronize()
        rt.profilerStart()
        prepared.launch()
        cupy.cuda.Device().synchronize()
        rt.profilerStop()
        del prepared
    return 0


if __name__ == "__main__":
    sys.exit(main())
