"""Device facts, the harness and the measured ceilings on the real GPU."""
import pytest

from bwlab.core import ceilings, timing

pytestmark = pytest.mark.gpu


def test_device_facts_are_sane():
    from bwlab.core.device import query

    d = query()
    assert d.sm_count > 0 and d.mem_clock_khz > 0 and d.bus_width_bits > 0 and d.l2_bytes > 0
    assert 100 < d.peak_bandwidth_gbs < 20000
    if "H200" in d.name:
        assert d.bus_width_bits == 6016 and abs(d.peak_bandwidth_gbs - 4814) < 60


def test_harness_on_a_small_case():
    import cupy

    from bwlab.core.device import query

    x = cupy.ones((512, 512), cupy.float32)
    y = cupy.empty_like(x)
    flush = timing.L2Flusher(query().l2_bytes)
    t = timing.time_gpu(lambda: cupy.copyto(y, x), warmup=2, reps=20, flush=flush)
    assert t.reps == 20 and 0 < t.min_ms <= t.median_ms < 100 and t.std_ms >= 0


def test_measured_ceilings_and_copy_kernels_are_exact():
    import cupy

    from bwlab.core.device import query
    from bwlab.core.verify import compare, poison, random_device

    c = ceilings.measure_ceilings(query(), nbytes=256 << 20, reps=10)
    assert set(c) == {"cudaMemcpy", "copyVec", "copyVecUnroll4"} and all(v and v > 0 for v in c.values()), c
    for n in (1, 15, 16, 17, 4099, 1 << 20):  # tails that are not whole vectors
        x = random_device((n,), "float32").view(cupy.uint8)[: n]
        for spec in ceilings.COPY_KERNELS:
            y = cupy.empty_like(x)
            poison(y)
            ceilings.prepare_copy(spec, x, y).launch()
            assert compare(y, x).ok, (spec.name, n)
    assert ceilings.measure_fp32(query()) > 1000
