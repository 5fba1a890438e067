"""No GPU: registers of the register kernel's tall instantiations of 2 to 4 columns (skinny.cu) on
this tree and on a copy with launch bounds of one block an SM; and in the SASS of skinnyTile's plain
(inner) tall path the order of a thread's 16-byte loads and first shared stores, on this tree and on
a copy whose after_all tests NC (bounded below by the rounds' loop) instead of gp. Uses
../inner-tiles/sass.py's helpers; needs cuobjdump on PATH (PyPI: nvidia-cuda-cuobjdump).
`PYTHONPATH=../../../../src python3 sass.py` from here."""
import importlib.util
from pathlib import Path

from bwlab.core import build
from bwlab.workloads.transpose import plans

spec = importlib.util.spec_from_file_location("inner", Path(__file__).parent.parent / "inner-tiles" / "sass.py")
inner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(inner)

if __name__ == "__main__":
    print(f"NVRTC {build.nvrtc_version()}, sm_90")
    exprs = [plans.skinny_expression(e, c, True) for e in (2, 4, 8, 16) for c in (2, 3, 4)]
    now = build.compile_each(plans.SKINNY, exprs, "sm_90").resources
    inner.SRC = plans.SKINNY
    one = inner.variant(lambda t: t.replace("__launch_bounds__(THREADS, TALL && C <= 4 ? 3 : 1)",
                                            "__launch_bounds__(THREADS, 1)"))
    before = build.compile_each(one, exprs, "sm_90").resources
    print("registers (spilled) of skinny<E,C,true,256>: this tree (three blocks an SM) / one block an SM")
    for x in exprs:
        print(f"  {x:24} {now[x].registers:3d} ({now[x].spills}) / {before[x].registers:3d} ({before[x].spills})")
    inner.SRC = plans.SKINNYTILE
    print("plain path, skinnyTile<4,true>, first 14 of loads (L) and shared stores (S):")
    print("  this tree:             ", inner.plain_path_order(plans.SKINNYTILE, "skinnyTile<4,true>"))
    folded = inner.variant(lambda t: t.replace("(v), gp);", "(v), NC);"))
    print("  after_all tested on NC:", inner.plain_path_order(folded, "skinnyTile<4,true>"))
