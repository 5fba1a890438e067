"""skinnyTile and skinnyWords (kernels/skinnytile.cu; skinnyWords is tall only) on the CPU: their
NumPy model writes every output byte exactly once with the right input byte (clipped stores
included), and their shared accesses keep the bank ways the design promises: row side
conflict-free, packed side at most 2-way."""
import numpy as np
import pytest

import skinnytile_model as model
from bwlab.workloads.transpose import plans as dispatch

SHORTS = (1, 2, 3, 17, 31, 32, 33, 63, 64)


def _prime_at_least(k: int) -> int:
    def prime(m):
        return m > 1 and all(m % p for p in range(2, int(m ** 0.5) + 1))
    while not prime(k):
        k += 1
    return k


def positions_per_tile(e: int, s: int, words: bool = False, aligned: bool = False) -> int:
    rlog, _, _ = dispatch.skinnytile_geometry(e, s, True, words, aligned)
    return dispatch.skinnytile_vectors(rlog, words, aligned) * (16 // e)


def _longs(e: int, s: int, words: bool = False) -> list[int]:
    """n prime (rows misaligned for every E < 16), spanning about three tiles; a tiny n below S;
    and an n whose rows are 16-byte aligned."""
    w = positions_per_tile(e, s, words)
    return [_prime_at_least(5 * w // 2), 5, 3 * w + 16]


CASES = [(e, s, n, tall) for e in dispatch.ITEMSIZES for s in SHORTS for n in _longs(e, s) for tall in (True, False)]


WORD_SHORTS = (2, 4, 8, 10, 12, 16, 20, 32, 36, 44, 60, 64)  # every S * E a multiple of 4 (S = 2: 2-byte only)
CASES += [(e, s, n, True, True) for e in (1, 2) for s in WORD_SHORTS if dispatch.skinnytile_words(e, s, True)
          for n in _longs(e, s, True)]
ODD_SHORTS = (5, 6, 7, 9, 10, 11, 17, 31, 33, 63)  # tall uint8 skinnyWords: bundles of 4 rows, then single rows
CASES += [(1, s, n, True, True) for s in ODD_SHORTS for n in _longs(1, s, True)]


# skinnyWords' form for rows of whole vectors: n a multiple of 16/E, one tile, several, and a part tile
ALIGNED_SHORTS = {1: (4, 5, 6, 7, 12, 17, 32, 33, 36, 64), 2: (2, 6, 10, 16, 18, 32, 64)}
CASES += [(e, s, n, True, True, 0, True) for e, ss in ALIGNED_SHORTS.items() for s in ss
          for n in (16 // e, 3 * positions_per_tile(e, s, True, True), 5 * positions_per_tile(e, s, True, True) // 2
                    + 16 // e)]


# tall tiles on 256-byte boundaries (H = 16), the output at other places in a 256-byte span
CASES += [(e, s, n, True, False, out16) for e, s in ((2, 64), (4, 17), (8, 36), (16, 50), (2, 36), (4, 9), (2, 44))
          for n in _longs(e, s) for out16 in (1, 7, 15)]


@pytest.mark.parametrize("case", CASES, ids=lambda v: str(v))
def test_every_output_byte_once_from_the_right_input_byte(case):
    e, s, n, tall, *rest = case
    words, out16, aligned = (rest + [False, 0, False][len(rest):])
    res = model.run(e, s, n, tall, record=False, words=bool(words), out16=out16, aligned=aligned)
    want = model.expected(e, s, n, tall)
    assert (res.writes == 1).all(), f"bytes written {sorted(set(res.writes.tolist()))} times"
    if tall and n > 2 * positions_per_tile(e, s, bool(words), aligned):  # the plain path of inner tiles was taken
        assert res.inner_tiles > 0
    bad = np.flatnonzero(res.out != want)
    assert bad.size == 0, f"{bad.size} wrong bytes, first at {bad[0]}: {res.out[bad[0]]} != {want[bad[0]]}"


LIMITS = {"row load": 1, "row store": 1, "packed store": 2, "packed load": 2, "row store (extra vector)": 1}


@pytest.mark.parametrize("e, words, tall", [(e, False, t) for e in dispatch.ITEMSIZES for t in (True, False)]
                         + [(1, True, True), (2, True, True)], ids=lambda v: str(v))
def test_shared_accesses_keep_their_bank_ways(e, words, tall):
    """Every short side 1..64 (skinnyWords, tall only: those it takes), rows misaligned: the worst
    warp-wide access per kind. The extra vector of a misaligned row (WIDE: lane s takes row s)
    is written last element first, so its lanes too write one offset of consecutive rows."""
    worst: dict[str, int] = {}
    for s in range(1, 65):
        if words and not dispatch.skinnytile_words(e, s, tall):
            continue
        rlog = dispatch.skinnytile_geometry(e, s, tall, words)[0]
        n = 2 * dispatch.skinnytile_vectors(rlog, words) * (16 // e) + 3  # two tiles and a bit
        n += (n * e) % 16 == 0  # rows misaligned
        for acc in model.run(e, s, n, tall, words=words).accesses:
            w = model.bank_ways(acc)
            worst[acc.what] = max(worst.get(acc.what, 1), w)
            assert w <= LIMITS[acc.what], (s, n, acc.what, w, acc.addrs.tolist())
    assert worst[("row load" if tall else "row store")] == 1


@pytest.mark.parametrize("e", (1, 2))
def test_words_aligned_rows_keep_their_bank_ways_and_tile(e):
    """skinnyWords' form for long rows of whole vectors, every short side it takes: the same bank
    ways as the other form (lanes at 32 consecutive groups), the same R, 32R groups of shared memory
    within 72 KiB, every output byte written once with the right input byte."""
    for s in range(1, 65):
        if not dispatch.skinnytile_words(e, s, True) or s > dispatch.WORDS_ALIGNED_TALL_MAX[e]:
            continue
        rlog, gp, smem = dispatch.skinnytile_geometry(e, s, True, True, True)
        assert rlog == dispatch.skinnytile_geometry(e, s, True, True)[0] and smem == 32 * (1 << rlog) * gp
        assert smem <= dispatch.WORDS_SMEM
        n = 2 * dispatch.skinnytile_vectors(rlog, True, True) * (16 // e) + 256 // e  # rows of 256k bytes
        res = model.run(e, s, n, True, words=True, aligned=True)
        assert (res.writes == 1).all() and (res.out == model.expected(e, s, n, True)).all()
        for acc in res.accesses:
            assert model.bank_ways(acc) <= LIMITS[acc.what], (s, acc.what)


@pytest.mark.parametrize("e, s, rlog", [(1, 12, 2), (1, 48, 0), (2, 12, 2), (1, 13, 2)])
def test_words_tiles_spread_tasks_over_the_warps(e, s, rlog):
    """skinnyWords keeps skinnyTile's tile unless its warp tasks leave the warps under 70% busy (9 tasks
    on 8 warps at 33 rows, 10 at 17); then the tile that spreads them most evenly within 72 KiB."""
    gp = dispatch.skinnytile_pitch(e, s)
    assert dispatch.skinnytile_geometry(e, s, True, True)[0] == rlog
    assert dispatch.words_rlog(1, 33, 0, dispatch.skinnytile_pitch(1, 33)) == 2  # 9 tasks -> 36 on 8 warps
    assert not dispatch.words_async(e, s) and dispatch.skinnytile_expression(e, True, True, s).count(",") <= 2
    assert dispatch.words_rlog(e, s, rlog, gp) == rlog


@pytest.mark.parametrize("s, rlog", [(5, 4), (9, 3), (10, 3), (17, 2), (33, 1), (36, 1), (41, 1), (43, 1)])
def test_words_tiles_copied_asynchronously(s, rlog):
    """Where skinnyWords' tile through registers would hold under 5.5 vectors a thread (5, 9, 10) or
    take more than one round (17, 33; more than two where the short side fills words: 36, not 20 or
    44), it is copied in by cp.async: the largest tile within 43 KiB."""
    assert dispatch.words_async(1, s) and not dispatch.words_async(1, 20) and not dispatch.words_async(1, 44)
    r, gp, smem = dispatch.skinnytile_geometry(1, s, True, True)
    assert r == rlog and smem == (31 * (1 << r) + 1) * gp <= dispatch.WORDS_ASYNC_SMEM < (62 * (1 << r) + 1) * gp
    assert dispatch.skinnytile_expression(1, True, True, s) == f"skinnyWords<1,true,{s % 4},true>"
    assert dispatch.skinnytile_expression(1, True, True, s) in dispatch.expressions()[dispatch.SKINNYTILE]


def test_an_unpadded_tile_would_conflict(monkeypatch):
    """The pad is what makes the row side conflict-free: without it, 32 lanes at consecutive
    groups of 16*S bytes share banks (S = 32: every lane in one bank)."""
    monkeypatch.setattr(dispatch, "skinnytile_pitch", lambda e, s: 16 * s)
    acc = [a for a in model.run(4, 32, 2000, True).accesses if a.what == "row load"]
    assert max(model.bank_ways(a) for a in acc) == 32


@pytest.mark.parametrize("e", dispatch.ITEMSIZES)
def test_geometry_fits_the_kernel(e):
    for s in range(1, 65):
        for tall in (True, False):
            rlog, gp, smem = dispatch.skinnytile_geometry(e, s, tall)
            r = 1 << rlog
            h = dispatch.tall_halo(e, s, tall)
            limit = 64 * 1024 if h > 1 else dispatch.SKINNYTILE_SMEM  # 256-byte tiles opt in past 48 KiB
            assert smem <= limit and s * r <= max(64, s) * (2 if tall else 1) * (2 if h > 1 else 1)
            h = dispatch.tall_halo(e, s, tall)
            if tall and s * r > max(64, s) and h == 1:  # a balanced tile: one grown to keep the warps busier
                assert e in dispatch.TILE_BALANCED and dispatch.warps_busy(s * r) > dispatch.warps_busy(s * r // 2)
            if dispatch.skinnytile_words(e, s, tall):  # skinnyWords (tall only): 31R vectors, 8 loads a round
                wlog, _, w_smem = dispatch.skinnytile_geometry(e, s, tall, True)
                assert w_smem == (31 * (1 << wlog) + 1) * gp <= dispatch.WORDS_SMEM
                base = max(b for b in range(7) if (1 << b) * s <= max(64, s)
                           and (32 * (1 << b) + 1) * gp <= dispatch.SKINNYTILE_SMEM)  # skinnyTile's rule, unbalanced
                assert wlog >= base  # the rule's tile, or a larger one
            # TALL: one round of loads a thread (H = 16: then at most one vector more)
            assert (32 * r + h) * s <= (model.LOADS_HALO + 1 if h > 1 else model.LOADS) * model.THREADS
            assert tall or s * r <= 8 * (model.THREADS // 32)         # WIDE: 8 row tasks per warp
            unit = max(e, 4)
            assert gp % unit == 0 and (gp // unit) % 2 == 1
            assert smem >= 8 * 1024 or s * r == 64 or rlog == 0  # tiles are not tiny


@pytest.mark.parametrize("rows, aligned", [(4_194_304, True), (4_194_305, False)])
def test_the_launch_takes_the_geometry_of_the_form_it_runs(rows, aligned, monkeypatch):
    """The launch sizes skinnyWords' shared memory and grid for the form the expression names: the
    aligned form's tile is 32R groups, R - 1 more than the other form's 31R + 1 (checked on the CPU,
    the compile and the launch replaced by recorders)."""
    from bwlab.core.arrays import Operand
    from bwlab.workloads.transpose import calls

    seen = {}

    class Packed:
        def __init__(self, fn, grid, block, args, shared=0):
            seen.update(grid=grid, shared=shared)

    monkeypatch.setattr(calls.core_launch, "function", lambda *a, **k: object())
    monkeypatch.setattr(calls.core_launch, "allow_shared", lambda fn, n: seen.setdefault("allowed", n))
    monkeypatch.setattr(calls.core_launch, "PackedLaunch", Packed)
    monkeypatch.setattr(calls, "_sm_count", lambda device: 132)
    cols = 28  # R = 2 for uint8: the two forms' tiles differ by one group (a side tallWords does not take)
    c = dispatch.choose(1, dispatch.layout_of((rows, cols), (cols, 1)))
    assert dispatch.words_aligned(c) == aligned, c.expression
    x = Operand(None, "cupy", 1 << 40, (rows, cols), (cols, 1), 1, None, 0, "x")
    calls.kernel_runner(c, dispatch.Layout(1, rows, cols, cols, 1, rows * cols), x)
    rlog, gp, smem = dispatch.skinnytile_geometry(1, cols, True, True, aligned)
    v = (32 if aligned else 31) << rlog
    assert rlog == 1 and seen["shared"] == seen["allowed"] == smem == (v + (not aligned)) * gp
    assert seen["grid"][0] == -(-(-(-rows // 16) + (not aligned)) // v)  # every row vector (and the group before)
