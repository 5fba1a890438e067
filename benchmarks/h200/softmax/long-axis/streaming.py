"""Every softmax kernel the dispatch picks for the bench's shapes (and the long strided axes of
probe.py), as built and with its output stores made streaming (st.global.cs, evict-first: the
output does not displace x from L2), side by side (run from the repository root as
`PYTHONPATH=src python3 benchmarks/h200/softmax/long-axis/streaming.py`). The streaming build is a
copy of the kernels in a temporary folder with Pack::store rewritten; each output is poisoned,
checked against a float64 reference, then timed beside a device-to-device copy of the same bytes."""
import dataclasses
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sweeps"))
from bwlab.workloads.softmax import calls, plans  # noqa: E402
from bwlab.workloads.softmax.cases import BACKWARD_SHAPES, SHAPES  # noqa: E402
from bwlab.workloads.softmax.launch import runner  # noqa: E402
from probe import inputs, problem, reference  # noqa: E402
from sweep import copy_gbs, timed  # noqa: E402

LONG = (((4, 32768, 1024), 1), ((32768, 4096), 0))
STORE = "{ *reinterpret_cast<R*>(p) = raw; }"


def streaming_copy(tmp: Path) -> Path:
    src = plans.KERNELS
    for f in src.iterdir():
        shutil.copy(f, tmp / f.name)
    h = (tmp / "softmax.cuh").read_text()
    assert STORE in h
    (tmp / "softmax.cuh").write_text(h.replace(STORE, "{ __stcs(reinterpret_cast<R*>(p), raw); }", 1))
    return tmp


def main():
    import torch
    import probe
    probe.DT = torch
    tmp = streaming_copy(Path(tempfile.mkdtemp()))
    cases = [(s, dim, d, "forward", log) for s, dim in SHAPES + LONG for d in ("float32", "bfloat16")
             for log in (False, True)]
    cases += [(s, dim, d, "backward", False) for s, dim in BACKWARD_SHAPES + LONG for d in ("float32", "bfloat16")]
    rows = []
    try:
        for shape, dim, d, op, log in cases:
            x, grad = inputs(shape, dim, d, op)
            ref = reference(x, grad, dim, op, log)
            out = torch.empty_like(x)
            moved = x.numel() * x.element_size() * (3 if op == "backward" else 2)
            copy = copy_gbs(moved)
            p = problem(shape, dim, d, op, log)
            c = plans.choose(p)
            cs = dataclasses.replace(c, source=tmp / c.source.name)
            name = "x".join(map(str, shape)) + f" d{dim} {d[:4]} {'log' if log else op[:3]}"
            pcs = []
            for label, ch in (("as built", c), ("streaming", cs)):
                calls._plans[(p, 0)] = calls.Plan(ch, runner(ch, p.N, p.L, p.M, 0))
                out.fill_(float("nan"))
                calls.run(x, dim, log, out, None, grad=grad)
                torch.cuda.synchronize()
                tol = (1e-5 if d == "float32" else 2 ** -7) * (ref.abs() + 1e-3) + 1e-6
                bad = int((~((out.double() - ref).abs() <= tol)).sum())
                ms = timed(lambda: calls.run(x, dim, log, out, None, grad=grad), reps=25)
                pc = 100 * moved / ms / 1e6 / copy
                pcs.append(pc)
                print(f"{name:28s} {c.kernel:12s} {label:10s} {moved / ms / 1e6:6.0f} GB/s {pc:5.1f}%  bad={bad}",
                      flush=True)
            rows.append((name, c.kernel, *pcs))
            calls._plans.clear()
            x = grad = out = ref = None
            torch.cuda.empty_cache()
    finally:
        shutil.rmtree(tmp)
    print("\n% of a copy: as built -> streaming stores")
    for name, k, a, b in rows:
        print(f"{name:28s} {k:12s} {a:5.1f} -> {b:5.1f}  ({b - a:+.1f})")


if __name__ == "__main__":
    main()
