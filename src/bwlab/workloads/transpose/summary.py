"""The bench's summary per shape class: the worst case against cudaMemcpy and against torch
and CuPy, the table the README quotes."""
from __future__ import annotations

from ...core.table import Column, TableData, pct, ratio
from ...core.workload import Case
from .cases import shape_class


def class_summary(run) -> TableData:
    groups: dict[str, dict] = {}
    for r in run.records:
        case = Case(tuple(r.shape), r.dtype, tuple(sorted(r.params.items())))
        g = groups.setdefault(shape_class(case), {})
        g.setdefault(case, {})[r.name] = r
    t = TableData("bwlab.transpose by shape class (worst case of each class)",
                  [Column("class", "left"), Column("cases"), Column("worst % memcpy"), Column("at", "left"),
                   Column("worst x torch"), Column("worst x CuPy")],
                  caption="x torch / x CuPy: bwlab's speed over theirs in the same case (above 1: bwlab faster), "
                          "leaving out cases where they return a view without moving data; small calls compare "
                          "wall-clock time per call")
    for cls, cases in groups.items():
        rows = [(c, by) for c, by in cases.items() if by.get("bwlab") is not None and by["bwlab"].gbs]
        if not rows:
            continue
        worst = min(rows, key=lambda cb: cb[1]["bwlab"].pct_memcpy or 1e9)
        where = "x".join(map(str, worst[0].shape)) + f" {worst[0].dtype}" + \
            (f" {worst[0].param('view')}" if worst[0].param("view") else "")

        def worst_ratio(peer: str):
            vals = [by["bwlab"].gbs / by[peer].gbs for _, by in rows if peer in by and by[peer].gbs
                    and not any(n.startswith("no copy") for n in by[peer].notes)]
            return min(vals) if vals else None
        t.add(cls, len(rows), pct(worst[1]["bwlab"].pct_memcpy), where, ratio(worst_ratio("torch")),
              ratio(worst_ratio("cupy")))
    return t
