"""The float64 reference's pieces on the host: statistics reduced chunk by chunk give the
whole row's answer, and the positions checked along a long row."""
import numpy as np
import pytest

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
    want_scale = np.max(np.abs(g)) * (1.0 if log else np.max(np.abs(y)))
    assert scale == want_scale
    got = reference.backward64_at(y[:9], g[:9], total, log)
    np.testing.assert_allclose(got, reference.backward64(y, g, 0, log)[:9], rtol=1e-12)


def test_a_nan_in_any_chunk_makes_the_row_nan():
    x = np.zeros(3000)
    x[2500] = np.nan
    m, s = reference.row_stats64(_chunks(x), backward=False, log=False)
    assert np.isnan(m) and np.isnan(reference.softmax64_at(x[:1], m, s, False)).all()


def test_positions_cover_both_ends_and_are_sorted():
    p = reference.position_sample(2**30 + 64, k=1000, edge=16)
    assert p[0] == 0 and p[-1] == 2**30 + 63 and np.all(np.diff(p) > 0)
    assert set(range(16)) <= set(p.tolist()) and set(range(2**30 + 48, 2**30 + 64)) <= set(p.tolist())
    assert len(p) > 1000  # the random ones between
    np.testing.assert_array_equal(reference.position_sample(42, k=10, edge=16), np.arange(42))  # short: all
