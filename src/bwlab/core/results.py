"""The results document: one Record per (kernel or peer, case), plus the device, the
environment and the ceilings measured in the same run. Every renderer reads this document,
so a run can be re-rendered later without a GPU.

Reading is strict about what it needs and tolerant of what it does not know: a malformed
file is refused with one line naming the problem; keys written by a newer bwlab are ignored.
"""
from __future__ import annotations

import json
import typing
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Optional

from .files import read_json, schema_found, write_text_atomic

SCHEMA = "bwlab.run/2"
# --- version 1 (legacy): every document of version 1 came from the transpose-only lab.
OLD_SCHEMAS = ("bwlab.run/1",)
V1_WORKLOAD = "transpose"
V1_PROCEDURES = {"ladder": "ladder", "bench transpose": "bench", "sweep blocks": "sweep-blocks",
                 "sweep sizes": "sweep-sizes", "profile": "profile"}
# --- end of version 1
# The other documents bwlab writes, and what reads them: named when one is passed where a results
# document is expected.
OTHER_DOCUMENTS = {
    "bwlab.streams/1": ("a streams document (from bwlab streams)",
                        "`bwlab report` or `bwlab streams --render` draws it"),
    "bwlab.distributed/1": ("a multi-GPU document (from bwlab p2p or bwlab bench distributed)",
                            "`bwlab p2p --render` redraws a p2p.json"),
    "bwlab.plan/1": ("a tuning plan (from bwlab tune)", "the public API reads it; it holds no results to draw"),
    "bwlab.plan/2": ("a tuning plan (from bwlab tune)", "the public API reads it; it holds no results to draw"),
}
# What a procedure's document is (config["procedure"]); renderers choose their tables by it.
PROCEDURES = ("ladder", "bench", "sweep-blocks", "sweep-sizes", "sweep-variants", "profile", "tune")


def params_key(params: dict) -> tuple:
    """A case's parameters as a sorted, hashable tuple (a saved run holds tuples as lists)."""
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in params.items()))


@dataclass
class Record:
    name: str
    kind: str                     # "kernel" | "peer" | "cpu"
    family: str                   # kernel source file, or "peer"
    role: str                     # "ceiling" | "copy" | "bound" | "floor" | the workload's operation
    shape: list[int]
    dtype: str
    bytes: int                    # bytes read + bytes written
    workload: str = ""
    params: dict = field(default_factory=dict)  # case parameters beyond shape and dtype
    flops: int = 0
    block: Optional[list[int]] = None
    grid: Optional[list[int]] = None
    timing: Optional[dict] = None  # timing.Timing as a dict
    gbs: Optional[float] = None
    gflops: Optional[float] = None
    pct_peak: Optional[float] = None
    pct_memcpy: Optional[float] = None
    pct_best_copy: Optional[float] = None
    correct: Optional[bool] = None  # None: not run (skipped)
    check: str = ""
    notes: list[str] = field(default_factory=list)
    resources: Optional[dict] = None
    origin: str = ""
    lesson: str = ""
    counters: Optional[dict] = None  # Nsight Compute metrics
    precision: str = ""             # a peer computing in another precision than dtype (e.g. "tf32")

    @property
    def median_ms(self) -> Optional[float]:
        return self.timing["median_ms"] if self.timing else None

    @property
    def cv(self) -> Optional[float]:
        t = self.timing
        return t["std_ms"] / t["mean_ms"] if t and t.get("mean_ms") else None

    @property
    def timed(self) -> bool:
        return self.gbs is not None

    @property
    def case_params(self) -> tuple:
        return params_key(self.params)

    @property
    def moved(self) -> bool:
        """False when a bench peer returned a view without moving the data (its 'no copy' note)."""
        return not any(n.startswith("no copy") for n in self.notes)


@dataclass
class Run:
    device: dict
    environment: dict
    config: dict                  # "procedure", "workload" and the procedure's settings
    records: list[Record] = field(default_factory=list)
    ceilings: dict = field(default_factory=dict)
    created: str = ""
    command: str = ""
    complete: bool = True
    schema: str = SCHEMA

    @property
    def procedure(self) -> str:
        return self.config.get("procedure", "ladder")

    @property
    def workload(self) -> str:
        return self.config.get("workload", "")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d) -> "Run":
        return _parse_run(d)

    def by_case(self) -> dict[tuple, dict[str, Record]]:
        """A bench's records per case, (shape, dtype, parameters) -> {name: record}, in run order."""
        cases: dict[tuple, dict[str, Record]] = {}
        for r in self.records:
            cases.setdefault((tuple(r.shape), r.dtype, r.case_params), {})[r.name] = r
        return cases

    def record(self, name: str) -> Record:
        for r in self.records:
            if r.name == name:
                return r
        raise KeyError(name)


# --- reading, with one clear line for anything malformed ------------------------------------

