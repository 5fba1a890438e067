"""A bench's summary per shape class, the table the README quotes for each workload."""
from __future__ import annotations

from .table import Column, TableData, pct, ratio
from .workload import Case


def worst_by_class(run, title: str, classify, peers: tuple[str, ...], caption: str, where=None,
                   api: str = "bwlab") -> TableData:
    """A bench's summary: per shape class (classify(case) -> str), the worst case of the API
    against cudaMemcpy, and its worst speed ratio over each peer (peers that returned a view
    without moving data are left out). where(case) -> text names the worst case."""
    where = where or (lambda c: "x".join(map(str, c.shape)) + f" {c.dtype}")
    groups: dict[str, dict] = {}
    for (shape, dtype, params), by in run.by_case().items():
        case = Case(shape, dtype, params)
        groups.setdefault(classify(case), {})[case] = by
    t = TableData(title, [Column("class", "left"), Column("cases"), Column("worst % memcpy"), Column("at", "left"),
                          *(Column(f"worst x {p}") for p in peers)], caption=caption)
    for cls, cases in groups.items():
        rows = [(c, by) for c, by in cases.items() if by.get(api) is not None and by[api].gbs]
        if not rows:
            continue
        worst = min(rows, key=lambda cb: cb[1][api].pct_memcpy or 1e9)

        def worst_ratio(peer: str):
            vals = [by[api].gbs / by[peer].gbs for _, by in rows if peer in by and by[peer].gbs and by[peer].moved]
            return min(vals) if vals else None
        t.add(cls, len(rows), pct(worst[1][api].pct_memcpy), where(worst[0]), *(ratio(worst_ratio(p)) for p in peers))
    return t
