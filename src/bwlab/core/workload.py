"""The interface between a workload and the procedures over it (ladder, sweeps, bench,
tune, profile) and the renderers. A workload declares, in one place: its kernels, its peers,
how to make inputs for a case and what the right answer is, the bytes and FLOPs a case moves,
its default cases, and its public API. Adding a workload adds a package under
bwlab/workloads/ with one Workload subclass; nothing here or above changes.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from .table import TableData
from .verify import Check

Block = tuple[int, int]
COPY_ROLES = ("ceiling", "copy", "bound", "floor")  # kernels and peers that copy their input
CTYPES = {"float32": "float", "float64": "double"}


@dataclass(frozen=True)
class KernelSpec:
    """One kernel a ladder can build, check, time and explain."""
    name: str
    source: Path                  # the .cu file
    template: str                 # C++ name expression; {T}, {BX}, {BY} are filled in
    role: str                     # "ceiling" | "bound" | "floor" | the workload's operation
    block: Block                  # default block
    blocks: Optional[tuple[Block, ...]]  # blocks it was compiled for; None: any up to 1024 threads
    origin: str                   # where the kernel comes from, in words
    lesson: str                   # what it teaches, one line
    fixed: str = ""               # what was fixed from its origin
    dtypes: tuple[str, ...] = ("float32", "float64")

    @property
    def family(self) -> str:
        return self.source.stem

    @property
    def copies(self) -> bool:
        return self.role in COPY_ROLES

    def legal_blocks(self) -> tuple[Block, ...]:
        return self.blocks if self.blocks is not None else (self.block,)

    def check_block(self, block: Block) -> None:
        bx, by = block
        if self.blocks is not None:
            if (bx, by) not in self.blocks:
                legal = ", ".join(f"{a}x{b}" for a, b in self.blocks)
                raise ValueError(f"{self.name}: block {bx}x{by} not available (compiled for {legal})")
        elif bx < 1 or by < 1 or bx * by > 1024:
            raise ValueError(f"{self.name}: block {bx}x{by} must have 1..1024 threads")

    def expression(self, dtype: str, block: Block) -> str:
        return self.template.format(T=CTYPES.get(dtype, "float"), BX=block[0], BY=block[1])

    def expressions(self) -> list[str]:
        """Every instantiation the build must produce for this kernel."""
        return [self.expression(d, b) for d in self.dtypes for b in self.legal_blocks()]


@dataclass(frozen=True)
class Peer:
    """What a user would call instead, timed by the same harness in the same run.
    make(inputs, out, case) -> (run, result): run() does the operation, result() returns its
    output as a CuPy array (None for a peer that is not checked, such as a copy ceiling)."""
    name: str
    role: str
    origin: str
    make: Callable
    needs: tuple[str, ...] = ()
    dtypes: Optional[tuple[str, ...]] = None  # None: any
    precision: str = ""  # the precision it computes in, when not the case's dtype (e.g. "tf32")

    def unavailable(self, dtype: str) -> Optional[str]:
        """Why this peer cannot run here, or None."""
        for mod in self.needs:
            try:
                __import__(mod)
            except Exception as exc:
                return f"{mod} not importable ({exc.__class__.__name__})"
        if self.dtypes is not None and dtype not in self.dtypes:
            return f"no {dtype} version"
        return None


@dataclass(frozen=True)
class Case:
    """One problem: a shape, a dtype and the workload's own parameters."""
    shape: tuple[int, ...]
    dtype: str
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def label(self) -> str:
        extra = "".join(f", {k}={v}" for k, v in self.params)
        return f"{'x'.join(map(str, self.shape))} {self.dtype}{extra}"

    def param(self, key: str, default=None):
        return dict(self.params).get(key, default)


@dataclass
class Prepared:
    """A kernel ready to run on one case: launch() runs it into out."""
    launch: Callable[[], None]
    out: Any
    grid: tuple[int, ...]
    block: tuple[int, ...]
    expression: Optional[str] = None  # the instantiation launched, when the case chooses it


@dataclass
class TuneGroup:
    """One tuning decision: the candidates for one key (say, an element size), timed on one
    case; make(candidate, inputs, out) returns a launch callable."""
    key: Any
    case: Case
    candidates: list[Any]
    make: Callable
    describe: Callable[[Any], str] = str
    check_cases: list[Case] = field(default_factory=list)  # small cases each candidate must pass first


@dataclass
class Miss:
    case: Case
    text: str
    why: str = ""


