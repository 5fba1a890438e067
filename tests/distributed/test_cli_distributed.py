"""`bwlab p2p` and `bwlab bench distributed` as a user meets them: wrong values refused at the
door, the one-GPU and no-GPU cases said in one line, saved results drawn again without a GPU,
and the bench launched the way users launch it (torchrun) on CPU ranks over gloo."""
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bwlab.cli import app
from bwlab.core.device import cuda_available

runner = CliRunner()
no_gpu = pytest.mark.skipif(cuda_available()[0], reason="behaviour without a GPU")
SRC = Path(__file__).resolve().parents[2] / "src"


def invoke(*args, env=None):
    return runner.invoke(app, list(args), terminal_width=100, env=env)


def p2p_doc(gpus: int) -> dict:
    n = range(gpus)
    return {"schema": "bwlab.distributed/1", "procedure": "p2p", "command": "bwlab p2p", "created": "now",
            "gpus": gpus, "devices": ["NVIDIA H200"] * gpus, "environment": {"torch": "2.11"},
            "copies": {"devices": list(n), "size_bytes": 256 << 20, "reps": 20,
                       "one_way_gbs": [[4000.0 if a == b else 390.0 for b in n] for a in n],
                       "each_way_gbs": [[None if a == b else 380.0 for b in n] for a in n],
                       "latency_us": [[2.0 if a == b else 3.5 for b in n] for a in n],
                       "peer_access": [[True for _ in n] for _ in n],
                       "correct": [[True for _ in n] for _ in n]},
            "all_to_all": [{"size_bytes": s, "count_per_peer": s // 4 // gpus, "dtype": "int32", "time_us": s / 3e5,
                            "algbw_gbs": 300.0, "busbw_gbs": 300.0 * (gpus - 1) / gpus, "correct": True}
                           for s in (1 << 20, 4 << 20, 16 << 20)]}


@no_gpu
def test_p2p_without_a_gpu_says_so_in_one_line(tmp_path):
    res = invoke("p2p", "--out", str(tmp_path / "o"))
    assert res.exit_code == 1, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "needs an NVIDIA GPU" in lines[0]
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("args, words", [
    (["p2p", "--min-size", "2G", "--max-size", "1G"], "the largest must be at least the smallest"),
    (["p2p", "--size", "12Q"], "a size looks like"),
    (["p2p", "--gpus", "0"], "greater than or equal to 1"),
    (["bench", "distributed", "--suite", "nope"], "--suite: nope not among main, small, chunks"),
    (["bench", "distributed", "--peers", "numpy"], "--peers: numpy not among torch, all_to_all"),
    (["bench", "distributed", "--shapes", "0x5"], "extents must be positive"),
    (["bench", "distributed", "--shapes", "4x4x4"], "rows x columns"),
    (["bench", "distributed", "--param", "dim=1"], "the distributed bench takes no case parameters"),
])
def test_wrong_values_are_refused_at_the_door(args, words):
    res = invoke(*args)
    assert res.exit_code == 2, res.output
    assert words in res.output and "Traceback" not in res.output


def test_p2p_refuses_to_run_under_torchrun():
    res = invoke("p2p", env={"WORLD_SIZE": "2"})
    assert res.exit_code == 2 and "without torchrun" in res.output


@pytest.mark.parametrize("gpus", [1, 2])
def test_p2p_render_draws_a_saved_run_again(tmp_path, gpus):
    src = tmp_path / "p2p.json"
    src.write_text(json.dumps(p2p_doc(gpus)))
    res = invoke("p2p", "--render", str(src), "--out", str(tmp_path / "again"))
    assert res.exit_code == 0, res.output
    text = (tmp_path / "again" / "p2p.txt").read_text()
    assert "busbw GB/s" in text and "Latency" in text
    assert ("Only one GPU is visible" in text) == (gpus == 1)
    assert ("both ways at once" in text) == (gpus == 2)
    assert (tmp_path / "again" / "p2p.png").read_bytes()[:4] == b"\x89PNG"
    res = invoke("p2p", "--render", str(src), "--out", str(tmp_path / "again"))
    assert res.exit_code == 1 and "already holds" in res.output


