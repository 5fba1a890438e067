import json

import pytest

from bwlab.core import results
from helpers import H200, make_run


def test_round_trip(tmp_path):
    run = make_run()
    results.save(run, tmp_path / "run.json")
    back = results.load(tmp_path / "run.json")
    assert back == run
    assert back.record("tileVec").median_ms == 0.01
    assert back.record("tileVec").cv == pytest.approx(0.001 / 0.011)
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temporary file left behind


def _write(tmp_path, doc) -> str:
    p = tmp_path / "x.json"
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return p


GOOD = make_run().to_dict()


@pytest.mark.parametrize("doc, words", [
    ([1, 2], "expected a JSON object, got list"),
    ('"just a string"', "expected a JSON object, got str"),
    ({"schema": "other/9"}, "schema 'other/9'"),
    ({"records": []}, "no 'schema' field"),
    ({"schema": "bwlab.streams/1"}, "a streams document .* `bwlab report` or `bwlab streams --render` draws it"),
    ({"schema": "bwlab.distributed/1"}, "a multi-GPU document .*`bwlab p2p --render`"),
    ({"schema": "bwlab.plan/1"}, "a tuning plan"),
    ({"schema": "bwlab.plan/2"}, "a tuning plan"),
    ({"schema": results.SCHEMA}, "without 'device'"),
    ({**GOOD, "records": {}}, "'records' should be a list"),
    ({**GOOD, "device": {"name": "x"}}, "peak_bandwidth_gbs"),
    ({**GOOD, "records": [{**GOOD["records"][0], "gbs": "fast"}]}, "field 'gbs' should be int/float or null"),
    ({**GOOD, "records": [{**GOOD["records"][0], "correct": "yes"}]}, "field 'correct'"),
    ({**GOOD, "records": [{"name": "a"}]}, "missing kind"),
    ({**GOOD, "records": [{**GOOD["records"][0], "timing": {"median_ms": "x"}}]}, "timing"),
    ({**GOOD, "records": [{**GOOD["records"][0], "shape": [-1, 2]}]}, "non-negative integers"),
    ("{not json", "is not JSON"),
])
def test_malformed_documents_are_one_clear_error(tmp_path, doc, words):
    with pytest.raises(ValueError, match=words) as exc:
        results.load(_write(tmp_path, doc))
    assert "\n" not in str(exc.value)


def test_keys_from_a_newer_version_are_ignored(tmp_path):
    doc = {**GOOD, "future_top": 1, "records": [{**GOOD["records"][0], "future_field": {"a": 1}}]}
    run = results.load(_write(tmp_path, doc))
    assert run.records[0].name == "tileVec" and not hasattr(run.records[0], "future_field")


def test_missing_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="cannot read .*nope.json: no such file"):
        results.load(tmp_path / "nope.json")
    with pytest.raises(ValueError, match="it is a folder; pass the JSON file a run wrote"):
        results.load(tmp_path)


def test_version_1_documents_are_read_as_transpose_runs():
    run = results.load(H200 / "transpose" / "run.json") if (H200 / "transpose" / "run.json").exists() else None
    for path in H200.rglob("*.json"):
        doc = json.loads(path.read_text())
        if doc.get("schema") == "bwlab.run/1":
            run = results.load(path)
            assert run.workload == "transpose" and run.procedure in results.PROCEDURES
            assert all(r.workload == "transpose" for r in run.records)
    assert run is None or run.records
