"""One misaligned uint8 transpose, 16383 x 16389, twice on a tileWholeWords tile named TRxTCxTHREADS (for
Nsight Compute's --launch-skip 1); `old`: the dispatched tile from the folder given second. Run from
the repository root with PYTHONPATH=src."""
import sys
from pathlib import Path

import cupy as cp

from bwlab.workloads.transpose import plans

sys.path.insert(0, str(Path(__file__).parent))
from probe import TILES, runner  # noqa: E402

if __name__ == "__main__":
    name = sys.argv[1]
    shape = (1, 16383, 16389)
    x = cp.random.randint(0, 256, size=shape).astype(cp.uint8)
    y = cp.empty((1, 16389, 16383), cp.uint8)
    if name == "old":
        r = runner(Path(sys.argv[2]) / "whole.cu", TILES[1][0], x, shape)
    else:
        r = runner(plans.WHOLE, next(c for c in TILES[1] if "%dx%dx%d" % c == name), x, shape)
    for _ in range(2):
        r(x.data.ptr, y.data.ptr, cp.cuda.get_current_stream().ptr)
    cp.cuda.Device().synchronize()
    assert bool((y == x.transpose(0, 2, 1)).all())
