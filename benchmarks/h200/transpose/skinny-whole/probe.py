"""Tall and wide matrices with a short side of 17 to 64 elements (256 MiB, the long side odd, so
rows misaligned) on the dispatch's shared tile (skinnyTile / skinnyWords) beside the kernels that
misaligned square-ish matrices take (tileWhole for float32, tileWholeWords for uint8), forced by
turning the skinny kernels off (the first run, probe.txt, turned off only the shared tile: its wide
uint8 lines ran widePerm in every variant). Each output, poisoned first, compared bit-exact with CuPy's
transpose, then timed beside a device copy of the same bytes (../async-tiles/probe.py's measure:
CUDA events, 5 warm-ups, median of 50), variants alternating, two rounds. From this folder:
PYTHONPATH=../../../../src python3 probe.py [fit|others|u16|steps|blocks|blocks2]"""
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


# `probe.py u16`: uint16 tall even short sides 18-64 on skinnyWords (shared words of 2 rows; the dispatch
# keeps it to 16 columns) beside the dispatch (skinnyTile), and wide 33-64 rows on skinnyTile beside the
# dispatch (widePerm)
WORDS_MAX = dict(plans.WORDS_TALL_MAX)


def run_u16(tall, s):
    n = long_side(s, 2)
    x = array(n, s, 2)[0] if tall else array(s, n, 2)[0]
    measure(x, "disp", "tall" if tall else "wide")
    if tall:
        plans.WORDS_TALL_MAX[2] = 64
    else:
        plans.perm_applies = lambda *a: False
    calls._plans.clear()
    measure(x, "words" if tall else "tile", "tall" if tall else "wide")
    plans.WORDS_TALL_MAX[2], plans.perm_applies = WORDS_MAX[2], PERM
    calls._plans.clear()
    free()


# `probe.py steps`: widePerm with one step of loads in flight a warp (K = 1) beside the dispatch's two, on
# the wide uint8 and uint16 short sides of 31 to 64 rows that missed 90% in the runs of every side
STEPS = plans.perm_steps
WIDE_MISSED = {1: (31, 37, 40, 41, 43, 48, 49, 54, 55, 58, 59, 60, 61, 64),
               2: (31, 38, 39, 40, 41, 42, 46, 53, 54, 55, 56, 57, 59, 60, 61, 62, 63, 64)}


def run_steps(e, s):
    x = array(s, long_side(s, e), e)[0]
    for k in (0, 1):
        plans.perm_steps = STEPS if k == 0 else (lambda short: 1)
        calls._plans.clear()
        measure(x, "disp" if k == 0 else "K1", "wide")
    plans.perm_steps = STEPS
    calls._plans.clear()
    free()


# `probe.py blocks`: widePerm told to fit one more block an SM (__launch_bounds__' second argument, through
# the file's WIDE_PERM_BLOCKS), on the wide sides where that cost no spills or at most 16 bytes (a local
# NVRTC build, sm_90), beside the dispatch; `probe.py blocks2`, on the tree that kept three of them: the three as the
# compiler leaves them, and 2-byte 60 rows at three blocks instead of two. The patched copy of
# skinnyperm.cu goes to a temporary folder.
MORE_BLOCKS = {(1, 40): 4, (1, 44): 4, (1, 46): 4, (1, 50): 4, (1, 51): 4, (1, 60): 3, (1, 64): 3,
               (2, 35): 5, (2, 41): 4, (2, 44): 4, (2, 48): 4, (2, 52): 4, (2, 62): 3}


def compile_one(args):
    from bwlab.core import build
    return build.compile_source(*args).resources


def run_blocks(spec):
    """spec: (element size, rows) -> blocks an SM to fit (0: the compiler's own choice); "disp" runs
    the tree's skinnyperm.cu, the variant a copy with those WIDE_PERM_BLOCKS lines changed."""
    import re
    import tempfile
    from concurrent.futures import ProcessPoolExecutor
    from pathlib import Path

    original = plans.SKINNYPERM
    text = original.read_text().replace('#include "vec.cuh"', f'#include "{original.parent / "vec.cuh"}"')
    for (e, s), b in spec.items():
        k = plans.perm_steps(s)
        text = re.sub(rf"^WIDE_PERM_BLOCKS\({e}, {s}, {k}, \d+\)$", "", text, flags=re.M)
        text += f"WIDE_PERM_BLOCKS({e}, {s}, {k}, {b})\n" if b else ""
    with tempfile.TemporaryDirectory() as tmp:
        patched = Path(tmp) / "skinnyperm_blocks.cu"
        patched.write_text(text)
        exprs = [plans.perm_expression(e, s, False) for e, s in spec]
        jobs = [(src, [x], "sm_90") for src in (original, patched) for x in exprs]
        with ProcessPoolExecutor(16) as pool:  # compiled in parallel first, into the build cache
            for (src, (x,), _), res in zip(jobs, pool.map(compile_one, jobs)):
                print(f"# {src.name} {x} {res[x]}", flush=True)
        for rnd in range(2):
            print(f"# round {rnd + 1}", flush=True)
            for (e, s), b in spec.items():
                x = array(s, long_side(s, e), e)[0]
                for name, src in (("disp", original), (f"B{b}", patched)):
                    plans.SKINNYPERM = src
                    calls._plans.clear()
                    measure(x, name, "wide")
                plans.SKINNYPERM = original
                calls._plans.clear()
                free()


if __name__ == "__main__" and sys.argv[1:] == ["blocks"]:
    run_blocks(MORE_BLOCKS)
elif __name__ == "__main__" and sys.argv[1:] == ["blocks2"]:  # after the three were kept: them without, 2-byte 60 at 3
    run_blocks({(1, 60): 0, (1, 64): 0, (2, 62): 0, (2, 60): 3})
elif __name__ == "__main__" and sys.argv[1:] == ["steps"]:
    for rnd in range(2):
        print(f"# round {rnd + 1}", flush=True)
        for e, sides in WIDE_MISSED.items():
            for s in sides:
                run_steps(e, s)
elif __name__ == "__main__" and sys.argv[1:] == ["u16"]:
    for rnd in range(2):
        print(f"# round {rnd + 1}", flush=True)
        for s in range(18, 65, 2):
            run_u16(True, s)
        for s in range(33, 65):
            run_u16(False, s)
elif __name__ == "__main__":
    mode = sys.argv[1] if sys.argv[1:] else ""
    cases = {"fit": [(4, True, s) for s in range(33, 65)], "others": OTHERS}.get(mode, CASES)
    for rnd in range(2):
        print(f"# round {rnd + 1}", flush=True)
        for e, tall, s in cases:
            variants = fitted(s) if mode == "fit" else {"disp": None, "misal": DEFAULT[e]} if mode == "others" else None
            run(e, tall, s, variants)
