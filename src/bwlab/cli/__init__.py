"""The command line (typer): one module per command group. Workload commands take the
workload's name and look it up in the registry; nothing below this package imports typer."""
from __future__ import annotations

from typing import Optional

import typer

from .. import __version__
from . import bench, claims, device, distributed, kernels, profiling, report, run, streams, sweep, transfers, tune

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="How close does a kernel get to the GPU's memory roof, and why not closer? "
                       "Measures the ceilings, checks and times a ladder of CUDA kernels per workload, "
                       "and explains the gap.")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"bwlab {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: Optional[bool] = typer.Option(None, "--version", callback=_version, is_eager=True,
                                                 help="print the version and exit")):
    pass


COMMANDS = (
    ("run", run.run, "The main job: check and time each workload's kernel ladder and peers."),
    ("bench", bench.bench, "Time a workload's public API against torch, CuPy, cuBLAS, Triton."),
    ("device", device.device, "Device facts, theoretical peaks and measured ceilings."),
    ("kernels", kernels.kernels, "List every kernel with its lesson and resources (no GPU)."),
    ("sweep", sweep.sweep, "Sweep block shapes, working-set sizes or kernel variants."),
    ("profile", profiling.profile, "Nsight Compute counters per kernel."),
    ("roofline", report.roofline, "Roofline chart and a diagnosis per kernel of a saved run."),
    ("report", report.report, "Render saved results as Markdown, HTML or CSV (no GPU)."),
    ("tune", tune.tune, "Tune a workload's kernels on this GPU and store its plan."),
    ("streams", streams.streams, "Stream scenarios timed on the GPU: Gantt charts and verdicts."),
    ("transfers", transfers.transfers, "Host-device copies: bandwidth and latency by size."),
    ("claims", claims.claims, "Test classic CUDA rules of thumb on this GPU: a verdict per claim."),
    ("p2p", distributed.p2p, "GPU-to-GPU bandwidth and latency, all_to_all bus bandwidth."),
)
for _name, _fn, _short in COMMANDS:
    app.command(_name, short_help=_short)(_fn)


def main() -> None:
    app(prog_name="bwlab")
