"""One misaligned uint8 transpose, 16383 x 16389, twice on a named kernel (for Nsight Compute's
--launch-skip 1): `words` (tileWholeWords, the tile before) or `runs` (tileWholeRuns on 128-byte
spans, runs of 4 tiles). Run from the repository root with PYTHONPATH=src."""
import sys

import cupy as cp

from bwlab.workloads.transpose import plans

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from probe import runner  # noqa: E402

if __name__ == "__main__":
    kind = sys.argv[1]
    shape = (1, 16383, 16389)
    x = cp.random.randint(0, 256, size=shape).astype(cp.uint8)
    y = cp.empty((1, 16389, 16383), cp.uint8)
    if kind == "words":
        cfg = plans.WORDS_CANDIDATES[1][0]
        r = runner("words", plans.WHOLE, plans.tile_expression(1, cfg, "tileWholeWords"), cfg[2], x, shape)
    else:
        plans.RUNS_TILES = 4
        cfg = plans.RUNS_CANDIDATES[1][0]
        r = runner("runs", plans.WHOLE, plans.tile_expression(1, cfg, "tileWholeRuns"), cfg[2], x, shape)
    for _ in range(2):
        r(x.data.ptr, y.data.ptr, cp.cuda.get_current_stream().ptr)
    cp.cuda.Device().synchronize()
    assert bool((y == x.transpose(0, 2, 1)).all())
