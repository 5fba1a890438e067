"""The procedures end to end on the GPU, at small sizes: ladder, sweeps, bench, tune."""
import json

import pytest

from bwlab.core import results
from bwlab.core.workload import Case
from bwlab.lab import bench, ladder, sweep, tune
from bwlab.workloads import get

pytestmark = pytest.mark.gpu
W = get("transpose")


def test_small_ladder_run_round_trips(tmp_path):
    run = ladder.run_ladder(W, Case((1000, 3000), "float32"), ["naiveRow", "tile32Swizzle", "tileVec"],
                            ["bwlab", "torch", "cupy"], reps=5, warmup=1, seed=1)
    assert run.complete and run.config["l2_flush"] and run.procedure == "ladder" and run.workload == "transpose"
    names = [r.name for r in run.records]
    assert names[:4] == ["numpy (CPU)", "cudaMemcpy", "copyVec", "copyVecUnroll4"]
    for r in run.records:
        if r.notes and r.notes[0].startswith("skipped"):
            continue
        assert r.correct is True, (r.name, r.check, r.notes)
        assert r.gbs > 0 and r.pct_memcpy > 0 and r.workload == "transpose"
    assert run.ceilings["memcpy_gbs"] > 0 and run.ceilings["best_copy"] in ("copyVec", "copyVecUnroll4")
    results.save(run, tmp_path / "run.json")
    assert results.load(tmp_path / "run.json").records == run.records
    json.loads((tmp_path / "run.json").read_text())


def test_a_wrong_kernel_is_never_timed(monkeypatch):
    import dataclasses

    wrong = dataclasses.replace(W.kernel("copyRow"), name="liar", role="transpose")
    monkeypatch.setattr(type(W), "kernels", lambda self: (wrong,))
    run = ladder.run_ladder(W, Case((300, 200), "float32"), ["liar"], [], reps=3, warmup=1, cpu=False)
    rec = run.record("liar")
    assert rec.correct is False and rec.gbs is None and "not timed" in " ".join(rec.notes)


def test_sweeps_at_small_sizes():
    blocks = sweep.block_sweep(W, ["naiveCol", "smem"], [(32, 16), (8, 32), (64, 8)], Case((1024, 768), "float32"),
                               reps=3, warmup=1)
    smem = [r for r in blocks.records if r.name == "smem"]
    assert any("not available" in " ".join(r.notes) for r in smem) and any(r.correct for r in smem)
    assert all(r.correct for r in blocks.records if r.name == "naiveCol")
    sizes = sweep.size_sweep(W, ["tileVec"], [256, 1024], reps=3, warmup=1)
    assert [r.name for r in sizes.records] == ["tileVec", "cudaMemcpy"] * 2 and all(r.gbs for r in sizes.records)


def test_bench_checks_every_peer_first():
    run = bench.run_bench(W, [Case((257, 511), "bfloat16"), Case((3, 64, 48), "float64")],
                          ["torch", "cupy", "cublas.geam"], reps=3, warmup=1)
    by = {(tuple(r.shape), r.name): r for r in run.records}
    assert by[((257, 511), "bwlab")].correct and by[((257, 511), "torch")].correct
    assert "skipped" in " ".join(by[((257, 511), "cublas.geam")].notes)  # float32/float64 only
    assert "batched" in " ".join(by[((3, 64, 48), "cublas.geam")].notes)
    assert run.complete and by[((3, 64, 48), "bwlab")].pct_memcpy > 0


def test_tune_picks_a_correct_candidate(monkeypatch):
    groups = [g for g in W.tune_groups() if g.key == 4]
    groups[0].case = Case((1024, 2048), "uint32")
    monkeypatch.setattr(type(W), "tune_groups", lambda self: groups)
    best, rows = tune.run_tune(W, reps=3, warmup=1)
    assert tuple(best[4]) in [tuple(c) for c in groups[0].candidates]
    assert all(m["correct"] for m in rows) and len(rows) == len(groups[0].candidates)


def test_the_memcpy_ceiling_moves_the_cases_bytes():
    """A backward softmax reads two tensors and writes one: its cudaMemcpy copies 1.5 tensors, so
    the ceiling's GB/s is a copy's, not 1.5x one."""
    sm = get("softmax")
    shape = (4096, 8192)  # 128 MiB a tensor, above L2
    fwd, bwd = (bench.run_bench(sm, [Case(shape, "float32", params)], peers=[], reps=5, warmup=1)
                for params in ((("dim", -1),), (("dim", -1), ("op", "backward"))))
    cf, cb = (next(r for r in run.records if r.name == "cudaMemcpy") for run in (fwd, bwd))
    assert cb.bytes == 3 * cf.bytes // 2
    assert 0.8 < cb.gbs / cf.gbs < 1.25, (cf.gbs, cb.gbs)
