"""Compile every TALL instantiation of skinnytile.cu (skinnyTile and skinnyWords) into BWLAB_CACHE
(sm_90, in parallel). `PYTHONPATH=<tree>/src python3 precompile.py`."""
from bwlab.core import build
from bwlab.workloads.transpose import plans

if __name__ == "__main__":
    exprs = [x for x in plans.expressions()[plans.SKINNYTILE] if ",true" in x]
    build.compile_each(plans.SKINNYTILE, exprs, "sm_90")
    print(len(exprs), "compiled")
