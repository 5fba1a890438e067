"""The matmul workload: C = A . B in float32, the thread-coarsening ladder from the naive
kernel to a pipelined warp-tiled one, the coarsening study, cuBLAS peers, cases and goals,
declared in one place for the procedures (ladder, sweeps, bench, profile) and the reports."""
from __future__ import annotations

from typing import Optional

from ...core.table import Column, TableData, num, pct
from ...core.workload import Case, Prepared, Workload
from . import cases, catalog, launch, peers, reference, study
from .catalog import OP


def parse_shape(text: str) -> tuple[int, int, int]:
    """'4096' (a cube), '4096x4096x4096' or 'MxNxK' -> (M, N, K); ValueError otherwise."""
    try:
        dims = tuple(int(p) for p in text.lower().replace("_", "").replace("*", "x").split("x"))
    except ValueError:
        raise ValueError(f"shape must look like 4096 or MxNxK (8192x8192x1024), got {text!r}") from None
    if len(dims) == 1:
        dims = dims * 3
    if len(dims) != 3:
        raise ValueError(f"shape must be N (a cube) or MxNxK: three extents, C (M x N) = A (M x K) . B (K x N); "
                         f"got {text!r}")
    if any(d < 0 for d in dims):
        raise ValueError(f"extents must be non-negative, got {text!r}")
    if max(dims) > launch.EXTENT_MAX:
        raise ValueError(f"each extent must be at most {launch.EXTENT_MAX}, got {text!r}")
    return dims  # type: ignore[return-value]


