"""Tables as plain data (title, columns, formatted cells), so that workloads can supply
their own and every renderer (terminal, plain text, Markdown, HTML, CSV) draws them alike;
and the number formats every table uses."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class Column:
    header: str
    align: str = "right"      # "left" | "right"
    long: bool = False        # free text (notes, lessons): may move below a narrow table


@dataclass
class TableData:
    title: str
    columns: list[Column]
    rows: list[list[str]] = field(default_factory=list)
    caption: str = ""
    flags: list[str] = field(default_factory=list)  # per row: "" or "bad" (drawn in red)

    def add(self, *cells, flag: str = "") -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{self.title}: {len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(["" if c is None else str(c) for c in cells])
        self.flags.append(flag)

    def drop_empty_columns(self, empty=("-", "")) -> "TableData":
        """The same table without columns whose every cell is empty."""
        keep = [i for i in range(len(self.columns)) if any(r[i] not in empty for r in self.rows)]
        return TableData(self.title, [self.columns[i] for i in keep], [[r[i] for i in keep] for r in self.rows],
                         self.caption, list(self.flags))


def num(v: Optional[float]) -> str:
    """A measured quantity (GB/s, GFLOP/s, ms): 3 significant digits below 100, whole above."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    a = abs(v)
    if a >= 100 or a == 0:
        return f"{v:,.0f}".replace(",", " ") if a >= 100_000 else f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def pct(v: Optional[float]) -> str:
    return "-" if v is None else (f"{v:.1f}" if abs(v) < 10 else f"{v:.0f}")


def ms(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.3f}" if v < 100 else f"{v:.1f}"


def count(v: Optional[float]) -> str:
    """An event count (bank conflicts, FLOP): whole below a million, then k/M/G with 3 digits."""
    if v is None:
        return "-"
    a = abs(v)
    if a < 1e6:
        return f"{v:.0f}"
    for div, unit in ((1e12, "T"), (1e9, "G"), (1e6, "M")):
        if a >= div:
            return f"{v / div:.3g} {unit}"
    return f"{v:.0f}"  # pragma: no cover


def ratio(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.2f}x"

