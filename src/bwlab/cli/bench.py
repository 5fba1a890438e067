"""`bwlab bench WORKLOAD`: the workload's public API against what users would otherwise call."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .common import (FORCE_HELP, WARMUP_GPU_HELP, WORKLOADS, bad, command_line, console, handled, parse, parse_list,
                     parse_params, print_tables, require_gpu, results_folder, workload, written)

FILES = ("bench.json", "bench.txt", "bench.png")


@handled
def bench(name: str = typer.Argument(..., metavar="WORKLOAD",
                                     help=f"the workload whose public API is timed: {WORKLOADS} or distributed"),
          out: Optional[Path] = typer.Option(None, "--out", metavar="DIR", help="results folder "
                                             "(default: bwlab-results/bench-<workload>-<time>)"),
          suite: Optional[str] = typer.Option(None, "--suite", metavar="S1,S2", help="case suites, comma-separated, "
                                              "or 'all' (transpose: main, misaligned, skinny, views, small; "
                                              "softmax: main, log, backward, log-backward, small; permute, "
                                              "matmul: main; distributed: main, small, chunks; default: main)"),
          shapes: Optional[str] = typer.Option(None, "--shapes", metavar="S1,S2",
                                               help="cases, e.g. 16384x16384,256x4096x4096 (instead of "
                                               "--suite)"),
          param: Optional[list[str]] = typer.Option(None, "--param", metavar="KEY=VALUE",
                                                    help="a parameter of the --shapes cases, repeatable: dim=1, "
                                                    "log=true or op=backward for softmax, dims=2,0,1 for permute"),
          dtypes: Optional[str] = typer.Option(None, "--dtypes", metavar="D1,D2", help="dtypes, or 'all' "
                                               "(default: one per element size)"),
          peers: Optional[str] = typer.Option(None, "--peers", metavar="A,B", help="peers to time (default: all)"),
          reps: Optional[int] = typer.Option(None, "--reps", min=1, metavar="N",
                                             help="timed repetitions (default: 100, 30 or 10 by size)"),
          warmup: int = typer.Option(3, "--warmup", min=0, metavar="N", help=WARMUP_GPU_HELP),
          seed: int = typer.Option(0, "--seed", min=0, metavar="N", help="seed of the random inputs"),
          force: bool = typer.Option(False, "--force", help=FORCE_HELP)):
    """Time the public API against torch, CuPy, cuBLAS, Triton and cudaMemcpy, each checked first.

    Writes bench.json, the printed tables (bench.txt) and a chart of every case as % of
    cudaMemcpy beside its peers (bench.png).

    Suites of the transpose: main (aligned, misaligned, skinny and batched shapes), misaligned
    (odd extents for each element size), skinny (short sides 1 to 64, both orientations),
    views (slices, reversed and transposed views), small (4 KiB to 4 MiB, wall clock per call).

    WORKLOAD distributed times the multi-GPU transpose on every rank of
    `torchrun --nproc-per-node N -m bwlab bench distributed` against its peer-to-peer bound and
    the torch ops: suites main, small and chunks, dtypes by torch's names (default float32), peers
    torch, all_to_all and nccl (bwlab's NCCL transport beside its peer-to-peer one), 50 timed
    repetitions (20 from 256 MiB) unless --reps is given.
    """
    if name == "distributed":  # the multi-GPU transpose: every rank of torchrun runs this
        from .distributed import bench_distributed

        return bench_distributed(out, suite or "main", shapes, dtypes, peers, reps, warmup, seed, force, param)
    from ..lab.bench import run_bench

    w = workload(name)
    cases = bench_cases(w, suite, shapes, dtypes, parse_params(param))
    peer_list = parse_list(peers) or list(w.bench_peers)
    unknown = [p for p in peer_list if p not in w.bench_peers]
    if unknown:
        raise bad(f"--peers: {', '.join(unknown)} not among {', '.join(w.bench_peers)}")
    require_gpu("bwlab bench")
    from ..core.results import save
    from ..core.files import write_bytes_atomic, write_text_atomic
    from ..report.charts import bench_chart
    from ..report.tables import bench_table, device_table, misses_table
    from ..report.text import to_text

    folder = results_folder(out, f"bench-{w.name}", FILES, force)
    with console.status("benchmarking") as status:
        run_doc = run_bench(w, cases, peer_list, reps, warmup, seed, log=lambda m: status.update(m),
                            command=command_line(), on_record=lambda r: save(r, folder / "bench.json"))
    save(run_doc, folder / "bench.json")
    tables = [device_table(run_doc.device), bench_table(run_doc), misses_table(run_doc)] + w.tables(run_doc)
    write_text_atomic(folder / "bench.txt", to_text(tables))
    write_bytes_atomic(folder / "bench.png", bench_chart(run_doc))
    print_tables(tables)
    written(folder / "bench.json", folder / "bench.txt", folder / "bench.png")
    if any(r.correct is False for r in run_doc.records if r.name == "bwlab"):
        raise typer.Exit(3)


def bench_cases(w, suite: Optional[str], shapes: Optional[str], dtypes: Optional[str], params: dict) -> list:
    """The cases of --suite, or of --shapes with --param, in the dtypes of --dtypes (default: the
    suites'); a one-line error for anything the workload does not take."""
    if shapes and suite is not None:
        raise bad("--suite and --shapes: pass one (--shapes replaces the suites' cases; --param sets their "
                  "parameters, e.g. --param op=backward)")
    if params and not shapes:
        raise bad("--param sets the parameters of --shapes cases: pass --shapes (instead of --suite)")
    for option, value in (("--shapes", shapes), ("--dtypes", dtypes), ("--suite", suite)):
        if value is not None and not parse_list(value):
            raise bad(f"{option}: nothing given")
    suite = suite or "main"
    suites = list(w.bench_suites) if suite == "all" else parse_list(suite) or ["main"]
    unknown = [s for s in suites if s not in w.bench_suites]
    if unknown:
        raise bad(f"--suite: {', '.join(unknown)} not among {', '.join(w.bench_suites)}")
    chosen = None if dtypes in (None, "all") else parse_list(dtypes)
    for d in chosen or []:
        parse("--dtypes", w.parse_case, "x".join(map(str, w.default_case().shape)), d)
    defaults = [c for s in suites for c in w.bench_cases(s, all_dtypes=dtypes == "all")]
    if shapes:
        dtype_list = chosen or list(dict.fromkeys(c.dtype for c in defaults))
        what = "--shapes/--param" if params else "--shapes"
        return list(dict.fromkeys(parse(what, w.parse_case, s, d, **params)
                                  for s in dict.fromkeys(parse_list(shapes)) for d in dtype_list))
    if chosen is None:
        return defaults
    all_cases = [c for s in suites for c in w.bench_cases(s, all_dtypes=True)]
    cases = [c for c in all_cases if c.dtype in chosen]
    if not cases:
        raise bad(f"--dtypes: no case of {', '.join(suites)} has dtype {', '.join(chosen)}; pass --shapes "
                  "(instead of --suite)")
    return cases
