"""The multi-GPU commands: `bwlab p2p` (one process; it starts one per GPU for all_to_all) and
`bwlab bench distributed` (every rank runs it, under torchrun)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer

from ..core.errors import UserError
from .common import (FORCE_HELP, WARMUP_HELP, bad, command_line, console, err, handled, parse, parse_list,
                     print_tables, require_gpu, results_folder, written)

NEEDS_TORCH = "needs torch with torch.distributed (python3 -m pip install torch)"
P2P_FILES = ("p2p.json", "p2p.txt", "p2p.png")
WRONG_EXIT = 3
DTYPES_ALL = ("uint8", "bfloat16", "float32", "float64", "complex128")   # one per element size


def _torch(what: str):
    try:
        import torch
        import torch.distributed as dist
    except ImportError:
        raise UserError(f"{what} {NEEDS_TORCH}") from None
    if not dist.is_available():
        raise UserError(f"{what} needs torch built with torch.distributed; this one ({torch.__version__}) is not")
    return torch


def _size(what: str, text: str) -> int:
    from ..lab.transfers import parse_size

    return parse(what, parse_size, text)


# --- bwlab p2p ------------------------------------------------------------------------------

@handled
def p2p(out: Optional[Path] = typer.Option(None, "--out", metavar="DIR",
                                           help="results folder (default: bwlab-results/p2p-<time>)"),
        gpus: Optional[int] = typer.Option(None, "--gpus", min=1, max=64, metavar="N",
                                           help="use the first N GPUs (default: every visible one)"),
        size: str = typer.Option("256M", "--size", metavar="SIZE", help="bytes of each timed peer-to-peer copy"),
        max_size: str = typer.Option("1G", "--max-size", metavar="SIZE",
                                     help="largest all_to_all, bytes each rank sends (sizes: the smallest x 4, "
                                          "x 16, ... up to it)"),
        min_size: str = typer.Option("1M", "--min-size", metavar="SIZE", help="smallest all_to_all"),
        reps: int = typer.Option(20, "--reps", min=1, max=10000, metavar="N", help="timed repetitions per measurement"),
        warmup: int = typer.Option(3, "--warmup", min=0, max=1000, metavar="N", help=WARMUP_HELP),
        render: Optional[Path] = typer.Option(None, "--render", metavar="P2P.json",
                                              help="draw a saved p2p.json again into --out (default: "
                                                   "<name>-render/ beside it; no GPU)"),
        force: bool = typer.Option(False, "--force", help=FORCE_HELP)):
    """Peer-to-peer bandwidth and latency between every pair of GPUs, and all_to_all bus
    bandwidth against size on NCCL, with nccl-tests' definitions (algbw = bytes each rank sends
    / time, busbw = algbw x (n-1)/n).

    Copies: cudaMemcpyPeerAsync of --size bytes one way, then both ways at once, and 4-byte
    copies for latency, from one process. all_to_all: one process per GPU, started by the
    command itself (do not launch it with torchrun). With one GPU it says so and measures what
    there is: the copy within the GPU and all_to_all on one rank.

    Exit codes: 0 measured, 1 no GPU, no torch or a file in the way, 2 a wrong value, 3 a copy
    or an all_to_all delivered wrong bytes.
    """
    if render is not None:
        _p2p_render(render, out, force)
        return
    copy = _size("--size", size)
    hi, lo = _size("--max-size", max_size), _size("--min-size", min_size)
    from ..distributed.p2p import sizes

    size_list = parse("--min-size/--max-size", sizes, hi, lo)
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        raise bad("bwlab p2p starts its own process per GPU: run it once, without torchrun")
    require_gpu("bwlab p2p")
    _torch("bwlab p2p")
    import cupy

    visible = cupy.cuda.runtime.getDeviceCount()
    n = gpus or visible
    if n > visible:
        raise bad(f"--gpus {n}: only {visible} GPU(s) visible")
    folder = results_folder(out, "p2p", P2P_FILES, force)
    if n == 1:
        err.print("only one GPU is visible: there is no GPU pair to measure; measuring the copy within GPU 0 and "
                  "all_to_all on one rank (no bytes cross a link)", markup=False, highlight=False, soft_wrap=True)
    from ..distributed.p2p import run_p2p

    with console.status("p2p") as status:
        doc = run_p2p(n, copy, size_list, reps, warmup, command=command_line(), log=lambda m: status.update(m))
    _p2p_write(doc, folder)
    c = doc["copies"]
    if any(ok is False for row in c["correct"] for ok in row) or not all(r["correct"] for r in doc["all_to_all"]):
        err.print("bwlab: wrong bytes delivered (see the rows marked NO)", markup=False)
        raise typer.Exit(WRONG_EXIT)


def _p2p_write(doc: dict, folder: Path) -> None:
    from ..core.files import write_bytes_atomic, write_text_atomic
    from ..distributed.render import p2p_chart, p2p_tables
    from ..distributed.results import save
    from ..report.text import to_text

    save(doc, folder / "p2p.json")
    tables = p2p_tables(doc)
    write_text_atomic(folder / "p2p.txt", to_text(tables))
    write_bytes_atomic(folder / "p2p.png", p2p_chart(doc))
    print_tables(tables)
    written(folder / "p2p.json", folder / "p2p.txt", folder / "p2p.png")


def _p2p_render(path: Path, out: Optional[Path], force: bool) -> None:
    from ..distributed.results import load

    try:
        doc = load(path, "p2p")
    except ValueError as exc:
        raise UserError(str(exc)) from None
    _p2p_write(doc, results_folder(out or path.parent / f"{path.stem}-render", "p2p", P2P_FILES, force))


# --- bwlab bench distributed ------------------------------------------------------------------

def _shapes(text: str) -> list[tuple[int, int]]:
    out = []
    for s in parse_list(text) or []:
        parts = s.lower().split("x")
        try:
            r, c = (int(p) for p in parts)
        except ValueError:
            raise bad(f"--shapes: a shape looks like 32768x32768 (rows x columns), got {s!r}") from None
        if r < 1 or c < 1:
            raise bad(f"--shapes: extents must be positive, got {s!r}")
        out.append((r, c))
    if not out:
        raise bad("--shapes: give at least one shape, e.g. 32768x32768")
    return list(dict.fromkeys(out))


def _dtypes(torch, text: Optional[str]) -> list:
    names = list(DTYPES_ALL) if text == "all" else parse_list(text) or ["float32"]
    out = []
    for n in names:
        d = getattr(torch, n, None)
        if not isinstance(d, torch.dtype):
            raise bad(f"--dtypes: {n!r} is not a torch dtype (e.g. float32, bfloat16, uint8, complex128)")
        out.append(d)
    return list(dict.fromkeys(out))


def bench_distributed(out: Optional[Path], suite: str, shapes: Optional[str], dtypes: Optional[str],
                      peers: Optional[str], reps: Optional[int], warmup: int, seed: int, force: bool,
                      param: Optional[list] = None) -> None:
    """`bwlab bench distributed`: every rank of torchrun runs it; only rank 0 prints and writes."""
    rank = int(os.environ.get("RANK", "0"))
    try:
        if param:
            raise bad("--param: the distributed bench takes no case parameters")
        _bench(out, suite, shapes, dtypes, peers, reps, warmup, seed, force, rank)
    except UserError as exc:
        if rank != 0:   # rank 0 says it once
            raise typer.Exit(exc.exit_code)
        raise


def _bench(out, suite, shapes, dtypes, peers, reps, warmup, seed, force, rank) -> None:
    from ..distributed import bench as db

    suites = list(db.SUITES) if suite == "all" else parse_list(suite) or ["main"]
    unknown = [s for s in suites if s not in db.SUITES]
    if unknown:
        raise bad(f"--suite: {', '.join(unknown)} not among {', '.join(db.SUITES)} (distributed)")
    peer_list = [] if peers == "none" else parse_list(peers) or list(db.PEERS)
    unknown = [p for p in peer_list if p not in db.PEERS]
    if unknown:
        raise bad(f"--peers: {', '.join(unknown)} not among {', '.join(db.PEERS)}, or none")
    case_list = _shapes(shapes) if shapes else None
    torch = _torch("bwlab bench distributed")
    dtype_list = _dtypes(torch, dtypes)
    s = db.setup()
    try:
        say = console.print if s.rank == 0 else (lambda *a, **k: None)
        if s.backend == "gloo" and case_list is None and ("main" in suites or "chunks" in suites):
            swapped = " and ".join(w for x, w in (("main", "'main'"), ("chunks", "the chunk sweep")) if x in suites)
            suites = list(dict.fromkeys("small" if x in ("main", "chunks") else x for x in suites))
            say(f"no GPU: the CPU path on gloo, for checking a launch, not for speed; suite 'small' instead of "
                f"{swapped}", markup=False, highlight=False)
        if case_list is None:
            case_list = list(dict.fromkeys(c for x in suites for c in db.SUITES[x]))
        chunk_counts = list(db.CHUNK_SWEEP) if "chunks" in suites else []
        names = [f"ranks-{s.world}.{ext}" for ext in ("json", "txt", "png")]
        folder, problem = None, None
        if s.rank == 0:
            try:
                folder = str(results_folder(out, "bench-distributed", names, force))
            except UserError as exc:
                problem = (str(exc), exc.exit_code)
        folder, problem = db.share(s, (folder, problem))
        if problem:
            raise UserError(*problem)
        folder = Path(folder)
        from ..distributed.results import save

        config = {"suites": suites, "peers": peer_list}

        def keep(doc):
            if s.rank == 0:
                save(doc, folder / names[0])

        status = console.status("benchmarking") if s.rank == 0 else None
        log = (lambda m: status.update(m)) if status else (lambda m: None)
        if status:
            status.start()
        try:
            doc = db.run_bench(s, case_list, dtype_list, peer_list, chunk_counts, reps, warmup, seed,
                               command=command_line(), config=config, log=log, on_record=keep)
        finally:
            if status:
                status.stop()
        wrong = any(not c["correct"] for c in doc["checks"]) or any(r.get("correct") is False for r in doc["records"])
    finally:
        db.teardown(s)
    if s.rank == 0:
        from ..core.files import write_bytes_atomic, write_text_atomic
        from ..distributed.render import bench_chart, bench_tables
        from ..report.text import to_text

        save(doc, folder / names[0])
        tables = bench_tables(doc)
        write_text_atomic(folder / names[1], to_text(tables))
        write_bytes_atomic(folder / names[2], bench_chart(doc))
        print_tables(tables)
        written(*(folder / n for n in names))
        if wrong:
            err.print("bwlab: a distributed transpose gave a wrong result (rows marked NO)", markup=False)
    if wrong:
        raise typer.Exit(WRONG_EXIT)
