"""Tables on a terminal and in text files. A terminal wide enough gets a rich table; a
narrow one, a pipe or a file gets plain aligned columns, one line per row, with free-text
columns (notes, lessons) moved below the table as numbered notes when the row would not fit."""
from __future__ import annotations

import textwrap

from ..core.table import TableData


def _widths(headers, rows) -> list[int]:
    return [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]


def plain(t: TableData, width: int = 80) -> str:
    headers = [c.header for c in t.columns]
    rows = [list(r) for r in t.rows]
    notes: list[str] = []
    long = [i for i, c in enumerate(t.columns) if c.long]
    if long and sum(_widths(headers, rows)) + 2 * (len(headers) - 1) > width:
        keep = [i for i in range(len(headers)) if i not in long]
        marks = []
        for r in rows:
            text = "; ".join(f"{headers[i]}: {r[i]}" if len(long) > 1 else r[i] for i in long if r[i])
            if text:
                notes.append(text)
                marks.append(f"[{len(notes)}]")
            else:
                marks.append("")
        headers = [headers[i] for i in keep] + ["note"]
        rows = [[r[i] for i in keep] + [m] for r, m in zip(rows, marks)]
        aligns = [t.columns[i].align for i in keep] + ["left"]
    else:
        aligns = [c.align for c in t.columns]
    w = _widths(headers, rows)

    def line(cells):
        out = [c.rjust(n) if a == "right" else c.ljust(n) for c, n, a in zip(cells, w, aligns)]
        return "  ".join(out).rstrip()

    flag = ["  <- wrong" if f == "bad" else "" for f in t.flags]
    out = [t.title, line(headers), "  ".join("-" * n for n in w)]
    out += [line(r) + f for r, f in zip(rows, flag)]
    if t.caption:
        out += textwrap.wrap(t.caption, width)
    for i, n in enumerate(notes, 1):
        out += textwrap.wrap(n, width, initial_indent=f"[{i}] ", subsequent_indent=" " * (len(str(i)) + 3))
    return "\n".join(out) + "\n"


def to_text(tables, width: int = 200) -> str:
    """Tables as plain text for a results folder (one blank line between them)."""
    return "\n".join(plain(t, width) for t in tables)


def rich_table(t: TableData):
    from rich.table import Table

    rt = Table(title=t.title, caption=t.caption or None)
    for c in t.columns:
        rt.add_column(c.header, justify=c.align, no_wrap=not c.long, overflow="fold",
                      ratio=1 if c.long else None, min_width=24 if c.long else None)
    for row, f in zip(t.rows, t.flags):
        rt.add_row(*row, style="bold red" if f == "bad" else None)
    return rt


def show(console, t: TableData) -> None:
    """Print a table: rich when it fits the terminal, plain text otherwise (pipes, files)."""
    if console.is_terminal:
        from rich.measure import Measurement

        rt = rich_table(t)
        if Measurement.get(console, console.options, rt).minimum <= console.width:
            console.print(rt)
            return
    console.print(plain(t, console.width if console.is_terminal else 80), end="", markup=False, highlight=False,
                  soft_wrap=True)
