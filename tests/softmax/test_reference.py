"""The float64 reference's pieces on the host: statistics reduced chunk by chunk give the
whole row's answer, and the positions checked along a long row."""
import numpy as np
import pytest
from helpers import SMALL_LONG_ROW_SAMPLING, softmax_params

from bwlab.workloads.softmax import reference


def _chunks(*rows, step=1000):
    return lambda: (tuple(r[j:j + step] for r in rows) for j in range(0, rows[0].size, step))


@pytest.mark.parametrize("log", [False, True])
def test_forward_stats_in_chunks_give_the_whole_rows_answer(log):
    x = np.random.default_rng(1).standard_normal(10_007) * 30
    m, s = reference.row_stats64(_chunks(x), backward=False, log=log)
    pos = np.array([0, 17, 5000, 10_006])
    got = reference.softmax64_at(x[pos], m, s, log)
    np.testing.assert_allclose(got, reference.softmax64(x, 0, log)[pos], rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("log", [False, True])
def test_backward_stats_in_chunks_give_the_whole_rows_answer(log):
    rng = np.random.default_rng(2)
    y, g = rng.random(4099), rng.standard_normal(4099)
    total, scale = reference.row_stats64(_chunks(y, g, step=512), backward=True, log=log)
    assert scale == np.max(np.abs(g)) * (1.0 if log else np.max(np.abs(y)))
    got = reference.backward64_at(y[:9], g[:9], total, log)
    np.testing.assert_allclose(got, reference.backward64(y, g, 0, log)[:9], rtol=1e-12)


def test_log_softmax_at_a_far_max_keeps_the_rest_of_the_sum():
    """Log-softmax at a row's max is -log(1 + t), t the sum of the other terms: about -t, even where t
    lies far below float64's epsilon (log of the plain sum, 1 + t, gives 0 there). Ties at the max each
    count a whole 1; chunked statistics give the same."""
    x = np.random.default_rng(5).standard_normal(131_072)
    x[77] = 85.0
    t = np.sum(np.exp(np.delete(x, 77) - 85.0))
    assert 1e-33 < t < 1e-30
    for got in (reference.softmax64(x, 0, True)[77],
                reference.softmax64_at(x[77:78], *reference.row_stats64(_chunks(x), backward=False, log=True),
                                       True)[0]):
        assert got == pytest.approx(-t, rel=1e-12)
    assert reference.softmax64(x, 0, False)[77] == pytest.approx(1 - t, rel=1e-15)
    x[:3] = 85.0  # three more at the max: log(4 + t)
    assert reference.softmax64(x, 0, True)[0] == pytest.approx(-np.log(4.0), rel=1e-15)
    assert reference.row_stats64(_chunks(x), backward=False, log=True)[1] == pytest.approx(3.0, rel=1e-15)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_units_in_the_last_place_across_zero(dtype):
    """-0.0 and +0.0 are the same value; the smallest values either side of zero are a unit from it
    and two from each other; larger steps count as many units."""
    bits = np.array([0x0000, 0x8000, 0x0001, 0x8001, 0x0003], dtype=np.uint16)
    want = np.array([0x8000, 0x0000, 0x8000, 0x0001, 0x8002], dtype=np.uint16)
    got = reference._ulps(bits, want, dtype)
    np.testing.assert_array_equal(got, [0, 0, 1, 2, 5])
    out = bits.view(reference.storage_dtype(dtype))  # as the GPU returns them
    ref = reference.to_float64(want.view(reference.storage_dtype(dtype)), dtype)
    assert [bool(reference.compare(out[i:i + 1], ref[i:i + 1], dtype, "log").ok) for i in range(5)] == [
        True, True, True, False, False]


@pytest.mark.parametrize("special", ["nan", "+inf", "all -inf", "-inf"])
@pytest.mark.parametrize("log", [False, True])
def test_special_values_in_chunks_as_in_the_whole_row(special, log):
    """torch's special values: a NaN or +inf anywhere in a row, or a row of -inf only, makes the
    whole row NaN, whichever chunk they are in; a few -inf entries give zeros (log: -inf)."""
    x = np.random.default_rng(3).standard_normal(3000)
    if special == "all -inf":
        x[:] = -np.inf
    else:
        x[[5, 2500]] = {"nan": np.nan, "+inf": np.inf, "-inf": -np.inf}[special]
    m, s = reference.row_stats64(_chunks(x), backward=False, log=log)
    np.testing.assert_allclose(reference.softmax64_at(x, m, s, log), reference.softmax64(x, 0, log), rtol=1e-13)


@pytest.mark.parametrize("special", [np.nan, np.inf])
@pytest.mark.parametrize("log", [False, True])
def test_special_gradients_in_chunks_as_in_the_whole_row(special, log):
    rng = np.random.default_rng(4)
    y, g = rng.random(2048), rng.standard_normal(2048)
    g[1500] = special
    total, scale = reference.row_stats64(_chunks(y, g, step=512), backward=True, log=log)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(reference.backward64_at(y, g, total, log), reference.backward64(y, g, 0, log))
    np.testing.assert_array_equal(scale, reference.backward_scale64(y, g, 0, log)[0])  # NaN equal to NaN


def test_positions_cover_both_ends_and_the_seams_and_are_sorted():
    p = reference.position_sample(2**30 + 64, k=1000, edge=16)
    assert p[0] == 0 and p[-1] == 2**30 + 63 and np.all(np.diff(p) > 0)
    assert set(range(16)) <= set(p.tolist()) and set(range(2**30 + 48, 2**30 + 64)) <= set(p.tolist())
    seams = set(range(2**22, 2**30 + 1, 2**22))  # 2^22: the smallest step from 4096 with at most 500 seams
    assert seams <= set(p.tolist()) and {s - 1 for s in seams} <= set(p.tolist())
    assert len(p) > 1500  # and 1000 random ones between (32 at the ends, 512 at the seams)
    q = reference.position_sample(70001, k=300, edge=20)
    assert {4095, 4096, 65535, 65536} <= set(q.tolist()) and len(q) < 70001
    np.testing.assert_array_equal(reference.position_sample(42, k=10, edge=16), np.arange(42))  # short: all


class _HostArray(np.ndarray):
    """A NumPy array with CuPy's .get(), so that the workload's reference runs on the host."""
    def get(self):
        return np.asarray(self)


@pytest.mark.parametrize("shape, dim", [((3, 70001), -1), ((2, 5003, 7), 1)], ids=str)
@pytest.mark.parametrize("kind", ["forward", "log", "backward", "logbackward"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_long_row_path_matches_the_whole_rows_on_the_host(shape, dim, kind, dtype, monkeypatch):
    """The workload's reference for long slices (statistics in chunks, sampled positions) against
    its whole-slice reference, with NumPy standing in for CuPy (the GPU tests run it on CuPy)."""
    import sys
    import types

    from bwlab.core.workload import Case
    from bwlab.workloads import get

    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(asarray=lambda a: np.asarray(a).view(_HostArray)))
    rng = np.random.default_rng(5)
    bits = [reference.from_float64(rng.standard_normal(shape) * s, dtype).view(_HostArray) for s in (3.0, 1.0)]
    case = Case(shape, dtype, softmax_params(kind, dim))
    inputs = tuple(bits) if "backward" in kind else bits[0]
    W = get("softmax")
    full = W.reference(case, inputs)
    for name, value in SMALL_LONG_ROW_SAMPLING.items():
        monkeypatch.setattr(reference, name, value)
    long = W.reference(case, inputs)
    pos = np.asarray(long.l_idx)
    assert long.ref.shape == (full.ref.shape[0], len(pos)) and len(pos) < shape[dim]
    np.testing.assert_allclose(long.ref, full.ref[:, pos], rtol=1e-12, atol=1e-300)
    if "backward" in kind:
        np.testing.assert_array_equal(long.scale, full.scale[:, pos])
