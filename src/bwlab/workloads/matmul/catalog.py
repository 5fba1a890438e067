"""The matmul ladder: every kernel bwlab can build, launch and explain for C = A . B
(float32, row-major, any M, N, K), from the naive kernel to a pipelined warp-tiled one.

Launch conventions: kernel(A, B, C, M, N, K), ints. The grid's x walks tiles of C's
columns, y tiles of its rows; a MatmulKernel adds the C tile one block covers (rows, cols).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ...core.launch import cdiv
from ...core.workload import KernelSpec

KERNELS_DIR = Path(__file__).parent / "kernels"
NAIVE, TILED, BLOCKTILE, WARPTILE, SGEMM = (KERNELS_DIR / f"{n}.cu"
                                            for n in ("naive", "tiled", "blocktile", "warptile", "sgemm"))
OP = "matmul"
DTYPES = ("float32",)


@dataclass(frozen=True)
class MatmulKernel(KernelSpec):
    # (rows, cols) of C one block computes, from the block shape
    covers: Callable[[int, int], tuple[int, int]] = lambda bx, by: (by, bx)
    results: int = 1   # results of C per thread (the coarsening factor)
    shared: int = 0    # dynamic shared memory per block, bytes

    def grid(self, m: int, n: int, block) -> tuple[int, int]:
        rows, cols = self.covers(*block)
        return cdiv(n, cols), cdiv(m, rows)


_SEED = "classic tiled matmul with thread coarsening (teaching material on coarsening)"
_TILED = "classic shared-memory tiled matmul (teaching material on tiling)"
_GEMM = "the standard SGEMM optimisation ladder (register blocking, warp tiling, cp.async), written here"
_FIX_BOUNDS = "any M, N, K and non-square shapes (the original needs square matrices whose width is a multiple " \
              "of the tile): out-of-range loads read 0, out-of-range stores are skipped; 64-bit offsets"


def K(name, source, template, block, covers, origin, lesson, results=1, blocks="one", **kw) -> MatmulKernel:
    return MatmulKernel(name, source, template, OP, block, (block,) if blocks == "one" else blocks, origin, lesson,
                        dtypes=DTYPES, covers=covers, results=results, **kw)


def _fixed(bm: int, bn: int):
    return lambda bx, by: (bm, bn)


def regblock_expr(bm, bn, bk, tm, tn) -> str:
    return f"regBlock<{bm},{bn},{bk},{tm},{tn}>"


def warptile_expr(bm, bn, bk, wm, wn, wmi, wni, stages) -> str:
    return f"warpTile<{bm},{bn},{bk},{wm},{wn},{wmi},{wni},{stages}>"


def sgemm_expr(bm, bn, bk, wm, wn, wmi, wni, stages) -> str:
    return f"sgemm<{bm},{bn},{bk},{wm},{wn},{wmi},{wni},{stages}>"


def sgemm_smem(bm, bn, bk, stages) -> int:
    """Dynamic shared memory of sgemm: each stage a BK x (BM + 4) tile of A and BK x BN of B."""
    return 4 * stages * bk * (bm + 4 + bn)


def warptile_threads(bm, bn, wm, wn) -> int:
    return 32 * (bm // wm) * (bn // wn)


def warptile_results(bm, bn, wm, wn) -> int:
    return bm * bn // warptile_threads(bm, bn, wm, wn)


# The rungs from register blocking up: 128 x 128 tile of C per block, BK = 8, 256 threads,
# 8 x 8 results per thread (the known SGEMM recipe).
GEMM_TILE = (128, 128, 8)
WARP = (64, 32, 2, 2)  # warp tile 64 x 32 in 2 x 2 sub-tiles of 32 x 16: a lane holds 8 x 8
BEST = "tuned"         # the kernel the "bwlab" peer runs


def _wt(stages: int, tile=GEMM_TILE, warp=WARP) -> str:
    return warptile_expr(*tile, *warp, stages)


def _sgemm(name, cfg, origin, lesson) -> MatmulKernel:
    """An sgemm rung or variant; cfg = ((BM, BN, BK), (WM, WN, WMITER, WNITER), STAGES)."""
    (bm, bn, bk), (wm, wn, wmi, wni), stages = cfg
    return K(name, SGEMM, sgemm_expr(bm, bn, bk, wm, wn, wmi, wni, stages), (warptile_threads(bm, bn, wm, wn), 1),
             _fixed(bm, bn), origin, lesson, results=warptile_results(bm, bn, wm, wn),
             shared=sgemm_smem(bm, bn, bk, stages))


# The best rung's configuration, the fastest of SGEMM_CONFIGS timed on an H200
# (benchmarks/h200/matmul/quick-sgemm.txt): 128 x 128 tiles, 32-deep slices, two stages.
TUNED = ((128, 128, 32), (64, 32, 2, 2), 2)


KERNELS: tuple[MatmulKernel, ...] = (
    K("naive", NAIVE, "naive", (16, 16), lambda bx, by: (by, bx), "classic naive matmul (teaching material)",
      "One thread per element of C, every operand from global memory: 2 loads per FMA, L1/L2 do the reuse.",
      blocks=None),
    K("tiled", TILED, "tiled<16>", (16, 16), _fixed(16, 16), _TILED,
      "16 x 16 tiles of A and B staged in shared memory: each global load is used 16 times.",
      fixed=_FIX_BOUNDS),
    K("coarseSeed", TILED, "coarse<16,4,true>", (16, 16), _fixed(16, 64), _SEED,
      "Thread coarsening as taught: 4 results per thread share one A tile; the partial sums are "
      "stored in every phase (K / 16 times the stores).", results=4,
      fixed=_FIX_BOUNDS + "; the store inside the phase loop is kept, as the lesson's before"),
    K("coarse", TILED, "coarse<16,4,false>", (16, 16), _fixed(16, 64), _SEED,
      "The same kernel storing C once, after the phase loop: what coarsening buys without the extra stores.",
      results=4, fixed=_FIX_BOUNDS + "; C is stored once, after the phase loop (the original stores partial "
      "sums in every phase)"),
    K("regBlock", BLOCKTILE, regblock_expr(128, 128, 8, 8, 8), (256, 1), _fixed(128, 128), _GEMM,
      "2-D register blocking: 8 x 8 results per thread from 8 + 8 shared-memory loads per step, "
      "16 FMAs per load instead of 1.", results=64),
    K("vecBlock", BLOCKTILE, "vecBlock<128,128,8,8,8>", (256, 1), _fixed(128, 128), _GEMM,
      "16-byte global loads, and A's tile stored transposed in shared memory so both operands are read "
      "as float4: a quarter of the shared-memory instructions.", results=64),
    K("warpTile", WARPTILE, _wt(1), (256, 1), _fixed(128, 128), _GEMM,
      "Warp tiling: each warp a 64 x 32 tile in 4 x 4 lane blocks, so a warp's fragment reads are one "
      "contiguous run each (no bank conflicts) and fewer registers hold the addresses.", results=64),
    K("asyncCopy", WARPTILE, _wt(2), (256, 1), _fixed(128, 128), _GEMM,
      "Double buffering with cp.async: the next slice of A and B is copied straight to shared memory "
      "while this one is computed; one barrier per slice; edges zero-filled by the copy.", results=64),
    K("pipelined", WARPTILE, _wt(3), (256, 1), _fixed(128, 128), _GEMM,
      "A three-stage cp.async pipeline: two slices in flight hide the global-memory latency that two "
      "buffers leave exposed.", results=64),
    _sgemm("tuned", TUNED, "bwlab",
           "The pipeline with its overheads cut: 32-deep slices in dynamic shared memory (a quarter of the "
           "barriers), unchecked copies from precomputed pointers inside C, fragments read a step ahead, blocks "
           "visited in groups for L2: more of the instructions executed are FMAs."),
)

# --- the coarsening study (`bwlab sweep matmul --variants`) ------------------------------------
# coarse<TILE, CF>: the taught kernel, CF results per thread along a row, TILE x TILE threads.
COARSE_TILES = (8, 16, 32)
COARSE_FACTORS = (1, 2, 4, 8, 16)
# regBlock<BM, BN, 8, TM, TN>: a TM x TN block of results per thread in a BM x BN tile of C
# (configurations with 32 to 1024 threads whose compiler report shows no spill).
REGBLOCK_CONFIGS = ((32, 32, 1, 1), (32, 32, 2, 2), (32, 32, 4, 4), (64, 64, 2, 2), (64, 64, 1, 4), (64, 64, 4, 1),
                    (64, 64, 8, 8), (128, 128, 4, 4), (128, 128, 4, 8), (128, 128, 8, 4), (128, 128, 8, 8))
# warpTile<BM, BN, 8, WM, WN, WMITER, WNITER, STAGES>
WARPTILE_CONFIGS = (
    ((128, 128, 8), (64, 32, 2, 2), (1, 2, 3, 4)),
    ((128, 128, 8), (32, 64, 2, 2), (2, 3)),
    ((128, 64, 8), (64, 32, 2, 2), (2, 3)),
    ((64, 128, 8), (32, 64, 2, 2), (2, 3)),
    ((64, 64, 8), (32, 32, 1, 2), (2, 3)),
    ((64, 64, 8), (32, 32, 2, 1), (3,)),
)


# sgemm<BM, BN, BK, WM, WN, WMITER, WNITER, STAGES>: 64 results per thread at 2 blocks per SM, or
# 128 at 1 block per SM (up to 255 registers); the small-C configuration, 32.
SGEMM_CONFIGS = (
    ((128, 128, 16), (64, 32, 2, 2), 2), ((128, 128, 16), (64, 32, 2, 2), 3), ((128, 128, 16), (64, 32, 2, 2), 4),
    ((128, 128, 8), (64, 32, 2, 2), 4), ((128, 128, 16), (32, 64, 2, 2), 3), ((128, 128, 32), (64, 32, 2, 2), 2),
    ((128, 128, 32), (64, 32, 2, 2), 3),
    ((128, 256, 8), (64, 64, 2, 4), 3), ((128, 256, 16), (64, 64, 2, 4), 3), ((256, 128, 8), (64, 64, 2, 4), 3),
    ((256, 128, 16), (64, 64, 4, 2), 3), ((64, 64, 32), (32, 32, 1, 2), 3),
)
# For C with fewer 128 x 128 tiles than the GPU has SMs (1024 x 1024, whatever K), the public
# API takes 64 x 64 tiles instead: four times the blocks, so every SM has work.
SMALL_C = ((64, 64, 32), (32, 32, 1, 2), 3)


def kernel_for(m: int, n: int, sm_count: int) -> str:
    """The kernel the public API runs for an M x N result on a GPU with sm_count SMs."""
    bm, bn = TUNED[0][:2]
    return BEST if cdiv(m, bm) * cdiv(n, bn) >= sm_count else sgemm_name(SMALL_C)


def sgemm_name(cfg) -> str:
    (bm, bn, bk), (wm, wn, wmi, wni), s = cfg
    return f"sgemm-{bm}x{bn}x{bk}-w{wm}x{wn}-i{wmi}x{wni}-s{s}"


def variants() -> tuple[MatmulKernel, ...]:
    out = []
    for t in COARSE_TILES:
        for cf in COARSE_FACTORS:
            out.append(K(f"coarse-t{t}-c{cf}", TILED, f"coarse<{t},{cf},false>", (t, t), _fixed(t, t * cf), _SEED,
                         f"coarse, {t} x {t} threads, {cf} results per thread ({t} x {t * cf} tile of C)",
                         results=cf, fixed=_FIX_BOUNDS))
    for bm, bn, tm, tn in REGBLOCK_CONFIGS:
        threads = (bm // tm) * (bn // tn)
        out.append(K(f"regBlock-{bm}x{bn}-r{tm}x{tn}", BLOCKTILE, regblock_expr(bm, bn, 8, tm, tn), (threads, 1),
                     _fixed(bm, bn), _GEMM, f"regBlock, {bm} x {bn} tile, {tm} x {tn} results per thread, "
                     f"{threads} threads", results=tm * tn))
    for (bm, bn, bk), (wm, wn, wmi, wni), stages in WARPTILE_CONFIGS:
        threads = warptile_threads(bm, bn, wm, wn)
        for s in stages:
            out.append(K(f"warpTile-{bm}x{bn}x{bk}-w{wm}x{wn}-i{wmi}x{wni}-s{s}", WARPTILE,
                         warptile_expr(bm, bn, bk, wm, wn, wmi, wni, s), (threads, 1), _fixed(bm, bn), _GEMM,
                         f"warpTile, {bm} x {bn} x {bk} tile, {wm} x {wn} warp tile, "
                         f"{warptile_results(bm, bn, wm, wn)} results per thread, {threads} threads, "
                         f"{s} stage{'s' if s > 1 else ''}", results=warptile_results(bm, bn, wm, wn)))
    for cfg in SGEMM_CONFIGS:
        (bm, bn, bk), (wm, wn, wmi, wni), s = cfg
        out.append(_sgemm(sgemm_name(cfg), cfg, _GEMM,
                          f"sgemm, {bm} x {bn} x {bk} tile, {wm} x {wn} warp tile, "
                          f"{warptile_results(bm, bn, wm, wn)} results per thread, "
                          f"{warptile_threads(bm, bn, wm, wn)} threads, {s} stages, "
                          f"{sgemm_smem(bm, bn, bk, s) // 1024} KiB shared"))
    return tuple(out)
