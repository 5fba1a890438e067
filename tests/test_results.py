import json

import pytest

from bwlab import results
from bwlab.results import Record, Run


def make_run():
    rec = Record("tileVec", "kernel", "transpose_fast", "transpose", [4, 6], "float32", 192,
                 block=[256, 1], grid=[1, 1], timing={"median_ms": 0.01, "mean_ms": 0.011, "std_ms": 0.001,
                                                      "min_ms": 0.009, "reps": 10},
                 gbs=19.2, correct=True, check="bit-exact at (6, 4)", notes=["a note"])
    return Run(device={"name": "GPU", "peak_bandwidth_gbs": 100.0}, environment={"cupy": "14"},
               config={"shape": [4, 6], "dtype": "float32", "reps": 10, "warmup": 1}, records=[rec])


def test_round_trip(tmp_path):
    run = make_run()
    results.save(run, tmp_path / "run.json")
    back = results.load(tmp_path / "run.json")
    assert back == run
    assert back.record("tileVec").median_ms == 0.01
    assert back.record("tileVec").cv == pytest.approx(0.001 / 0.011)
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temp file left behind


def test_wrong_schema_is_refused(tmp_path):
    p = tmp_path / "x.json"
    p.write_text(json.dumps({"schema": "other/9"}))
    with pytest.raises(ValueError, match="schema"):
        results.load(p)
