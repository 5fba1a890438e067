"""`bwlab tune`: time every tile configuration per element size on this GPU, keep the
fastest in a plan file that bwlab.transpose() reads (dispatch.plan_path)."""
from __future__ import annotations

import json
from typing import Callable, Optional

import numpy as np

from . import dispatch, harness, verify
from .transpose import launch

# One 1-2 GiB matrix per element size, extents taking the vector path (the bench's big square).
TUNE_SHAPES = {1: (32768, 32768), 2: (16384, 32768), 4: (16384, 16384), 8: (16384, 16384), 16: (8192, 16384)}
# The vector kernel takes extents that are multiples of 16 bytes; edge tiles included.
CHECK_SHAPES = ((16, 16), (48, 32), (144, 272), (256, 512), (1040, 784))
UINT = {1: "u1", 2: "u2", 4: "u4", 8: "u8", 16: "c16"}


def _check_small(choice: dispatch.Choice, e: int) -> verify.Check:
    """The configuration against NumPy at small shapes with cut tiles, output poisoned."""
    import cupy

    check = verify.Check(True)
    for rows, cols in CHECK_SHAPES:
        host = verify.random_host((rows, cols), np.dtype(UINT[e]))
        x, out = cupy.asarray(host), cupy.empty((cols, rows), UINT[e])
        verify.poison(out)
        launch(choice, x.data.ptr, out.data.ptr, 1, rows, cols, x.nbytes, x.device.id,
               cupy.cuda.get_current_stream().ptr)
        check = verify.compare(out.get(), host.T.copy())
        if not check.ok:
            return check
    return check


def run_tune(reps: int = 30, warmup: int = 3, log: Callable[[str], None] = lambda m: None,
             itemsizes=dispatch.ITEMSIZES) -> tuple[dict, list[dict]]:
    """(plan, measurements): the fastest correct tile per element size."""
    import cupy

    plan, rows_out = {}, []
    stream = cupy.cuda.get_current_stream()
    for e in itemsizes:
        rows, cols = TUNE_SHAPES[e]
        x = cupy.empty((rows, cols), UINT[e])
        verify.fill_random_bits(x, seed=e)
        out = cupy.empty((cols, rows), UINT[e])
        best = None
        for cfg in dispatch.TILE_CANDIDATES[e]:
            choice = dispatch.Choice("tile", e, "transpose_any", dispatch.tile_expression(e, cfg), cfg[2])
            m = {"itemsize": e, "tile": list(cfg), "shape": [rows, cols], "bytes": 2 * x.nbytes}
            rows_out.append(m)
            log(f"{e}-byte elements, tile {cfg[0]}x{cfg[1]}, {cfg[2]} threads")
            small = _check_small(choice, e)
            verify.poison(out)

            def run():
                launch(choice, x.data.ptr, out.data.ptr, 1, rows, cols, x.nbytes, x.device.id, stream.ptr)

            run()
            big = verify.compare_transposed(out, x)
            m["correct"] = small.ok and big.ok
            m["check"] = str(small if not small.ok else big)
            if not m["correct"]:
                continue
            t = harness.time_gpu(run, warmup=warmup, reps=reps)
            m["median_ms"], m["gbs"], m["cv"] = t.median_ms, harness.gbs(2 * x.nbytes, t.median_ms), t.cv
            if best is None or m["gbs"] > best["gbs"]:
                best = m
        if best is not None:
            plan[e] = tuple(best["tile"])
        del x, out
        cupy.get_default_memory_pool().free_all_blocks()
    return plan, rows_out


def save_plan(gpu_name: str, plan: dict, measurements: list[dict], path: Optional[str] = None) -> str:
    from .results import write_text_atomic

    target = path or dispatch.plan_path(gpu_name)
    write_text_atomic(target, json.dumps(dispatch.plan_document(gpu_name, plan, measurements), indent=1) + "\n")
    return str(target)
