"""Compile skinnytile.cu's instantiations into BWLAB_CACHE (sm_90, in parallel): those the probe
launches, or with `all` every one the library registers (what the skinny tile GPU tests launch).
`PYTHONPATH=<tree>/src python3 precompile.py [all]`."""
import sys

from bwlab.core import build
from bwlab.workloads.transpose import plans

PROBE = ["skinnyWords<1,true>", "skinnyWords<1,true,1>", "skinnyWords<1,true,2>", "skinnyWords<1,true,3>",
         "skinnyWords<2,true>", "skinnyTile<2,true>", "skinnyTile<4,true>", "skinnyTile<8,true>"]

if __name__ == "__main__":
    exprs = plans.expressions()[plans.SKINNYTILE] if sys.argv[1:] == ["all"] else PROBE
    build.compile_each(plans.SKINNYTILE, exprs, "sm_90")
    print(len(exprs), "compiled")
