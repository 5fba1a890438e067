"""The workload registry: every workload bwlab measures, by name. A workload is a package
here whose WORKLOAD attribute is a core.workload.Workload; listing it in NAMES is all the
command line, the lab and the reports need to find it."""
from __future__ import annotations

import importlib

from ..core.workload import Workload

NAMES = ("transpose", "softmax", "matmul", "permute")


def get(name: str) -> Workload:
    if name not in NAMES:
        raise ValueError(f"unknown workload {name!r}; known: {', '.join(NAMES)}")
    return importlib.import_module(f"{__name__}.{name}").WORKLOAD


def all_workloads() -> list[Workload]:
    return [get(n) for n in NAMES]
