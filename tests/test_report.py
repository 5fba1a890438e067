from pathlib import Path

import pytest

from bwlab import catalog, report, results
from bwlab.build import Resources

FIXTURE = Path(__file__).parents[1] / "benchmarks" / "h200" / "run.json"  # the committed H200 run


def test_ladder_table_from_recorded_h200_run():
    if not FIXTURE.exists():
        pytest.skip("no recorded H200 run")
    run = results.load(FIXTURE)
    text = report.to_text(report.device_table(run.device), report.ladder_table(run))
    for r in run.records:
        assert r.name in text
    assert "H200" in text and "bytes read + bytes written" in text
    best = max((r for r in run.records if r.kind == "kernel" and r.role == "transpose" and r.gbs),
               key=lambda r: r.gbs)
    assert f"{best.gbs:.0f}" in text


def test_wrong_kernels_are_visible():
    from test_results import make_run

    run = make_run()
    run.records[0].correct = False
    run.ceilings = {"peak_gbs": 100.0}
    assert "NO" in report.to_text(report.ladder_table(run))


def test_kernels_table_lists_every_kernel():
    res = {k.name: Resources(registers=32) for k in catalog.KERNELS}
    text = report.to_text(report.kernels_table(catalog.KERNELS, res), width=400)
    for k in catalog.KERNELS:
        assert k.name in text
