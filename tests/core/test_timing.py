import pytest

from bwlab.core import timing


def test_stats():
    t = timing.stats([1.0, 2.0, 3.0, 4.0, 100.0])
    assert t.median_ms == 3.0 and t.min_ms == 1.0 and t.reps == 5
    assert t.mean_ms == pytest.approx(22.0)
    assert t.noisy and t.cv > 1
    assert not timing.stats([2.0, 2.0, 2.0]).noisy
    with pytest.raises(ValueError):
        timing.stats([])


def test_effective_bandwidth():
    # 16384^2 float32 read + written in 0.5 ms: 2 * 1 GiB / 0.5 ms
    assert timing.gbs(2 * 16384 * 16384 * 4, 0.5) == pytest.approx(4294.97, abs=0.01)


def test_warmup_lasts_its_time_within_a_cap():
    assert timing.extra_warmup_calls(1.0, 30.0) == 29      # 30 ms of 1 ms calls, one already made
    assert timing.extra_warmup_calls(0.25, 30.0) == 119    # 120 calls in all
    assert timing.extra_warmup_calls(40.0, 30.0) == 0      # one call was enough
    assert timing.extra_warmup_calls(0.001, 30.0) == timing.WARMUP_CAP
    assert timing.extra_warmup_calls(0.0, 30.0) == timing.WARMUP_CAP  # too short to time
    assert timing.extra_warmup_calls(1.0, 0.0) == 0


def test_flush_rule():
    l2 = 60 << 20
    assert timing.needs_flush(2 * 1024 * 1024 * 4, l2)
    assert not timing.needs_flush(2 * 16384 * 16384 * 4, l2)


def test_cpu_timer_counts_repetitions():
    calls = []
    t = timing.time_cpu(lambda: calls.append(1), warmup=2, reps=4)
    assert len(calls) == 6 and t.reps == 4 and t.min_ms >= 0
