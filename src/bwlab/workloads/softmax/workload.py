"""The softmax workload: two ladders (a strided reduced axis and the last axis), the peers,
cases, checks against a float64 reference and the bench's goals, declared in one place."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ...core.verify import compare as bit_compare
from ...core.workload import Case, Prepared, Workload
from . import calls, cases, catalog, peers, plans, reference
from .catalog import OP
from .launch import runner, team_blocks

FLOPS_PER_ELEMENT = {"forward": 5, "backward": 4}  # max, subtract, exp, sum, divide | multiply, sum, subtract, multiply


def problem(case: Case, aligned: bool = True) -> plans.Problem:
    _, N, L, M = calls.split(case.shape, case.param("dim", -1))
    return plans.Problem(N, L, M, case.dtype, case.param("op", "forward"), bool(case.param("log", False)), aligned)


def parse_shape(text: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(p) for p in text.lower().replace("_", "").replace("*", "x").split("x"))
    except ValueError:
        raise ValueError(f"shape must look like 32768x4096 or 16x8192x1024, got {text!r}") from None
    if any(d < 1 for d in dims):
        raise ValueError(f"shape extents must be positive, got {text!r}")
    return dims


@dataclass
class Expected:
    """The float64 answer on a sample of the reduced slices (all of them for small cases), at every
    position of each or, for long ones, at sampled positions."""
    kind: str                 # softmax | log | backward
    dtype: str
    dims: tuple[int, int, int]
    n_idx: Any
    m_idx: Any
    ref: np.ndarray           # [slices, L] or [slices, positions]
    scale: Optional[np.ndarray] = None
    l_idx: Any = None         # the positions along the reduced axis; None: all


def _slices(a, dims, n_idx, m_idx, l_idx=None) -> np.ndarray:
    N, L, M = dims
    if l_idx is None:
        return a.reshape(N, L, M)[n_idx, :, m_idx].get()
    return a.reshape(N, L, M)[n_idx[:, None], l_idx[None, :], m_idx[:, None]].get()


def _row_chunks(rows, L: int, dtype: str):
    """A callable yielding the slices' chunks afresh, as float64 on the GPU (reference.row_stats64)."""
    step = reference.LONG_ROW_CHUNK
    return lambda: (tuple(reference.to_float64(r[j:j + step], dtype) for r in rows) for j in range(0, L, step))


