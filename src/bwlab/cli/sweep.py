"""`bwlab sweep WORKLOAD`: block shapes, working-set sizes, or a kernel's template variants."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .common import (FORCE_HELP, WARMUP_GPU_HELP, WORKLOADS, bad, command_line, handled, parse, parse_list, parse_pair,
                     print_tables, progress, require_gpu, results_folder, save_incomplete, workload, written)


@handled
def sweep(name: str = typer.Argument(..., metavar="WORKLOAD",
                                     help=f"the workload whose kernels are swept: {WORKLOADS}"),
          kernels: Optional[str] = typer.Option(None, "--kernels", metavar="A,B", help="kernels (default: every ladder kernel "
                                                "with a block choice; for --sizes, the workload's size kernels)"),
          blocks: Optional[str] = typer.Option(None, "--blocks", metavar="B1,B2", help="blocks, e.g. 32x32,32x8,8x32 "
                                               "(default: 12 shapes from 256x1 to 8x32)"),
          sizes: Optional[str] = typer.Option(None, "--sizes", metavar="RANGE", help="size sweep instead: 256..32768 "
                                              "(powers of two) or 1000,3000"),
          variants: bool = typer.Option(False, "--variants", help="sweep the template variants of the workload's "
                                        "fastest ladder kernel instead"),
          shape: Optional[str] = typer.Option(None, "--shape", metavar="SHAPE", help="the case of a block or variants sweep "
                                              "(default: 8192x8192 for blocks, the ladder's for variants)"),
          reps: int = typer.Option(30, "--reps", min=1, metavar="N", help="timed repetitions per configuration"),
          warmup: int = typer.Option(3, "--warmup", min=0, metavar="N", help=WARMUP_GPU_HELP),
          out: Optional[Path] = typer.Option(None, "--out", metavar="DIR", help="results folder "
                                             "(default: bwlab-results/sweep-<workload>-<time>)"),
          force: bool = typer.Option(False, "--force", help=FORCE_HELP)):
    """Block-shape sweep (table and heatmap), size sweep (L2 against DRAM, line chart) or variants sweep."""
    from ..lab import sweep as sw
    from ..lab.ladder import select

    w = workload(name)
    if sum(bool(v) for v in (sizes, variants, blocks)) > 1:
        raise bad("choose one of --blocks, --sizes and --variants")
    names = parse_list(kernels)
    if names:
        parse("--kernels", select, w.kernels(), names, "kernel")
    size_list = parse("--sizes", sw.parse_sizes, sizes) if sizes else None
    block_list = [parse_pair(b, "--blocks") for b in parse_list(blocks)] if blocks else list(sw.DEFAULT_BLOCKS)
    case = parse("--shape", w.parse_case, shape, None) if shape else None
    if variants and not w.variants():
        raise bad(f"{w.name} has no kernel variants to sweep")
    require_gpu("bwlab sweep")
    from ..core.files import write_text_atomic
    from ..core.results import save
    from ..report import charts
    from ..report.tables import best_blocks_lines, sweep_table
    from ..report.text import to_text

    stem = "sizes" if size_list else "variants" if variants else "blocks"
    png = {"sizes": "sizes.png", "blocks": "heatmap.png", "variants": "heatmap.png"}.get(stem)
    folder = results_folder(out, f"sweep-{w.name}", [f"{stem}.json", f"{stem}.txt"] + ([png] if png else []), force)
    if size_list:
        chosen = names or list(w.size_kernels)
        bar, log = progress(len(chosen) * len(size_list), "size sweep")
        with bar:
            run_doc = sw.size_sweep(w, chosen, size_list, reps=reps, warmup=warmup, progress=log,
                                    command=command_line())
    elif variants:
        bar, log = progress(len(w.variants()), "variants sweep")
        with bar:
            run_doc = sw.variants_sweep(w, case, reps=reps, warmup=warmup, progress=log, command=command_line())
    else:
        chosen = names or sw.block_choice_kernels(w)
        bar, log = progress(len(chosen) * len(block_list), "block sweep")
        with bar:
            run_doc = sw.block_sweep(w, chosen, block_list, case, reps=reps, warmup=warmup, progress=log,
                                     command=command_line())
    if not run_doc.complete:
        save_incomplete(run_doc, folder / f"{stem}.json")
    save(run_doc, folder / f"{stem}.json")
    table = sweep_table(run_doc)
    if variants:  # fastest first
        order = sorted(range(len(table.rows)), key=lambda i: -(run_doc.records[i].gbs or 0))
        table.rows, table.flags = [table.rows[i] for i in order], [table.flags[i] for i in order]
    lines = best_blocks_lines(run_doc) if stem == "blocks" else []
    tables = [table] + (list(w.tables(run_doc)) if variants else [])  # the workload's own study, if any
    write_text_atomic(folder / f"{stem}.txt", to_text(tables) + "".join(f"{line}\n" for line in lines))
    print_tables(tables)
    for line in lines:
        print(line)
    made = [folder / f"{stem}.json", folder / f"{stem}.txt"]
    drawn = w.charts(run_doc) if variants else charts.charts_for(run_doc)
    if png and png in drawn:
        from ..core.files import write_bytes_atomic

        write_bytes_atomic(folder / png, drawn[png])
        made.append(folder / png)
    written(*made)
