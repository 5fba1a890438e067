"""The bench's summary per class (operation and axis): the worst case against cudaMemcpy and
against torch eager and torch.compile, the table the README quotes."""
from __future__ import annotations

from ...core.summary import worst_by_class
from ...core.table import TableData
from .cases import shape_class


def class_summary(run) -> TableData:
    return worst_by_class(
        run, "bwlab.softmax by class (worst case of each class)", shape_class, ("torch", "torch.compile"),
        "x torch / x torch.compile: bwlab's speed over theirs in the same case (above 1: bwlab faster)",
        lambda c: "x".join(map(str, c.shape)) + f" {c.dtype} dim {c.param('dim')}")
