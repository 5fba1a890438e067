"""The transpose workload: its ladder, peers, cases, checks, bench goals and tuning, declared
in one place for the procedures (ladder, sweeps, bench, tune, profile) and the reports."""
from __future__ import annotations

import json
from typing import Optional

from ...core.files import write_text_atomic
from ...core.workload import Case, Prepared, TuneGroup, Workload
from . import cases, catalog, launch, peers, plans, reference
from .catalog import OP


def parse_shape(text: str) -> tuple[int, ...]:
    """'16384x16384' or '256x4096x4096' -> a tuple; ValueError otherwise."""
    try:
        dims = tuple(int(p) for p in text.lower().replace("_", "").replace("*", "x").split("x"))
    except ValueError:
        raise ValueError(f"shape must look like 1024x768 or 8x1024x768, got {text!r}") from None
    if len(dims) < 2 or any(d < 0 for d in dims):
        raise ValueError(f"shape needs 2 or more non-negative extents, got {text!r}")
    return dims


# `bwlab tune transpose`: one 1-2 GiB matrix per element size, extents taking the vector path.
TUNE_SHAPES = {1: (32768, 32768), 2: (16384, 32768), 4: (16384, 16384), 8: (16384, 16384), 16: (8192, 16384)}
TUNE_CHECK_SHAPES = ((16, 16), (48, 32), (144, 272), (256, 512), (1040, 784))  # edge tiles included
UINT = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64", 16: "complex128"}


class TransposeWorkload(Workload):
    name = OP
    operation = OP
    summary = "matrix transpose (M, N) -> (N, M), batched, any dtype of 1 to 16 bytes"
    dtypes = ("float32", "float64")
    size_kernels = ("naiveCol", "tile32Pad", "tileVec")
    bench_peers = ("torch", "cupy", "cublas.geam", "triton")
    goal_note = cases.GOAL_NOTE

    def kernels(self):
        return catalog.KERNELS

    def variants(self):
        return catalog.variants()

    def api_sources(self):
        return plans.expressions()

    def peers(self):
        return peers.PEERS

    # --- cases ---------------------------------------------------------------------------
    def default_case(self) -> Case:
        return cases.LADDER_CASE

    def parse_case(self, shape: Optional[str], dtype: Optional[str], **params) -> Case:
        dims = parse_shape(shape) if shape else self.default_case().shape
        dtype = dtype or self.default_case().dtype
        reference.storage_dtype(dtype)  # ValueError for an unknown dtype
        if params:
            raise ValueError(f"transpose takes no parameters, got {', '.join(sorted(params))}")
        return Case(dims, dtype)

    def size_case(self, n: int, dtype: str) -> Case:
        return Case((n, n), dtype)

    bench_suites = cases.SUITES

    def bench_cases(self, suite: str = "main", all_dtypes: bool = False) -> list[Case]:
        return cases.bench_cases(suite, all_dtypes)

    def bytes_moved(self, case: Case) -> int:
        n = 1
        for d in cases.view_shape(case):
            n *= d
        return 2 * n * reference.ITEMSIZE[case.dtype]

    # --- inputs, answers, kernels --------------------------------------------------------
    def make_input(self, case: Case, seed: Optional[int] = None):
        x = reference.random_input(case.shape, case.dtype, seed)
        view = case.param("view")
        return cases.VIEWS[view](x) if view else x

    def reference(self, case: Case, inputs):
        return reference.expected(inputs)

    def check(self, out, expected):
        return reference.compare(out, expected)

    def new_output(self, case: Case, inputs, copies: bool = False):
        import cupy

        return cupy.empty(inputs.shape if copies else reference.output_shape(inputs.shape), inputs.dtype)

    def prepare(self, spec, inputs, out, case: Case, block=None) -> Prepared:
        return launch.prepare(spec, inputs, out, block)

    def precheck_cases(self, case: Case) -> list[Case]:
        return [Case(s, case.dtype) for s in reference.AWKWARD_SHAPES]

    # --- bench and tune ------------------------------------------------------------------
    def explain(self, inputs, case: Optional[Case] = None) -> str:
        from .api import explain

        return explain(inputs)

    def goals(self, case: Case, records) -> list[str]:
        return cases.goals(case, records)

    def why_missed(self, case: Case, explanation: str) -> str:
        return cases.why_missed(case, explanation)

    def tune_groups(self) -> list[TuneGroup]:
        from .calls import launch as api_launch

        def make(cfg, x, out, e):
            choice = plans.Choice("tile", e, plans.ANY, plans.tile_expression(e, cfg), cfg[2])
            batch, (rows, cols) = 1, x.shape[-2:]
            return lambda: api_launch(choice, x.data.ptr, out.data.ptr, batch, rows, cols, x.nbytes,
                                      x.device.id, _current_stream())

        def make_mis(cand, x, out, e):
            kind, cfg = cand
            kernel, source = plans.MISALIGNED_KERNELS[kind]
            choice = plans.Choice(kind, e, source, plans.tile_expression(e, cfg, kernel), cfg[2])
            rows, cols = x.shape[-2:]
            return lambda: api_launch(choice, x.data.ptr, out.data.ptr, 1, rows, cols, x.nbytes, x.device.id,
                                      _current_stream())

        groups = []
        for e in plans.ITEMSIZES:
            if e == 16:  # 16-byte matrices take tileWhole, tuned in the group below
                continue
            groups.append(TuneGroup(
                e, Case(TUNE_SHAPES[e], UINT[e]), list(plans.TILE_CANDIDATES[e]),
                (lambda e: lambda cfg, x, out: make(cfg, x, out, e))(e),
                lambda cfg: f"tileAny {cfg[0]}x{cfg[1]} tile, {cfg[2]} threads",
                [Case(s, UINT[e]) for s in TUNE_CHECK_SHAPES]))
        for e in plans.ITEMSIZES:  # rows that do not start on 16-byte boundaries (and 16-byte elements)
            groups.append(TuneGroup(
                ("misaligned", e), Case(cases.MISALIGNED[e], UINT[e]), plans.misaligned_candidates(e),
                (lambda e: lambda cand, x, out: make_mis(cand, x, out, e))(e),
                lambda cand: f"{plans.MISALIGNED_KERNELS[cand[0]][0]} {cand[1][0]}x{cand[1][1]} tile, "
                             f"{cand[1][2]} threads",
                [Case(s, UINT[e]) for s in ((17, 33), (129, 257), (300, 1001), (1, 77))]))
        return groups

    def tables(self, run):
        from .summary import class_summary

        return [class_summary(run)] if run.procedure == "bench" and run.workload == self.name else []

    def save_plan(self, gpu_name: str, best: dict, measurements: list[dict], path=None) -> str:
        target = path or plans.plan_path(gpu_name)
        plan = {k: (v[0], tuple(v[1])) if isinstance(k, tuple) else tuple(v) for k, v in best.items()}
        doc = plans.plan_document(gpu_name, plan, measurements)
        write_text_atomic(target, json.dumps(doc, indent=1) + "\n")
        return str(target)


def _current_stream() -> int:
    import cupy

    return cupy.cuda.get_current_stream().ptr
