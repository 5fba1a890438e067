"""The command line: bwlab device | kernels | transpose | run | tune | bench | profile | roofline
| sweep | report."""
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


def parse_shape(text: str) -> tuple[int, ...]:
    """'256x4096x4096' -> (256, 4096, 4096): 2-D or batched."""
    try:
        dims = tuple(int(p) for p in text.lower().replace("_", "").split("x"))
    except ValueError:
        raise typer.BadParameter(f"shape must look like 1024x768 or 8x1024x768, got {text!r}") from None
    if len(dims) < 2 or any(d < 0 for d in dims):
        raise typer.BadParameter(f"shape needs 2 or more non-negative extents, got {text!r}")
    return dims


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


def _progress(total: int, what: str):
    """A rich progress bar whose log(msg) shows msg and advances one step."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), TextColumn("{task.fields[now]}"), console=console, transient=True)
    task = bar.add_task(what, total=total, now="")

    def log(msg: str) -> None:
        bar.update(task, advance=1, now=msg)

    return bar, log


def _run_ladder(kernel_names, peer_names, shape, dtype, block, warmup, reps, seed, cpu):
    from . import ladder, peers

    total = len(catalog.select(kernel_names)) + (len(peers.PEERS) if peer_names is None else len(peer_names)) + 5
    bar, log = _progress(total, "ladder")
    with bar:
        return ladder.run_transpose(kernel_names, peer_names, shape, dtype, block, warmup, reps, seed,
                                    cpu, log=log, command=_command())


def _interrupted(run_doc, path) -> None:
    from .results import save

    if not run_doc.complete:
        save(run_doc, path)
        err.print(f"[bold yellow]interrupted:[/] {len(run_doc.records)} records kept in {path} (marked incomplete)")
        raise typer.Exit(130)


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
        seed: Optional[int] = typer.Option(None),
        profile: bool = typer.Option(False, "--profile", help="also collect Nsight Compute counters per kernel")):
    """The main job: device facts, the whole ladder and its peers, written to a folder."""
    from .device import cuda_available

    ok, why = cuda_available()
    if not ok:
        console.print(f"[bold]No GPU here[/] ({why}): nothing can be measured. "
                      "Listing and compiling the kernels for sm_90 instead.")
        kernels(arch=None)
        return
    rows_cols = parse_pair(shape, "shape")
    run_doc = _run_ladder(None, None, rows_cols, "float32", None, warmup, reps, seed, True)
    folder = out or Path("bwlab-results") / dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    from .results import save, write_text_atomic

    _interrupted(run_doc, folder / "run.json")
    if profile:
        names = [r.name for r in run_doc.records if r.kind == "kernel" and r.correct]
        counters, raw = _profile_records(names, rows_cols, "float32")
        for kc in counters:
            run_doc.record(kc.name).counters = kc.values
        write_text_atomic(folder / "ncu_raw.csv", raw)
    save(run_doc, folder / "run.json")
    text = report.to_text(report.device_table(run_doc.device), report.ladder_table(run_doc),
                          *((report.counters_table(run_doc),) if profile else ()))
    write_text_atomic(folder / "table.txt", text)
    console.print(report.device_table(run_doc.device))
    console.print(report.ladder_table(run_doc))
    if profile:
        console.print(report.counters_table(run_doc))
    from . import document

    md = document.write_markdown(run_doc, folder)
    console.print(f"written: {folder / 'run.json'}, {folder / 'table.txt'}, {md} and its charts")
    if any(r.correct is False for r in run_doc.records):
        raise typer.Exit(2)


@app.command()
def tune(reps: int = typer.Option(30, min=1), warmup: int = typer.Option(3, min=0),
         out: Optional[Path] = typer.Option(None, help="also copy the plan file here")):
    """Time every tile configuration of bwlab.transpose per element size; store this GPU's plan."""
    _require_gpu()
    from . import dispatch
    from . import tune as tuning
    from .device import query

    name = query().name
    with console.status("tuning") as status:
        plan, ms = tuning.run_tune(reps, warmup, log=lambda m: status.update(m))
    console.print(report.tune_table(plan, ms))
    path = tuning.save_plan(name, plan, ms)
    if out:
        tuning.save_plan(name, plan, ms, str(out))
    console.print(f"plan for {name} written to {path}; bwlab.transpose uses it from now on "
                  f"(set BWLAB_PLANS to move it; built-in default: {dispatch.DEFAULT_PLAN})")
    if any(m.get("correct") is False for m in ms):
        raise typer.Exit(2)


bench_app = typer.Typer(help="Benchmarks of bwlab's production kernels against their peers.")
app.add_typer(bench_app, name="bench")


