"""skinnyTile's tall tiles with each row's vectors counted from a 256-byte boundary of memory (H =
16: no 256-byte span of the output written by two blocks) against the same kernel counting them
from the row's first byte (H = 1), and the dispatch, on tall short sides of 2-, 4-, 8- and 16-byte
elements (256 MiB, long side odd: every row but the first off the 16-byte grid). Why: a copy whose
blocks each write 64 segments of 512 bytes ran at 92.3% of memcpy with the segments on 256-byte
boundaries and at 85-86.6% with them 16 bytes off (../skinny-whole/segments-pad.txt, -pad2.txt).
Each output, poisoned first, compared with CuPy's transpose, then timed (CUDA events, 5 warm-ups,
median of 50) beside a device copy of the same bytes; two rounds. From this folder:
PYTHONPATH=../../../../src python3 probe.py"""
import sys

sys.path.insert(0, "../async-tiles")
from probe import array, free, long_side, measure  # noqa: E402

from bwlab.workloads.transpose import calls, plans  # noqa: E402

CASES = {2: (18, 24, 33, 37, 48, 64), 4: (24, 33, 37, 45, 50, 64), 8: (17, 24, 33, 41, 48, 64), 16: (9, 17, 33)}
# `probe.py more` (probe2.txt): after H = 16 tiles took 13 vectors a thread in one round of loads
# instead of 9 (a 64-column tile, 48 groups, had taken two rounds)
MORE = {2: (17, 18, 20, 22, 33, 36, 37, 41, 52, 60, 64), 4: (18, 36, 37, 41, 44, 50, 56, 60, 64),
        8: (32, 35, 36, 52, 57, 60, 62, 64), 16: (5, 12, 24, 48, 64)}
WHOLE = dict(getattr(plans, "WHOLE_TALL_FROM", {}))


# `probe.py every` (every.txt): every tall short side of 2-, 4- and 8-byte elements (and every third of
# 16-byte ones) that skinnyTile takes, float32 from 50 columns included (tileWhole there), the dispatch
# beside H = 16
def every():
    out = {}
    for e in (2, 4, 8, 16):
        sides = []
        for s in range(2, 65) if e < 16 else range(5, 65, 3):
            n = long_side(s, e)
            plans.WHOLE_TALL_FROM = {}
            c = plans.choose(e, plans.layout_of((n, s), (s, 1)))
            plans.WHOLE_TALL_FROM = WHOLE
            if c.expression.startswith("skinnyTile<"):
                sides.append(s)
        out[e] = tuple(sides)
    return out


# `probe.py grow` (grow.txt): on the tree that takes H = 16 from TALL_HALO_TASKS warp tasks a tile,
# the tall short sides below that (H = 1) beside H = 16 on a tile of twice the vectors a row (R x 2:
# twice the tasks, the 16 extra groups a smaller share of the tile)
GROW = {2: (5, 9, 11, 18, 19, 20, 21, 22, 23, 24, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48),
        4: (5, 9, 10, 11, 18, 19, 20, 21, 22, 36, 37, 38, 39, 40, 41, 42, 43, 44),
        8: (5, 9, 10, 18, 19, 20), 16: (5, 17, 20)}
RLOG, HALO = plans._skinnytile_rlog, plans.tall_halo


def variant(name):
    """The dispatch, or skinnyTile forced with H = 1 or 16 (the tree before TALL_HALO_TASKS), or
    (G16) H = 16 on a tile of twice the vectors a row."""
    if hasattr(plans, "WHOLE_TALL_FROM"):  # the tree before
        plans.TALL_HALO = {e: 16 for e in CASES} if name == "H16" else {}
        plans.WHOLE_TALL_FROM = WHOLE if name == "disp" else {}
    grow = name == "G16"
    plans._skinnytile_rlog = (lambda e, s, tall, words, gp: RLOG(e, s, tall, words, gp) + (tall and not words)) \
        if grow else RLOG
    plans.tall_halo = (lambda e, s, tall, words=False: 16 if tall and not words else 1) if grow else HALO
    calls._plans.clear()


def main(cases):
    for rnd in range(2):
        print(f"# round {rnd + 1}", flush=True)
        for e, sides in cases.items():
            for s in sides:
                x = array(long_side(s, e), s, e)[0]
                for name in NAMES:
                    variant(name)
                    measure(x, name, "tall")
                variant("disp")
                del x
                free()


if __name__ == "__main__":
    mode = sys.argv[1] if sys.argv[1:] else ""
    NAMES = {"every": ("disp", "H16"), "grow": ("disp", "G16")}.get(mode, ("disp", "H1", "H16"))
    main({"every": every, "grow": lambda: GROW, "more": lambda: MORE}.get(mode, lambda: CASES)())
