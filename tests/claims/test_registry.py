"""The claim registry: every claim well formed, one English sentence from a topic of the notes
(never a file name), measured claims with an experiment, a rule and charts that name measured
numbers, the others with the reason they are not measured yet."""
import re

import pytest

from bwlab.lab import claims as lab
from bwlab.workloads import claims
from bwlab.workloads.claims import CLAIMS, VERDICTS
from ledger_synth import EXPECTED, NUMBERS

IDS = [c.id for c in CLAIMS]


def test_ids_are_unique_command_line_names():
    assert len(IDS) == len(set(IDS))
    for i in IDS:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i), i


@pytest.mark.parametrize("c", CLAIMS, ids=IDS)
def test_each_claim_is_one_sentence_from_a_topic(c):
    assert c.text.endswith(".") and "\n" not in c.text and len(c.text) < 260
    assert ". " not in c.text[:-1], "one sentence"
    assert c.topic.startswith("notes on ") and c.group
    for text in (c.text, c.topic, c.experiment, c.why_not):
        assert not re.search(r"seed|\b00[0-4]_|\.txt|\bissues?\b", text, re.I), text


@pytest.mark.parametrize("c", CLAIMS, ids=IDS)
def test_measured_claims_have_an_experiment_and_a_rule(c):
    if c.measured:
        assert c.decide is not None and c.experiment and c.kernels and not c.why_not
        for k in c.kernels:
            assert k.source.is_file() and k.expressions
            assert set(k.local_memory) <= set(k.expressions)
    else:
        assert c.decide is None and c.why_not and not c.kernels


def test_the_not_measured_yet_claims_are_listed_as_such():
    pending = [c for c in CLAIMS if not c.measured]
    assert {c.id for c in pending} == {"shared-speed-everywhere"}
    for c in pending:
        assert lab.entry(c)["status"] == "not measured yet"


def test_the_required_coverage_is_measured():
    measured = {c.id for c in CLAIMS if c.measured}
    assert {"column-reads", "naive-unroll", "diagonal-order", "padding", "swizzle", "larger-tiles", "thin-blocks",
            "copy-upper-bound", "peak-bandwidth", "peak-flops", "memory-levels", "local-memory",
            "constant-broadcast", "read-only-cache", "shift-for-pow2", "rsqrtf", "double-literals",
            "fast-intrinsics", "warp-divergence", "signed-loop-counters", "divergent-syncthreads",
            "coalescing", "latency-hiding", "thread-coarsening", "register-tiling", "null-stream",
            "bottleneck-cases", "char-short-promotion", "restrict-pointers", "dram-banks"} <= measured
    assert set(EXPECTED) == measured == set(NUMBERS)


@pytest.mark.parametrize("c", [c for c in CLAIMS if c.measured], ids=lambda c: c.id)
def test_every_chart_bar_names_a_number_the_experiment_records(c):
    e = lab.decided(c, NUMBERS[c.id])
    assert e["status"] in VERDICTS
    for spec, drawn in zip(c.charts, e["charts"]):
        assert len(drawn["bars"]) == len(spec.bars), f"{spec.title}: a bar names a number not measured"


def test_select_keeps_ledger_order_and_refuses_unknown_names():
    assert [c.id for c in claims.select(["rsqrtf", "padding"])] == ["padding", "rsqrtf"]
    assert len(claims.select(None)) == len(CLAIMS)
    with pytest.raises(ValueError, match="unknown claim nope"):
        claims.select(["padding", "nope"])
    with pytest.raises(ValueError, match="unknown claim"):
        claims.get("nope")


def test_sources_split_clean_and_deliberate_local_memory():
    assert {p.name: e for p, e in claims.LOCAL_MEMORY.items()} == {"chase.cu": ["chaseLocal"],
                                                                  "spill.cu": ["liveValues<8>"]}
    for path, exprs in claims.LOCAL_MEMORY.items():
        assert not set(exprs) & set(claims.SOURCES.get(path, []))
