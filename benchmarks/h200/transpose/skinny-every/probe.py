"""skinnyWords' two forms forced on every tall uint8 short side from 17 to 64 columns (256 MiB,
rows misaligned): the tile copied through registers (on words_rlog's tile) and copied in by
cp.async on each tile of 8 to 72 KiB, beside the public API's dispatch. Each output, poisoned
first, is compared with CuPy's transpose, then timed beside a device copy of the same bytes
(measure() of ../async-tiles/probe.py). From this folder: `PYTHONPATH=../../../../src python3 probe.py [ROUND]`."""
import sys

sys.path.insert(0, "../async-tiles")
from probe import free, long_side, measure  # noqa: E402

import cupy  # noqa: E402

from bwlab.core import verify  # noqa: E402
from bwlab.workloads.transpose import plans  # noqa: E402

ORIGINAL = {k: getattr(plans, k) for k in ("words_async", "async_rlog", "words_rlog")}
SMEM = 72 * 1024


def restore():
    for k, v in ORIGINAL.items():
        setattr(plans, k, v)


def variants(s):
    gp = plans.skinnytile_pitch(1, s)
    yield "dispatch", {}
    yield "reg", {"words_async": lambda e, short: False}
    for r in range(6):
        smem = (plans.skinnytile_vectors(r, True) + 1) * gp
        if 8 * 1024 <= smem <= SMEM:
            yield f"async{1 << r}:{smem // 1024}K", {"words_async": lambda e, short: True,
                                                     "async_rlog": lambda g, r=r: r}


def main(label="r1"):
    for s in range(17, 65):
        x = cupy.empty((long_side(s, 1), s), cupy.uint8)
        verify.fill_random_bits(x, seed=s)
        for name, patch in variants(s):
            restore()
            for k, v in patch.items():
                setattr(plans, k, v)
            free()
            measure(x, label, name)
        restore()
        x = None
        free()


if __name__ == "__main__":
    main(*sys.argv[1:2])
