"""The permutation ladder: element by element, then a shared-memory tile between the two
fastest axes, then 16-byte vectors on both sides of the tile; the public API (its planner,
which also gathers whole rows and calls bwlab.transpose's kernels) runs beside them as a peer.
Each rung's instantiation follows the case's element size and extents."""
from __future__ import annotations

from dataclasses import dataclass

from ...core.workload import KernelSpec
from . import plans
from .reference import ALL_DTYPES, ITEMSIZE

OP = "permute"


@dataclass(frozen=True)
class PermuteKernel(KernelSpec):
    family_kind: str = "gather"   # the forced plan kind: "gather" | "scalar" | "tiles"

    def expressions(self) -> list[str]:
        """Every instantiation the rung may launch (each element size, each tile)."""
        if self.family_kind == "gather":
            return [plans.gather_expression(e) for e in plans.ITEMSIZES]
        if self.family_kind == "scalar":
            return [plans.scalar_expression(e, c) for e in plans.ITEMSIZES for c in plans.SCALAR_TILES[e]]
        return [plans.vec_expression(e, c, f) for f in (False, True) for e in plans.ITEMSIZES
                for c in plans.vec_tiles(e, f)]

    def expression(self, dtype: str, block) -> str:
        e = ITEMSIZE[dtype]
        if self.family_kind == "gather":
            return plans.gather_expression(e)
        if self.family_kind == "scalar":
            return plans.scalar_expression(e, plans.SCALAR_TILES[e][0])
        return plans.vec_expression(e, plans.VEC_TILES[e][0])


_HERE = "written here"


# float32 first: listings show that instantiation (256 threads, the block listed)
_DTYPES = ("float32",) + tuple(d for d in ALL_DTYPES if d != "float32")


def K(name, source, kind, lesson) -> PermuteKernel:
    return PermuteKernel(name, source, "", OP, (256, 1), None, _HERE, lesson, "", _DTYPES, family_kind=kind)


KERNELS: tuple[PermuteKernel, ...] = (
    K("gather", plans.GATHER, "gather",
      "one thread per output element: stores coalesced, loads scattered wherever the input's fastest axis went"),
    K("scalarTiles", plans.BATCHED, "scalar",
      "a shared-memory tile between the input's and the output's fastest axes: both sides coalesced"),
    K("vecTiles", plans.BATCHED, "tiles",
      "the same tile moved in 16-byte vectors on both sides: fewer, wider memory instructions"),
)
