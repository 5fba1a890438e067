"""The transpose's default cases (ladder, bench, sweeps) and the bench's goals, evaluated per
case with the reason for every miss."""
from __future__ import annotations

from ...core.workload import Case
from . import plans
from .reference import ALL_DTYPES, ITEMSIZE

LADDER_CASE = Case((16384, 16384), "float32")
BENCH_SHAPES: tuple[tuple[int, ...], ...] = (
    (16384, 16384), (16383, 16389), (8192, 32768), (32768, 8192), (10_000_000, 3), (3, 10_000_000),
    (64, 4_194_304), (256, 4096, 4096), (1024, 1024))
BENCH_DTYPES = ("uint8", "float16", "float32", "float64", "complex128")  # one per element size
GOAL_BYTES = 256 << 20  # speed goals apply from this input size up
GOAL_PCT = 90.0
GOAL_NOTE = ("goals: at least 90% of cudaMemcpy for every input of at least 256 MiB (any dtype and extents, "
             "short sides 1 to 64 too, and views already in the transposed layout); short sides also never "
             "slower than torch or CuPy; calls of 4 KiB to 4 MiB never slower than both torch and CuPy")
SUITES = ("main", "misaligned", "skinny", "views", "small")
# Odd extents of about 256 MiB per element size (rows and columns not a multiple of 16 bytes).
MISALIGNED = {1: (16383, 16389), 2: (11587, 11593), 4: (8193, 8199), 8: (5793, 5799), 16: (4097, 4103)}
# and with only the output's rows off the 16-byte grid (an odd number of rows, aligned columns)
MISALIGNED_OUT = {1: (16389, 16384), 2: (11593, 11584), 4: (8199, 8192), 8: (5799, 5792)}
SHORT_SIDES = (1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 24, 31, 32, 33, 48, 63, 64)
SMALL_SIDES = (32, 64, 128, 256, 512, 1024)  # square float32: 4 KiB to 4 MiB
# Views of a 16384 x 16384 base: (what users write, the view).
VIEWS = {
    "x[:, 1:-1] (row pitch)": lambda a: a[:, 1:-1],
    "x[::-1] (rows reversed)": lambda a: a[::-1],
    "x[:, ::-1] (columns reversed)": lambda a: a[:, ::-1],
    "x[::2, ::2]": lambda a: a[::2, ::2],
    "x.T (transposed layout)": lambda a: a.T,
    "x[:, :12288].T (transposed, pitched)": lambda a: a[:, :12288].T,
}
VIEW_BASE = (16384, 16384)


def shape_class(case: Case) -> str:
    """The bench's shape class of a case, for the summary table."""
    if case.param("class"):
        return case.param("class")
    rows, cols = case.shape[-2:]
    e = ITEMSIZE[case.dtype]
    if min(rows, cols) <= 64:
        return "short side <= 64"
    if (rows * e) % 16 or (cols * e) % 16:
        return "misaligned extents"
    return "aligned" + (" batched" if len(case.shape) > 2 else "")


