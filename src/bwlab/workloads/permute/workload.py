"""The permute workload: its ladder, peers, cases, checks and bench goals, declared in one place
for the procedures (ladder, bench) and the reports."""
from __future__ import annotations

import math
from typing import Optional

from ...core.workload import Case, Prepared, Workload
from ..transpose.workload import parse_shape
from . import calls, cases, catalog, peers, plans, reference
from .catalog import OP

PRIMES = (3, 5, 7, 11, 13, 2, 3, 5)
VECTOR_SIDES = (48, 80, 16, 112, 16, 48, 16, 16)  # whole 16-byte vectors, not whole tiles


def parse_dims(text, ndim: int) -> tuple[int, ...]:
    """'3,2,1,0' (or a sequence) -> a permutation of ndim axes; ValueError naming the problem."""
    if isinstance(text, str):
        try:
            text = [int(p) for p in text.replace("(", "").replace(")", "").replace(" ", "").split(",") if p]
        except ValueError:
            raise ValueError(f"dims must look like 3,2,1,0, got {text!r}") from None
    return plans.normalize_dims(text, ndim)


class PermuteWorkload(Workload):
    name = OP
    operation = OP
    summary = "any-axis permutation (numpy.transpose / torch permute + contiguous), rank up to 8, 1 to 16 bytes"
    dtypes = reference.ALL_DTYPES
    bench_peers = ("torch", "torch.compile", "cupy")
    goal_note = cases.GOAL_NOTE
    bench_suites = cases.SUITES

    def kernels(self):
        return catalog.KERNELS

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
        unknown = set(params) - {"dims"}
        if unknown:
            raise ValueError(f"unknown parameter {', '.join(sorted(unknown))}; permute takes dims")
        perm = params.get("dims")
        if perm is None:
            perm = self.default_case().param("dims") if not shape else tuple(range(len(dims) - 1, -1, -1))
        return Case(dims, dtype, (("dims", parse_dims(perm, len(dims))),))

    def size_case(self, n: int, dtype: str) -> Case:
        """n x n swapped (the default case of `bwlab profile` and the sweeps, as for the transpose)."""
        return Case((n, n), dtype, (("dims", (1, 0)),))

    def bench_cases(self, suite: str = "main", all_dtypes: bool = False) -> list[Case]:
        return cases.bench_cases(suite, all_dtypes)

    def bytes_moved(self, case: Case) -> int:
        return 2 * math.prod(case.shape) * reference.ITEMSIZE[case.dtype]

    # --- inputs, answers, kernels --------------------------------------------------------
    def make_input(self, case: Case, seed: Optional[int] = None):
        return reference.random_input(case.shape, case.dtype, seed)

    def reference(self, case: Case, inputs):
        return reference.expected(inputs, case.param("dims"))

    def check(self, out, expected):
        return reference.compare(out, expected)

    def new_output(self, case: Case, inputs, copies: bool = False):
        import cupy

        shape = inputs.shape if copies else reference.output_shape(inputs.shape, case.param("dims"))
        return cupy.empty(shape, inputs.dtype)

    def prepare(self, spec, inputs, out, case: Case, block=None) -> Prepared:
        import cupy

        p = calls.plan(inputs, case.param("dims"), out, forced=spec.family_kind)
        xp, op = inputs.data.ptr, out.data.ptr

        def launch():
            p.run(xp, op, cupy.cuda.get_current_stream().ptr)

        return Prepared(launch, out, (p.blocks, 1), (p.choice.threads, 1), p.choice.expression)

    def precheck_cases(self, case: Case) -> list[Case]:
        n, extra = len(case.shape), case.params
        ones = tuple(1 if k % 2 else s for k, s in enumerate(PRIMES[:n]))
        return [Case(PRIMES[:n], case.dtype, extra), Case(VECTOR_SIDES[:n], case.dtype, extra),
                Case(ones, case.dtype, extra)]

    # --- bench ---------------------------------------------------------------------------
    def explain(self, inputs, case: Optional[Case] = None) -> str:
        from .api import explain

        return explain(inputs, (case or self.default_case()).param("dims"))

    def goals(self, case: Case, records) -> list[str]:
        return cases.goals(case, records)

    def tables(self, run):
        from ...core.summary import worst_by_class

        if run.procedure != "bench" or run.workload != self.name:
            return []
        return [worst_by_class(
            run, "bwlab.permute by rank (worst case of each class)", cases.shape_class,
            ("torch", "torch.compile", "cupy"),
            "x torch / x torch.compile / x cupy: bwlab's speed over theirs in the same case (above 1: bwlab faster)",
            lambda c: "x".join(map(str, c.shape)) + f" {c.dtype} dims {','.join(map(str, c.param('dims')))}")]


WORKLOAD = PermuteWorkload()
