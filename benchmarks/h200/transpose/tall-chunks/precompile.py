"""Compile what the probe launches into BWLAB_CACHE (sm_90, in parallel): the register kernel's
tall instantiations and skinnyTile's tall ones, or with `all` every instantiation of skinny.cu
that the library registers (what its GPU tests launch). `PYTHONPATH=<tree>/src python3 precompile.py [all]`."""
import sys

from bwlab.core import build
from bwlab.workloads.transpose import plans

if __name__ == "__main__":
    exprs = [plans.skinny_expression(e, s, True) for e in (4, 8, 16) for s in (2, 3, 4)] + ["skinny<2,3,true,256>"]
    build.compile_each(plans.SKINNY, plans.expressions()[plans.SKINNY] if sys.argv[1:] == ["all"] else exprs, "sm_90")
    build.compile_each(plans.SKINNYTILE, [f"skinnyTile<{e},true>" for e in (4, 8, 16)], "sm_90")
    print("compiled")
