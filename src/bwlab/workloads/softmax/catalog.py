"""The softmax ladder: every rung checked against the float64 reference, then timed, in
teaching order. Two axes, two ladders: a strided reduced axis ([N, L, M], M > 1: the rungs
named cols*) and the last axis (M == 1: the rungs named row*); the first rung runs both.
Each rung's geometry comes from the same plans the public API uses."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ...core.launch import cdiv
from ...core.workload import KernelSpec
from . import plans
from .plans import SRC, Choice, Problem
from .reference import CTYPE, DTYPES, ITEMSIZE

OP = "softmax"


@dataclass(frozen=True)
class SoftmaxKernel(KernelSpec):
    axis: str = "any"            # the cases it serves: "strided" (M > 1), "last" (M == 1) or "any"
    plan: Optional[Callable[[Problem, tuple], Optional[Choice]]] = None  # None: refused for this case

    def serves(self, M: int) -> bool:
        return self.axis == "any" or (self.axis == "last") == (M == 1)

    def expressions(self) -> list[str]:
        """Every instantiation the rung may launch: its plan probed over row lengths and strides."""
        out = set()
        for dtype in self.dtypes:
            for b in self.legal_blocks():
                for L in [2 ** k for k in range(3, 24)] + [7, 1000, 8200]:
                    for M in (1, 8, 1024):
                        try:
                            c = ladder_choice(self, Problem(64, L, M, dtype), b)
                        except ValueError:
                            continue
                        out.update(e for e in (c.expression, c.finish) if e)
        return sorted(out)

    def expression(self, dtype: str, block) -> str:
        v = 16 // ITEMSIZE.get(dtype, 4)
        return self.template.format(T=CTYPE.get(dtype, "float"), BX=block[0], BY=block[1], V=v)


def _plain(kind: str):
    def plan(p: Problem, block) -> Choice:
        t = block[0]
        expr = f"{kind}<{CTYPE[p.dtype]},{t},false>"
        if kind == "softmaxSeed":
            return Choice(kind, SRC["seed"], expr, (p.N, min(p.M, plans.GRID_Y), 1), (t, 1, 1), args="plain")
        return Choice(kind, SRC["cols"], expr, (cdiv(p.M, t), min(p.N, plans.GRID_Y), 1), (t, 1, 1), args="plain")
    return plan


def _row_online(p: Problem, block) -> Choice:
    expr = f"rowOnline<{CTYPE[p.dtype]},{p.vec},false>"
    return Choice("rowOnline", SRC["rows"], expr, (cdiv(p.N, 4), 1, 1), (128, 1, 1), args="plain")


def _row_warp(p: Problem, block) -> Optional[Choice]:
    for K in (4, 8, 16, 32)[: 4 if p.dtype == "float32" else 3]:  # the fewest registers that hold the row
        c = plans.row_warp(p, K, threads=128)
        if c is not None:
            return c
    return None


_SEED = "a classic first softmax kernel (reduction over axis 1 of [N, L, M])"
_HERE = "written here"
_BLOCKS = ((128, 1), (256, 1), (512, 1), (1024, 1))
_F = "Forward<false> "


def K(name, source, template, block, blocks, axis, plan, origin, lesson, fixed="") -> SoftmaxKernel:
    return SoftmaxKernel(name, source, template, OP, block, blocks, origin, lesson, fixed, DTYPES, axis=axis, plan=plan)


KERNELS: tuple[SoftmaxKernel, ...] = (
    K("seed", SRC["seed"], "softmaxSeed<{T},{BX},false>", (256, 1), _BLOCKS, "any", _plain("softmaxSeed"), _SEED,
      "A block per column, threads striding down the reduced axis, 3 passes: on a strided axis every "
      "lane reads its own sector.",
      "compiles (duplicate and undeclared names), a missing __syncthreads race, one exp for sum and "
      "output, 64-bit offsets"),
    # --- a strided reduced axis ------------------------------------------------------------
    K("colsThree", SRC["cols"], "colsThree<{T},{BX},false>", (128, 1), _BLOCKS, "strided", _plain("colsThree"),
      _HERE, "Threads along the contiguous axis, one column each: coalesced, but 3 passes read x 3 times."),
    K("colsOnline", SRC["cols"], "colsOnline<{T},{BX},false>", (128, 1), _BLOCKS, "strided", _plain("colsOnline"),
      _HERE, "Online softmax: running max and sum in one pass (rescaled as the max grows): 2 reads."),
    K("colsSplit", SRC["cols"], "colsSplit<{T},{V},8," + _F + ">", (32, 8), None, "strided",
      lambda p, b: plans.cols_split(p), _HERE,
      "16-byte packs and 8 threads per column: enough bytes in flight to fill the GPU; still 2 reads."),
    K("colsCluster", SRC["colscluster"], "colsCluster<{T},8,128,256,1," + _F + ">", (256, 1), None, "strided",
      lambda p, b: plans.cols_cluster_best(p, terms=False), _HERE,
      "Strips held in shared memory across a thread-block cluster (distributed shared memory): x read once."),
    K("colsTeam", SRC["colscluster"],
      f"colsTeam<{{T}},128,256,{plans.WIDE_STAGES},Forward<false>,{plans.TEAM_FORWARD_BLOCKS} >", (256, 1), None,
      # one team here: the ladder sizes the teams to the GPU
      "strided", lambda p, b: plans.cols_team(p, terms=False), _HERE,
      "colsCluster's strips on a team of ordinary blocks meeting through global memory, every block "
      "resident (a cooperative launch): a strip spans any number of blocks, so each holds little and "
      "several share an SM. It gains most on gradients, whose two inputs filled an SM on a cluster, and "
      "on axes too long for a cluster to hold at two blocks an SM."),
    # --- the last axis -----------------------------------------------------------------------
    K("rowOnline", SRC["rows"], "rowOnline<{T},{V},false>", (128, 1), None, "last", _row_online, _HERE,
      "A warp per row, online max and sum, shuffles instead of shared memory: 2 reads."),
    K("rowWarp", SRC["rows"], "rowWarp<{T},{V},32,32,1,128," + _F + ">", (128, 1), None, "last", _row_warp, _HERE,
      "A warp per row held in registers: x read once, but long rows cost registers and occupancy."),
    K("rowBlock", SRC["rows"], "rowBlock<{T},{V},128,8," + _F + ">", (128, 1), None, "last",
      lambda p, b: plans.row_block(p), _HERE,
      "A block per row in registers, sized to the row: x read once at full occupancy."),
    K("rowCluster", SRC["rowcluster"], "rowCluster<{T},{V},2,256,8," + _F + ">", (256, 1), None, "last",
      lambda p, b: plans.row_cluster(p, threads=256), _HERE,
      "A row shared by a cluster of blocks; their states meet in distributed shared memory: rows too "
      "long for one block, still read once."),
    K("rowStream", SRC["rowstream"], f"rowStream<{{T}},{{V}},2,512,8,{plans.STREAM_STAGES}," + _F + ">", (512, 1),
      None, "last",
      lambda p, b: plans.row_stream(p, terms=False), _HERE,
      "The row on a cluster in shared memory instead of registers: three blocks share an SM, one's "
      "barriers hide behind another's traffic, and the next row's reads overlap this row's writes."),
    K("rowTeam", SRC["rowstream"], f"rowTeam<{{T}},{{V}},512,8,{plans.STREAM_STAGES}," + _F + ">", (512, 1),
      None, "last",
      lambda p, b: plans.row_team(p, terms=False), _HERE,  # one team here: the ladder sizes the teams to the GPU
      "rowStream with a row's blocks meeting through global memory, every block resident at once (a "
      "cooperative launch): teams of any size, not bound to a GPC's SMs as a cluster is."),
    K("rowSplit", SRC["rowsplit"], "rowPartial<{T},{V},256,2," + _F + ">", (256, 1), None, "last",
      lambda p, b: plans.row_split(p, 256, 2), _HERE,
      "Any row length: partial states through global memory and a second kernel: x read twice (the "
      "second time partly from L2)."),
    K("rowRelay", SRC["rowsplit"], "rowRelay<{T},{V},256,8," + _F + ">", (256, 1), None, "last",
      lambda p, b: plans.row_relay(p), _HERE,
      "Both passes in one launch: blocks take tickets so each chunk is read again a row and a few MiB "
      "after its first read, meant to come from L2 (that read and the output evict-first)."),
)


def ladder_choice(spec: SoftmaxKernel, p: Problem, block) -> Choice:
    """The rung's kernel for a problem; ValueError when the rung cannot take it."""
    if not spec.serves(p.M):
        raise ValueError(f"{spec.name} reduces {'the last' if spec.axis == 'last' else 'a strided'} axis only")
    c = spec.plan(p, tuple(block))
    if c is None:
        why = "rows not in 16-byte packs, or " if spec.name in ("rowStream", "rowTeam", "rowRelay", "colsTeam") else ""
        raise ValueError(f"{spec.name}: cannot take a reduced axis of {p.L} ({why}too long to hold on chip)")
    return c
