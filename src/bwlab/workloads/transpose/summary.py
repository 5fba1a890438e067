"""The bench's summary per shape class: the worst case against cudaMemcpy and against torch
and CuPy, the table the README quotes."""
from __future__ import annotations

from ...core.summary import worst_by_class
from ...core.table import TableData
from .cases import shape_class


def class_summary(run) -> TableData:
    return worst_by_class(
        run, "bwlab.transpose by shape class (worst case of each class)", shape_class, ("torch", "cupy"),
        "x torch / x cupy: bwlab's speed over theirs in the same case (above 1: bwlab faster), leaving out "
        "cases where they return a view without moving data; small calls compare wall-clock time per call",
        lambda c: "x".join(map(str, c.shape)) + f" {c.dtype}" + (f" {c.param('view')}" if c.param("view") else ""))