_PY = {int: (int,), float: (int, float), str: (str,), bool: (bool,), list: (list,), dict: (dict,)}


def _kinds(annotation) -> tuple[tuple, bool]:
    """(accepted Python types, None allowed) for a dataclass field annotation."""
    optional = False
    if typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional, annotation = True, args[0]
    base = typing.get_origin(annotation) or annotation
    return _PY[base], optional


def _check_fields(cls, d: dict, where: str) -> dict:
    hints = typing.get_type_hints(cls)
    out = {}
    for f in fields(cls):
        if f.name not in d:
            continue
        v = d[f.name]
        types, optional = _kinds(hints[f.name])
        ok = (v is None and optional) or (isinstance(v, types) and not (isinstance(v, bool) and bool not in types))
        if not ok:
            want = "/".join(t.__name__ for t in types) + (" or null" if optional else "")
            raise ValueError(f"{where}: field {f.name!r} should be {want}, got {json.dumps(v)[:40]}")
        out[f.name] = v
    return out  # keys this version does not know are left out


def _numbers(d: dict, where: str, required=()) -> None:
    for k in required:
        if k not in d:
            raise ValueError(f"{where}: missing {k!r}")
    for k, v in d.items():
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise ValueError(f"{where}: {k!r} should be a number, got {json.dumps(v)[:40]}")


def _check_inner(rec: Record, where: str) -> None:
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in rec.shape):
        raise ValueError(f"{where}: 'shape' should be a list of non-negative integers")
    for key in ("block", "grid"):
        v = getattr(rec, key)
        if v is not None and not all(isinstance(n, int) for n in v):
            raise ValueError(f"{where}: {key!r} should be a list of integers")
    if rec.timing is not None:
        _numbers(rec.timing, f"{where} timing", ("median_ms", "mean_ms", "std_ms", "min_ms"))
    if rec.counters is not None:
        _numbers(rec.counters, f"{where} counters")
    if not all(isinstance(n, str) for n in rec.notes):
        raise ValueError(f"{where}: 'notes' should be a list of strings")


def _upgrade_v1(d: dict) -> dict:
    d = dict(d)
    config = dict(d.get("config") or {})
    kind = config.pop("kind", "ladder")
    config.setdefault("procedure", V1_PROCEDURES.get(kind, kind))
    config.setdefault("workload", V1_WORKLOAD)
    d["config"] = config
    d["records"] = [dict(r, workload=r.get("workload", V1_WORKLOAD)) if isinstance(r, dict) else r
                    for r in d.get("records", [])]
    d["schema"] = SCHEMA
    return d


def _parse_run(d) -> Run:
    if not isinstance(d, dict):
        raise ValueError(f"not a bwlab results document: expected a JSON object, got {type(d).__name__}")
    schema = d.get("schema")
    if schema in OLD_SCHEMAS:
        d = _upgrade_v1(d)
    elif schema in OTHER_DOCUMENTS:
        what, reader = OTHER_DOCUMENTS[schema]
        raise ValueError(f"{what}, not results of run, bench, sweep, profile, transfers or claims: {reader}")
    elif schema != SCHEMA:
        raise ValueError(f"not a bwlab results document ({schema_found(d)}; this bwlab reads {SCHEMA})")
    for key in ("device", "records"):
        if key not in d:
            raise ValueError(f"bwlab results document without {key!r}")
    dev = d["device"]
    if not isinstance(dev, dict) or not isinstance(dev.get("name"), str) \
            or not isinstance(dev.get("peak_bandwidth_gbs"), (int, float)):
        raise ValueError("bwlab results document: 'device' needs a name and a peak_bandwidth_gbs number")
    if not isinstance(d["records"], list):
        raise ValueError("bwlab results document: 'records' should be a list")
    records = []
    for i, r in enumerate(d["records"]):
        where = f"record {i + 1}"
        if not isinstance(r, dict):
            raise ValueError(f"{where}: expected an object, got {type(r).__name__}")
        missing = [k for k in ("name", "kind", "family", "role", "shape", "dtype", "bytes") if k not in r]
        if missing:
            raise ValueError(f"{where}: missing {', '.join(missing)}")
        rec = Record(**_check_fields(Record, r, f"{where} ({r.get('name')})"))
        _check_inner(rec, f"{where} ({rec.name})")
        records.append(rec)
    top = _check_fields(Run, {k: v for k, v in d.items() if k != "records"}, "document")
    for key in ("environment", "config", "ceilings"):
        top.setdefault(key, {})
    return Run(records=records, **top)


def save(run: Run, path) -> Path:
    return write_text_atomic(Path(path), json.dumps(run.to_dict(), indent=1, default=float) + "\n")


def load(path) -> Run:
    """The document at path, or ValueError with one line saying what is wrong with it."""
    path = Path(path)
    doc = read_json(path)
    try:
        return _parse_run(doc)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