class Workload(ABC):
    name: str = ""                # registry and command-line name
    operation: str = ""           # the role of its rungs in records (usually the name)
    summary: str = ""             # one line for listings
    dtypes: tuple[str, ...] = ("float32",)   # dtypes its ladder kernels take
    size_kernels: tuple[str, ...] = ()       # kernels of the size sweep
    bench_peers: tuple[str, ...] = ()        # peers of `bwlab bench`, besides the API
    goal_note: str = ""                      # the bench's goals, one line

    # --- kernels and peers ---------------------------------------------------------------
    @abstractmethod
    def kernels(self) -> Sequence[KernelSpec]:
        """The ladder, in teaching order."""

    def kernels_for(self, case: Case) -> Sequence[KernelSpec]:
        """The rungs that serve this case (default: all)."""
        return self.kernels()

    def variants(self) -> Sequence[KernelSpec]:
        """Configurations of template parameters for the variants sweep (default: none)."""
        return ()

    def api_sources(self) -> dict[Path, list[str]]:
        """Instantiations the public API may launch, per .cu file (default: none)."""
        return {}

    def sources(self) -> dict[Path, list[str]]:
        """Every instantiation this workload may launch (ladder, variants, public API), per .cu file."""
        out: dict[Path, list[str]] = {}
        for spec in list(self.kernels()) + list(self.variants()):
            out.setdefault(spec.source, []).extend(spec.expressions())
        for source, exprs in self.api_sources().items():
            out.setdefault(source, []).extend(exprs)
        return out

    @abstractmethod
    def peers(self) -> Sequence[Peer]:
        """The peers, the public API (named "bwlab") and the CPU reference among them."""

    def peer(self, name: str) -> Peer:
        for p in self.peers():
            if p.name == name:
                return p
        raise ValueError(f"{self.name}: unknown peer {name!r}; known: {', '.join(p.name for p in self.peers())}")

    def kernel(self, name: str) -> KernelSpec:
        for k in list(self.kernels()) + list(self.variants()):
            if k.name == name:
                return k
        raise ValueError(f"{self.name}: unknown kernel {name!r}; known: {', '.join(k.name for k in self.kernels())}")

    # --- cases -----------------------------------------------------------------------------
    @abstractmethod
    def default_case(self) -> Case: ...

    def ladder_cases(self) -> list[Case]:
        """The cases `bwlab run` shows the ladder on (default: the default case)."""
        return [self.default_case()]

    @abstractmethod
    def parse_case(self, shape: Optional[str], dtype: Optional[str], **params) -> Case:
        """A case from command-line text; ValueError naming what is wrong."""

    def size_case(self, n: int, dtype: str) -> Case:
        raise NotImplementedError(f"{self.name} has no size sweep")

    bench_suites: tuple[str, ...] = ("main",)

    def bench_cases(self, suite: str = "main", all_dtypes: bool = False) -> list[Case]:
        """The cases of one bench suite; a case with param timing="wall" is timed by the wall
        clock over many back-to-back calls (small calls, where host work sets the rate)."""
        return [self.default_case()]

    @abstractmethod
    def bytes_moved(self, case: Case) -> int:
        """Bytes read + bytes written by an ideal kernel."""

    def flops(self, case: Case) -> int:
        return 0

    # --- inputs, answers, checks -------------------------------------------------------------
    @abstractmethod
    def make_input(self, case: Case, seed: Optional[int] = None) -> Any:
        """Fresh random inputs on the GPU."""

    @abstractmethod
    def reference(self, case: Case, inputs) -> Any:
        """The right output, computed independently (on the host for small cases)."""

    @abstractmethod
    def check(self, out, expected) -> Check: ...

    def copy_of(self, inputs):
        """The bytes a copy kernel or ceiling must reproduce."""
        return inputs

    @abstractmethod
    def new_output(self, case: Case, inputs, copies: bool = False) -> Any:
        """An output buffer for a kernel of this case (copies: shaped like the input)."""

    @abstractmethod
    def prepare(self, spec: KernelSpec, inputs, out, case: Case, block: Optional[Block] = None) -> Prepared:
        """Check every argument once and return the launch; ValueError if refused."""

    @abstractmethod
    def precheck_cases(self, case: Case) -> list[Case]:
        """Small awkward cases every kernel must pass before it is timed."""

    # --- bench and tune ----------------------------------------------------------------------
    def explain(self, inputs, case: Optional[Case] = None) -> str:
        """Which kernel the public API runs on these inputs (of this case), and why."""
        return ""

    def goals(self, case: Case, records) -> list[str]:
        """The bench's goals for one case: one line per miss."""
        return []

    def why_missed(self, case: Case, explanation: str) -> str:
        return explanation

    def tune_groups(self) -> list[TuneGroup]:
        return []

    def save_plan(self, gpu_name: str, best: dict, measurements: list[dict], path=None) -> str:
        raise NotImplementedError(f"{self.name} has nothing to tune")

    # --- reports -----------------------------------------------------------------------------
    def tables(self, run) -> list[TableData]:
        """Tables of this workload's own, after the procedure's standard ones."""
        return []

    def charts(self, run) -> dict[str, bytes]:
        """Charts of this workload's own for a run (file name -> PNG bytes); a variants sweep
        writes its "heatmap.png" from here."""
        return {}