@bench_app.command("transpose")
def bench_transpose(out: Optional[Path] = typer.Option(None, help="results folder (default: bwlab-results/bench-<time>)"),
                    shapes: Optional[str] = typer.Option(None, help="e.g. 16384x16384,256x4096x4096 (default: the issue's matrix)"),
                    dtypes: Optional[str] = typer.Option(None, help="comma-separated, or 'all' (default: one per element size)"),
                    peers: Optional[str] = typer.Option(None, help="comma-separated subset of the peers"),
                    reps: Optional[int] = typer.Option(None, min=1, help="default: 100, 30 or 10 by size"),
                    warmup: int = typer.Option(3, min=0), seed: int = typer.Option(0)):
    """bwlab.transpose vs torch, CuPy, cuBLAS geam, Triton and cudaMemcpy over shapes x dtypes."""
    from . import bench

    shape_list = bench.SHAPES if not shapes else [parse_shape(s) for s in parse_list(shapes)]
    dtype_list = bench.ALL_DTYPES if dtypes == "all" else (parse_list(dtypes) or bench.DTYPES)
    for d in dtype_list:
        if d not in bench.ALL_DTYPES:
            raise typer.BadParameter(f"dtype {d!r} not one of {', '.join(bench.ALL_DTYPES)}")
    peer_list = parse_list(peers) or list(bench.PEERS)
    for p in peer_list:
        if p not in bench.PEERS:
            raise typer.BadParameter(f"peer {p!r} not one of {', '.join(bench.PEERS)}")
    if "bwlab" not in peer_list:
        peer_list.insert(0, "bwlab")
    _require_gpu()
    from .results import save, write_text_atomic

    folder = out or Path("bwlab-results") / dt.datetime.now().strftime("bench-%Y%m%d-%H%M%S")
    with console.status("benchmarking") as status:
        run_doc = bench.run_bench(shape_list, dtype_list, peer_list, reps, warmup, seed,
                                  log=lambda m: status.update(m), command=_command(),
                                  on_record=lambda r: save(r, folder / "bench.json"))
    save(run_doc, folder / "bench.json")
    tables = (report.device_table(run_doc.device), report.bench_table(run_doc), report.misses_table(run_doc))
    write_text_atomic(folder / "bench.txt", report.to_text(*tables))
    for t in tables:
        console.print(t)
    console.print(f"written: {folder / 'bench.json'}, {folder / 'bench.txt'}")
    if any(r.correct is False for r in run_doc.records if r.name == "bwlab"):
        raise typer.Exit(2)


PROFILE_DEFAULT = ("naiveRow,naiveCol,naiveColL2,naiveColUnroll4,smem,smemPad,smemPad2,tile32,tile32Pad,"
                   "tile32Swizzle,tile64Pad,tileVec,copyRow,copyVec")


def _profile_records(names, shape, dtype):
    """Counters per kernel name, or a clear one-line exit (ncu missing or refused)."""
    from . import profile as prof

    try:
        with console.status(f"ncu: profiling {len(names)} kernels in a child process"):
            counters, raw = prof.profile(names, shape, dtype)
    except prof.ProfileError as exc:
        err.print(f"[bold red]bwlab profile:[/] {exc}")
        raise typer.Exit(1)
    return counters, raw


@app.command()
def profile(kernels: Optional[str] = typer.Option(PROFILE_DEFAULT, help="comma-separated kernel names"),
            shape: str = typer.Option("8192x8192", help="rows x cols (above L2, so DRAM counters mean DRAM)"),
            dtype: str = typer.Option("float32"),
            out: Optional[Path] = typer.Option(None, help="results folder (default: bwlab-results/profile-<time>)")):
    """Nsight Compute counters per kernel: sectors per request, efficiency, bank conflicts, DRAM, occupancy."""
    names = parse_list(kernels) or []
    _validate(names, dtype)
    rows_cols = parse_pair(shape, "shape")
    _require_gpu()
    from . import device as dev
    from .results import Record, Run, save, write_text_atomic

    counters, raw = _profile_records(names, rows_cols, dtype)
    spec = dev.query()
    nbytes = 2 * rows_cols[0] * rows_cols[1] * (4 if dtype == "float32" else 8)
    run_doc = Run(device=spec.to_dict(), environment=dev.environment(spec.index), command=_command(),
                  created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                  config={"kind": "profile", "shape": list(rows_cols), "dtype": dtype,
                          "ncu": "--clock-control none --csv --page raw"})
    for kc in counters:
        k = catalog.get(kc.name)
        ms = kc.values.get("duration_ns", 0) / 1e6
        rec = Record(kc.name, "kernel", k.family, k.role, list(rows_cols), dtype, nbytes,
                     timing={"median_ms": ms, "mean_ms": ms, "std_ms": 0.0, "min_ms": ms, "reps": 1} if ms else None,
                     gbs=nbytes / (ms * 1e-3) / 1e9 if ms else None, correct=True,
                     check="bit-exact at awkward shapes before profiling", counters=kc.values,
                     origin=kc.kernel, notes=["time: one launch under ncu"])
        run_doc.records.append(rec)
    run_doc.ceilings = {"peak_gbs": spec.peak_bandwidth_gbs}
    folder = out or Path("bwlab-results") / dt.datetime.now().strftime("profile-%Y%m%d-%H%M%S")
    save(run_doc, folder / "profile.json")
    write_text_atomic(folder / "ncu_raw.csv", raw)
    table = report.counters_table(run_doc)
    write_text_atomic(folder / "profile.txt", report.to_text(table))
    console.print(table)
    console.print(f"written: {folder / 'profile.json'}, {folder / 'profile.txt'}, {folder / 'ncu_raw.csv'}")


