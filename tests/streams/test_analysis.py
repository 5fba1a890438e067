"""Timeline arithmetic and the verdict of every scenario, on synthetic timelines (no GPU)."""
import copy

import pytest

import synth
from bwlab.workloads.streams import SCENARIOS, scenario
from bwlab.workloads.streams import analysis as A


def op(name, start, end, lane="s"):
    return {"name": name, "lane": lane, "start_us": start, "end_us": end}


def test_overlap_and_fraction():
    a, b = op("a", 0, 100, "x"), op("b", 50, 250, "y")
    assert A.overlap_us(a, b) == 50 and A.overlap_us(b, a) == 50
    assert A.overlap_fraction(a, b) == 0.5  # of the shorter (100 us)
    assert A.overlap_us(a, op("c", 100, 200)) == 0 and A.overlap_us(a, op("c", 300, 400)) == 0
    assert A.overlap_fraction(a, op("inside", 10, 20)) == 1.0
    assert A.overlap_fraction(a, op("empty", 10, 10)) == 0.0
    assert A.gap_us(a, b) == -50 and A.gap_us(a, op("c", 103, 200)) == 3


def test_span_union_concurrency_peak():
    ops = [op("a", 0, 100), op("b", 50, 150), op("c", 300, 400)]
    assert A.span_us(ops) == 400 and A.union_us(ops) == 250
    assert A.concurrency(ops) == pytest.approx(300 / 400)
    assert A.peak_concurrency(ops) == 2
    assert A.peak_concurrency([op("a", 0, 100), op("b", 100, 200)]) == 1  # touching is not overlapping
    assert A.union_us([]) == 0 and A.span_us([]) == 0 and A.concurrency([]) == 0


def test_order_and_max_pair():
    ops = [op("K1", 0, 100, "s1"), op("K2", 101, 200, "null"), op("K3", 199, 300, "s2")]
    assert A.in_order(ops, ["K1", "K2", "K3"])  # 1 us early is within the clock tolerance
    assert not A.in_order(ops, ["K1", "K2", "K3"], tol_us=0.5)
    assert A.serialized(ops, ["K1", "K2", "K3"])
    best, pair = A.max_pair_overlap(ops)
    assert pair == ("K2", "K3") and best == pytest.approx(1 / 99)
    with pytest.raises(KeyError, match="K9"):
        A.find(ops, "K9")


def test_pipeline_ideal():
    # compute-bound: 16 x 0.5 + the first copy-in and the last copy-out
    assert A.pipeline_ideal_ms(0.3, 0.5, 0.2, 16) == pytest.approx(16 * 0.5 + 0.3 + 0.2)
    # copy-in bound
    assert A.pipeline_ideal_ms(1.0, 0.5, 0.2, 4) == pytest.approx(4 + 0.7)
    # one chunk: the stages one after another
    assert A.pipeline_ideal_ms(1.0, 2.0, 3.0, 1) == pytest.approx(6.0)
    # measured totals set the busiest stage (compute on several streams beats 16 x one chunk alone)
    assert A.pipeline_ideal_ms(0.3, 0.45, 0.3, 16, (4.8, 6.6, 4.9)) == pytest.approx(6.6 + 0.6)
    assert A.pipeline_ideal_ms(0.3, 0.45, 0.3, 16, (4.8, 4.0, 4.9)) == pytest.approx(4.9 + 0.75)


@pytest.mark.parametrize("name", [s.name for s in SCENARIOS])
def test_every_scenario_holds_on_timelines_as_cuda_describes_them(name):
    v = scenario(name).verdict(synth.good_cases(name), synth.data_for(name))
    assert v["holds"] is True, v["text"]
    assert v["text"] and any(ch.isdigit() for ch in v["text"]) and v["numbers"]


def _swap(cases, i, j):
    cases = copy.deepcopy(cases)
    cases[i]["ops"], cases[j]["ops"] = cases[j]["ops"], cases[i]["ops"]
    return cases


@pytest.mark.parametrize("name", ["null-stream", "non-blocking", "default-stream", "default-stream-threads"])
def test_a_serialized_case_that_overlaps_does_not_hold(name):
    s = scenario(name)
    good = synth.good_cases(name)
    if name == "null-stream":  # the null-stream kernel overlapping K1: not serialized
        bad = copy.deepcopy(good)
        k1, k2 = (A.find(bad[0]["ops"], n) for n in ("K1", "K2"))
        k2["start_us"], k2["end_us"] = k1["start_us"] + 5, k1["start_us"] + 5 + synth.T
    else:  # both cases concurrent
        bad = copy.deepcopy(good)
        bad[0]["ops"] = copy.deepcopy(good[1]["ops"])
    v = s.verdict(bad, synth.data_for(name))
    assert v["holds"] is False and "NOT" in v["text"]


def test_null_stream_numbers():
    v = scenario("null-stream").verdict(synth.good_cases("null-stream"), {})
    n = v["numbers"]
    assert n["overlap_k1_k2"] == 0 and n["gap_k1_k2_us"] == pytest.approx(3.0)
    assert n["overlap_k1_k3_without_null"] > 0.99
    assert "3.0 us after K1 ended" in v["text"]


