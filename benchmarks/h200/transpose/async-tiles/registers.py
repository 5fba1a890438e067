"""Registers and spills of every instantiation of skinnytile.cu the library registers, compiled for
sm_90 without a GPU. `PYTHONPATH=../../../../src python3 registers.py > registers.txt` from this folder."""
from cuda.bindings import nvrtc

from bwlab.core import build
from bwlab.workloads.transpose import plans

if __name__ == "__main__":
    print(f"# skinnytile.cu's registered instantiations, sm_90, NVRTC {'.'.join(map(str, nvrtc.nvrtcVersion()[1:]))}")
    exprs = plans.expressions()[plans.SKINNYTILE]
    res = build.compile_source(plans.SKINNYTILE, exprs, "sm_90").resources
    for e in exprs:
        r = res[e]
        print(f"{e:30} {r.registers:3d} registers, {r.spill_stores} spill stores, {r.spill_loads} spill loads")
