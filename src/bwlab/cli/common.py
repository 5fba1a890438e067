"""What every command shares: consoles, one-line errors, parsing at the door, the GPU check,
output folders that never replace what the call did not create, progress, and tables."""
from __future__ import annotations

import datetime as dt
import functools
import sys
from pathlib import Path
from typing import Callable, Optional

import typer
from rich.console import Console

from ..core.errors import UserError
from ..core.files import output_folder
from ..core.timing import WARMUP_MS
from ..core.workload import Workload
from ..workloads import NAMES as WORKLOAD_NAMES
from ..report.text import show

console = Console()
err = Console(stderr=True)

# Options shared by several commands (typer reads the help text from here).
REPS_HELP = "timed repetitions per kernel (the median is reported)"
WARMUP_HELP = "untimed launches before the timed ones"
# where timing.time_gpu times: warm-up also lasts at least timing.WARMUP_MS of GPU time
WARMUP_GPU_HELP = (f"untimed launches before the timed ones, then more until they have taken {WARMUP_MS:g} ms "
                   "(0: none)")
SEED_HELP = "seed of the random input (default: a fresh one each run)"
FORCE_HELP = "replace files of the same name in the output folder"
WORKLOADS = ", ".join(WORKLOAD_NAMES)  # for the help of WORKLOAD arguments


def handled(fn: Callable) -> Callable:
    """A command whose UserError (or a refused value) becomes one line on stderr and an exit code."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UserError as exc:
            err.print(f"bwlab: {exc}", markup=False, highlight=False, soft_wrap=True)
            raise typer.Exit(exc.exit_code)
    return wrapper


def bad(message: str) -> UserError:
    """A wrong command-line value: exit code 2, as for the parser's own errors."""
    return UserError(message, exit_code=2)


def parse(what: str, fn, *args, **kwargs):
    """fn(*args) or a one-line error naming the option."""
    try:
        return fn(*args, **kwargs)
    except ValueError as exc:
        raise bad(f"{what}: {exc}") from None


def parse_list(text: Optional[str]) -> Optional[list[str]]:
    if not text:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


def parse_params(items: Optional[list[str]]) -> dict:
    """['dim=0', 'log=true'] -> {'dim': '0', 'log': 'true'}; one-line error otherwise."""
    out = {}
    for item in items or []:
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise bad(f"--param must look like KEY=VALUE (e.g. dim=0), got {item!r}")
        if key.strip() in out:
            raise bad(f"--param: {key.strip()} given twice")
        out[key.strip()] = value.strip()
    return out


def parse_pair(text: str, what: str) -> tuple[int, int]:
    """'32x8' -> (32, 8); a clear error otherwise."""
    parts = text.lower().replace("*", "x").split("x")
    try:
        a, b = (int(p) for p in parts)
    except ValueError:
        raise bad(f"{what} must look like 32x8, got {text!r}") from None
    if a < 1 or b < 1:
        raise bad(f"{what} extents must be positive, got {text!r}")
    return a, b


def workload(name: str) -> Workload:
    from ..workloads import get

    return parse("workload", get, name)


def workloads(names: Optional[list[str]]) -> list[Workload]:
    from ..workloads import NAMES

    return [workload(n) for n in (names or NAMES)]


def command_line() -> str:
    return "bwlab " + " ".join(sys.argv[1:])


def require_gpu(what: str) -> None:
    from ..core.device import cuda_available

    ok, why = cuda_available()
    if not ok:
        raise UserError(f"{what} needs an NVIDIA GPU and none is usable here: {why}. "
                        "`bwlab kernels` compiles and lists every kernel without one.")


def results_folder(out: Optional[Path], stem: str, names, force: bool) -> Path:
    """The folder a command writes into (default: bwlab-results/<stem>-<time>), checked first."""
    folder = out or Path("bwlab-results") / f"{stem}-{dt.datetime.now():%Y%m%d-%H%M%S}"
    return output_folder(folder, names, force)


def progress(total: int, what: str):
    """A rich progress bar (on a terminal only) whose log(msg) shows msg and advances one step."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), TextColumn("{task.fields[now]}"), console=err, transient=True)
    task = bar.add_task(what, total=total, now="")

    def log(msg: str) -> None:
        bar.update(task, advance=1, now=msg)

    return bar, log


def print_tables(tables) -> None:
    for t in tables:
        show(console, t)
        console.print()


def written(*paths) -> None:
    console.print("written: " + ", ".join(str(p) for p in paths), markup=False, highlight=False, soft_wrap=True)


def save_incomplete(run_doc, path: Path) -> None:
    """After a Ctrl-C: keep what was measured, say so, exit 130."""
    from ..core.results import save

    save(run_doc, path)
    err.print(f"interrupted: {len(run_doc.records)} records kept in {path} (marked incomplete)", markup=False)
    raise typer.Exit(130)
