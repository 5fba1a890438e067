"""Shared test helpers: a small synthetic run, the committed H200 results, softmax case parameters."""
from pathlib import Path

from bwlab.core.results import Record, Run

ROOT = Path(__file__).parents[1]
H200 = ROOT / "benchmarks" / "h200"
H100 = ROOT / "benchmarks" / "h100"
FIXTURES = Path(__file__).parent / "fixtures"


def make_run(procedure: str = "ladder") -> Run:
    rec = Record("tileVec", "kernel", "fast", "transpose", [4, 6], "float32", 192, workload="transpose",
                 block=[256, 1], grid=[1, 1], timing={"median_ms": 0.01, "mean_ms": 0.011, "std_ms": 0.001,
                                                      "min_ms": 0.009, "reps": 10},
                 gbs=19.2, correct=True, check="bit-exact at (6, 4)", notes=["a note"])
    return Run(device={"name": "GPU", "peak_bandwidth_gbs": 100.0, "arch": "sm_90", "cc": [9, 0]},
               environment={"cupy": "14"},
               config={"procedure": procedure, "workload": "transpose", "shape": [4, 6], "dtype": "float32",
                       "reps": 10, "warmup": 1}, records=[rec], ceilings={"peak_gbs": 100.0})


def softmax_params(kind: str, dim: int = 1) -> tuple:
    """A softmax case's parameters for a pass: forward, log, backward or logbackward."""
    return ((("dim", dim),) + ((("log", True),) if "log" in kind else ())
            + ((("op", "backward"),) if "backward" in kind else ()))


# The softmax reference's long-slice sampling shrunk, so that small cases take that path
# (monkeypatched onto bwlab.workloads.softmax.reference).
SMALL_LONG_ROW_SAMPLING = {"LONG_REFERENCE_ELEMENTS": 1000, "LONG_ROW_CHUNK": 999, "SAMPLE_POSITIONS": 300,
                           "EDGE_POSITIONS": 20}
