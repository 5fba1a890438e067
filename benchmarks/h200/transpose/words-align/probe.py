"""skinnyWords' tall tiles with each row's vectors counted from a 256-byte boundary of memory (H = 16,
plans.WORDS_HALO forced: K task blocks of 31 groups a bundle, W = plans.words_width(K) vectors a row,
through registers or by cp.async) against the dispatch (H = 1), on tall uint8 and uint16 short sides
(256 MiB, long side odd: every row but the first off the 16-byte grid). Why: skinnyTile's tall tiles
gained up to 8.8 points of a copy that way (../tall-align). Each output, poisoned first, compared with
CuPy's transpose, then timed (CUDA events, 5 warm-ups, median of 50) beside a device copy of the same
bytes; two rounds. From this folder: PYTHONPATH=../../../../src python3 probe.py [every]"""
import sys

sys.path.insert(0, "../async-tiles")
from probe import array, free, long_side, measure  # noqa: E402

from bwlab.workloads.transpose import calls, plans  # noqa: E402

if not hasattr(plans, "WORDS_HALO"):
    sys.exit("this probe needs skinnyWords' H = 16 form: run it on the tree of commit 00e4f24 (see COMMAND)")

CASES = {1: (17, 18, 20, 22, 29, 33, 36, 41, 44, 48, 55, 60, 64), 2: (12, 16)}
KS = (1, 2, 3, 4, 5, 6, 8)
SMEM = 100 * 1024  # two blocks an SM and more
ROUND = 8 * 256    # skinnyWords' loads through registers: 8 vectors a thread a round


def variants(e, s):
    gp = plans.skinnytile_pitch(e, s)
    yield "disp", {}
    for k in KS:
        w = plans.words_width(k)
        if (w + 16) * gp > SMEM:
            continue
        for a in (False, True):
            if a or (w + 16) * s <= 2 * ROUND:
                yield f"K{k}{'a' if a else 'r'}", {(e, s): (k, a)}


def main(cases):
    for rnd in range(2):
        print(f"# round {rnd + 1}", flush=True)
        for e, sides in cases.items():
            for s in sides:
                x = array(long_side(s, e), s, e)[0]
                for name, halo in variants(e, s):
                    plans.WORDS_HALO = halo
                    calls._plans.clear()
                    measure(x, name, "tall")
                plans.WORDS_HALO = {}
                calls._plans.clear()
                del x
                free()


if __name__ == "__main__":
    main(CASES)
