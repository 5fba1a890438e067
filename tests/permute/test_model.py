"""The planner's kernel arguments, checked without a GPU: a NumPy model of each kernel's index
map (the tile kernels' batch decoding and pitches, the row gather's pieces and multiply-shift
divisions, the element gather) run on the plan's own arguments must give numpy.transpose."""
import itertools
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bwlab.workloads.permute import plans


def decode(index, extents):
    """Indices along extents (outermost first) of a linear index, innermost fastest."""
    out = []
    for n in reversed(extents):
        out.append(index % n)
        index = index // n
    return out[::-1]


def model(choice, flat_in, base, e, total):
    """The output bytes the chosen kernel would write, from the input bytes (base: byte offset of
    element [0, ..., 0] in flat_in)."""
    out = np.zeros(total * e, np.uint8)
    kind, axes = choice.kind, choice.axes
    elem = lambda off: flat_in[base + off * e: base + off * e + e]  # noqa: E731
    if kind == "copy":
        out[:] = flat_in[base: base + total * e]
    elif kind == "gather":
        for o in range(total):
            idx = decode(o, [a.n for a in axes])
            out[o * e:(o + 1) * e] = elem(sum(i * a.si for i, a in zip(idx, axes)))
    elif kind == "rows":
        *outer, last = axes
        v = choice.vector
        raw = plans.rows_struct(outer, e)
        divs = [struct.unpack("<3I", raw[12 * k:12 * k + 12]) for k in range(plans.ROWS_MAX_OUTER)]
        strides = struct.unpack(f"<{plans.ROWS_MAX_OUTER}q", raw[88:])
        per_row = plans.fast_div(last.n * e // v)
        fdiv = lambda n, f: n if f[0] == 1 else (n * f[1] >> 32) >> f[2]  # noqa: E731
        for q in range(total * e // v):
            rest = fdiv(q, per_row)
            off = (q - rest * per_row[0]) * v
            for k in range(len(outer) - 1, -1, -1):
                nxt = fdiv(rest, divs[k])
                off += (rest - nxt * divs[k][0]) * strides[k]
                rest = nxt
            out[q * v:(q + 1) * v] = flat_in[base + off: base + off + v]
    elif kind == "tiles":  # rows along the output's fastest axis (folded), columns along the input's
        t = choice.tiling
        at = lambda g, f: (g & ((1 << f[2]) - 1)) * f[0] + (g >> f[2]) * f[1]  # noqa: E731
        count = int(np.prod([a.n for a in t.batch], dtype=np.int64)) if t.batch else 1
        for b in range(count):
            idx = decode(b, [a.n for a in t.batch])
            oi = sum(i * a.si for i, a in zip(idx, t.batch))
            oo = sum(i * a.so for i, a in zip(idx, t.batch))
            for row, col in itertools.product(range(t.rows), range(t.cols)):
                o = oo + at(col, t.cf) + row
                out[o * e:(o + 1) * e] = elem(oi + at(row, t.rf) + col)
    elif kind in ("scalar", "rowtiles"):  # rowtiles: elements are whole rows (e = their bytes)
        *batch, c, r = axes
        count = int(np.prod([a.n for a in batch], dtype=np.int64)) if batch else 1
        for b in range(count):
            idx = decode(b, [a.n for a in batch])
            oi = sum(i * a.si for i, a in zip(idx, batch))
            oo = sum(i * a.so for i, a in zip(idx, batch))
            for row, col in itertools.product(range(c.n), range(r.n)):  # input row along c, column along r
                o = oo + col * r.so + row
                out[o * e:(o + 1) * e] = elem(oi + row * c.si + col)
    elif kind == "transpose":
        lay = choice.layout
        for b, i, j in itertools.product(range(lay.batch), range(lay.rows), range(lay.cols)):
            o = (b * lay.cols + j) * lay.rows + i
            out[o * e:(o + 1) * e] = elem(b * (lay.bstride or 0) + i * lay.rs + j)
    else:
        assert kind == "empty"
    return out


def run_case(shape, perm, e, view=None, x_off=0):
    rng = np.random.default_rng(0)
    base_arr = rng.integers(0, 256, size=(int(np.prod(shape)) + 64) * e, dtype=np.uint8)
    dt = np.dtype(f"V{e}") if e not in (1, 2, 4, 8) else np.dtype(f"u{e}")
    x = base_arr[x_off * e: x_off * e + int(np.prod(shape)) * e].view(dt).reshape(shape)
    if view is not None:
        x = view(x)
    strides = [s // e for s in x.strides]
    base = x.__array_interface__["data"][0] - base_arr.__array_interface__["data"][0]
    axes = plans.merged_axes(x.shape, strides, perm)
    choice = plans.choose(e, axes, x_off * e % 16 + 256 * 16, 0)
    got = model(choice, base_arr, base, choice.itemsize if choice.kind != "rows" else e,
                x.size * e // (choice.itemsize if choice.kind != "rows" else e))
    want = np.ascontiguousarray(np.transpose(x, perm)).view(np.uint8).ravel()
    assert np.array_equal(got, want), f"{x.shape} {perm} {e}: {choice.label}"
    return choice.kind


@pytest.mark.parametrize("e", (1, 2, 4, 8, 16))
@pytest.mark.parametrize("shape", [(3, 5, 7), (4, 8, 16), (2, 3, 4, 4), (16, 2, 8), (1, 6, 1, 4)])
def test_every_permutation_model(shape, e):
    for perm in itertools.permutations(range(len(shape))):
        run_case(shape, perm, e)


@pytest.mark.parametrize("e", (1, 4, 16))
def test_views_and_offsets_model(e):
    views = [lambda a: a[::-1], lambda a: a[:, 1:], lambda a: a[..., ::2], lambda a: a.transpose(2, 0, 1)]
    for view, perm in itertools.product(views, itertools.permutations(range(3))):
        run_case((6, 8, 8), perm, e, view)
    for perm in itertools.permutations(range(3)):
        run_case((6, 8, 8), perm, e, x_off=1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=6), st.sampled_from((1, 2, 4, 8)), st.randoms())
def test_random_model(shape, e, rnd):
    perm = list(range(len(shape)))
    rnd.shuffle(perm)
    run_case(tuple(shape), tuple(perm), e)


@pytest.mark.parametrize("shape, perm, e, view, kind", [
    ((4, 8, 16), (0, 1, 2), 4, None, "copy"),
    ((4, 8, 32), (1, 0, 2), 4, None, "rows"),        # rows of 128 bytes: gathered
    ((4, 8, 16), (1, 0, 2), 4, None, "rows"),        # rows of 64 bytes, axes shorter than a tile: gathered
    ((17, 19, 16), (1, 0, 2), 4, None, "rowtiles"),  # rows of 64 bytes: tiles of whole rows, edge tiles
    ((3, 17, 16, 16), (2, 0, 1, 3), 4, None, "rowtiles"),  # a batch axis
    ((16, 16, 8), (1, 0, 2), 4, None, "rows"),       # rows of 32 bytes: gathered
    ((4, 8, 16), (2, 1, 0), 4, None, "tiles"),
    ((8, 8, 8, 8), (3, 2, 1, 0), 4, None, "tiles"),  # short fastest axes folded on both sides
    ((3, 5, 7), (2, 1, 0), 4, None, "scalar"),
    ((4, 8, 16), (0, 2, 1), 4, None, "transpose"),
    ((6, 8, 8), (2, 1, 0), 4, lambda a: a[..., ::2], "gather"),
])
def test_every_kind_is_modelled(shape, perm, e, view, kind):
    assert run_case(shape, perm, e, view) == kind
