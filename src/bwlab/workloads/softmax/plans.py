"""Which kernel runs a softmax call, with what geometry: one decision for the public API and
the ladder alike, from the problem's shape alone.

A call is seen as [N, L, M]: L the reduced axis, M the contiguous extent after it (M == 1:
the last axis). V elements make one 16-byte pack when rows (M == 1) or row strips (M > 1)
start on 16-byte boundaries; otherwise packs are single elements.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ...core.launch import cdiv
from .reference import CTYPE, ITEMSIZE

KERNELS = Path(__file__).parent / "kernels"
SRC = {name: KERNELS / f"{name}.cu"
       for name in ("seed", "cols", "colsregs", "colscluster", "colsspread", "rows", "rowcluster", "rowstream",
                    "rowsplit", "colschunks")}

OPS = {("forward", False): "Forward<false>", ("forward", True): "Forward<true>",
       ("backward", False): "Backward<false>", ("backward", True): "Backward<true>"}
GRID_Y = 65535
SMEM_MAX = 227 * 1024          # dynamic shared memory a block may have (Hopper)
CLUSTER_SMEM = 112 * 1024      # strip bytes per block aimed for: two blocks per SM
WARP_K = 4                     # packs per lane of rowWarp on rows of more than 16 packs
# Packs per thread of rowBlock/rowCluster by (element size, inputs): 32 elements of x per
# thread (16 with a gradient), so that 1024 threads fit in 64 registers each without spilling.
BLOCK_K = {(4, 1): 8, (4, 2): 4, (2, 1): 4, (2, 2): 2}
# rowBlock gradients of rows up to this many packs (by element size): one pack of y and dy a thread
# (one_pack_gradient), a block of up to 1024.
GRADIENT_ONE_PACK = {4: 1024, 2: 512}
CLUSTERS = (2, 4, 8)           # portable cluster sizes
BIG_CLUSTER = 16               # the largest Hopper allows when a kernel opts in
WIDE_STAGES = 4                # colsCluster on 16 blocks: groups of rows folded as they land
STREAM_THREADS, STREAM_K, STREAM_ROWS = 512, 8, 2  # rowStream: 64 KiB of x a block, 2 rows a cluster
STREAM_STAGES = 4              # rowStream: groups of a thread's packs folded as they land (+4-5 points on the H200)
RELAY_SLACK = 8 << 20          # rowRelay: bytes of chunks past a row between a chunk's two reads (relay_slack)
RELAY_ROW_MAX = {"forward": 16 << 20, "backward": 16 << 20}  # bytes of inputs a row: longer ones
# go to rowSplit (past the relay's measured range, where every finishing task's merge of its row's
# states grows with the row)
GRID_MAX = 2**31 - 1           # blocks in x
SPLIT_THREADS, SPLIT_K = 256, 4
REGS_L = (4, 8, 16)            # colsRegs: the column lengths it is built for (packs held per input)
# colsRegs: the longest column it takes, by (element size, inputs), within 128 registers a thread
# (16-bit backward: packs of 2 columns, so 16 rows of two inputs fit)
REGS_MAX = {(4, 1): 16, (2, 1): 16, (4, 2): 8, (2, 2): 16}
REGS_THREADS = 256
GRID_X = 65535 * 64            # blocks of a grid-stride kernel (it loops past them)
CHUNK_STRIP = 64               # colsCluster strips narrower than this (the axis too long) go to colsChunks
MERGE_BY = 8                   # colsMerge: runs of chunks merged side by side (blocks of 32 x MERGE_BY)


@dataclass(frozen=True)
class Problem:
    N: int
    L: int
    M: int
    dtype: str
    op: str = "forward"        # forward | backward
    log: bool = False
    aligned: bool = True       # every pointer 16-byte aligned

    @property
    def inputs(self) -> int:
        return 2 if self.op == "backward" else 1

    @property
    def vec(self) -> int:
        """Elements per pack: 16 bytes when rows or strips start on 16-byte boundaries."""
        v = 16 // ITEMSIZE[self.dtype]
        inner = self.L if self.M == 1 else self.M
        return v if self.aligned and inner % v == 0 else 1


@dataclass(frozen=True)
class Choice:
    kernel: str                # family: rowWarp, rowBlock, rowCluster, rowSplit, colsCluster, colsSplit, ...
    source: Path
    expression: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    smem: int = 0              # dynamic shared memory bytes
    args: str = "rows"         # rows: (a, b, y, N, L); cols: (a, b, y, N, L, M); plain: (x, y, N, L, M)
    finish: Optional[str] = None   # rowSplit, colsChunks: the last kernel's expression
    merge: Optional[str] = None    # colsChunks: the middle kernel's expression (its grid: merge_grid)
    merge_grid: tuple[int, int, int] = (1, 1, 1)
    chunks: int = 0                # rowSplit: chunks per row (workspace: N * chunks states); colsChunks: per column
    extra: tuple[int, ...] = ()    # trailing 64-bit arguments (rowStream: clusters; colsChunks: below)
    cluster: int = 1               # blocks per cluster (above 8: a non-portable size, opted in)
    why: str = ""
    workspace_bytes: int = 0       # global scratch the call allocates
    zeroed: int = 0                # bytes at its start cleared before every launch
    cooperative: bool = False      # every block resident at once (rowTeam's blocks wait on each other)
    finish_grid: Optional[tuple[int, int, int]] = None   # colsChunks: the write's grid and block (extra: rows
    finish_block: Optional[tuple[int, int, int]] = None  # a chunk of the first launch, of the write)


def op_type(p: Problem) -> str:
    """The kernel's Op: bfloat16 log-softmax keeps its sum 2^64 larger (Forward<true,true>), so that
    terms below 2^-126 are not flushed: at a row's max, where every other element lies more than about
    87.3 below it, its output -log(1 + t) is a bfloat16 value down to 2^-133, and terms are kept down
    to 2^-189.5, so that even 2^31 flushed ones add up to less than 2^-158."""
    if p.op == "forward" and p.log and p.dtype == "bfloat16":
        return "Forward<true,true>"
    return OPS[p.op, p.log]


def _pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def warp_geometry(packs: int) -> tuple[int, int]:
    """rowWarp's (K packs a lane, R rows a lane group) for rows of `packs`: up to 4 packs a thread in
    flight, short rows spread over more lanes (K = 1 or 2), so that a warp's load instruction
    reads whole rows side by side rather than a pack every 64-128 bytes. On the H200, rows of 4
    and 8 packs (float32 rows of 16 and 32, bfloat16 rows of 32) ran at 52-85% of memcpy with
    K = 4, R = 1 and at 88-99% with K = 2, R = 2 (benchmarks/h200/softmax/sweeps)."""
    if packs <= 2:
        return 1, 2
    if packs <= 16:  # longer rows measured the same or faster (up to 6 points) with K = 4, R = 1
        return 2, 2
    return WARP_K, 1


def whole_packs(p: Problem) -> bool:
    """Rows (strips, on a strided axis) read in 16-byte packs."""
    return p.vec * ITEMSIZE[p.dtype] == 16


def warp_threads(p: Problem, packs: int) -> int:
    """rowWarp's block size. On the H200 (benchmarks/h200/softmax/roof-blocks), blocks of one warp ran
    rows of 4 to 128 packs 0.3-3.6 points of a copy faster than blocks of 128 (softmax and log-softmax;
    gradients level), presumably as a block's slot frees when its one warp ends, not its slowest of four. Rows of 1
    or 2 packs, a lane or two a row, lost 20 points on one warp (the blocks come too fast to start)
    and take 64 threads (level with 128 or up to 1 point ahead); rows of 3 share the geometry of 4."""
    if not whole_packs(p):
        return 128
    return 32 if packs > 2 else 64


def row_warp(p: Problem, K: int = 0, R: int = 1, threads: int = 0) -> Optional[Choice]:
    """G lanes a row (the fewest, a power of two, that hold it in K packs a lane), R rows a lane
    group, in blocks of `threads`; K = 0: the dispatch's geometry (warp_geometry); threads = 0:
    the dispatch's block size (warp_threads)."""
    packs = p.L // p.vec
    if not K:
        K, R = warp_geometry(packs)
    threads = threads or warp_threads(p, packs)
    G = _pow2(cdiv(packs, K))
    if G > 32:
        return None
    if threads % 32:
        raise ValueError(f"rowWarp takes whole warps, got {threads} threads")
    expr = f"rowWarp<{CTYPE[p.dtype]},{p.vec},{G},{K},{R},{threads},{op_type(p)} >"
    grid = (cdiv(p.N, R * threads // G), 1, 1)
    return Choice("rowWarp", SRC["rows"], expr, grid, (threads, 1, 1),
                  why=f"{G} lanes per row, held in registers" + (f", {R} rows per lane group" if R > 1 else ""))


def one_pack_gradient(p: Problem, packs: int) -> bool:
    """Whether rowBlock takes a gradient row of `packs` (more than rowWarp holds, up to
    GRADIENT_ONE_PACK) on one pack of y and dy a thread, in a block of the next power of two. On the
    H200 (benchmarks/h200/softmax/roof-blocks: sweep.txt, probe.txt, grad.txt; two rounds) that ran
    0.4-2.4 points of a copy ahead of the packs before it where the block is full or nearly (float32
    rows of 250, 256, 512 and 1024 packs, bfloat16 of 256 and 512; log-softmax too in float32), but
    2.5-23 points behind with a quarter to half of it idle (129, 257, 375 and 514 packs), and 0.4-1.9 behind on
    bfloat16 log-softmax gradients of 512 packs. So at most 1/32 of the block idle, and not 16-bit
    log-softmax. Forward passes lost 10-23 points on one pack a thread."""
    t = _pow2(packs)
    return (p.op == "backward" and whole_packs(p) and 128 < packs <= GRADIENT_ONE_PACK[ITEMSIZE[p.dtype]]
            and 32 * packs >= 31 * t and not (p.log and ITEMSIZE[p.dtype] == 2))


def row_block(p: Problem, threads: Optional[int] = None) -> Optional[Choice]:
    """A block per row, K packs a thread. Rows that one warp holds in up to 2 * BLOCK_K packs a
    lane take a block of one warp: on the H200, float32 rows of 1024 ran at 92% of memcpy
    against 88% on 64 threads (half of them padding), bfloat16 rows of 2048 at 88% against 80%
    (benchmarks/h200/softmax/sweeps). Some gradients take one pack of each input a thread
    (one_pack_gradient)."""
    packs, K = p.L // p.vec, BLOCK_K[ITEMSIZE[p.dtype], p.inputs]
    if threads is None and one_pack_gradient(p, packs):
        threads, K = _pow2(packs), 1
    elif threads is None and cdiv(packs, 32) <= 2 * K:
        threads, K = 32, _pow2(cdiv(packs, 32))
    t = threads or min(1024, max(64, _pow2(cdiv(packs, K))))
    if t * K < packs:
        return None
    expr = f"rowBlock<{CTYPE[p.dtype]},{p.vec},{t},{K},{op_type(p)} >"
    return Choice("rowBlock", SRC["rows"], expr, (p.N, 1, 1), (t, 1, 1), why=f"a block of {t} per row, in registers")


def row_cluster(p: Problem, threads: int = 1024) -> Optional[Choice]:
    packs, K = p.L // p.vec, BLOCK_K[ITEMSIZE[p.dtype], p.inputs]
    for C in CLUSTERS:
        if C * threads * K >= packs:
            expr = f"rowCluster<{CTYPE[p.dtype]},{p.vec},{C},{threads},{K},{op_type(p)} >"
            return Choice("rowCluster", SRC["rowcluster"], expr, (p.N * C, 1, 1), (threads, 1, 1), cluster=C,
                          why=f"a cluster of {C} blocks per row, in registers, states through distributed "
                              "shared memory")
    return None


def stored_terms(p: Problem) -> bool:
    """Whether a kernel holding x on chip (rowStream, rowTeam, colsCluster, colsTeam) stores each term
    2^16 exp(x - m) over x in its fold, so that an output is one multiply where it took a subtraction,
    an fma, an ex2 and a multiply: 16-bit softmax (not log-softmax, whose output is already a
    subtraction) in 16-byte packs. On the H200 (benchmarks/h200/softmax/stored-terms, every output
    checked, three rounds alternating with the kernels before) bfloat16 and float16 gained 0.6-3.5
    points of a copy on rows and 1.4-5.3 down strided axes; float32 rows (rowTeam) were level, and
    float32 strips lost 1.7-6.1."""
    return p.op == "forward" and not p.log and p.vec > 1 and ITEMSIZE[p.dtype] == 2


def _terms(p: Problem, terms: Optional[bool]) -> str:
    """The template argument that asks a kernel for stored terms (None: where stored_terms says)."""
    return ",true" if (stored_terms(p) if terms is None else terms) else ""


def row_stream(p: Problem, C: int = 0, threads: int = STREAM_THREADS, K: int = STREAM_K,
               R: int = STREAM_ROWS, S: int = STREAM_STAGES, G: int = 0,
               terms: Optional[bool] = None) -> Optional[Choice]:
    """A row across a cluster of C blocks (the fewest that hold it when C is 0) through shared
    memory, K packs a thread folded in S groups as they land; G clusters (cdiv(N, R) when 0),
    cluster c taking rows c, c + G, ... 16-byte packs only. terms: stored terms (stored_terms)."""
    packs = p.L // p.vec
    if not whole_packs(p):
        return None
    C = C or next((c for c in CLUSTERS if c * threads * K >= packs), 0)
    if not C or C * threads * K < packs:
        return None
    G = min(p.N, G or cdiv(p.N, R))
    expr = f"rowStream<{CTYPE[p.dtype]},{p.vec},{C},{threads},{K},{S},{op_type(p)}{_terms(p, terms)} >"
    smem = p.inputs * K * threads * 16
    return Choice("rowStream", SRC["rowstream"], expr, (G * C, 1, 1), (threads, 1, 1), smem,
                  extra=(G,), cluster=C,
                  why=f"a cluster of {C} blocks per row through shared memory, {cdiv(p.N, G) if G else 0} rows "
                      "each, the next row read while this one is written")


def row_team(p: Problem, held: int = 0, threads: int = STREAM_THREADS, K: int = STREAM_K,
             S: int = STREAM_STAGES, T: int = 0, G: int = 0, terms: Optional[bool] = None) -> Optional[Choice]:
    """rowStream's kernel on a team of T blocks a row (the fewest that hold it when 0) meeting
    through global memory, G teams (as many as the GPU holds at once when 0: `held` blocks of this
    kernel, 0 when unknown, taken as one team; None where it holds less than a team), team t taking
    rows t, t + G, ... A cooperative launch: every block must be resident, since a block waits for
    the rest of its row. 16-byte packs only. terms: stored terms (stored_terms)."""
    if not whole_packs(p):
        return None
    packs = p.L // p.vec
    T = T or cdiv(packs, threads * K)
    if T * threads * K < packs or 0 < held < T:  # the GPU cannot hold one team
        return None
    G = min(p.N, G or max(1, held // T))
    expr = f"rowTeam<{CTYPE[p.dtype]},{p.vec},{threads},{K},{S},{op_type(p)}{_terms(p, terms)} >"
    counts = 16 * cdiv(p.N, 4)  # the rows' counts, zeroed; then the blocks' states
    return Choice("rowTeam", SRC["rowstream"], expr, (G * T, 1, 1), (threads, 1, 1), p.inputs * K * threads * 16,
                  args="relay", chunks=T, extra=(G,), workspace_bytes=counts + 8 * p.N * T, zeroed=counts,
                  cooperative=True,
                  why=f"a team of {T} blocks per row through shared memory, meeting through global memory, "
                      f"{G} teams, x read once")


def team_wanted(p: Problem) -> bool:
    """Calls that may run on teams (the dispatch also wants them to take enough rows or strips each).
    The last axis (rowTeam): softmax and log-softmax of 3 to 16 blocks of rowStream's 64 KiB (rows
    over 128 KiB up to 1 MiB), in 16-byte packs. On the H200 (benchmarks/h200/softmax/row-team), as
    many teams as the GPU holds, each taking 15 to 80 rows, ran float32 rows of 5, 6, 8, 12 and 16
    blocks at 80-84% of a copy where rowStream's clusters ran at 72-81% and rowRelay at 74-79%; rows
    of 128 and 256 blocks ([64, 4194304]) lost 0-5 to rowRelay. bfloat16 rows of 8 blocks lost 5-6
    points to rowStream then; since the packs' max and the block states' merges take fewer
    instructions (benchmarks/h200/softmax/fold-cost/geometry.txt), teams run bfloat16 [4096, 262144]
    at 88-90% against the clusters' 85-87% (float16: the same kernel, not timed), and rows of 4
    blocks ([1024, 131072]) level with the clusters then. In a later run (benchmarks/h200/softmax/
    team-tail; the GPU held 92 clusters of 4 but 99 teams of 4 and 132 of 3), teams of the fewest
    blocks beat the clusters on rows of 3 blocks (float32 [2048, 49152] 85-89% of a copy against
    83-85%, bfloat16 [2048, 98304] 83-83.5% against 81-83%) and on bfloat16 rows of 4 ([1024,
    131072] 84-85% against 81-83%); float32 rows of 4 ([2048, 65536]) were level (+1 point forward,
    -1 log-softmax). Rows of 2 blocks lost 3-6 points on teams, and teams of more blocks than a row
    needs were slower (bfloat16 [1024, 131072] on 5 to 7: 70-80%).
    A strided axis (colsTeam): softmax and log-softmax gradients in whole 128-byte strips down axes
    of 4096 to 32768 rows (float32) or 8192 to 32768 (16-bit), and of fewer where rows lie far apart
    (the last paragraph). On the H200
    (benchmarks/h200/softmax/cols-team/meet.txt, the X0 rows), float32 [16, 8192, 1024] ran at 84% of a
    copy against colsSpread's 71%, [8192, 8192] 77% against 68%, [8, 16384, 1024] 76% against
    colsCluster's 64%, [4, 32768, 1024] and [32768, 4096] 65% against colsChunks' 60%; bfloat16
    [16, 8192, 1024] 81% against 71%, [8192, 8192] 74% against 64%, [8, 16384, 1024] 77% against 64%,
    while 32768 rows were level with colsChunks (-1.5 to +2.1 points). On a tree whose meeting read
    16-byte pairs of states (wide-loads.txt; slower or level wherever both were run), float32
    [16, 4096, 1024] ran at 86% against colsSpread's 80%, bfloat16 lost 3 points to colsCluster there,
    and shorter axes ([32, 2048, 1024], [64, 1024, 2048]) lost 3-8. log-softmax gradients were not
    timed apart (the same kernel with another finishing formula). Slices are cut in whole strips (the
    slices timed were 4-32 KiB wide; narrower ones, down to one strip, are not timed).
    Softmax and log-softmax down axes of 16384 to 32768 rows, in 64 KiB blocks whose registers leave
    room for three an SM (TEAM_FORWARD_*; told two, 16-bit forward took 90-101 registers and two
    blocks of 256 fit an SM). There a cluster of 16 holds a 128-byte strip with one block an SM, or
    not at all (colsChunks reads x twice). On the H200 (benchmarks/h200/softmax/bf16-stages,
    long.txt, two rounds), float32 [4, 32768, 1024] ran at 65-68% of a copy against colsChunks'
    61-62%, [32768, 4096] dim 0 64-66% against 61-62%, [8, 16384, 1024] 72.7-74.1% against colsCluster's
    67-68%; bfloat16 57.6-58.4%, 56.6-57.3% and 62.7-63.7% against 54-57%, 54.6-56.4% and 59-60%
    (16-bit rows folded in 2 groups as they land: level with 1 group at 16384 rows, 0.7-3.6 points
    ahead at 32768). Shorter axes, whose clusters keep two or three blocks an SM, stay on them
    (probe.txt): bfloat16 teams at [16, 8192, 1024] and [8192, 8192] ran 0.7-3.7 points slower on
    their best geometry, float32 level (-0.4 to +1.1); with the teams out of phase (colsTeam's
    team_phase), still mixed there (benchmarks/h200/softmax/team-l2/dispatch.txt: bfloat16 forward
    +3 at [16, 8192, 1024], log-softmax -1.6, [8192, 8192] -1.7 and -3.7, [32, 4096, 1024] -3.7 and
    -7.2; float32 -0.8 to +1.6).
    16-bit gradients down 32768 rows were level with colsChunks in a bench run with the teams in step
    (59.0% of memcpy against 58.9%); out of phase, bfloat16 [4, 32768, 1024] ran at 69.8-70.5% of a
    copy against colsChunks' 58.3-58.9% and [32768, 4096] at 64.3-65.4% against 58.5-58.9%
    (dispatch.txt), so they take teams too (float16: the same kernel, not timed).
    float32 whose strided rows lie 16 KiB apart or more take teams on 256-byte strips from 4096 rows, softmax
    and log-softmax too, where they beat colsCluster (team_width has the figures). 16-bit softmax (stored terms;
    not log-softmax) takes teams from 8192 rows: bfloat16 [16, 8192, 1024] ran at 74.2% against colsCluster's
    71.2%, [32, 8192, 512] 74.1 against 71.7, [8, 8192, 2048] 73.2 against 69.5, [2, 8192, 8192] 70.3 against
    68.2 (width-rows8k.txt), while [8192, 8192] (5.3 strips a team: TEAM_STRIPS keeps it on its cluster) ran at
    64.8 against 65.8 and log-softmax at [16, 8192, 1024] at 68.5 against 70.1 (width-256.txt). A kernel forced
    there times about a point above the same kernel through the API (the 128-byte teams beside the API's in
    width-256.txt), so those gains are about a point smaller than the differences.
    Gradients whose strided rows lie far apart take teams down shorter axes too: float32 from
    TEAM_SHORT_ROWS32 rows where they lie TEAM_WIDE_PITCH (16 KiB) apart or more (on 256-byte strips), 16-bit
    from TEAM_SHORT_ROWS16 where TEAM_LEAN_PITCH16 (8 KiB) or more. On the H200 (benchmarks/h200/softmax/
    team-short/api.txt, both through the API, three rounds, every output checked), softmax's gradients
    (log-softmax's after the slash) against the kernel without teams (colsCluster): float32 [4, 2048, 16384]
    87.0/87.0% of a copy against 81.7/82.2, [2048, 32768] 84.9/85.6 against 79.7/80.0, [16, 2048, 4096]
    88.7/88.8 against 83.5/83.9, [3, 3000, 8192] 85.5/85.4 against 80.1/81.4, [2, 3500, 16384] 83.0/83.5
    against 81.4/82.5; bfloat16 [8, 4096, 4096] 80.4/81.9 against 78.2/77.2, [4, 4096, 8192] 79.8/83.8
    against 79.4/78.7, [2, 4096, 16384] 77.6/82.9 against 78.3/77.4, [6, 5000, 4096] 76.4/78.0 against
    75.3/74.9. Down 1024 rows float32 was mixed ([1024, 32768], [8, 1024, 8192], [32, 1024, 4096]: -1.0 to
    +3.1), as were float32 rows 8 KiB apart or less (dispatch.txt, forced: -1.0 to +1.8) and bfloat16 rows 2
    KiB apart or less (-1.0 to -0.1), which keep their clusters. Softmax and log-softmax there were mixed on
    teams (forward.txt: float32 -3.6 to +5.3, bfloat16 -6.5 to -1.4) and keep theirs."""
    if p.M > 1:
        if p.op == "backward":  # from fewer rows where they lie far apart
            pitch = p.M * ITEMSIZE[p.dtype]
            if p.dtype == "float32":
                lo = TEAM_SHORT_ROWS32 if pitch >= TEAM_WIDE_PITCH and pitch % TEAM_WIDE_STRIP == 0 else 4096
            else:
                lo = TEAM_SHORT_ROWS16 if pitch >= TEAM_LEAN_PITCH16 else 8192
            hi = 32768
        elif team_width(p) > 128:  # float32 rows far apart
            lo, hi = 4096, 32768
        elif ITEMSIZE[p.dtype] == 2 and stored_terms(p):
            lo, hi = 8192, 32768
        else:
            lo, hi = 16384, 32768
        return whole_packs(p) and p.M * ITEMSIZE[p.dtype] % 128 == 0 and lo <= p.L <= hi
    blocks = cdiv(p.L // max(1, p.vec), STREAM_THREADS * STREAM_K)
    return p.op == "forward" and whole_packs(p) and 3 <= blocks <= 16


# rowTeam's teams take at least this many rows each, or the row keeps its kernel: with 1.3 rows a
# team ([64, 131072], [32, 262144]; 32 MiB each, much of it from L2) teams ran at 50-53% of a copy
# against 59-60% (the launch and its cleared workspace are a larger share of a short call); with 15
# or more they won. 8 lies between, unmeasured.
TEAM_ROWS = 8


def relay_slack(p: Problem) -> int:
    """rowRelay's slack: each finishing task comes a row and this many bytes of chunks after its
    chunk's partial task. On the H200, with the finishing tasks' reads and stores evict-first
    (benchmarks/h200/softmax/relay-hints/slack.txt): rows of 16 MiB of inputs ran best with 4 MiB
    (float32 [64, 4194304] forward 67.5-67.7% of a copy against 65.7-66.1 with 8 MiB, 64 with 16 and
    60 with none; float32 [64, 2097152] gradients 77% against 75, 63 and 74); rows of 8 MiB and less
    with 8 MiB (bfloat16 [64, 4194304] 67% against 60.5-61 with 4 MiB and 63 with 16; float32 [256,
    1048576] 77-78% against 68 and 73; gradients of 0.5 and 1 MiB of inputs a row 79-82%, level with
    16 MiB, 0.6-4 points ahead of 4 MiB and 6-7.5 of none). Between 8 and 16 MiB is unmeasured: the cut
    at 12 MiB splits it; so are bfloat16 rows of 16 MiB, which take 4 MiB too. (With plain stores, benchmarks/h200/softmax/relay-chunks, gradients of 16 MiB
    of inputs had wanted none.)"""
    return RELAY_SLACK // 2 if p.L * ITEMSIZE[p.dtype] * p.inputs > 12 << 20 else RELAY_SLACK


def row_relay(p: Problem, threads: int = 256, K: int = 8, slack: Optional[int] = None) -> Optional[Choice]:
    """Both passes in one launch, each chunk's second read soon after its first (from L2): tickets
    alternate between a chunk's partial task and the finishing task of the chunk a row and `slack`
    bytes of chunks back (None: relay_slack). 16-byte packs only."""
    if not whole_packs(p):
        return None
    packs = p.L // p.vec
    chunks = max(1, cdiv(packs, threads * K))
    slack = relay_slack(p) if slack is None else slack
    if slack < 0:  # a finishing task could then wait on a later ticket
        raise ValueError(f"rowRelay's slack must be 0 or more bytes, got {slack}")
    # chunks from a partial task to its finishing task: past N rows, only empty tickets would be added
    lead = min(chunks + cdiv(slack, threads * K * 16 * p.inputs), max(1, p.N) * chunks)
    blocks = 2 * (p.N * chunks + lead)
    if blocks > GRID_MAX:
        return None
    expr = f"rowRelay<{CTYPE[p.dtype]},{p.vec},{threads},{K},{op_type(p)} >"
    zeroed = 128 * (p.N + 1)  # the ticket counter and the rows' counts, a line each
    return Choice("rowRelay", SRC["rowsplit"], expr, (blocks, 1, 1), (threads, 1, 1),
                  args="relay", chunks=chunks, extra=(lead,), workspace_bytes=zeroed + 8 * p.N * chunks,
                  zeroed=zeroed, why=f"{chunks} chunks per row in one launch, x read twice, the second time "
                                     "from L2")


def row_split(p: Problem, threads: int = SPLIT_THREADS, K: int = SPLIT_K) -> Choice:
    packs = p.L // p.vec
    chunks = max(1, cdiv(packs, threads * K))
    tail = f"{CTYPE[p.dtype]},{p.vec},{threads},{K},{op_type(p)} >"
    return Choice("rowSplit", SRC["rowsplit"], f"rowPartial<{tail}", (p.N * chunks, 1, 1), (threads, 1, 1),
                  finish=f"rowFinish<{tail}", chunks=chunks, workspace_bytes=8 * p.N * chunks,
                  why=f"{chunks} chunks per row, two kernels, x read twice")


def regs_geometry(p: Problem, lmax: int) -> tuple[int, int, int]:
    """colsRegs' (columns a thread, threads a block, blocks an SM its registers must allow). 16-bit
    columns of 9-16 rows take packs of 4 columns (8 bytes), and backward ones of 5-16 packs of 2, on
    blocks of 128: on the H200 ([8192, 16, 1024] bfloat16, benchmarks/h200/softmax/sweeps/regs.txt)
    forward 2998 -> 3271 GB/s, log-softmax 2992 -> 3213, backward about 1050 (on colsCluster) -> 3163;
    whole 16-byte packs held 64 registers of data a thread. float32 keeps 16-byte packs. Those
    16-bit forward columns are held to 5 blocks an SM, which caps them under 96 registers: float16
    took 99-100 and ran 4 blocks an SM, bfloat16 (since its softmax keeps probabilities below
    2^-126) 81, five blocks; told 5, float16 takes 89 and bfloat16 79, six blocks an SM. On the H200
    (benchmarks/h200/softmax/tiny-probs/regs.txt): float16 84% -> 92-93% of a copy forward and
    75-76% -> 85-86% log-softmax, bfloat16 84% -> 88-89% forward (89-91% before the probabilities'
    change) and 84-85% -> 85-85.5% log-softmax."""
    if ITEMSIZE[p.dtype] == 2 and p.inputs == 1 and lmax == 16:
        return min(p.vec, 4), 128, 5
    if ITEMSIZE[p.dtype] == 2 and p.inputs == 2 and lmax > 4:
        return min(p.vec, 2), 128, 4
    return p.vec, REGS_THREADS, 2


def cols_regs(p: Problem) -> Optional[Choice]:
    """A short strided axis: one thread per pack of columns, the whole column in registers."""
    if p.M == 1 or p.L > REGS_MAX[ITEMSIZE[p.dtype], p.inputs]:
        return None
    lmax = next(k for k in REGS_L if k >= p.L)
    vec, threads, minb = regs_geometry(p, lmax)
    expr = f"colsRegs<{CTYPE[p.dtype]},{vec},{lmax},{threads},{minb},{op_type(p)} >"
    grid = (max(1, min(cdiv(p.N * (p.M // vec), threads), GRID_X)), 1, 1)
    return Choice("colsRegs", SRC["colsregs"], expr, grid, (threads, 1, 1), 0, "cols",
                  why=f"a column of {p.L} in registers per thread ({vec} column{'s' if vec > 1 else ''} each), "
                       "x read once")


def cols_cluster(p: Problem, threads: int = 256, budget: int = CLUSTER_SMEM,
                 clusters: tuple[int, ...] = (1,) + CLUSTERS, widest: int = 128, stages: int = 1,
                 terms: Optional[bool] = None) -> Optional[Choice]:
    """Strips as wide as possible (up to 128 bytes, at least one 32-byte sector) on the fewest
    blocks whose shared memory holds them within the budget; each block's rows land in `stages`
    groups of copies, each folded as soon as it is on chip. Stored terms (stored_terms; terms:
    forced on or off) on strips of 128 bytes."""
    if p.vec == 1:
        return None
    E = ITEMSIZE[p.dtype]
    W = min(widest, max(32, _pow2(p.M * E)))
    while W >= 32:
        cols = W // 16 * p.vec
        for C in clusters:
            lc = cdiv(p.L, C)
            smem = (threads // 32 + 2) * cols * 8 + lc * W * p.inputs  # states: warps' (then finished), own, spare
            if smem <= budget:
                e = _terms(p, terms) if W == 128 else ""
                expr = f"colsCluster<{CTYPE[p.dtype]},{C},{W},{threads},{stages},{op_type(p)}{e} >"
                grid = (cdiv(p.M, cols) * C, min(p.N, GRID_Y), 1)
                return Choice("colsCluster", SRC["colscluster"], expr, grid, (threads, 1, 1), smem, "cols", cluster=C,
                              why=f"strips {W} bytes wide on chip in a cluster of {C}, x read once")
        W //= 2
    return None


def cols_spread(p: Problem, threads: int = 512, minb: int = 2, C: int = BIG_CLUSTER) -> Optional[Choice]:
    """128-byte strips held in the registers of a cluster of C blocks, R packs a thread (R the
    power of two that covers the block's rows: L / C over threads / 8 row groups, at most 16)."""
    if not whole_packs(p) or p.M * ITEMSIZE[p.dtype] < 128:
        return None
    R = _pow2(cdiv(cdiv(p.L, C), threads // 8))
    if R > 16:
        return None
    cols = 8 * p.vec
    expr = f"colsSpread<{CTYPE[p.dtype]},{C},{R},{threads},{minb},{op_type(p)} >"
    grid = (cdiv(p.M, cols) * C, min(p.N, GRID_Y), 1)
    return Choice("colsSpread", SRC["colsspread"], expr, grid, (threads, 1, 1), 0, "cols", cluster=C,
                  why=f"strips 128 bytes wide in the registers of a cluster of {C}, {R} packs a thread, "
                      "x read once")


TEAM_STRIP = 96 * 1024         # colsTeam, gradients: bytes of strip rows a block holds (two blocks an SM)
# colsTeam: 16-bit gradients on teams of more than this many blocks load 16 of the team's states at once
# in a meeting (else 4; the kernel's NL has the figures)
TEAM_WIDE_GATHER = 64
TEAM_STRIPS = 10               # colsTeam: strips a team takes at least (10.7 to 42 measured)
# colsTeam: float32 strips of TEAM_WIDE_STRIP bytes where the strided axis's rows lie TEAM_WIDE_PITCH
# bytes apart or more and such a team has at most TEAM_WIDE_BLOCKS blocks (team_width has the figures)
TEAM_WIDE_STRIP, TEAM_WIDE_PITCH, TEAM_WIDE_BLOCKS = 256, 16 * 1024, 64
# colsTeam, gradients down shorter strided axes where rows lie far apart (team_wanted has the figures):
# float32 from TEAM_SHORT_ROWS32 rows where they lie TEAM_WIDE_PITCH bytes apart or more (on 256-byte strips),
# 16-bit from TEAM_SHORT_ROWS16 where TEAM_LEAN_PITCH16 or more
TEAM_SHORT_ROWS32, TEAM_SHORT_ROWS16 = 2048, 4096
# colsTeam, softmax and log-softmax: 64 KiB of strip rows a block and registers for three blocks an SM
# (__launch_bounds__); 16-bit rows folded in 2 groups as they land (team_wanted has the figures)
TEAM_FORWARD_STRIP, TEAM_FORWARD_BLOCKS, TEAM_FORWARD_STAGES16 = 64 * 1024, 3, 2
# colsTeam, log-softmax gradients: the gradient alone on chip (lean; team_lean has the figures) for 16-bit
# teams, and float32 ones down TEAM_LEAN_ROWS32 rows or more (TEAM_LEAN_ROWS32_WIDE where the slice is whole
# 256-byte strips); 16-bit on TEAM_FORWARD_* blocks, on 256-byte strips where rows lie TEAM_LEAN_PITCH16 bytes
# apart or more
TEAM_LEAN_ROWS32, TEAM_LEAN_ROWS32_WIDE, TEAM_LEAN_PITCH16 = 16384, 8192, 8 * 1024


def cols_team(p: Problem, held: int = 0, W: int = 0, threads: int = 256, S: int = 0,
              budget: int = 0, T: int = 0, G: int = 0, minb: int = 0, terms: Optional[bool] = None,
              lean: Optional[bool] = None) -> Optional[Choice]:
    """colsCluster's strips, W bytes wide (0: team_width's; at most the slice's width), on a team of T ordinary blocks
    (the fewest whose `budget` bytes hold the axis when 0) meeting through global memory; G teams (as
    many as the GPU holds at once when 0: `held` blocks of this kernel, 0 when unknown, taken as one
    team; None where it holds less than a team), team g taking strips g, g + G, ..., the next strip
    read while one is written. S groups of rows folded as they land; registers for `minb` blocks an
    SM. 0 takes the pass's geometry: gradients TEAM_STRIP bytes, WIDE_STAGES groups, two blocks;
    softmax and log-softmax TEAM_FORWARD_STRIP, WIDE_STAGES groups (16-bit: TEAM_FORWARD_STAGES16),
    TEAM_FORWARD_BLOCKS blocks. A cooperative launch. 16-byte packs. Stored terms (stored_terms;
    terms: forced on or off) on strips of 128 bytes. 16-bit gradients on teams of more than
    TEAM_WIDE_GATHER blocks load 16 of the team's states at once in a meeting (the kernel's NL).
    lean (log-softmax gradients; None: team_lean): only the gradient held on chip, y read at the write."""
    if not whole_packs(p) or p.M == 1:
        return None
    lean = team_lean(p) if lean is None else lean
    if lean and not (p.op == "backward" and p.log):
        raise ValueError("lean teams hold the gradient alone: log-softmax gradients only")
    held_in = 1 if lean else p.inputs  # inputs held on chip
    W = W or team_width(p, lean)
    small = p.op == "forward" or (lean and ITEMSIZE[p.dtype] == 2)  # 64 KiB blocks, three an SM
    budget = budget or (TEAM_FORWARD_STRIP if small else TEAM_STRIP)
    minb = minb or (TEAM_FORWARD_BLOCKS if small else 2)
    fwd = p.op == "forward"
    S = S or (TEAM_FORWARD_STAGES16 if fwd and ITEMSIZE[p.dtype] == 2 else WIDE_STAGES)
    W = min(W, max(16, _pow2(p.M * ITEMSIZE[p.dtype])))
    cols = W // 16 * p.vec
    T = T or cdiv(p.L, max(1, budget // (W * held_in)))
    states = (threads // 32 + 2) * cols * 8  # the warps' partials, then the finished states, padded
    smem = states + cdiv(p.L, T) * W * held_in
    if smem > SMEM_MAX or 0 < held < T:
        return None
    G = min(strips(p, cols), G or max(1, held // T))
    e = _terms(p, terms) if W == 128 else ""  # float32's form, forced, spills (its four groups' maxima)
    wide = wide_gather(p, T)
    if wide or lean:  # the kernel's NL, then LEAN
        e = (e or ",false") + (",16" if wide else ",4") + (",true" if lean else "")
    expr = f"colsTeam<{CTYPE[p.dtype]},{W},{threads},{S},{op_type(p)},{minb}{e} >"
    counts = 128 * G  # the teams' counts, a line each, zeroed; then their states, two strips' worth
    return Choice("colsTeam", SRC["colscluster"], expr, (G * T, 1, 1), (threads, 1, 1), smem, args="colsteam",
                  chunks=T, extra=(G,), workspace_bytes=counts + 2 * 8 * G * T * cols, zeroed=counts,
                  cooperative=True,
                  why=f"strips {W} bytes wide on a team of {T} blocks meeting through global memory, "
                      f"{G} teams, x read once")


def team_width(p: Problem, lean: Optional[bool] = None) -> int:
    """colsTeam's strip width in bytes. lean teams (team_lean; None: as it says): TEAM_WIDE_STRIP where the slice is a
    whole number of such strips, float32 wherever, 16-bit where rows lie TEAM_LEAN_PITCH16 bytes apart or more
    (team_lean has the figures), else 128. Otherwise TEAM_WIDE_STRIP (256) for float32 whose strided rows lie
    TEAM_WIDE_PITCH bytes apart or more (M * 4; the slice a whole number of such strips) where that team has at
    most TEAM_WIDE_BLOCKS blocks, else 128. On the H200 (benchmarks/h200/softmax/team-width, width-pitch.txt,
    two rounds, every output checked), 256-byte strips ran [8192, 8192] dim 0 at 77.7% of a copy forward against
    74.2% on 128-byte ones (colsCluster, the dispatch then), log-softmax 76.7 against 74.4, gradients 80.7
    against colsTeam's 77.3 on 128; [4096, 16384] dim 0 81.7, 81.2 and 83.9 against 75.9, 74.8 and 77.9; [2,
    8192, 8192] dim 1, [4096, 8192] and [8192, 4096] dim 0 (rows 16 KiB apart) gained 1.4-5.3 points too, and
    [16384, 8192] dim 0 1.0-1.6 forward (teams of 64) but lost 1.0 in gradients (teams of 86). Where the rows
    lie 4 KiB apart ([16, 8192, 1024] dim 1) they were level forward and lost 2 in gradients, and on teams of
    86-128 blocks ([4, 32768, 1024], [32768, 4096]) 10-27 points (width-256.txt): each block gathers twice the
    states of twice as many blocks at every meeting. bfloat16 lost everywhere on 256-byte strips (its softmax's
    stored terms need 128; with them forced on, benchmarks/h200/softmax/width-more/summary-terms.txt, still
    2.2-13.5 points behind 128 but level at [4096, 8192]), and every dtype on strips of 64 and 32 bytes, by
    10-40 points (width-64-32.txt). log-softmax's gradients, timed later (width-more/summary-lbwd.txt, two
    rounds), gained as much: 256-byte strips 80.2% against 78.2% on 128 at [8192, 8192], 81.3 against 79.2 at
    [2, 8192, 8192], 83.1-83.6 against 79.7-80.3 at [4096, 8192] and [4096, 16384], 80.0 against 78.9 at [8192,
    4096], and lost 1.4 on teams of 86 ([16384, 8192])."""
    pitch = p.M * ITEMSIZE[p.dtype]
    if team_lean(p) if lean is None else lean:
        whole = pitch % TEAM_WIDE_STRIP == 0
        return TEAM_WIDE_STRIP if whole and (p.dtype == "float32" or pitch >= TEAM_LEAN_PITCH16) else 128
    if p.dtype != "float32" or pitch < TEAM_WIDE_PITCH or pitch % TEAM_WIDE_STRIP:
        return 128
    wide = cols_team(p, W=TEAM_WIDE_STRIP, lean=False)
    return TEAM_WIDE_STRIP if wide is not None and wide.chunks <= TEAM_WIDE_BLOCKS else 128


def team_lean(p: Problem) -> bool:
    """Whether colsTeam holds only the gradient on chip (the kernel's LEAN): log-softmax gradients, whose
    sum reads the gradient alone, 16-bit ones and float32 ones down TEAM_LEAN_ROWS32 rows or more
    (TEAM_LEAN_ROWS32_WIDE where the slice is a whole number of 256-byte strips, which they take). Each
    block then holds twice the rows of a strip (a team of half the blocks, or strips twice as wide) and
    reads y at the write from the L2, where the meeting prefetched it, several rows' loads in flight a
    thread (float32 8, 16-bit 4). On the H200 (benchmarks/h200/softmax/width-more, summary-lean*.txt,
    forced forms, two rounds, every output checked), against the teams that hold both, with 4 loads in
    flight: float32 on 256-byte strips, two blocks an SM, [4, 32768, 1024] 78.5% of a copy against 72.2%,
    [8, 16384, 1024] 83.5 against 79.7, [32768, 4096] dim 0 78.2 against 74.7, while 8192 rows were level
    or behind ([8192, 8192] 81.8 against 81.3, [16, 8192, 1024] 84.3 against 85.5); bfloat16 on 64 KiB
    blocks, three an SM (two lost 1-12 points), ahead everywhere: [4, 32768, 1024] 77.9 against 72.3,
    [32768, 4096] 76.8 against 70.3 (256-byte strips; 75.0 on 128), [8, 16384, 1024] 79.6 against 79.4,
    [16, 8192, 1024] 85.4 against 84.5, [8192, 8192] 77.7 against 76.5 (256-byte strips; 76.7 on 128);
    256-byte strips lost 1.2 and 3.4 points where bfloat16 rows lie 2 KiB apart. With y read a row at a
    time (lean*-v1.txt) every lean form lost 2-22 points: its loads waited one by one. With 8 in flight
    (benchmarks/h200/softmax/lean-depth, rows32.txt), float32 lean teams on 256-byte strips led down 8192
    rows too: [8192, 8192] 85.3 against 81.7, [2, 8192, 8192] 85.3 against 81.8, [16, 8192, 1024] 87.4
    against 86.4 on 128-byte strips, [8192, 4096] level (80.5 against 80.7), while lean teams on 128-byte
    strips there lost 0.3-1.3 points to the teams that hold both on the same strips; down 4096 rows mixed
    ([4096, 16384] +0.9, [4096, 8192] -2.0, [32, 4096, 1024] -0.8). float16 runs the same code, not timed."""
    if p.op != "backward" or not p.log:
        return False
    if ITEMSIZE[p.dtype] == 2:
        return True
    wide = p.M * ITEMSIZE[p.dtype] % TEAM_WIDE_STRIP == 0
    return p.L >= (TEAM_LEAN_ROWS32_WIDE if wide else TEAM_LEAN_ROWS32)


def wide_gather(p: Problem, T: int) -> bool:
    """Whether colsTeam's meeting on teams of T blocks loads 16 of the team's states at once (NL):
    16-bit gradients on teams of more than TEAM_WIDE_GATHER blocks."""
    return p.op == "backward" and ITEMSIZE[p.dtype] == 2 and T > TEAM_WIDE_GATHER


def strips(p: Problem, cols: int) -> int:
    return p.N * cdiv(p.M, cols)


def team_strips_enough(p: Problem, c: Choice) -> bool:
    """Whether each of colsTeam c's teams takes TEAM_STRIPS strips or more: 128-byte ones down 4096 rows
    or more (as measured there), strips of the team's own width down shorter axes, whose strips each take
    less time, so that a last round of strips left to some of the teams costs more: on the H200
    (benchmarks/h200/softmax/team-short/api.txt) float32 [2048, 8192] gradients, 5.3 256-byte strips a
    team, lost 1.0-1.3 points of a copy to colsCluster, where the other shapes timed there gained."""
    W = int(c.expression.split(",")[1])
    cols = (W if p.L < 4096 else 128) // ITEMSIZE[p.dtype]
    return strips(p, cols) >= TEAM_STRIPS * c.extra[0]


def team_choice(p: Problem, held: int = 0) -> Optional[Choice]:
    """The team kernel for p's axis: rowTeam on the last axis, colsTeam on a strided one."""
    return row_team(p, held) if p.M == 1 else cols_team(p, held)


def chunk_rows(p: Problem) -> int:
    """colsChunks' rows a chunk: 256 for 16-bit elements, else 128. On the H200 at [4, 32768, 1024]
    and [32768, 4096] (benchmarks/h200/softmax/long-axis/chunks-geometry.txt), bfloat16 chunks of
    256 ran at 51-53% of a copy against 46-51% at 128; float32 was level from 64 to 256 rows."""
    return 256 if ITEMSIZE[p.dtype] == 2 else 128


# colsChunks' first launch for gradients, as torch.compile splits such a reduction: chunks of
# SPLIT_ROWS rows, strips 128 bytes wide on blocks of SPLIT_LX x SPLIT_BY, loads evict-first, where
# that leaves at least SPLIT_BLOCKS blocks (fewer: the write's geometry, unmeasured in this one)
SPLIT_ROWS, SPLIT_LX, SPLIT_BY, SPLIT_BLOCKS = 1024, 8, 32, 1024


def chunk_split(p: Problem) -> Optional[tuple[int, int, int]]:
    """colsChunks' first launch: (rows a chunk, lx, by) of its own, or None (the write's). On the H200
    (benchmarks/h200/softmax/chunks-rows, final.txt, three rounds, the medians) gradients ran 1.5-2.6%
    faster in chunks of 1024 rows 128 bytes wide with evict-first loads than in the write's geometry
    (bfloat16 [4, 32768, 1024] 328.1 -> 319.5 us, log-softmax's 267.4 -> 260.6; float32 [2, 65536,
    1024] 630.1 -> 621.9), within 1.1% of torch.compile, whose reduction splits the axis so. Forward
    passes were level that way (bfloat16 log-softmax 2% slower) and keep the write's geometry.
    float16 takes bfloat16's (not measured)."""
    v = p.vec
    if p.op != "backward" or v == 1:
        return None
    if cdiv(p.M, SPLIT_LX * v) * cdiv(p.L, SPLIT_ROWS) * min(p.N, GRID_Y) < SPLIT_BLOCKS:
        return None
    return SPLIT_ROWS, SPLIT_LX, SPLIT_BY


def cols_chunks(p: Problem, rows: int = 0, by: int = 8, lx: int = 32, unroll: int = 4,
                split: Optional[tuple[int, int, int]] = None, plain: bool = False) -> Choice:
    """Three launches, x read twice: chunks folded into states per column, the states merged, the
    chunks written (the last two programmatic dependent launches where the GPU has them:
    launch.runner). The write takes chunks of `rows` rows (0: chunk_rows) on blocks of (lx, by), lx
    packs of columns each, `unroll` packs a thread in flight; the first launch takes `split`'s (rows,
    lx, by) (None: chunk_split's), with evict-first loads, or the write's geometry with plain loads
    where there is none (or `plain`)."""
    rows = rows or chunk_rows(p)
    v = p.vec
    split = None if plain else split or chunk_split(p)
    srows, slx, sby = split or (rows, lx, by)
    chunks = cdiv(p.L, srows)
    op, ct = op_type(p), CTYPE[p.dtype]
    grid = (cdiv(p.M, slx * v) * chunks, min(p.N, GRID_Y), 1)
    # log-softmax gradients fold g alone (a sum, no exp): 8 packs in flight at 4 blocks an SM fit in
    # 64 registers, twice the bytes in flight a partial pass keeps by default. On the H200, 16-byte
    # packs, 1.9-2.6% faster (benchmarks/h200/softmax/chunks-rows, confirm.txt; packs of 1 not
    # measured); other folds lost or spilled.
    deep = p.op == "backward" and p.log
    blocks = max(1, (1024 if deep or p.inputs == 1 else 512) // (slx * sby))  # an SM (the kernel's default)
    tail = f",{8 if deep else 4},{blocks},true" if split else f",8,{blocks}" if deep else ""
    how = (f"read in {chunks} chunks of {srows} rows, written in {cdiv(p.L, rows)} chunks of {rows} rows, " if split
           else f"{chunks} chunks of {rows} rows, ")
    return Choice("colsChunks", SRC["colschunks"], f"colsPartial<{ct},{v},{slx},{sby},{op}{tail} >", grid,
                  (slx, sby, 1), 0, "chunks", finish=f"colsFinish<{ct},{v},{lx},{by},{unroll},{op} >",
                  merge=f"colsMerge<{MERGE_BY},{op} >",
                  merge_grid=(p.N * cdiv(p.M, 32), 1, 1), chunks=chunks, extra=(srows, rows),
                  finish_grid=(cdiv(p.M, lx * v) * cdiv(p.L, rows), min(p.N, GRID_Y), 1), finish_block=(lx, by, 1),
                  workspace_bytes=8 * p.N * p.M * (chunks + 1),
                  why=how + "three launches, x read twice")


def cols_split(p: Problem, by: int = 8) -> Choice:
    v = p.vec
    expr = f"colsSplit<{CTYPE[p.dtype]},{v},{by},{op_type(p)} >"
    grid = (cdiv(p.M, 32 * v), min(p.N, GRID_Y), 1)
    return Choice("colsSplit", SRC["cols"], expr, grid, (32, by, 1), 0, "cols",
                  why=f"{32 * v} columns per block, {by} threads per column, x read twice")


def long_row(p: Problem, held: int = 0, teams: bool = True) -> Choice:
    """Rows too long for one block (as measured on the H200): forward rows of 3 to 16
    blocks on teams of TEAM_ROWS rows or more (team_wanted; `held`: rowTeam's blocks the GPU holds at
    once, 0 when unknown), other forward
    rows that a cluster holds stream through shared memory, longer ones and backward rows relay
    through L2 up to RELAY_ROW_MAX bytes of inputs a row; longer rows, and rows not in 16-byte
    packs, as before."""
    if whole_packs(p):
        if teams and team_wanted(p) and (c := row_team(p, held)) and p.N >= TEAM_ROWS * c.extra[0]:
            return c
        if p.op == "forward" and (c := row_stream(p)):
            return c
        if p.L * ITEMSIZE[p.dtype] * p.inputs <= RELAY_ROW_MAX[p.op]:
            return row_relay(p) or row_split(p)
        return row_split(p)
    return row_cluster(p) or row_split(p)


def strip(c: Choice) -> int:
    """colsCluster's strip width in bytes."""
    return int(c.expression.split(",")[2])


def cols_cluster_best(p: Problem, big_clusters: bool = True, terms: Optional[bool] = None) -> Optional[Choice]:
    """The dispatch's colsCluster: the fewest blocks that hold the strip within CLUSTER_SMEM,
    else within SMEM_MAX. Where that leaves strips narrower than 128 bytes (long axes), whole
    128-byte strips on a cluster of 16 measured faster on the H200 (forward 57-61% of memcpy
    against 52-56%, backward 54-65% against 31-62%): forward only while two blocks still share
    an SM, backward even at one. big_clusters=False: portable clusters only (a GPU, or a MIG
    slice, with no 16 SMs free in one GPC). float32 forward strips there take blocks of 128: in
    one bench run with both, 1-2% faster on the H200 (benchmarks/h200/softmax/t128), 73-78% of
    cudaMemcpy against 68-74% on an H100 (benchmarks/h100/softmax-t128); bfloat16 and backward
    were slower or even (benchmarks/h100/softmax-relay/clusters.txt). Each block's 512 rows land in
    WIDE_STAGES groups, each folded while the later ones are still on their way: on the H200
    (benchmarks/h200/softmax/sweeps/stages.txt) float32 forward 61-63% -> 64-66% of a copy, backward
    55-65% -> 58-68%; 16-bit forward gained nothing and folds the whole share at once. terms: stored
    terms forced on or off (cols_cluster)."""
    c = cols_cluster(p, terms=terms) or cols_cluster(p, budget=SMEM_MAX, terms=terms)
    if big_clusters and c is not None and strip(c) < 128:
        threads = 128 if p.op == "forward" and ITEMSIZE[p.dtype] == 4 else 256
        stages = 1 if p.op == "forward" and ITEMSIZE[p.dtype] == 2 else WIDE_STAGES
        wide = cols_cluster(p, threads, budget=SMEM_MAX if p.op == "backward" else CLUSTER_SMEM,
                            clusters=(BIG_CLUSTER,), stages=stages, terms=terms)
        if wide is not None and strip(wide) > strip(c):
            return wide
    return c


def spread_backward(p: Problem, big_clusters: bool = True) -> Optional[Choice]:
    """float32 softmax gradients down long strided axes whose rows a cluster of 8 or 16 blocks of
    512 threads holds at 7-8 packs a thread (449-512 rows a block): in registers, no shared-memory
    round trip (colsCluster holds both inputs there, one block an SM). On the H200
    (benchmarks/h200/softmax/sweeps/spread.txt): [16, 4096, 1024] 71% -> 80% of a copy, [16, 8192,
    1024] 68% -> 73%, [8192, 8192] 63% -> 68%; a block's share less full of rows lost ([16, 6144,
    1024]: 68% against 73%), as did every forward and bfloat16 pass (one block an SM leaves the
    phases of too few blocks to overlap). log-softmax's gradient is unmeasured and keeps colsCluster."""
    if (p.op, p.log, p.dtype) != ("backward", False, "float32"):
        return None
    for C in (8, BIG_CLUSTER) if big_clusters else (8,):
        if 448 < cdiv(p.L, C) <= 512:
            return cols_spread(p, 512, 1, C)
    return None


def strided(p: Problem, big_clusters: bool = True, held: int = 0, teams: bool = True) -> Choice:
    """A short axis in registers, float32 gradients in the registers of a cluster, strips on a
    cluster's shared memory, else chunks read twice. colsCluster's strips narrow as the axis grows
    (the strip of every row must fit): below CHUNK_STRIP bytes, where the slice's rows are at least
    that wide, colsChunks is faster (narrower slices keep their strips: unmeasured there). On the
    H200 (benchmarks/h200/softmax/long-axis/chunks-geometry.txt), at [4, 32768, 1024] and [32768,
    4096] (32-byte strips): forward 60% of a copy against 41-42% (bfloat16 51-53% against 32-33%),
    gradients 54-60% against colsSplit's 8-16%, where no strip fits; at [8, 16384, 1024] (64-byte
    strips) colsCluster keeps the lead (66% against 60%). Rows not in 16-byte packs (no cluster):
    35-54% against colsSplit's 11-41%. Gradients down long axes (and shorter ones whose rows lie far
    apart), softmax and log-softmax down axes of 16384 to 32768 rows (float32 rows 16 KiB apart from
    4096, 16-bit softmax from 8192), take teams (team_wanted) where each takes TEAM_STRIPS strips or more
    (team_strips_enough)."""
    c = cols_regs(p)
    if c is not None:
        return c
    if teams and team_wanted(p) and (c := cols_team(p, held)) and team_strips_enough(p, c):
        return c
    c = spread_backward(p, big_clusters)
    if c is not None:
        return c
    c = cols_cluster_best(p, big_clusters)
    if c is not None and (strip(c) >= CHUNK_STRIP or p.M * ITEMSIZE[p.dtype] < CHUNK_STRIP):
        return c
    return cols_chunks(p)


def long_warp(p: Problem) -> Optional[Choice]:
    """Softmax (not log) of 16-bit rows of 257 to 512 packs (bfloat16 rows of 4096): a warp per row,
    16 packs a lane. On the H200, [32768, 4096] bfloat16 ran at 91% of a copy against 85% on a
    block of 128 (benchmarks/h200/softmax/sweeps/near.txt); log-softmax would spill there."""
    if p.op != "forward" or p.log or ITEMSIZE[p.dtype] != 2 or p.vec != 8 or not 256 < p.L // p.vec <= 512:
        return None
    return row_warp(p, 16, 1, 128)


def choose(p: Problem, big_clusters: bool = True, held: int = 0, teams: bool = True) -> Choice:
    """The public API's kernel for a problem (big_clusters=False: clusters of at most 8 blocks;
    held: the team kernel's blocks the GPU holds at once, where team_wanted; teams=False: no teams,
    for a stream being captured into a graph or a GPU that refused the cooperative launch)."""
    if p.M == 1:
        return row_warp(p) or long_warp(p) or row_block(p) or long_row(p, held, teams)
    return strided(p, big_clusters, held, teams)


def expressions() -> dict[Path, list[str]]:
    """Every instantiation the public API may launch (for the build and the spill check)."""
    out: dict[Path, list[str]] = {}
    for dtype in CTYPE:
        for (op, log) in OPS:
            for aligned in (True, False):
                # one problem per size class reaches every template the dispatch can pick
                probes = [Problem(1, L, 1, dtype, op, log, aligned) for L in _row_lengths(dtype)]
                probes += [Problem(1, L, M, dtype, op, log, aligned)
                           for L in (3, 7, 13, 100, 1000, 4000, 8192, 20000, 30000, 60000, 200000)
                           for M in (2, 4, 8, 16, 32, 64, 1024, 8192)]
                for pr in probes:
                    c = choose(pr)
                    out.setdefault(c.source, []).append(c.expression)
                    out[c.source] += [e for e in (c.finish, c.merge) if e]
                    if team_wanted(pr):  # teams want many rows or strips, which these probes never have
                        t = team_choice(pr)
                        out.setdefault(t.source, []).append(t.expression)
    return {k: sorted(set(v)) for k, v in out.items()}


def _row_lengths(dtype: str) -> list[int]:
    v = 16 // ITEMSIZE[dtype]
    lengths = [1, 2, 3] + [v << g for g in range(8)]                    # rowWarp, every (G, K, R)
    ks = {k for (e, _), k in BLOCK_K.items() if e == ITEMSIZE[dtype]}
    lengths += [v * k * t for k in ks for t in (64, 128, 256, 512, 1024)]  # rowBlock
    lengths += [v * 3 * k * t // 4 for k in ks for t in (64, 128, 256, 512, 1024)]  # ... gradients' packs
    lengths += [v * 32 * k for k in (8, 16)]                                # rowBlock of one warp
    lengths += [v * 24 * k for k in (8, 16)]                                # ... for gradients too
    lengths += [v * k * 1024 * c for c in CLUSTERS for k in ks]          # rowCluster (rows not in packs)
    lengths += [v * STREAM_K * STREAM_THREADS * c for c in CLUSTERS]      # rowStream
    lengths += [v * 8 * 1024 * 8 + v, 1 << 23, 1 << 24]                   # rowRelay, rowSplit
    return lengths