def test_p2p_render_refuses_another_document(tmp_path):
    src = tmp_path / "x.json"
    src.write_text(json.dumps({"schema": "bwlab.run/2"}))
    res = invoke("p2p", "--render", str(src))
    assert res.exit_code == 1 and "not a bwlab multi-GPU document (schema 'bwlab.run/2')" in res.output
    assert "`bwlab p2p` writes" in " ".join(res.output.split())
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


torch_needed = pytest.mark.skipif(__import__("importlib").util.find_spec("torch") is None,
                                  reason="needs torch (CI installs torch==2.13.0, a CPU build)")


def _bench(args, ranks: int, cwd):
    # TMPDIR: torchrun's own temporary folders (torchelastic_*) go inside the test's, not /tmp
    env = dict(os.environ, PYTHONPATH=str(SRC), OMP_NUM_THREADS="1", CUDA_VISIBLE_DEVICES="", TMPDIR=str(cwd))
    launcher = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={ranks}"] \
        if ranks > 1 else [sys.executable]
    # its own process group, so a timeout takes torchrun's workers down with the launcher
    proc = subprocess.Popen([*launcher, "-m", "bwlab", "bench", "distributed", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@torch_needed
def test_bench_distributed_under_torchrun_on_cpu_ranks(tmp_path):
    args = ["--shapes", "33x31,64x48", "--dtypes", "float32,complex128", "--reps", "3", "--out", str(tmp_path / "o")]
    res = _bench(args, 2, tmp_path)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    doc = json.loads((tmp_path / "o" / "ranks-2.json").read_text())
    assert doc["world_size"] == 2 and doc["backend"] == "gloo" and doc["complete"]
    assert doc["checks"] and all(c["correct"] for c in doc["checks"]) and doc["transports"] == ["nccl"]
    names = {(tuple(r["shape"]), r["dtype"], r["name"]) for r in doc["records"]}
    for shape in ((33, 31), (64, 48)):
        for dtype in ("float32", "complex128"):
            for name in ("bwlab gloo", "torch ops", "all_to_all_single alone"):
                assert (shape, dtype, name) in names
    assert all(r["timing"]["median_ms"] > 0 for r in doc["records"])
    assert all(r["correct"] for r in doc["records"] if r["name"] != "all_to_all_single alone")
    assert "Distributed transpose on 2 CPU ranks, gloo" in res.stdout
    assert (tmp_path / "o" / "ranks-2.png").read_bytes()[:4] == b"\x89PNG"
    # again into the same folder: refused in one line by rank 0, nothing replaced
    before = (tmp_path / "o" / "ranks-2.json").read_text()
    again = _bench(args, 2, tmp_path)
    assert again.returncode != 0
    said = [line for line in again.stderr.splitlines() if line.startswith("bwlab:")]
    assert len(said) == 1 and "already holds" in said[0], again.stderr[-2000:]
    assert (tmp_path / "o" / "ranks-2.json").read_text() == before


@torch_needed
def test_bench_distributed_chunk_sweep_without_a_gpu_runs_the_small_suite(tmp_path):
    res = _bench(["--suite", "chunks", "--peers", "none", "--dtypes", "float32", "--reps", "2",
                  "--out", str(tmp_path / "o")], 1, tmp_path)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert "suite 'small' instead of the chunk sweep" in " ".join(res.stdout.split())
    doc = json.loads((tmp_path / "o" / "ranks-1.json").read_text())
    assert [tuple(r["shape"]) for r in doc["records"]] == [(1024, 1024), (4099, 4093)]
    assert "UserWarning" not in res.stderr


@torch_needed
def test_bench_distributed_without_torchrun_is_one_rank(tmp_path):
    res = _bench(["--shapes", "5x7", "--peers", "none", "--reps", "2", "--out", str(tmp_path / "o")], 1, tmp_path)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    doc = json.loads((tmp_path / "o" / "ranks-1.json").read_text())
    assert doc["world_size"] == 1 and [r["name"] for r in doc["records"]] == ["bwlab gloo"]
    assert doc["p2p"]["each_way_gbs"] is None and "one rank" in doc["p2p"]["method"]
