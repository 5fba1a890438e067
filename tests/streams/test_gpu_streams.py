"""Each stream scenario small and fast on the GPU, the pipeline and the transfers at small sizes,
and both commands end to end (about 30 s in all, most of it child processes starting CuPy)."""
import pytest
from typer.testing import CliRunner

from bwlab.cli import app
from bwlab.lab import streams as lab
from bwlab.workloads.streams import scenario

pytestmark = pytest.mark.gpu
KERNEL_US = 500.0


@pytest.fixture(scope="module")
def spec():
    from bwlab.core.device import query

    return query()


def measured(name, spec, kernel_us=KERNEL_US):
    cases = lab.run_cases(scenario(name).cases(), spec, kernel_us)
    for c in cases:
        assert not c["error"], f"{name}: {c['label']}: {c['error']}"
        assert c["ops"] and all(o["end_us"] > o["start_us"] for o in c["ops"])
        assert all(o["end_us"] - o["start_us"] >= 0.9 * kernel_us for o in c["ops"])  # the spin lasted
    return cases, lab.entry(name, cases, {"kernel_us": kernel_us})["verdict"]


def holding(name, spec, kernel_us=KERNEL_US, tries=3):
    """measured() until the scenario's verdict holds, at most `tries` times. The suite's other
    workers run on the same GPU from other processes, whose contexts the GPU time-slices with this
    one: a slice of theirs in the middle of a scenario can delay a kernel by hundreds of us (most
    likely what happened once on an H100 in a parallel run: K2 started 292 us after the event it
    waited on, K3 on a third stream overlapped K1 0%). Such a delay is rare and passes; a behaviour
    that is not there fails every try."""
    for _ in range(tries):
        cases, v = measured(name, spec, kernel_us)
        if v["holds"] is True:
            break
    return cases, v


@pytest.mark.parametrize("name", ["null-stream", "non-blocking", "events"])
def test_in_process_scenarios_hold(name, spec):
    cases, v = holding(name, spec)
    assert v["holds"] is True, v["text"]


def test_default_stream_in_child_processes(spec):
    cases, v = holding("default-stream", spec)
    handles = {c["label"]: c["metrics"]["default_stream_handle"] for c in cases}
    assert handles["per-thread default stream"] == 2 and handles["legacy default stream"] in (0, 1)
    assert {c["metrics"]["process_env"]["CUPY_CUDA_PER_THREAD_DEFAULT_STREAM"] for c in cases} == {"0", "1"}
    assert v["holds"] is True, v["text"]


def test_two_host_threads_on_the_default_stream(spec):
    cases, v = holding("default-stream-threads", spec, 2000.0)  # host threads start some us apart
    assert {o["lane"] for o in cases[0]["ops"]} == {"default stream (thread 0)", "default stream (thread 1)"}
    assert v["holds"] is True, v["text"]


def test_full_gpu_kernels_fill_every_sm(spec):
    cases, v = measured("full-gpu", spec)
    assert all(len(o["sms"]) >= 0.9 * spec.sm_count for o in cases[0]["ops"])
    assert v["holds"] is not None


def test_connections_in_child_processes(spec):
    cases, v = measured("connections", spec, 300.0)
    assert {c["metrics"]["process_env"]["CUDA_DEVICE_MAX_CONNECTIONS"] for c in cases} == {"1", "8", "32"}
    n = v["numbers"]
    assert n["span_x_1_depth"] > 2 * n["span_x_1_breadth"], v["text"]  # one queue: false dependencies


def test_pipeline_small(spec):
    # in and out at once cover both copies: not much under the slower copy alone (a sanity bound, not
    # a speed claim: the suite's other workers share the link and the GPU; on an H100 machine, in a
    # parallel run of the suite the ratio was 0.87, in runs alone 1.08-1.21; on the H200, in one
    # parallel run, 0.69, the copy alone slowed by another worker). Measured up to three times, as
    # the scenarios are (holding): a delay from the other workers passes, a wrong bound fails every try.
    ratios = []
    for _ in range(3):
        cases, data = lab.run_pipeline(spec, total_mib=16, chunks=4, stream_counts=(1, 2), reps=1)
        assert len(cases) == 4 and all(c["metrics"]["correct"] for c in cases)
        assert data["pinned"]["ideal_ms"] > 0 and data["iters"] >= 8 and data["compute_ratio"] == lab.COMPUTE_RATIO
        ratios.append(data["pinned"]["t_both_ms"] / max(data["pinned"]["t_in_ms"], data["pinned"]["t_out_ms"]))
        if ratios[-1] >= 0.75:
            break
    assert ratios[-1] >= 0.75, ratios
    assert data["total_streams"] == 2 and all(data[m][f"total_{k}_ms"] > 0 for m in ("pinned", "pageable")
                                              for k in ("in", "compute", "out"))
    for c in cases:
        kinds = [o["kind"] for o in c["ops"]]
        assert kinds.count("h2d") == kinds.count("d2h") == kinds.count("kernel") == 4
        assert all(o["end_us"] >= o["start_us"] >= 0 for o in c["ops"])
        assert c["metrics"]["total_ms"] > 0
    assert {o["clock"] for c in cases for o in c["ops"] if o["kind"] == "kernel"} == {"globaltimer"}
    v = lab.entry("pipeline", cases, data)["verdict"]
    assert v["holds"] is not None and "pinned" in v["text"]


def test_transfers_small():
    from bwlab.lab.transfers import run_transfers

    run = run_transfers([4096, 1 << 20], reps=3, warmup=1)
    mine = [r for r in run.records if r.family == "cudaMemcpyAsync"]
    assert {r.name for r in mine} >= {"H2D pinned", "H2D pageable", "D2H pinned", "D2H pageable", "H2D+D2H pinned",
                                      "D2D"}
    assert all(r.correct and r.gbs > 0 and r.params["latency_us"] > 0 for r in mine)
    torch = [r for r in run.records if r.family == "torch"]
    assert torch and all(r.gbs or r.notes for r in torch)  # measured, or a row saying why not
    assert run.complete


def test_both_commands_end_to_end(tmp_path):
    r = CliRunner()
    res = r.invoke(app, ["streams", "--scenarios", "null-stream,pipeline", "--kernel-ms", "0.3", "--pipeline-mib", "8",
                         "--chunks", "4", "--streams", "1,2", "--reps", "1", "--out", str(tmp_path / "s")])
    assert res.exit_code == 0, res.output
    assert {"streams.json", "table.txt", "report.md", "gantt-null-stream.png", "gantt-pipeline.png",
            "pipeline.png"} <= {p.name for p in (tmp_path / "s").iterdir()}
    doc = lab.load(tmp_path / "s" / "streams.json")
    assert doc["complete"] and [s["name"] for s in doc["scenarios"]] == ["null-stream", "pipeline"]
    res = r.invoke(app, ["transfers", "--max-size", "64K", "--reps", "3", "--out", str(tmp_path / "t")])
    assert res.exit_code == 0, res.output
    assert {"transfers.json", "table.txt", "report.md", "transfers.png"} <= {p.name for p in (tmp_path / "t").iterdir()}