def test_events_wait_that_did_not_hold():
    cases = copy.deepcopy(synth.good_cases("events"))
    k1, k2 = A.find(cases[0]["ops"], "K1"), A.find(cases[0]["ops"], "K2")
    k2["start_us"] = k1["end_us"] - 500
    v = scenario("events").verdict(cases, {})
    assert v["holds"] is False and "BEFORE K1 ended" in v["text"]


def test_full_gpu_overlapping_does_not_hold():
    cases = synth.good_cases("non-blocking")[1:]
    cases = [dict(cases[0], label="two kernels, each filling every SM",
                  ops=[o for o in cases[0]["ops"] if o["name"] in ("K1", "K2")])]
    v = scenario("full-gpu").verdict(cases, {})
    assert v["holds"] is False and v["numbers"]["overlap"] > 0.9


def test_connections_without_false_dependencies_does_not_hold():
    cases = synth.good_cases("connections")
    flat = [dict(c, ops=synth.connections_case(32, "breadth-first")["ops"]) for c in cases]
    v = scenario("connections").verdict(flat, {"kernel_us": synth.T})
    assert v["holds"] is False
    v = scenario("connections").verdict(cases, {"kernel_us": synth.T})
    assert v["numbers"]["span_x_1_depth"] == pytest.approx(11.0, rel=0.01)
    assert v["numbers"]["span_x_8_depth"] == pytest.approx(5 / 3, rel=0.01)
    assert v["numbers"]["span_x_32_depth"] == pytest.approx(1.0, rel=0.01)


def test_pipeline_goal():
    cases, data = synth.pipeline_cases()
    v = scenario("pipeline").verdict(cases, data)
    assert v["holds"] is True and v["numbers"]["pinned_best_streams"] == 4
    assert v["numbers"]["pinned_best_over_ideal"] == pytest.approx(1.05)
    slow = copy.deepcopy(cases)
    for c in slow:
        if c["metrics"]["memory"] == "pinned":
            c["metrics"]["total_ms"] = max(c["metrics"]["total_ms"], data["pinned"]["ideal_ms"] * 1.2)
    v = scenario("pipeline").verdict(slow, data)
    assert v["holds"] is False and "MISSED" in v["text"]


def test_pipeline_verdict_says_what_bounds_it():
    cases, data = synth.pipeline_cases(t_c=0.45, t_both=0.36)  # compute busier than both copies at once
    v = scenario("pipeline").verdict(cases, data)
    assert "in and out at once 0.360 ms (+20% on the longer copy" in v["text"]
    assert "Compute (0.414 ms a chunk) is the busiest stage" in v["text"]  # 0.92 x 0.45: kernels back to back
    assert "Pinned ideal 7.22 ms = compute of all 16 chunks on its own (6.62 ms on 8 streams; copy in 4.80" in v["text"]
    n = v["numbers"]
    assert n["pinned_both_copies_ms"] == 0.36 and n["link_both_gbs"] == pytest.approx(2 * (16 << 20) / 0.36e6, abs=0.1)
    assert n["link_one_way_gbs"] == pytest.approx((16 << 20) / 0.3e6, abs=0.1)
    cases, data = synth.pipeline_cases(t_c=0.3, t_both=0.36)  # balanced: the shared link is the busiest
    v = scenario("pipeline").verdict(cases, data)
    assert "link-bound" in v["text"] and "busiest stage even" not in v["text"]
    del data["pinned"]["t_both_ms"]  # a document from before this was measured: no such sentence
    v = scenario("pipeline").verdict(cases, data)
    assert "at once" not in v["text"] and "pinned_both_copies_ms" not in v["numbers"]


def test_a_case_not_measured_gives_no_verdict():
    cases = copy.deepcopy(synth.good_cases("null-stream"))
    cases[1]["ops"], cases[1]["error"] = [], "child process failed (exit 1): boom"
    v = scenario("null-stream").verdict(cases, {})
    assert v["holds"] is None and "boom" in v["text"]
    assert scenario("pipeline").verdict([], {})["holds"] is None


def test_unknown_scenario():
    with pytest.raises(ValueError, match="known: null-stream"):
        scenario("nope")


def test_connection_issue_orders():
    from bwlab.workloads.streams.scenarios import connection_steps

    d = [s[1] for s in connection_steps("depth-first", 2, ("A", "B"))]
    b = [s[1] for s in connection_steps("breadth-first", 2, ("A", "B"))]
    assert d == ["A1", "B1", "A2", "B2"] and b == ["A1", "A2", "B1", "B2"]


def test_cases_that_need_a_fresh_process():
    assert {s.name for s in SCENARIOS if s.child} == {"default-stream", "default-stream-threads", "connections"}
    envs = [c["env"] for c in scenario("default-stream").cases()]
    assert envs == [{"CUPY_CUDA_PER_THREAD_DEFAULT_STREAM": "0"}, {"CUPY_CUDA_PER_THREAD_DEFAULT_STREAM": "1"}]
    conns = {c["env"]["CUDA_DEVICE_MAX_CONNECTIONS"] for c in scenario("connections").cases()}
    assert conns == {"1", "8", "32"}
