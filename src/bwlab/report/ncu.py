"""Reading Nsight Compute's `--csv --page raw` output into counters per kernel."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from ..core.errors import UserError
from ..lab.profiling import METRICS


@dataclass
class KernelCounters:
    name: str          # bwlab's kernel name
    kernel: str        # the name ncu reported (demangled)
    values: dict       # label -> float

    @property
    def flops(self) -> float:
        v = self.values
        return v.get("fadd", 0) + v.get("fmul", 0) + 2 * v.get("ffma", 0)

    @property
    def dram_bytes(self) -> float:
        return self.values.get("dram_read_bytes", 0) + self.values.get("dram_write_bytes", 0)


def _number(text: str):
    t = text.replace(",", "").strip()
    try:
        return float(t)
    except ValueError:
        return text


def parse_csv(text: str) -> list[dict]:
    """Rows of `ncu --csv --page raw`: metric name -> number (or text), in launch order.
    The child's own output and ncu's ==PROF== lines share the stream; the table starts at
    the header ("ID", ...), the next row holds units, then one row per profiled launch."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID",')), None)
    if start is None:
        return []
    table = [line for line in lines[start:] if line.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(table))))
    header, data = rows[0], rows[1:]
    if data and not data[0][0].strip():  # the units row
        data = data[1:]
    return [{h: _number(v) for h, v in zip(header, row)} for row in data if len(row) == len(header)]


def counters_from_rows(rows: list[dict], names: list[str]) -> list[KernelCounters]:
    """Pair the n-th profiled launch with the n-th kernel name; pick bwlab's metrics."""
    if len(rows) != len(names):
        raise UserError(f"ncu profiled {len(rows)} launches for {len(names)} kernels")
    out = []
    for name, row in zip(names, rows):
        vals = {label: row[metric] for label, (metric, _) in METRICS.items()
                if metric in row and isinstance(row[metric], float)}
        out.append(KernelCounters(name, str(row.get("Kernel Name", "")), vals))
    return out


def counters(text: str, names: list[str]) -> list[KernelCounters]:
    return counters_from_rows(parse_csv(text), names)
