"""The lab's procedures on the matmul workload, small and fast: a ladder run (copy
ceilings on the packed input, every rung checked and timed) and a one-case bench."""
import importlib

import pytest

from bwlab.core.workload import Case

pytestmark = pytest.mark.gpu
W = importlib.import_module("bwlab.workloads.matmul").WORKLOAD


def test_ladder_run_small():
    from bwlab.lab.ladder import run_ladder

    run = run_ladder(W, Case((512, 384, 256), "float32"), peers=["bwlab", "cupy"], warmup=1, reps=3, cpu=False)
    kernels = [r for r in run.records if r.kind == "kernel" and r.role == "matmul"]
    assert [r.name for r in kernels] == [k.name for k in W.kernels()]
    assert all(r.correct for r in kernels), [(r.name, r.check, r.notes) for r in kernels if not r.correct]
    assert all(r.gflops and r.gflops > 0 for r in kernels)
    assert all(r.resources and r.resources["registers"] > 0 for r in kernels)
    copies = [r for r in run.records if r.role == "ceiling"]
    assert copies and all(r.correct for r in copies if r.correct is not None)


def test_bench_one_case():
    from bwlab.lab.bench import run_bench

    run = run_bench(W, [Case((1024, 1024, 1024), "float32")], peers=["cupy"], reps=3, warmup=1)
    api = next(r for r in run.records if r.name == "bwlab")
    assert api.correct and api.gflops > 0
    tables = W.tables(run)
    assert tables and tables[0].rows
