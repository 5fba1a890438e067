"""Launching a plan's kernels: everything but the data pointers packed once (one
PackedLaunch per kernel), so the public API and the ladder share one launch path."""
from __future__ import annotations

from typing import Callable, Optional

from ...core import launch as core_launch
from .plans import MERGE_BY, Choice, Problem, team_choice


def _function(source, expression: str, smem: int, device: int, cluster: int = 1):
    fn = core_launch.function(source, expression, device=device)
    if cluster > 8:
        core_launch.allow_large_clusters(fn)
    core_launch.allow_shared(fn, smem)
    return fn


def clusters_fit(choice: Choice, device: int) -> bool:
    """Whether the GPU can run at least one of the choice's clusters (True when unknown)."""
    import cupy

    fn = _function(choice.source, choice.expression, choice.smem, device, choice.cluster)
    with cupy.cuda.Device(device):
        n = core_launch.max_active_clusters(fn, choice.cluster, choice.block, choice.smem)
    return n is None or n > 0


def team_blocks(p: Problem, device: int) -> int:
    """How many blocks of p's team kernel (rowTeam, colsTeam) the GPU holds at once."""
    import cupy

    c = team_choice(p)
    fn = _function(c.source, c.expression, c.smem, device)
    with cupy.cuda.Device(device):
        return core_launch.resident_blocks(fn, c.block[0], c.smem, device)


def dependent_launches(device: int) -> bool:
    """Whether a plan's later launches may start as the one before drains (programmatic dependent
    launch: sm_90 on)."""
    return int(core_launch.arch_of(device).removeprefix("sm_")) >= 90


def runner(choice: Choice, N: int, L: int, M: int, device: int,
           dependent: Optional[bool] = None) -> Callable[[int, int, int, int, int], None]:
    """run(a_ptr, b_ptr, y_ptr, workspace_ptr, stream): a = x (or y), b = the gradient or 0.
    dependent (None: where the GPU has them): colsChunks' merge and write launched as programmatic
    dependents, so their blocks start while the launch before drains. colsChunks' first launch takes
    its own grid, block and rows a chunk (extra[0]), the write finish_grid, finish_block and extra[1]."""
    fn = _function(choice.source, choice.expression, choice.smem, device, choice.cluster)
    if choice.args == "plain":
        k = core_launch.PackedLaunch(fn, choice.grid, choice.block,
                                     [("ptr", 0), ("ptr", 0), ("i64", N), ("i64", L), ("i64", M)], choice.smem)
        return lambda a, b, y, ws, s: k(s, a, y)
    if choice.args == "cols":
        k = core_launch.PackedLaunch(fn, choice.grid, choice.block, [("ptr", 0), ("ptr", 0), ("ptr", 0),
                                     ("i64", N), ("i64", L), ("i64", M)], choice.smem)
        return lambda a, b, y, ws, s: k(s, a, b, y)
    if choice.args in ("relay", "colsteam"):
        dims = [("i64", N), ("i64", L)] + ([("i64", M)] if choice.args == "colsteam" else [])
        tail = dims + [("i64", choice.chunks), ("i64", choice.extra[0])]
        k = core_launch.PackedLaunch(fn, choice.grid, choice.block, [("ptr", 0)] * 4 + tail, choice.smem,
                                     choice.cooperative)

        def relay(a, b, y, ws, s):
            core_launch.memset_async(ws, choice.zeroed, s)
            k(s, a, b, y, ws)

        return relay
    if choice.args == "chunks":
        dims = [("i64", N), ("i64", L), ("i64", M)]
        part = core_launch.PackedLaunch(fn, choice.grid, choice.block,
                                        [("ptr", 0)] * 3 + dims + [("i64", choice.extra[0])])
        merge = _function(choice.source, choice.merge, 0, device)
        dep = dependent_launches(device) if dependent is None else dependent
        mid = core_launch.PackedLaunch(merge, choice.merge_grid, (32, MERGE_BY, 1),
                                       [("ptr", 0), ("ptr", 0), ("i64", N), ("i64", M), ("i64", choice.chunks)],
                                       dependent=dep)
        last = core_launch.PackedLaunch(_function(choice.source, choice.finish, 0, device), choice.finish_grid,
                                        choice.finish_block, [("ptr", 0)] * 4 + dims + [("i64", choice.extra[1])],
                                        dependent=dep)
        fin_offset = 8 * N * M * choice.chunks

        def chunked(a, b, y, ws, s):
            part(s, a, b, ws)
            mid(s, ws, ws + fin_offset)
            last(s, a, b, y, ws + fin_offset)

        return chunked
    if choice.finish is None:
        k = core_launch.PackedLaunch(fn, choice.grid, choice.block, [("ptr", 0), ("ptr", 0), ("ptr", 0),
                                     ("i64", N), ("i64", L)] + [("i64", v) for v in choice.extra], choice.smem)
        return lambda a, b, y, ws, s: k(s, a, b, y)
    fin = _function(choice.source, choice.finish, 0, device)
    part = core_launch.PackedLaunch(fn, choice.grid, choice.block, [("ptr", 0), ("ptr", 0), ("ptr", 0),
                                    ("i64", N), ("i64", L), ("i64", choice.chunks)])
    done = core_launch.PackedLaunch(fin, choice.grid, choice.block, [("ptr", 0), ("ptr", 0), ("ptr", 0),
                                    ("ptr", 0), ("i64", N), ("i64", L), ("i64", choice.chunks)])

    def run(a, b, y, ws, s):
        part(s, a, b, ws)
        done(s, a, b, y, ws)

    return run
