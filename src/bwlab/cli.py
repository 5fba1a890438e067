"""The command line: bwlab device | kernels | transpose | run."""
from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from . import build, catalog, report

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="How much of the memory bandwidth can a kernel reach, and why not more?")
console = Console()
err = Console(stderr=True)


def parse_pair(text: str, what: str) -> tuple[int, int]:
    """'16384x16384' -> (16384, 16384); a clear error otherwise."""
    parts = text.lower().replace("*", "x").split("x")
    try:
        a, b = (int(p) for p in parts)
    except ValueError:
        raise typer.BadParameter(f"{what} must look like 1024x768, got {text!r}") from None
    if a < 0 or b < 0 or (what == "block" and (a < 1 or b < 1)):
        raise typer.BadParameter(f"{what} extents must be positive, got {text!r}")
    return a, b


def parse_list(text: Optional[str]) -> Optional[list[str]]:
    if not text:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


def _command() -> str:
    return "bwlab " + " ".join(sys.argv[1:])


def _require_gpu() -> None:
    from .device import cuda_available

    ok, why = cuda_available()
    if not ok:
        err.print(f"[bold red]No GPU:[/] {why}. This command measures on a CUDA device.")
        raise typer.Exit(1)


def _kernel_resources(arch: str) -> dict:
    res = {}
    for family, exprs in catalog.family_expressions().items():
        b = build.compile_family(family, exprs, arch)
        for spec in catalog.KERNELS:
            if spec.family == family:
                res[spec.name] = b.resources.get(spec.expression(spec.dtypes[0], spec.block))
    return res


@app.command()
def device(measure: bool = typer.Option(True, help="also measure cudaMemcpy and the 16-byte copy kernels"),
           json_out: Optional[Path] = typer.Option(None, "--json", help="write the facts as JSON")):
    """Device facts, theoretical peaks and measured ceilings."""
    _require_gpu()
    from . import device as dev

    spec = dev.query()
    ceilings = dev.measure_ceilings(spec) if measure else {}
    console.print(report.device_table(spec.to_dict(), ceilings))
    if json_out:
        from .results import write_text_atomic

        write_text_atomic(json_out, json.dumps({"device": spec.to_dict(), "ceilings": ceilings}, indent=1))


@app.command()
def kernels(arch: Optional[str] = typer.Option(None, help="target, e.g. sm_90; default: this GPU, or sm_90")):
    """List every kernel with its origin, lesson and ptxas resources (no GPU needed)."""
    if arch is None:
        from .device import cuda_available, query

        arch = query().arch if cuda_available()[0] else build.DEFAULT_ARCH
    try:
        res = _kernel_resources(arch)
    except build.BuildError as exc:
        err.print(f"[bold red]build failed:[/] {exc}")
        raise typer.Exit(1)
    console.print(report.kernels_table(catalog.KERNELS, res))
    console.print(f"compiled for {arch}; {len(catalog.KERNELS)} kernels; "
                  f"spills in total: {sum(r.spill_stores + r.spill_loads for r in res.values() if r)}")


def _run_ladder(kernel_names, peer_names, shape, dtype, block, warmup, reps, seed, cpu):
    from . import ladder

    with console.status("measuring") as status:
        return ladder.run_transpose(kernel_names, peer_names, shape, dtype, block, warmup, reps, seed,
                                    cpu, log=lambda m: status.update(m), command=_command())


def _validate(kernel_names, dtype):
    try:
        catalog.select(kernel_names)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    if dtype not in catalog.CTYPES:
        raise typer.BadParameter(f"dtype must be one of {', '.join(catalog.CTYPES)}, got {dtype!r}")


@app.command()
def transpose(shape: str = typer.Option("16384x16384", help="rows x cols of the input"),
              dtype: str = typer.Option("float32", help="float32 or float64"),
              kernels: Optional[str] = typer.Option(None, help="comma-separated kernel names (default: all)"),
              peers: Optional[str] = typer.Option(None, help="comma-separated peers (default: all; 'none' for none)"),
              block: Optional[str] = typer.Option(None, help="block shape for kernels that take it, e.g. 32x8"),
              reps: int = typer.Option(100, min=1), warmup: int = typer.Option(3, min=0),
              seed: Optional[int] = typer.Option(None, help="random seed (default: fresh)"),
              cpu: bool = typer.Option(True, help="time NumPy on the CPU too"),
              json_out: Optional[Path] = typer.Option(None, "--json", help="write the run document here")):
    """Verify and time transpose kernels and peers at one shape."""
    rows_cols = parse_pair(shape, "shape")
    blk = parse_pair(block, "block") if block else None
    names = parse_list(kernels)
    _validate(names, dtype)
    peer_names = [] if peers == "none" else parse_list(peers)
    _require_gpu()
    run = _run_ladder(names, peer_names, rows_cols, dtype, blk, warmup, reps, seed, cpu)
    console.print(report.ladder_table(run))
    if json_out:
        from .results import save

        save(run, json_out)
    if any(r.correct is False for r in run.records):
        raise typer.Exit(2)


@app.command()
def run(out: Optional[Path] = typer.Option(None, help="results folder (default: bwlab-results/<time>)"),
        shape: str = typer.Option("16384x16384", help="rows x cols"),
        reps: int = typer.Option(100, min=1), warmup: int = typer.Option(3, min=0),
        seed: Optional[int] = typer.Option(None)):
    """The main job: device facts, the whole ladder and its peers, written to a folder."""
    from .device import cuda_available

    ok, why = cuda_available()
    if not ok:
        console.print(f"[bold]No GPU here[/] ({why}): nothing can be measured. "
                      "Listing and compiling the kernels for sm_90 instead.")
        kernels(arch=None)
        return
    run_doc = _run_ladder(None, None, parse_pair(shape, "shape"), "float32", None, warmup, reps, seed, True)
    folder = out or Path("bwlab-results") / dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    from .results import save, write_text_atomic

    save(run_doc, folder / "run.json")
    text = report.to_text(report.device_table(run_doc.device), report.ladder_table(run_doc))
    write_text_atomic(folder / "table.txt", text)
    console.print(report.device_table(run_doc.device))
    console.print(report.ladder_table(run_doc))
    console.print(f"written: {folder / 'run.json'}, {folder / 'table.txt'}")
    if any(r.correct is False for r in run_doc.records):
        raise typer.Exit(2)