def _long_row_stats(arrays, dims, idx, dtype: str, backward: bool, log: bool) -> np.ndarray:
    """Each sampled slice's two float64 statistics (reference.row_stats64), reduced on the GPU a
    chunk at a time, so that no float64 copy of a whole long slice is made: [slices, 2]."""
    N, L, M = dims
    return np.array([reference.row_stats64(_row_chunks([a.reshape(N, L, M)[int(i) // M, :, int(i) % M]
                                                        for a in arrays], L, dtype), backward, log) for i in idx])


class SoftmaxWorkload(Workload):
    name = OP
    operation = OP
    summary = "softmax and log-softmax over any axis, forward and backward, float32/float16/bfloat16"
    dtypes = reference.DTYPES
    size_kernels = ("rowOnline", "rowBlock", "rowSplit")
    bench_peers = ("torch", "torch.compile", "cupy")
    goal_note = cases.GOAL_NOTE
    bench_suites = cases.SUITES

    def kernels(self):
        return catalog.KERNELS

    def kernels_for(self, case: Case):
        M = problem(case).M
        return [k for k in catalog.KERNELS if k.serves(M)]

    def api_sources(self):
        return plans.expressions()

    def peers(self):
        return peers.PEERS

    # --- cases ---------------------------------------------------------------------------
    def default_case(self) -> Case:
        return cases.STRIDED

    def ladder_cases(self) -> list[Case]:
        return [cases.STRIDED, cases.LAST]

    def parse_case(self, shape: Optional[str], dtype: Optional[str], **params) -> Case:
        dims = parse_shape(shape) if shape else self.default_case().shape
        dtype = reference.check_dtype(dtype or self.default_case().dtype)
        unknown = set(params) - {"dim", "log", "op"}
        if unknown:
            raise ValueError(f"unknown parameter {', '.join(sorted(unknown))}; softmax takes dim, log, op")
        try:
            dim = int(params.get("dim", -1 if shape else self.default_case().param("dim")))
        except ValueError:
            raise ValueError(f"dim must be an integer, got {params['dim']!r}") from None
        calls.split(dims, dim)
        extra: tuple = (("dim", dim),)
        log = str(params.get("log", "false")).lower()
        if log not in ("1", "true", "yes", "0", "false", "no"):
            raise ValueError(f"log must be true or false, got {params['log']!r}")
        if log in ("1", "true", "yes"):
            extra += (("log", True),)
        op = params.get("op", "forward")
        if op not in ("forward", "backward"):
            raise ValueError(f"op must be forward or backward, got {op!r}")
        if op == "backward":
            extra += (("op", "backward"),)
        return Case(dims, dtype, extra)

    def size_case(self, n: int, dtype: str) -> Case:
        return Case((n, n), dtype, (("dim", -1),))

    def bench_cases(self, suite: str = "main", all_dtypes: bool = False) -> list[Case]:
        return cases.bench_cases(suite, all_dtypes)

    def bytes_moved(self, case: Case) -> int:
        n = int(np.prod(case.shape, dtype=np.int64))
        return (problem(case).inputs + 1) * n * reference.ITEMSIZE[case.dtype]

    def flops(self, case: Case) -> int:
        return FLOPS_PER_ELEMENT[case.param("op", "forward")] * int(np.prod(case.shape, dtype=np.int64))

    # --- inputs, answers, kernels --------------------------------------------------------
    def make_input(self, case: Case, seed: Optional[int] = None):
        x = reference.random_input(case.shape, case.dtype, seed)
        if case.param("op", "forward") != "backward":
            return x
        from .api import softmax
        from ...core.arrays import as_cupy
        from .peers import api_operand

        # a real forward output (bfloat16 through a torch view: CuPy has no bfloat16)
        y = as_cupy(softmax(api_operand(x, case.dtype), case.param("dim", -1), log=bool(case.param("log", False))))
        g = reference.random_input(case.shape, case.dtype, None if seed is None else seed + 1, scale=1.0)
        return (y, g)

    def reference(self, case: Case, inputs) -> Expected:
        import cupy

        p = problem(case)
        dims = (p.N, p.L, p.M)
        total = p.N * p.M
        if total * p.L * reference.ITEMSIZE[case.dtype] <= reference.HOST_REFERENCE_BYTES:
            idx = np.arange(total)
        else:
            idx = reference.row_sample(total)
        n_idx, m_idx = cupy.asarray(idx // p.M), cupy.asarray(idx % p.M)
        # long slices: checked at sampled positions, from statistics reduced chunk by chunk
        by_positions = (len(idx) * p.L > reference.LONG_REFERENCE_ELEMENTS
                        and p.L > reference.SAMPLE_POSITIONS + 2 * reference.EDGE_POSITIONS)
        l_idx = cupy.asarray(reference.position_sample(p.L)) if by_positions else None
        a, g = inputs if isinstance(inputs, tuple) else (inputs, None)
        stats = _long_row_stats((a,) if g is None else (a, g), dims, idx, case.dtype, g is not None, p.log) \
            if by_positions else None  # [slices, 2]: (max, t) forward, (backward sum, scale) backward
        av = reference.to_float64(_slices(a, dims, n_idx, m_idx, l_idx), case.dtype)
        if g is None:
            kind = "log" if p.log else "softmax"
            ref = reference.softmax64(av, 1, p.log) if stats is None else \
                reference.softmax64_at(av, stats[:, :1], stats[:, 1:], p.log)
            return Expected(kind, case.dtype, dims, n_idx, m_idx, ref, l_idx=l_idx)
        gv = reference.to_float64(_slices(g, dims, n_idx, m_idx, l_idx), case.dtype)
        if stats is None:
            ref, scale = reference.backward64(av, gv, 1, p.log), reference.backward_scale64(av, gv, 1, p.log)
        else:
            ref, scale = reference.backward64_at(av, gv, stats[:, :1], p.log), stats[:, 1:]
        return Expected("backward", case.dtype, dims, n_idx, m_idx, ref, np.broadcast_to(scale, av.shape), l_idx)

    def check(self, out, expected):
        if not isinstance(expected, Expected):  # a copy: bit for bit
            return bit_compare(out, expected)
        got = _slices(out, expected.dims, expected.n_idx, expected.m_idx, expected.l_idx)
        return reference.compare(got, expected.ref, expected.dtype, expected.kind, expected.scale)

    def copy_of(self, inputs):
        return inputs[0] if isinstance(inputs, tuple) else inputs

    def new_output(self, case: Case, inputs, copies: bool = False):
        import cupy

        return cupy.empty(case.shape, reference.storage_dtype(case.dtype))

    def prepare(self, spec, inputs, out, case: Case, block=None) -> Prepared:
        import cupy

        if isinstance(inputs, tuple):
            raise ValueError("the ladder times the forward pass; `bwlab bench softmax --suite backward` times "
                             "the backward")
        block = tuple(block or spec.block)
        spec.check_block(block)
        if tuple(out.shape) != tuple(inputs.shape) or out.dtype != inputs.dtype:
            raise ValueError(f"{spec.name}: output must be {inputs.dtype} {tuple(inputs.shape)}")
        p = problem(case, aligned=inputs.data.ptr % 16 == 0 and out.data.ptr % 16 == 0)
        choice = catalog.ladder_choice(spec, p, block)
        if choice.cooperative:  # rowTeam, colsTeam: as many teams as this GPU holds at once
            choice = plans.team_choice(p, held=team_blocks(p, inputs.device.id))
            if choice is None:
                raise ValueError(f"{spec.name}: a reduced axis of {p.L} takes more blocks than this GPU holds at once")
        run = runner(choice, p.N, p.L, p.M, inputs.device.id)
        ws = cupy.empty(max(choice.workspace_bytes, 1), cupy.uint8)
        x_ptr, y_ptr = inputs.data.ptr, out.data.ptr

        def launch():
            run(x_ptr, 0, y_ptr, ws.data.ptr, cupy.cuda.get_current_stream().ptr)

        return Prepared(launch, out, choice.grid[:2], choice.block[:2], choice.expression)

    def precheck_cases(self, case: Case) -> list[Case]:
        d = case.dtype
        if problem(case).M == 1:
            return [Case(s, d, (("dim", -1),)) for s in ((1, 8), (3, 40), (129, 1000), (5, 2056))]
        return [Case(s, d, (("dim", 1),)) for s in ((1, 1, 8), (3, 7, 24), (2, 1000, 1032), (1, 33, 8))]

    # --- bench ---------------------------------------------------------------------------
    def explain(self, inputs, case: Optional[Case] = None) -> str:
        from .api import explain
        from .peers import api_operand

        case = case or self.default_case()
        a = api_operand(inputs[0] if isinstance(inputs, tuple) else inputs, case.dtype)
        return explain(a, case.param("dim", -1), log=bool(case.param("log", False)),
                       backward=case.param("op") == "backward")

    def goals(self, case: Case, records) -> list[str]:
        return cases.goals(case, records, self.bytes_moved(case))

    def tables(self, run):
        from .summary import class_summary

        return [class_summary(run)] if run.procedure == "bench" and run.workload == self.name else []
