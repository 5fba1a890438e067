"""The distributed bench's derived figures from timings (no GPU, no process group)."""
from bwlab.distributed import bench


def _rec(name, ms, host=None):
    t = {"median_ms": ms, "mean_ms": ms, "std_ms": 0.0}
    if host is not None:
        t["host_median_ms"] = host
    return {"name": name, "bytes": 4 << 30, "bound_ms": 3.0, "timing": t, "notes": []}


def test_rates_bound_and_torch_ratio():
    recs = [_rec("bwlab", 4.0, host=0.5), _rec("torch ops", 8.0, host=0.2)]
    bench._derive(recs, 2)
    b, t = recs
    assert b["gbs_per_gpu"] == 2 * (4 << 30) / 2 / 4e-3 / 1e9
    assert b["pct_of_bound"] == 75.0 and b["x_torch"] == 2.0 and t["x_torch"] is None
    assert b["notes"] == [] and t["notes"] == []


def test_a_call_whose_queuing_takes_as_long_as_the_gpu_is_flagged():
    recs = [_rec("bwlab", 1.0, host=0.9), _rec("torch ops", 2.0)]
    bench._derive(recs, 2)
    assert recs[0]["notes"] and recs[0]["notes"][0].startswith("host-bound: queuing a call took 0.9 ms")
    assert recs[1]["notes"] == []  # no host time recorded (a run on CPU ranks): nothing said
