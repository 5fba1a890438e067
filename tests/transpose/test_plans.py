"""bwlab.transpose's dispatch, plan files and the tile kernel's index maps (no GPU)."""
import json

import numpy as np
import pytest

from bwlab.workloads.transpose import plans as dispatch


@pytest.mark.parametrize("e", dispatch.ITEMSIZES)
def test_candidates_are_legal_and_default_is_one(e):
    for cfg in dispatch.TILE_CANDIDATES[e]:
        assert dispatch.tile_legal(e, *cfg), cfg
    assert dispatch.DEFAULT_PLAN[e] in dispatch.TILE_CANDIDATES[e]
    assert not dispatch.tile_legal(e, 8, 8, 256)  # too small a tile for 16-byte vectors


@pytest.mark.parametrize("batch, rows, cols, kind", [
    (1, 0, 5, "empty"), (3, 5, 0, "empty"), (0, 5, 5, "empty"),
    (1, 1, 1000, "copy"), (7, 1000, 1, "copy"),
    (1, 10_000_000, 3, "tall"), (1, 8, 9, "wide"), (1, 3, 10_000_000, "wide"), (2, 9, 8, "tall"),
    (1, 16384, 16384, "tile"), (256, 4096, 4096, "tile"), (1, 9, 9, "tile"), (1, 64, 4_194_304, "tile"),
])
def test_shape_classes(batch, rows, cols, kind):
    for e in dispatch.ITEMSIZES:
        c = dispatch.choose(e, batch, rows, cols)
        want = "scalar" if kind == "tile" and (rows % (16 // e) or cols % (16 // e)) else kind
        assert c.kind == want and c.itemsize == e
        if want == "scalar":
            assert c.expression == dispatch.tile_expression(e, dispatch.SCALAR_TILE[e], "tileScalar")
            continue
        if kind == "tall":
            assert c.expression == f"skinny<{e},{cols},true>"
        if kind == "wide":
            assert c.expression == f"skinny<{e},{rows},false>"
        if kind == "tile":
            assert c.expression == dispatch.tile_expression(e, dispatch.DEFAULT_PLAN[e])
            assert c.expression in dispatch.expressions()[dispatch.ANY]


def test_unaligned_pointers_take_the_element_kernel():
    assert dispatch.choose(4, 1, 1024, 1024, aligned=False).kind == "scalar"
    assert dispatch.choose(4, 1, 1024, 1024).kind == "tile"
    assert "not 16-byte aligned" in dispatch.choose(1, 1, 1024, 1024, aligned=False).reason


def test_plan_overrides_default_and_bad_plans_are_refused():
    c = dispatch.choose(4, 1, 1000, 1000, {4: (32, 64, 256)})
    assert c.expression == "tileAny<4,32,64,256>" and "plan" in c.reason
    with pytest.raises(ValueError, match="not one of"):
        dispatch.choose(4, 1, 1000, 1000, {4: (16, 16, 64)})
    with pytest.raises(ValueError, match="element size 3"):
        dispatch.choose(3, 1, 10, 10)


def test_launch_geometry_covers_the_work():
    c = dispatch.choose(4, 2, 1000, 3000)
    assert c.kind == "tile"
    tr, tc = dispatch.tile_shape(c)
    assert dispatch.launch_geometry(c, 2, 1000, 3000) == (2 * -(-1000 // tr) * -(-3000 // tc), c.threads)
    tall = dispatch.choose(1, 1, 10_000_001, 3)
    blocks, threads = dispatch.launch_geometry(tall, 1, 10_000_001, 3)
    assert blocks * threads * 16 >= 10_000_001 > (blocks - 1) * threads * 16
    huge = dispatch.choose(1, 1, 2**31, 2**31)  # more tiles than a grid holds: kernels stride
    assert dispatch.launch_geometry(huge, 1, 2**31, 2**31)[0] == dispatch.MAX_BLOCKS


def test_plan_file_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("BWLAB_PLANS", str(tmp_path))
    assert dispatch.load_plan("NVIDIA H200") is None
    doc = dispatch.plan_document("NVIDIA H200", {4: (32, 64, 256), 1: (128, 128, 128)}, [{"x": 1}])
    path = dispatch.plan_path("NVIDIA H200")
    assert path.name == "nvidia-h200.json"
    path.write_text(json.dumps(doc))
    assert dispatch.load_plan("NVIDIA H200") == {4: (32, 64, 256), 1: (128, 128, 128)}
    path.write_text(json.dumps({**doc, "tiles": {"4": [7, 7, 7]}}))
    with pytest.raises(ValueError, match="bwlab tune"):
        dispatch.load_plan("NVIDIA H200")


# --- a Python model of tileAny's vector path (any.cu) ---------------------------

def _phases(unit_bytes):
    return {4: 1, 8: 2, 16: 4}[unit_bytes]  # shared accesses of 8/16 bytes run in half/quarter warps


def _conflict_free(offsets, unit_bytes):
    """offsets: byte address per lane (32); True if every phase hits distinct banks."""
    per = 32 // _phases(unit_bytes)
    for ph in range(_phases(unit_bytes)):
        words = {}
        for off in offsets[ph * per:(ph + 1) * per]:
            for w in range(unit_bytes // 4):
                word = off // 4 + w
                words.setdefault(word % 32, set()).add(word)
        if any(len(s) > 1 for s in words.values()):  # two different words in one bank
            return False
    return True


@pytest.mark.parametrize("e, cfg", [(e, c) for e in dispatch.ITEMSIZES for c in dispatch.TILE_CANDIDATES[e]])
def test_tile_index_maps_cover_once_and_are_conflict_free(e, cfg):
    tr, tc, threads = cfg
    ve, g, warps = 16 // e, max(1, 4 // e), threads // 32
    pitch = tc * e
    nl, ns = (tr // 4) * (tc // (8 * ve)) // warps, (tc // (4 * g)) * (tr // (8 * ve)) // warps
    loaded, stored = np.zeros((tr, tc), int), np.zeros((tc, tr), int)
    for w in range(warps):
        for i in range(nl):
            p, offs = w + i * warps, []
            for lane in range(32):
                pr, pv = lane >> 3, lane & 7
                r, c = (p // (tc // (8 * ve))) * 4 + pr, ((p % (tc // (8 * ve))) * 8 + pv) * ve
                loaded[r, c:c + ve] += 1
                offs.append(r * pitch + (r // ve) * 16 + c * e)
            assert _conflict_free(offs, 16), ("load", w, i)
        for q in range(ns):
            p = w + q * warps
            for k in range(ve):
                offs = []
                for lane in range(32):
                    pr, pv = lane >> 3, lane & 7
                    j = (p // (tr // (8 * ve))) * 4 * g + pr * g
                    i0 = ((p % (tr // (8 * ve))) * 8 + pv) * ve
                    offs.append((i0 + k) * pitch + (i0 // ve) * 16 + j * e)
                    stored[j:j + g, i0 + k] += 1
                assert _conflict_free(offs, max(e, 4)), ("store", w, q, k)
    assert (loaded == 1).all() and (stored == 1).all()
