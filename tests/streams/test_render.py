"""Charts, tables and reports drawn from recorded documents (tests/streams/fixtures: synthetic
timelines shaped like an H200's), and malformed documents refused with one line (no GPU)."""
import json
from pathlib import Path

import pytest

import synth
from bwlab.core.results import load as load_run
from bwlab.lab import streams as lab
from bwlab.lab.transfers import goals, parse_size, reps_for, size_text, sizes
from bwlab.report import timeline
from bwlab.report.text import to_text

FIX = Path(__file__).parent / "fixtures"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def doc():
    return lab.load(FIX / "streams.json")


@pytest.fixture(scope="module")
def run():
    return load_run(FIX / "transfers.json")


def test_fixture_verdicts_are_what_the_rules_give(doc):
    fresh = synth.document()
    assert [s["verdict"] for s in doc["scenarios"]] == json.loads(json.dumps([s["verdict"] for s in fresh["scenarios"]]))


def test_every_scenario_draws_a_gantt_chart(doc):
    charts = timeline.streams_charts(doc)
    assert list(charts) == timeline.streams_chart_names(doc)
    assert {f"gantt-{s['name']}.png" for s in doc["scenarios"]} | {"pipeline.png"} == set(charts)
    assert all(data.startswith(PNG) and len(data) > 5000 for data in charts.values())


def test_gantt_of_a_case_not_measured(doc):
    s = json.loads(json.dumps(doc["scenarios"][0]))
    s["cases"][1].update(ops=[], error="child process failed (exit 1): boom")
    assert timeline.gantt(s, "GPU").startswith(PNG)


def test_stream_tables_and_markdown(doc, tmp_path):
    tables = timeline.streams_tables(doc)
    text = to_text(tables)
    assert "claim holds" in text and "null-stream" in text and "over ideal" in text
    assert "connections" in text and "+5.0%" in text
    paths = timeline.write_streams(doc, tmp_path)
    md = (tmp_path / "report.md").read_text()
    assert "![null-stream](gantt-null-stream.png)" in md and "![pipeline](pipeline.png)" in md
    assert {p.name for p in paths} == set(timeline.streams_chart_names(doc)) | {"report.md"}


def test_transfer_tables_chart_and_goal(run, tmp_path):
    text = to_text(timeline.transfers_tables(run))
    assert "H2D pinned" in text and "1 GiB" in text and "4 KiB" in text and "% torch" in text
    g = {m: met for m, met, _ in goals(run)}
    assert g == {"H2D pinned": True, "D2H pinned": True, "H2D+D2H pinned": True}  # fixture: 99% torch speed
    assert timeline.transfers_chart(run).startswith(PNG)
    timeline.write_transfers(run, tmp_path)
    assert (tmp_path / "transfers.png").exists() and "transfers.png" in (tmp_path / "report.md").read_text()


def test_goal_missed_when_5_percent_slower(run):
    import copy

    slow = copy.deepcopy(run)
    for r in slow.records:
        if r.family == "cudaMemcpyAsync" and r.name == "D2H pinned" and r.shape[0] == 1 << 30:
            r.gbs *= 0.9
    g = {m: (met, text) for m, met, text in goals(slow)}
    assert g["D2H pinned"][0] is False and "1 GiB" in g["D2H pinned"][1]
    assert g["H2D pinned"][0] is True


@pytest.mark.parametrize("text, n", [("4K", 4096), ("4KiB", 4096), ("16M", 16 << 20), ("1G", 1 << 30),
                                     ("1GiB", 1 << 30), ("4096", 4096), ("0.5K", 512), ("2 mib", 2 << 20)])
def test_parse_size(text, n):
    assert parse_size(text) == n


@pytest.mark.parametrize("text", ["", "abc", "1T", "-4K", "0", "0.3"])
def test_parse_size_refuses(text):
    with pytest.raises(ValueError):
        parse_size(text)


def test_sizes_and_reps():
    assert sizes(1 << 30) == [4 << 10 << 2 * k for k in range(10)]
    assert sizes(1 << 20)[-1] == 1 << 20 and sizes(5000) == [4096, 5000] and sizes(4096) == [4096]
    with pytest.raises(ValueError, match="at least the smallest"):
        sizes(1024)
    assert reps_for(4096, 50) == 50 and reps_for(1 << 30, 50) == 10 and reps_for(256 << 20, 50) == 12
    assert reps_for(1 << 30, 3) == 3  # fewer asked for: fewer given
    assert size_text(1 << 30) == "1 GiB" and size_text(5000) == "5000 B"


@pytest.mark.parametrize("change, words", [
    (lambda d: d.update(schema="bwlab.run/2"), "not a bwlab streams document"),
    (lambda d: d.pop("device"), "'device' needs a name"),
    (lambda d: d.update(scenarios={}), "'scenarios' should be a list"),
    (lambda d: d["scenarios"][0].pop("cases"), "needs a name and a list of cases"),
    (lambda d: d["scenarios"][0]["cases"][0]["ops"][0].update(start_us="soon"), "'start_us' should be a number"),
])
def test_malformed_documents_are_refused_in_one_line(doc, tmp_path, change, words):
    d = json.loads(json.dumps(doc))
    change(d)
    p = tmp_path / "s.json"
    p.write_text(json.dumps(d))
    with pytest.raises(ValueError, match=words) as exc:
        lab.load(p)
    assert "\n" not in str(exc.value)


def test_not_json(tmp_path):
    p = tmp_path / "s.json"
    p.write_text("{")
    with pytest.raises(ValueError, match="is not JSON"):
        lab.load(p)


def test_peers_take_turns(monkeypatch):
    """bwlab's and torch's repetitions alternate (first of each round alternating), warm-ups first."""
    from bwlab.lab import transfers

    log = []

    def fake(issue, streams):
        return lambda: (log.append(issue), (1.0 + len(log), 0.5))[1]

    monkeypatch.setattr(transfers, "_timed_once", fake)
    out = transfers.time_transfers([("a", [0]), ("b", [0])], reps=4, warmup=1)
    assert "".join(log) == "ab" + "ab" + "ba" + "ab" + "ba"
    assert len(out) == 2 and all(g.median_ms > 1 and h.median_ms == 0.5 for g, h in out)