@app.command()
def roofline(results: Path = typer.Argument(..., help="a run.json (bwlab run) or profile.json"),
             png: Optional[Path] = typer.Option(None, help="where to write the PNG (default: beside the JSON)")):
    """Intensity, attained GB/s and FLOP/s against theoretical and measured roofs; a diagnosis per kernel."""
    from . import roofline as rl
    from .results import load

    try:
        run_doc = load(results)
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(f"cannot read {results}: {exc}") from None
    points = rl.analyze(run_doc)
    console.print(report.roofline_table(points))
    target = png or results.with_name("roofline.png")
    rl.plot(run_doc, target)
    console.print(f"written: {target}")


@app.command()
def sweep(kernels: Optional[str] = typer.Option(None, help="comma-separated (default: every ladder kernel "
                                                          "with a block choice; for --sizes: copyVec,naiveCol,tile32Pad,tileVec)"),
          blocks: Optional[str] = typer.Option(None, help="e.g. 32x32,32x16,32x8,64x16,64x8,128x8"),
          sizes: Optional[str] = typer.Option(None, help="size sweep instead: 256..32768 (powers of two) or 1000,3000"),
          shape: str = typer.Option("8192x8192", help="matrix of the block sweep"),
          reps: int = typer.Option(30, min=1), warmup: int = typer.Option(3, min=0),
          out: Optional[Path] = typer.Option(None, help="results folder (default: bwlab-results/sweep-<time>)")):
    """Block-shape sweep (table + heatmap) or size sweep (L2 vs DRAM plateaus, line chart)."""
    from . import sweep as sw

    names = parse_list(kernels)
    if names:
        _validate(names, "float32")
    try:
        size_list = sw.parse_sizes(sizes) if sizes else None
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    block_list = [parse_pair(b, "block") for b in parse_list(blocks)] if blocks else list(sw.DEFAULT_BLOCKS)
    rows_cols = parse_pair(shape, "shape")
    _require_gpu()
    from . import charts
    from .results import save, write_text_atomic

    folder = out or Path("bwlab-results") / dt.datetime.now().strftime("sweep-%Y%m%d-%H%M%S")
    if size_list:
        chosen = names or list(sw.SIZE_KERNELS)
        bar, log = _progress(len(chosen) * len(size_list), "size sweep")
        with bar:
            run_doc = sw.size_sweep(chosen, size_list, reps=reps, warmup=warmup, progress=log, command=_command())
        stem, draw = "sizes", charts.size_chart
    else:
        chosen = names or sw.default_block_kernels()
        bar, log = _progress(len(chosen) * len(block_list), "block sweep")
        with bar:
            run_doc = sw.block_sweep(chosen, block_list, rows_cols, reps=reps, warmup=warmup, progress=log,
                                     command=_command())
        stem, draw = "blocks", charts.heatmap
    _interrupted(run_doc, folder / f"{stem}.json")
    save(run_doc, folder / f"{stem}.json")
    table = report.sweep_table(run_doc)
    lines = [report.to_text(table)]
    if not size_list:
        for k, (blk, gbs, gain) in sw.best_blocks(run_doc).items():
            lines.append(f"{k}: fastest block {blk[0]}x{blk[1]} at {gbs:.0f} GB/s, {gain:.2f}x its slowest legal block")
    write_text_atomic(folder / f"{stem}.txt", "\n".join(lines) + "\n")
    png = folder / ("sizes.png" if size_list else "heatmap.png")
    draw(run_doc, png)
    console.print(table)
    for line in lines[1:]:
        console.print(line)
    console.print(f"written: {folder / (stem + '.json')}, {folder / (stem + '.txt')}, {png}")


@app.command("report")
def report_cmd(results: Path = typer.Argument(..., help="any saved bwlab JSON (run, bench, sweep, profile)"),
               fmt: str = typer.Option("md", "--format", help="md | html | csv"),
               out: Optional[Path] = typer.Option(None, help="folder (md) or file (html, csv); default: beside the JSON")):
    """Render a saved run without a GPU: Markdown + PNGs, one self-contained HTML file, or CSV."""
    from . import document
    from .results import load

    if fmt not in ("md", "html", "csv"):
        raise typer.BadParameter(f"--format must be md, html or csv, got {fmt!r}")
    try:
        run_doc = load(results)
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(f"cannot read {results}: {exc}") from None
    if fmt == "md":
        target = document.write_markdown(run_doc, out or results.parent)
    elif fmt == "html":
        target = document.write_html(run_doc, out or results.with_suffix(".html"))
    else:
        target = document.write_csv(run_doc, out or results.with_suffix(".csv"))
    console.print(f"written: {target}")
