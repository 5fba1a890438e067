"""The child that `bwlab profile` runs under ncu: each kernel once, the profiler open around
that launch only (ncu --profile-from-start off), in the order given. Each kernel is checked
bit-exact first (outside the profiled range), so counters never describe a wrong kernel."""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--shape", default="8192x8192")
    ap.add_argument("--dtype", default="float32")
    a = ap.parse_args(argv)
    import cupy

    from . import catalog, verify
    from .ladder import precheck
    from .launch import Launcher

    rows, cols = (int(v) for v in a.shape.split("x"))
    launcher = Launcher()
    x = verify.random_device((rows, cols), a.dtype, 0)
    rt = cupy.cuda.runtime
    for name in a.kernels.split(","):
        spec = catalog.get(name)
        check = precheck(launcher, spec, a.dtype, spec.block)
        if not check.ok:
            print(f"bwlab-profile: {name} is wrong ({check}); not profiled", file=sys.stderr)
            return 2
        out = cupy.empty(spec.output_shape(rows, cols), dtype=x.dtype)
        launch, _, _ = launcher.prepare(spec, x, out)
        launch()  # warm: module loaded, caches in their usual state
        cupy.cuda.Device().synchronize()
        rt.profilerStart()
        launch()
        cupy.cuda.Device().synchronize()
        rt.profilerStop()
        del out
    return 0


if __name__ == "__main__":
    sys.exit(main())
