"""Tables from recorded runs, as a reader sees them: in a terminal, piped at 80 columns, in files."""
import io
import re
import textwrap

import pytest
from rich.console import Console

from bwlab.core.build import Resources
from bwlab.core.results import load
from bwlab.report import roofline, tables, text
from bwlab.workloads import get
from helpers import H200, make_run

RUN = H200 / "transpose" / "run.json"


def test_ladder_table_from_recorded_h200_run():
    run = load(RUN)
    out = text.to_text(tables.tables_for(run))
    for r in run.records:
        assert r.name in out
    assert "H200" in out and "bytes read + bytes written" in out
    best = max((r for r in run.records if r.kind == "kernel" and r.role == "transpose" and r.gbs), key=lambda r: r.gbs)
    assert f"{best.gbs:.0f}" in out
    cpu = next(line for line in out.splitlines() if line.startswith("numpy (CPU)"))
    assert re.search(r"\s0\.[1-9]\d{1,2}\s", cpu), cpu  # a slow peer keeps its digits instead of showing 0


def test_wrong_kernels_are_visible():
    run = make_run()
    run.records[0].correct = False
    t = tables.ladder_table(run)
    assert t.flags == ["bad"] and "NO" in t.rows[0] and "<- wrong" in text.plain(t)


def test_flop_free_roofline_table_has_no_flop_columns():
    t = tables.roofline_table(roofline.analyze(load(RUN)))
    heads = [c.header for c in t.columns]
    assert "GFLOP/s" not in heads and "I" not in heads and "bound" in heads
    assert all(cell not in ("0", "0.0") for row in t.rows for cell in row[1:4])


def test_kernels_table_lists_every_kernel():
    w = get("transpose")
    t = tables.kernels_table([("transpose", k, Resources(registers=32)) for k in w.kernels()])
    out = text.to_text([t])
    for k in w.kernels():
        assert k.name in out


@pytest.mark.parametrize("build", [
    lambda: tables.roofline_table(roofline.analyze(load(RUN))),
    lambda: tables.ladder_table(load(RUN)),
    lambda: tables.kernels_table([("transpose", k, None) for k in get("transpose").kernels()]),
    lambda: tables.bench_table(load(H200 / "transpose" / "bench" / "bench.json")),
])
def test_piped_at_80_columns_one_row_per_line(build):
    t = build()
    buf = io.StringIO()
    text.show(Console(file=buf, width=80), t)  # not a terminal: the plain form
    lines = buf.getvalue().splitlines()
    row_lines = [line for line in lines if line and not line.startswith(("[", " "))]
    caption = len(textwrap.wrap(t.caption, 80)) if t.caption else 0
    assert len(row_lines) <= len(t.rows) + 3 + caption, "rows were wrapped"
    one_word = [line for line in lines if len(line.split()) == 1]
    assert len(one_word) <= 2, f"{len(one_word)} lines of one word: {one_word[:5]}"
    for row in t.rows:  # every row's first cell starts a line
        assert any(line.startswith(row[0]) for line in lines)


def test_a_wide_terminal_gets_a_rich_table():
    buf = io.StringIO()
    text.show(Console(file=buf, width=250, force_terminal=True, color_system=None), tables.ladder_table(load(RUN)))
    assert "┃" in buf.getvalue() or "│" in buf.getvalue()


def test_bench_marks_a_missed_goal_on_its_own_case_only():
    """A miss marks its case, not every case of the same shape and dtype (the backward pass of
    [16, 8192, 1024] bfloat16 met its goal; its forward pass did not)."""
    run = load(H200 / "softmax" / "main-backward" / "bench.json")
    t = tables.bench_table(run)
    rows = [r for r in t.rows if r[0] == "16x8192x1024" and r[1] == "bfloat16"]
    assert len(rows) == 2 and rows[0][3].endswith("*") and not rows[1][3].endswith("*")
    misses = tables.misses_table(run)  # a backward miss is named with its pass; a met one is not listed
    assert any(r[0] == "4x32768x1024 dim 1 backward" for r in misses.rows)
    assert not any(r[0] == "8192x8192 dim 0 backward" for r in misses.rows)
