"""The run document: one Record per (kernel or peer, config), plus device and environment.

Every renderer reads this document, so a run can be re-rendered later without a GPU.
Files are written atomically (temp file + rename).
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

SCHEMA = "bwlab.run/1"


@dataclass
class Record:
    name: str
    kind: str                     # "kernel" | "peer" | "cpu"
    family: str
    role: str                     # "ceiling" | "copy" | "bound" | "floor" | "transpose"
    shape: list[int]
    dtype: str
    bytes: int                    # bytes read + bytes written
    flops: int = 0
    block: Optional[list[int]] = None
    grid: Optional[list[int]] = None
    timing: Optional[dict] = None  # harness.Timing as a dict
    gbs: Optional[float] = None
    pct_peak: Optional[float] = None
    pct_memcpy: Optional[float] = None
    pct_best_copy: Optional[float] = None
    correct: Optional[bool] = None  # None: not run (skipped)
    check: str = ""
    notes: list[str] = field(default_factory=list)
    resources: Optional[dict] = None
    origin: str = ""
    lesson: str = ""
    counters: Optional[dict] = None  # Nsight Compute metrics (bwlab profile / run --profile)

    @property
    def median_ms(self) -> Optional[float]:
        return self.timing["median_ms"] if self.timing else None

    @property
    def cv(self) -> Optional[float]:
        t = self.timing
        return t["std_ms"] / t["mean_ms"] if t and t["mean_ms"] else None


@dataclass
class Run:
    device: dict
    environment: dict
    config: dict
    records: list[Record] = field(default_factory=list)
    ceilings: dict = field(default_factory=dict)
    created: str = ""
    command: str = ""
    complete: bool = True
    schema: str = SCHEMA

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Run":
        if d.get("schema") != SCHEMA:
            raise ValueError(f"not a {SCHEMA} document (schema {d.get('schema')!r})")
        d = dict(d)
        d["records"] = [Record(**r) for r in d.get("records", [])]
        return cls(**d)

    def record(self, name: str) -> Record:
        for r in self.records:
            if r.name == name:
                return r
        raise KeyError(name)


def write_text_atomic(path: Path, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def save(run: Run, path) -> None:
    write_text_atomic(Path(path), json.dumps(run.to_dict(), indent=1, default=float) + "\n")


def load(path) -> Run:
    return Run.from_dict(json.loads(Path(path).read_text()))
