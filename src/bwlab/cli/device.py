"""`bwlab device`: the GPU's facts, theoretical peaks and measured ceilings."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..core.files import output_file, write_text_atomic
from ..report.tables import device_table
from .common import handled, print_tables, require_gpu, written


@handled
def device(measure: bool = typer.Option(True, "--measure/--no-measure",
                                        help="also measure cudaMemcpy and the 16-byte copy kernels (about 1 s)"),
           json_out: Optional[Path] = typer.Option(None, "--json", metavar="FILE", help="also write the facts as JSON"),
           force: bool = typer.Option(False, "--force", help="replace FILE if it exists")):
    """Device facts, theoretical peaks (bandwidth, FP32, FP64) and measured ceilings."""
    target = output_file(json_out, "device.json", force, "--json") if json_out else None
    require_gpu("bwlab device")
    from ..core import ceilings
    from ..core.device import query

    spec = query()
    measured = ceilings.measure_ceilings(spec) if measure else {}
    print_tables([device_table(spec.to_dict(), measured)])
    if target:
        write_text_atomic(target, json.dumps({"device": spec.to_dict(), "ceilings": measured}, indent=1) + "\n")
        written(target)
