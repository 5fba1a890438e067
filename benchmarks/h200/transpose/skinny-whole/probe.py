"""Tall and wide matrices with a short side of 17 to 64 elements (256 MiB, the long side odd, so
rows misaligned) on the dispatch's shared tile (skinnyTile / skinnyWords) beside the kernels that
misaligned square-ish matrices take (tileWhole for float32, tileWholeWords for uint8), forced by
turning the skinny kernels off (the first run, probe.txt, turned off only the shared tile: its wide
uint8 lines ran widePerm in every variant). Each output, poisoned first, compared bit-exact with CuPy's
transpose, then timed beside a device copy of the same bytes (../async-tiles/probe.py's measure:
CUDA events, 5 warm-ups, median of 50), variants alternating, two rounds. From this folder:
PYTHONPATH=../../../../src python3 probe.py [fit|others]"""
import sys

sys.path.insert(0, "../async-tiles")
from probe import array, free, long_side, measure  # noqa: E402

from bwlab.workloads.transpose import calls, plans  # noqa: E402

APPLIES, PERM, DEFAULT = plans.skinnytile_applies, plans.perm_applies, dict(plans.MISALIGNED_DEFAULT)
VARIANTS = {4: {"disp": None, "w64x64": ("whole", (64, 64, 256)), "w128x32": ("whole", (128, 32, 256))},
            1: {"disp": None, "ww128": ("words", (128, 124, 256)), "ww64": ("words", (64, 124, 128))}}
CASES = [(4, True, s) for s in range(33, 65)] + [(4, False, s) for s in (33, 34, 35, 41, 47, 64)] + \
        [(1, True, s) for s in (17, 23, 33, 36, 41, 47, 55, 64)] + [(1, False, s) for s in (37, 41, 48, 64)]


def fitted(s):
    """`probe.py fit`: tileWhole's tiles TC = the short side rounded up to 8 columns, 4 rows a pass."""
    tc = -(-s // 8) * 8
    return {"disp": None, "w64x64": ("whole", (64, 64, 256)), "fit64": ("whole", (64, tc, 4 * tc)),
            "fit128": ("whole", (128, tc, 4 * tc))}


def run(e, tall, s, variants=None):
    n = long_side(s, e)
    x = array(n, s, e)[0] if tall else array(s, n, e)[0]
    for name, forced in (variants or VARIANTS[e]).items():
        plans.skinnytile_applies = APPLIES if forced is None else (lambda *a: False)
        plans.perm_applies = PERM if forced is None else (lambda *a: False)
        plans.MISALIGNED_DEFAULT[e] = forced or DEFAULT[e]
        calls._plans.clear()
        measure(x, name, "tall" if tall else "wide")
    plans.skinnytile_applies, plans.perm_applies, plans.MISALIGNED_DEFAULT[e] = APPLIES, PERM, DEFAULT[e]
    free()


# `probe.py others`: 2- and 8-byte elements, every tall short side 17-64 and some wide ones, the
# dispatch beside the misaligned kernel it would take without the skinny kernels (the built-in one)
OTHERS = [(e, True, s) for e in (2, 8) for s in range(17, 65)] + \
         [(e, False, s) for e in (2, 8) for s in (17, 24, 33, 41, 48, 56, 64)]


if __name__ == "__main__":
    mode = sys.argv[1] if sys.argv[1:] else ""
    cases = {"fit": [(4, True, s) for s in range(33, 65)], "others": OTHERS}.get(mode, CASES)
    for rnd in range(2):
        print(f"# round {rnd + 1}", flush=True)
        for e, tall, s in cases:
            variants = fitted(s) if mode == "fit" else {"disp": None, "misal": DEFAULT[e]} if mode == "others" else None
            run(e, tall, s, variants)