class MatmulWorkload(Workload):
    name = OP
    operation = OP
    summary = "C = A . B in float32 (M x K times K x N), any M, N, K: the thread-coarsening ladder"
    dtypes = catalog.DTYPES
    size_kernels = ("tiled", "coarse", "vecBlock", "pipelined")
    bench_peers = ("torch", "cupy", "torch-tf32")
    goal_note = cases.GOAL_NOTE
    bench_suites = cases.SUITES

    def kernels(self):
        return catalog.KERNELS

    def variants(self):
        return catalog.variants()

    def peers(self):
        return peers.PEERS

    # --- cases ---------------------------------------------------------------------------
    def default_case(self) -> Case:
        return cases.LADDER_CASE

    def parse_case(self, shape: Optional[str], dtype: Optional[str], **params) -> Case:
        dims = parse_shape(shape) if shape else self.default_case().shape
        dtype = dtype or self.default_case().dtype
        if dtype not in self.dtypes:
            raise ValueError(f"dtype must be one of {', '.join(self.dtypes)}, got {dtype!r}")
        if params:
            raise ValueError(f"matmul takes no parameters, got {', '.join(sorted(params))}")
        return Case(tuple(dims), dtype)

    def size_case(self, n: int, dtype: str) -> Case:
        return Case((n, n, n), dtype)

    def bench_cases(self, suite: str = "main", all_dtypes: bool = False) -> list[Case]:
        return cases.bench_cases(suite, all_dtypes)

    def bytes_moved(self, case: Case) -> int:
        """Ideal bytes: A and B read once, C written once (4 bytes each)."""
        m, n, k = case.shape
        return 4 * (m * k + k * n + m * n)

    def flops(self, case: Case) -> int:
        m, n, k = case.shape
        return 2 * m * n * k

    # --- inputs, answers, kernels --------------------------------------------------------
    def make_input(self, case: Case, seed: Optional[int] = None):
        return reference.random_input(*case.shape, seed=seed)

    def operands(self, case: Case, inputs):
        """A (M x K) and B (K x N), views of the packed input."""
        return reference.split(inputs, *case.shape)

    def reference(self, case: Case, inputs):
        a, b = self.operands(case, inputs)
        return reference.product(a, b)

    def check(self, out, expected):
        return reference.compare(out, expected)

    def copy_of(self, inputs):
        return inputs  # the copy ceilings copy the packed buffer: compared bit for bit

    def new_output(self, case: Case, inputs, copies: bool = False):
        import cupy

        if copies:
            return cupy.empty_like(inputs)
        m, n, _ = case.shape
        return cupy.empty((m, n), cupy.float32)

    def prepare(self, spec, inputs, out, case: Case, block=None) -> Prepared:
        if case.dtype not in spec.dtypes:
            raise ValueError(f"{spec.name}: no {case.dtype} version (has {', '.join(spec.dtypes)})")
        return launch.prepare(spec, inputs, out, case.shape, block)

    def precheck_cases(self, case: Case) -> list[Case]:
        return [Case(s, case.dtype) for s in reference.AWKWARD]

    # --- bench -----------------------------------------------------------------------------
    def explain(self, inputs, case: Optional[Case] = None) -> str:
        spec = peers.api_kernel(case) if case is not None else self.kernel(catalog.BEST)
        why = "" if spec.name == catalog.BEST else "C has fewer 128 x 128 tiles than the GPU has SMs; "
        return f"{spec.name} ({spec.template}): {why}{spec.lesson}"

    def goals(self, case: Case, records) -> list[str]:
        return cases.goals(case, records)

    def tables(self, run):
        """After a ladder: the rungs in TFLOP/s against cuBLAS; after a variants sweep: the
        coarsening study; after a bench: bwlab's best kernel against cuBLAS SGEMM, case by case."""
        if run.workload != self.name:
            return []
        if run.procedure == "ladder":
            return [ladder_table(run)]
        if run.procedure == "sweep-variants":
            return [study.study_table(run), study.stops_table(run)]
        if run.procedure != "bench":
            return []
        t = TableData("bwlab against cuBLAS SGEMM (TF32 off)",
                      [Column("M x N x K", "left"), Column("bwlab TFLOP/s"), Column("cuBLAS TFLOP/s"),
                       Column("% of cuBLAS"), Column("goal"), Column("TF32 TFLOP/s (another precision)")],
                      caption="TFLOP/s = 2 M N K / median time; cuBLAS = torch.matmul with TF32 off (CuPy if torch "
                              "is missing)")
        by_case: dict = {}
        for r in run.records:
            by_case.setdefault(tuple(r.shape), []).append(r)
        for shape, recs in by_case.items():
            api = next((r for r in recs if r.name == "bwlab"), None)
            ref = cases.cublas_gflops(recs)
            tf32 = next((r for r in recs if r.name == "torch-tf32" and r.gflops), None)
            ratio = cases.ratio(recs)
            want = cases.GOALS.get(shape[0]) if len(set(shape)) == 1 else None
            flag = "bad" if want is not None and (ratio is None or ratio < want) else ""
            t.add("x".join(map(str, shape)), num(api.gflops / 1e3) if api and api.gflops else "-",
                  num(ref[1] / 1e3) if ref else "-", pct(ratio), f">= {want:g}%" if want else "-",
                  num(tf32.gflops / 1e3) if tf32 else "-", flag=flag)
        return [t]

    def charts(self, run):
        if run.workload == self.name and run.procedure == "sweep-variants":
            return {"heatmap.png": study.heatmap(run)}
        return {}


def ladder_table(run) -> TableData:
    """The rungs in TFLOP/s, as % of cuBLAS SGEMM (TF32 off) and of the FP32 peak, with what each teaches."""
    ref = cases.cublas_gflops(run.records)
    peak = run.device.get("peak_fp32_gflops")
    t = TableData(f"the matmul ladder in TFLOP/s, {'x'.join(map(str, run.config.get('shape', [])))} float32",
                  [Column("kernel", "left"), Column("TFLOP/s"), Column("% cuBLAS"), Column("% FP32 peak"),
                   Column("regs"), Column("what it teaches", "left", True)],
                  caption=f"TFLOP/s = 2 M N K / median time; cuBLAS = {ref[0] if ref else 'none timed'} (SGEMM, "
                          "TF32 off); the TF32 peer computes in another precision (10-bit mantissa inputs)")
    for r in run.records:
        if not r.flops or r.role == "ceiling" or r.kind == "cpu":
            continue
        tf = r.gflops / 1e3 if r.gflops and r.correct else None
        t.add(r.name + (" (TF32)" if r.name.endswith("tf32") else ""), num(tf) if tf else "-",
              pct(100 * r.gflops / ref[1]) if tf and ref else "-", pct(100 * r.gflops / peak) if tf and peak else "-",
              str((r.resources or {}).get("registers", "")) if r.kind == "kernel" else "",
              r.lesson or r.origin, flag="bad" if r.correct is False else "")
    return t
