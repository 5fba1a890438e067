"""`bwlab kernels`: every kernel with its lesson, origin and compiler resources (no GPU needed)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..core import build
from ..core.errors import UserError
from ..report.tables import kernels_table
from .common import WORKLOADS, bad, console, handled, print_tables, workloads


def _arch(arch: Optional[str]) -> str:
    if arch is None:
        from ..core.device import cuda_available, query

        return query().arch if cuda_available()[0] else build.DEFAULT_ARCH
    try:
        return build.check_arch(arch)
    except ValueError as exc:
        raise bad(f"--arch: {exc}") from None


@handled
def kernels(names: Optional[list[str]] = typer.Argument(None, metavar="WORKLOAD",
                                                        help=f"workloads to list: {WORKLOADS} (default: all)"),
            arch: Optional[str] = typer.Option(None, "--arch", metavar="SM", help="target such as sm_90 "
                                               "(default: this GPU's, or sm_90 without one)")):
    """List every kernel with its lesson, origin and registers / shared memory / spills.

    Compiles everything the workloads may launch for the target (ladder, variants, public
    API) with NVRTC; needs no GPU.
    """
    from ..core import ceilings

    chosen = workloads(names)
    target = _arch(arch)
    entries, spills, count, done = [], 0, 0, 0
    groups = [("core", ceilings.COPY_KERNELS, ceilings.SOURCES)] + [(w.name, w.kernels(), w.sources()) for w in chosen]
    files = sum(len(sources) for _, _, sources in groups)
    try:
        with console.status(f"compiling for {target}") as status:
            for wname, specs, sources in groups:
                built = {}
                for src, exprs in sources.items():  # a file at a time, so a cold compile shows where it is
                    status.update(f"compiling for {target}: {wname} {Path(src).name}, {len(set(exprs))} "
                                  f"instantiations (file {len(built) + 1 + done} of {files})")
                    built[src] = build.compile_each(src, exprs, target).resources
                done += len(built)
                for res in built.values():
                    spills += sum(r.spills for r in res.values())
                    count += len(res)
                for s in specs:
                    entries.append((wname, s, built[s.source].get(s.expression(s.dtypes[0], s.block))))
    except build.BuildError as exc:
        raise UserError(str(exc).splitlines()[0]) from None
    print_tables([kernels_table(entries)])
    console.print(f"compiled {count} instantiations for {target}; spills in total: {spills}", markup=False)