def bench_cases(suite: str = "main", all_dtypes: bool = False) -> list[Case]:
    dtypes = ALL_DTYPES if all_dtypes else BENCH_DTYPES
    if suite == "main":
        return [Case(tuple(s), d) for s in BENCH_SHAPES for d in dtypes]
    if suite == "misaligned":
        out = []
        for d in dtypes:
            r, c = MISALIGNED[ITEMSIZE[d]]
            out += [Case((r, c), d, (("class", "misaligned extents"),)),
                    Case((4, r // 2, c), d, (("class", "misaligned extents"),))]
            if ITEMSIZE[d] in MISALIGNED_OUT:
                out.append(Case(MISALIGNED_OUT[ITEMSIZE[d]], d, (("class", "misaligned extents"),)))
        return out
    if suite == "skinny":
        out = []
        for d in (("uint8", "float32") if not all_dtypes else dtypes):
            e = ITEMSIZE[d]
            for short in SHORT_SIDES:
                n = -(-(256 << 20) // (short * e))
                n += 1 - n % 2  # at least 256 MiB, and odd: the long rows misaligned
                out += [Case((n, short), d, (("class", "short side <= 64"),)),
                        Case((short, n), d, (("class", "short side <= 64"),))]
        return out
    if suite == "views":
        return [Case(VIEW_BASE, "float32", (("class", "views"), ("view", name))) for name in VIEWS]
    if suite == "small":
        return [Case((n, n), "float32", (("class", "small calls"), ("timing", "wall"))) for n in SMALL_SIDES]
    raise ValueError(f"suite must be one of {', '.join(SUITES)}, got {suite!r}")


def view_shape(case: Case) -> tuple[int, ...]:
    """The shape of the array a case transposes (its view of the base, if any)."""
    name = case.param("view")
    if not name:
        return tuple(case.shape)
    import numpy as np

    base = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), case.shape, (0,) * len(case.shape))
    return tuple(VIEWS[name](base).shape)


def goals(case: Case, records) -> list[str]:
    """One line per goal missed by the API in this case."""
    by = {r.name: r for r in records}
    bw = by.get("bwlab")
    if not bw:
        return []
    if not bw.gbs:
        return [f"bwlab not measured: {'; '.join(bw.notes) or bw.check}"]
    cls = shape_class(case)
    misses = []
    if cls == "small calls":
        others = [by[p].median_ms for p in ("torch", "cupy") if p in by and by[p].median_ms]
        if others and bw.median_ms > max(others):
            misses.append(f"slower than torch and CuPy ({1e3 * bw.median_ms:.1f} us against "
                          f"{', '.join(f'{1e3 * t:.1f}' for t in others)} us per call)")
        return misses
    if bw.bytes // 2 < GOAL_BYTES:
        return []
    view = case.param("view") or ""
    if (not view or "transposed" in view) and bw.pct_memcpy is not None and bw.pct_memcpy < GOAL_PCT:
        misses.append(f"{bw.pct_memcpy:.1f}% of memcpy < {GOAL_PCT:.0f}%")
    if cls == "short side <= 64":
        for name in ("torch", "cupy"):
            p = by.get(name)
            if p and p.gbs and p.moved and bw.gbs < p.gbs:  # a view moved nothing: not compared
                misses.append(f"slower than {name} ({bw.gbs:.0f} < {p.gbs:.0f} GB/s)")
    return misses


_MISALIGNED = "rows of {rows}x{cols} do not start on 16-byte boundaries: "
# (kernel name prefixes, the cause of a miss), first match wins: tileWhole<16, before tileWhole
_WHY = (
    (("tileAlign",), _MISALIGNED + "tileAlign realigns them, at the cost of shuffles and a longer dependency "
                                   "chain per tile"),
    (("tileSector",), _MISALIGNED + "whole 32-byte sectors stored, but realigning in shared memory and gathering "
                                    "bytes cost instructions"),
    (tuple(f"tileWholeWords<{e},{tr},{tc},{th}" for t in (plans.WORDS_ALIGNED_IN, plans.WORDS_ALIGNED_IN_32)
           for e, (tr, tc, th) in t.items()),
     "output rows of {cols}x{rows} do not start on 16-byte boundaries: whole 32-byte sectors stored, aligned "
     "4- or 8-byte word loads transposed in registers"),
    (("tileWholeWords",), _MISALIGNED + "whole 32-byte sectors stored, 4- or 8-byte word loads shifted and "
                                        "transposed in registers"),
    (("tileWhole<16,",), "{rows}x{cols} of 16-byte elements: whole 32-byte sectors stored, one load instruction "
                         "per element"),
    (("tileWhole",), _MISALIGNED + "whole 32-byte sectors stored, one load instruction per element"),
    (("tileStage",), _MISALIGNED + "16-byte loads, but one store instruction per byte"),
    (("tileScalar",), _MISALIGNED + "one load and one store instruction per element"),
    (("tallWords",), "short side: input copied into shared memory, 4-byte words interleaved by byte permutes into "
                     "staged output rows, every output sector written whole"),
    (("wideWords",), "short side: rows copied into shared memory, 4-byte words interleaved by byte permutes, the "
                     "output tile stored whole"),
    (("widePerm", "tallPerm"), "short side: 4-byte words of each long row interleaved by byte permutes in registers"),
    (("skinnyTile", "skinnyWords"), "short side: the padded shared tile, misaligned rows realigned on the way out"),
    (("skinny",), "short side: the register transpose with realigned long rows"),
    (("strided",), "no unit-stride axis to vectorise: element by element"),
)


def why_missed(case: Case, kernel: str) -> str:
    """What ran at this shape (kernel: explain()'s text), and the known cause of a miss."""
    rows, cols = view_shape(case)[-2:]
    name = kernel.split(":")[0]
    for prefixes, why in _WHY:
        if kernel.startswith(prefixes):
            return why.format(rows=rows, cols=cols) + f" ({name})"
    if kernel.startswith("tileAny"):
        tr = int(kernel.split(",")[1])
        if rows < tr:
            return f"{rows} rows fill {rows}/{tr} of each {tr}-row tile: the rest of the block idles ({name})"
    return kernel
