"""Every tile is loaded exactly once per slice and every element of a block's C tile is
computed by exactly one thread, for every kernel of the ladder and the study (no GPU). The
kernels' index maps are written again here in Python from the .cu files."""
import importlib
import re
from collections import Counter

import pytest


def args(spec) -> list[int]:
    m = re.search(r"<([^>]*)>", spec.template)
    return [int(v) for v in m.group(1).replace("true", "1").replace("false", "0").split(",")] if m else []


def warptile_maps(bm, bn, bk, wm, wn, wmi, wni, stages):
    """(A-tile slots, B-tile slots, C cells) of one block of warpTile."""
    threads = 32 * (bm // wm) * (bn // wn)
    wsubm, wsubn = wm // wmi, wn // wni
    lc = wsubn // 4
    a_slots, b_slots, cells = [], [], []
    for tid in range(threads):
        warp, lane = divmod(tid, 32)
        wr, wc = divmod(warp, bn // wn)
        tr, tc = divmod(lane, lc)
        if stages == 1:
            for j in range(bm * bk // 4 // threads):
                i = j * threads + tid
                r, c = i // (bk // 4), (i % (bk // 4)) * 4
                a_slots += [(r, c + e) for e in range(4)]
        else:
            for j in range(bm * bk // threads):
                i = j * threads + tid
                a_slots.append((i // bk, i % bk))
        for j in range(bk * bn // 4 // threads):
            i = j * threads + tid
            r, c = i // (bn // 4), (i % (bn // 4)) * 4
            b_slots += [(r, c + e) for e in range(4)]
        for i in range(wmi):
            for r in range(4):
                for j in range(wni):
                    for e in range(4):
                        cells.append((wr * wm + i * wsubm + tr * 4 + r, wc * wn + j * wsubn + tc * 4 + e))
    return a_slots, b_slots, cells, threads


def sgemm_maps(bm, bn, bk, wm, wn, wmi, wni, stages):
    """(A-tile slots, B-tile slots, C cells) of one block of sgemm: copy slots from the
    thread's first row and column, A_ROWS (B_ROWS) rows apart."""
    _, _, cells, threads = warptile_maps(bm, bn, bk, wm, wn, wmi, wni, 2)
    a_slots, b_slots = [], []
    for tid in range(threads):
        ar, ac = divmod(tid, bk)
        a_slots += [(ar + j * (threads // bk), ac) for j in range(bm * bk // threads)]
        br, bc = divmod(tid, bn // 4)
        b_slots += [(br + j * (threads // (bn // 4)), 4 * bc + e) for j in range(bk * bn // 4 // threads)
                    for e in range(4)]
    return a_slots, b_slots, cells, threads


def grouped_order(gx, gy, group=8):
    """sgemm's block order: (bx, by) for each launched (blockIdx.x, blockIdx.y)."""
    out = []
    for y in range(gy):
        for x in range(gx):
            i = y * gx + x
            first = (i // (group * gx)) * group
            rows = min(group, gy - first)
            out.append(((i % (group * gx)) // rows, first + (i % (group * gx)) % rows))
    return out


def blocktile_maps(bm, bn, bk, tm, tn, vec: bool):
    threads = (bm // tm) * (bn // tn)
    a_slots, b_slots, cells = [], [], []
    for tid in range(threads):
        t_row, t_col = divmod(tid, bn // tn)
        if vec:
            for j in range(-(-(bm * bk // 4) // threads)):
                i = j * threads + tid
                if i < bm * bk // 4:
                    r, c = i // (bk // 4), (i % (bk // 4)) * 4
                    a_slots += [(r, c + e) for e in range(4)]
            for j in range(-(-(bk * bn // 4) // threads)):
                i = j * threads + tid
                if i < bk * bn // 4:
                    r, c = i // (bn // 4), (i % (bn // 4)) * 4
                    b_slots += [(r, c + e) for e in range(4)]
        else:
            for j in range(-(-(bm * bk) // threads)):
                i = j * threads + tid
                if i < bm * bk:
                    a_slots.append((i // bk, i % bk))
            for j in range(-(-(bk * bn) // threads)):
                i = j * threads + tid
                if i < bk * bn:
                    b_slots.append((i // bn, i % bn))
        cells += [(t_row * tm + i, t_col * tn + j) for i in range(tm) for j in range(tn)]
    return a_slots, b_slots, cells, threads


def coarse_cells(tile, cf):
    return [(ty, tx + c * tile) for ty in range(tile) for tx in range(tile) for c in range(cf)]

W = importlib.import_module("bwlab.workloads.matmul").WORKLOAD
SPECS = list(W.kernels()) + list(W.variants())


def exactly_once(items, rows, cols, what):
    c = Counter(items)
    assert set(c) == {(r, k) for r in range(rows) for k in range(cols)}, f"{what}: not covered"
    assert max(c.values()) == 1, f"{what}: covered twice"


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_tiles_cover_c_exactly_once(spec):
    p = args(spec)
    rows, cols = spec.covers(*spec.block)
    if spec.template.startswith(("warpTile", "sgemm")):
        bm, bn, bk = p[:3]
        a, b, cells, threads = (warptile_maps if spec.template.startswith("warpTile") else sgemm_maps)(*p)
        assert threads == spec.block[0] * spec.block[1]
        exactly_once(a, bm, bk, "A tile")
        exactly_once(b, bk, bn, "B tile")
    elif spec.template.startswith(("regBlock", "vecBlock")):
        bm, bn, bk = p[:3]
        a, b, cells, threads = blocktile_maps(*p, vec=spec.template.startswith("vecBlock"))
        assert threads == spec.block[0] * spec.block[1]
        exactly_once(a, bm, bk, "A tile")
        exactly_once(b, bk, bn, "B tile")
    elif spec.template.startswith("coarse"):
        tile, cf = p[:2]
        assert spec.block == (tile, tile)
        cells = coarse_cells(tile, cf)
    elif spec.template.startswith("tiled"):
        cells = coarse_cells(p[0], 1)
    else:  # naive: one thread per element of its block
        bx, by = spec.block
        cells = [(y, x) for y in range(by) for x in range(bx)]
    exactly_once(cells, rows, cols, "C tile")
    assert len(cells) == spec.results * spec.block[0] * spec.block[1]


@pytest.mark.parametrize("gx, gy", [(1, 1), (3, 1), (1, 9), (32, 32), (7, 17), (64, 8), (5, 23)])
def test_grouped_block_order_is_a_bijection(gx, gy):
    got = grouped_order(gx, gy)
    assert sorted(got) == [(x, y) for x in range(gx) for y in range(gy)]


@pytest.mark.parametrize("spec", [s for s in SPECS if s.template.startswith(("warpTile", "sgemm"))],
                         ids=lambda s: s.name)
def test_warp_fragment_reads_are_one_run_each(spec):
    """Per step k, a warp's float4 reads of A cover one contiguous run (lanes of one column
    broadcast) and of B too: no bank conflicts in the fragment loads."""
    bm, bn, bk, wm, wn, wmi, wni, _ = args(spec)
    lc = (wn // wni) // 4
    for i in range(wmi):
        starts = sorted({(lane // lc) * 4 for lane in range(32)})
        assert starts == list(range(0, 4 * len(starts), 4)) and 4 * len(starts) * 4 <= 128
    for j in range(wni):
        starts = sorted({(lane % lc) * 4 for lane in range(32)})
        assert starts == list(range(0, 4 * len(starts), 4)) and 4 * len(starts) * 4 <= 128
