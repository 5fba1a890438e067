"""The ledger document and its renderers, without a GPU: a claims document saved and read back,
its tables and charts, Markdown, HTML and CSV through `bwlab report`, and the committed H200
ledger when it exists."""
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bwlab.cli import app
from bwlab.core import results
from bwlab.lab import claims as lab
from bwlab.report import document, ledger
from bwlab.report.text import to_text
from bwlab.workloads.claims import CLAIMS
from ledger_synth import make_run

COMMITTED = Path(__file__).parents[2] / "benchmarks" / "h200" / "claims" / "claims.json"
MEASURED = [c.id for c in CLAIMS if c.measured]


def _saved(tmp_path, **kw) -> Path:
    return results.save(make_run(**kw), tmp_path / "claims.json")


def test_document_round_trips(tmp_path):
    run = results.load(_saved(tmp_path))
    entries = lab.ledger(run)
    assert [e["id"] for e in entries] == [c.id for c in CLAIMS]
    assert run.procedure == "claims" and lab.wrong(run) == [] and lab.unmeasured(run) == []


def test_ledger_of_another_procedure_is_refused():
    run = make_run()
    run.config["procedure"] = "ladder"
    with pytest.raises(ValueError, match="not a claims ledger"):
        lab.ledger(run)
    run.config.update(procedure="claims", claims=[{"verdict": "x"}])
    with pytest.raises(ValueError, match="config.claims"):
        lab.ledger(run)


def test_tables_name_every_claim_and_its_verdict():
    run = make_run()
    tables = ledger.tables(run)
    summary = tables[1]
    assert [r[0] for r in summary.rows] == [c.id for c in CLAIMS]
    assert {r[1] for r in summary.rows} >= {"holds", "does not hold", "depends", "not measured yet"}
    per_claim = {t.title.split(":")[0] for t in tables[2:-1]}
    assert per_claim == set(MEASURED)
    pending = tables[-1]
    assert pending.title == "claims not measured yet" and all(r[2] for r in pending.rows)
    text = to_text(tables)
    assert "seed" not in text.lower() and "from the notes on the bandwidth of naive transposes" in text


def test_wrong_and_failed_claims_say_so():
    run = make_run(wrong="padding", failed="rsqrtf")
    assert lab.wrong(run) == ["padding"]
    assert [line.split(":")[0] for line in lab.unmeasured(run)] == ["padding", "rsqrtf"]
    summary = ledger.summary_table(run)
    row = summary.rows[[r[0] for r in summary.rows].index("padding")]
    assert row[1] == "not measured" and summary.flags[summary.rows.index(row)] == "bad"


def test_charts_are_pngs_with_the_names_announced():
    run = make_run()
    pngs = ledger.charts(run)
    assert list(pngs) == ledger.chart_names(run)
    assert "claim-thin-blocks.png" in pngs and "claim-memory-levels-2.png" in pngs
    assert all(data.startswith(b"\x89PNG") for data in pngs.values())


@pytest.mark.parametrize("fmt, name", [("md", "claims-report/report.md"), ("html", "claims.html"),
                                       ("csv", "claims.csv")])
def test_bwlab_report_renders_the_ledger(tmp_path, fmt, name):
    path = _saved(tmp_path)
    res = CliRunner().invoke(app, ["report", str(path), "--format", fmt])
    assert res.exit_code == 0, res.output
    out = (tmp_path / name).read_text()
    if fmt == "csv":
        assert out.count("\n") == len(MEASURED) + 1
        return
    assert "claims ledger" in out and "does not hold" in out and "not measured yet" in out
    assert "bwlab claims: NVIDIA H200" in out
    if fmt == "md":
        assert (tmp_path / "claims-report" / "claim-padding.png").is_file()
        assert "![claim-padding](claim-padding.png)" in out
    else:
        assert out.count("data:image/png;base64") == len(ledger.chart_names(results.load(path)))


@pytest.mark.parametrize("change, words", [
    (lambda e: e.pop("claim"), "entries with id, topic, claim"),
    (lambda e: e.update(numbers="oops"), "numbers should map"),
    (lambda e: e.update(status="maybe"), "status 'maybe'"),
    (lambda e: e.update(charts=[{"title": "t", "unit": "u", "bars": [["a", None]]}]), "charts should be"),
])
def test_bwlab_report_refuses_a_malformed_ledger_in_one_line(tmp_path, change, words):
    path = _saved(tmp_path)
    doc = json.loads(path.read_text())
    change(doc["config"]["claims"][5])
    path.write_text(json.dumps(doc))
    for fmt in ("md", "html", "csv"):
        res = CliRunner().invoke(app, ["report", str(path), "--format", fmt])
        assert res.exit_code == 1 and words in res.output and "Traceback" not in res.output, res.output
    assert [p.name for p in tmp_path.iterdir()] == ["claims.json"]


@pytest.mark.skipif(not COMMITTED.is_file(), reason="no committed H200 ledger yet")
def test_the_committed_h200_ledger_renders():
    run = results.load(COMMITTED)
    entries = lab.ledger(run)
    assert run.complete and not lab.wrong(run)
    assert {e["id"] for e in entries} == {c.id for c in CLAIMS}
    for e in entries:
        c = next(c for c in CLAIMS if c.id == e["id"])
        if not c.measured:
            assert e["status"] == "not measured yet"
            continue
        assert e["status"] in ("holds", "does not hold", "depends"), e   # every experiment gave a verdict
        assert c.decide(e["numbers"]).status == e["status"]   # the rule, applied again, agrees
    assert ledger.tables(run) and json.loads(COMMITTED.read_text())["config"]["procedure"] == "claims"
    assert document.markdown(run, ledger.chart_names(run))
