"""The claims ledger: rules of thumb from the notes bwlab grew from, each stated in one English
sentence with the topic of the notes it comes from, the experiment that tests it on the GPU at
hand, its micro-kernels (kernels/, one family per .cu file; the transpose claims reuse the
transpose ladder's kernels), and the rule that turns the measured numbers into a verdict (holds,
does not hold, depends). Claims without an experiment yet are listed as such, with the reason.

Not a kernel ladder (it is not in the workload registry that `bwlab run` reads): `bwlab claims`
runs it through bwlab.lab.claims. Nothing here needs a GPU until an experiment runs.
"""
from __future__ import annotations

from ...core import launch
from . import (aliasing, bottleneck, coalescing, coarsening, control, dram, instructions, latency, memory, peaks,
               pending, streams, transpose)
from .claim import (DEPENDS, FAILS, HOLDS, NOT_MEASURED, NOT_YET, STATUSES, VERDICTS, Bars, Claim, Kernels,
                    Verdict)

# Ledger order: the transpose lessons first, then the peak formulas and the bottleneck diagnosis,
# memory spaces, coalescing, latency hiding and DRAM banks, instructions, pointer aliasing,
# control flow, work per thread in a matmul, streams, and the claims not measured.
CLAIMS: tuple[Claim, ...] = (transpose.CLAIMS + peaks.CLAIMS + bottleneck.CLAIMS + memory.CLAIMS + coalescing.CLAIMS
                             + latency.CLAIMS + dram.CLAIMS + instructions.CLAIMS + aliasing.CLAIMS + control.CLAIMS
                             + coarsening.CLAIMS + streams.CLAIMS + pending.CLAIMS)
IDS = tuple(c.id for c in CLAIMS)


def _sources() -> tuple[dict, dict]:
    clean: dict = {}
    local: dict = {}
    for c in CLAIMS:
        for k in c.kernels:
            for e in k.expressions:
                (local if e in k.local_memory else clean).setdefault(k.source, set()).add(e)
    return ({s: sorted(e) for s, e in clean.items()}, {s: sorted(e) for s, e in local.items()})


# SOURCES: every instantiation a claim builds that must compile with no stack frame and no spills;
# LOCAL_MEMORY: the ones that use local memory on purpose (a deliberate spill, a thread array).
SOURCES, LOCAL_MEMORY = _sources()
for _path in set(SOURCES) | set(LOCAL_MEMORY):
    launch.register(_path, SOURCES.get(_path, []) + LOCAL_MEMORY.get(_path, []))


def get(claim_id: str) -> Claim:
    for c in CLAIMS:
        if c.id == claim_id:
            return c
    raise ValueError(f"unknown claim {claim_id!r}; known: {', '.join(IDS)}")


def select(ids=None) -> list[Claim]:
    """The claims named (in ledger order), or all; ValueError naming any unknown one."""
    if not ids:
        return list(CLAIMS)
    unknown = [i for i in ids if i not in IDS]
    if unknown:
        raise ValueError(f"unknown claim{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                         f"`bwlab claims --list` names them all")
    return [c for c in CLAIMS if c.id in set(ids)]


__all__ = ["CLAIMS", "IDS", "SOURCES", "LOCAL_MEMORY", "Claim", "Verdict", "Kernels", "Bars", "get", "select",
           "HOLDS", "FAILS", "DEPENDS", "NOT_YET", "NOT_MEASURED", "STATUSES", "VERDICTS"]
