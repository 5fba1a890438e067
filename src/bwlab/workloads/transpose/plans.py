"""Which kernel bwlab.transpose() runs: shape classes, tile configurations, plan files.

Pure logic, no GPU: `choose()` maps (element size, batch, rows, cols, plan) to a Choice;
`launch_geometry()` gives its grid. A plan file (written by `bwlab tune transpose`) names the
tile configuration per element size for one GPU model; without one, DEFAULT_PLAN applies.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ...core.launch import cdiv

KERNELS_DIR = Path(__file__).parent / "kernels"
ANY, SKINNY = KERNELS_DIR / "any.cu", KERNELS_DIR / "skinny.cu"

ITEMSIZES = (1, 2, 4, 8, 16)
SKINNY_MAX = 8          # a side this short takes the skinny kernels (a tile would idle its threads)
SKINNY_THREADS = 256
MAX_BLOCKS = 2**31 - 1  # grid.x limit; the kernels stride over whatever is left
PLAN_SCHEMA = "bwlab.plan/1"

# Tile configurations (rows x cols of the tile in elements, threads), legal for tileAny:
# a tile row is a multiple of 128 bytes, TR a multiple of 8 vectors, threads divide the patches.
TILE_CANDIDATES: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: ((128, 256, 512), (128, 128, 256), (128, 128, 128), (256, 128, 512)),
    2: ((64, 128, 256), (64, 64, 128), (64, 128, 128), (128, 64, 256)),
    4: ((64, 64, 256), (64, 64, 128), (32, 64, 256)),
    8: ((64, 32, 256), (64, 64, 256), (32, 32, 256), (32, 32, 128), (32, 64, 128), (32, 64, 256)),
    16: ((16, 32, 128), (32, 32, 128), (32, 32, 256)),
}
# Built-in choice per element size (used when no plan file exists for this GPU): the winners
# of `bwlab tune transpose` on the H200 (each candidate list starts with it).
DEFAULT_PLAN: dict[int, tuple[int, int, int]] = {e: c[0] for e, c in TILE_CANDIDATES.items()}
# tileScalar (unaligned pitches or pointers): a padded tile, at most 16 elements per thread.
SCALAR_TILE: dict[int, tuple[int, int, int]] = {1: (64, 64, 256), 2: (64, 64, 256), 4: (64, 64, 256),
                                                8: (64, 64, 256), 16: (32, 32, 256)}


@dataclass(frozen=True)
class Choice:
    kind: str            # "empty" | "copy" | "tile" | "scalar" | "tall" | "wide"
    itemsize: int
    source: Optional[Path] = None  # the .cu file (None for empty/copy)
    expression: str = ""  # C++ name expression of the kernel ("" for empty/copy)
    threads: int = 0
    reason: str = ""

    @property
    def label(self) -> str:
        return self.expression or self.kind


def tile_legal(itemsize: int, tr: int, tc: int, threads: int) -> bool:
    """The static_asserts of tileAny (any.cu), plus 48 KiB of static shared memory."""
    ve, g, warps = 16 // itemsize, max(1, 4 // itemsize), threads // 32
    if threads % 32 or threads > 1024 or (tc * itemsize) % 128 or tr % (8 * ve) or tc % (4 * g):
        return False
    load, store = (tr // 4) * (tc // (8 * ve)), (tc // (4 * g)) * (tr // (8 * ve))
    smem = max(tr * tc * itemsize + (tr // ve) * 16, tr * (tc * itemsize + max(itemsize, 4)))
    return load % warps == 0 and store % warps == 0 and smem <= 48 * 1024


def tile_expression(itemsize: int, cfg: tuple[int, int, int], kernel: str = "tileAny") -> str:
    return "%s<%d,%d,%d,%d>" % (kernel, itemsize, *cfg)


def skinny_expression(itemsize: int, short: int, tall: bool) -> str:
    return f"skinny<{itemsize},{short},{'true' if tall else 'false'}>"


def expressions() -> dict[Path, list[str]]:
    """Every instantiation bwlab.transpose() may launch, per source file."""
    tiles = [tile_expression(e, c) for e in ITEMSIZES for c in TILE_CANDIDATES[e]]
    tiles += [tile_expression(e, SCALAR_TILE[e], "tileScalar") for e in ITEMSIZES]
    skinny = [skinny_expression(e, c, t) for e in ITEMSIZES for c in range(1, SKINNY_MAX + 1) for t in (True, False)]
    return {ANY: tiles, SKINNY: skinny}


def choose(itemsize: int, batch: int, rows: int, cols: int, plan: Optional[dict] = None,
           aligned: bool = True) -> Choice:
    """The kernel for a (batch, rows, cols) transpose of itemsize-byte elements; aligned:
    both data pointers are 16-byte aligned."""
    if itemsize not in ITEMSIZES:
        raise ValueError(f"element size {itemsize} bytes not supported (supported: {ITEMSIZES})")
    if batch * rows * cols == 0:
        return Choice("empty", itemsize, reason="nothing to move")
    if rows == 1 or cols == 1:
        return Choice("copy", itemsize, reason="a 1 x n or n x 1 matrix has the same bytes as its transpose")
    if cols <= SKINNY_MAX:
        return Choice("tall", itemsize, SKINNY, skinny_expression(itemsize, cols, True),
                      SKINNY_THREADS, f"{cols} columns: one thread per 16-byte run of each output row")
    if rows <= SKINNY_MAX:
        return Choice("wide", itemsize, SKINNY, skinny_expression(itemsize, rows, False),
                      SKINNY_THREADS, f"{rows} rows: one thread per 16-byte run of each input row")
    ve = 16 // itemsize
    if not aligned or rows % ve or cols % ve:
        cfg = SCALAR_TILE[itemsize]
        why = "pointers not 16-byte aligned" if not aligned else f"rows or columns not a multiple of {ve}"
        return Choice("scalar", itemsize, ANY, tile_expression(itemsize, cfg, "tileScalar"), cfg[2],
                      f"{why}: element by element, {cfg[0]}x{cfg[1]} tile")
    cfg = tuple((plan or {}).get(itemsize) or DEFAULT_PLAN[itemsize])
    if cfg not in TILE_CANDIDATES[itemsize]:
        raise ValueError(f"plan names tile {cfg} for {itemsize}-byte elements, not one of {TILE_CANDIDATES[itemsize]}")
    src = "plan" if plan and itemsize in plan else "built-in default"
    return Choice("tile", itemsize, ANY, tile_expression(itemsize, cfg), cfg[2],
                  f"{cfg[0]}x{cfg[1]} tile, {cfg[2]} threads ({src})")


def tile_shape(choice: Choice) -> tuple[int, int]:
    m = re.fullmatch(r"tile(?:Any|Scalar)<\d+,(\d+),(\d+),\d+>", choice.expression)
    if not m:
        raise ValueError(f"not a tile choice: {choice.label}")
    return int(m[1]), int(m[2])


def launch_geometry(choice: Choice, batch: int, rows: int, cols: int) -> tuple[int, int]:
    """(blocks, threads) for a kernel choice; the kernels stride over work past MAX_BLOCKS."""
    if choice.kind in ("tile", "scalar"):
        tr, tc = tile_shape(choice)
        work = batch * cdiv(rows, tr) * cdiv(cols, tc)
        return min(work, MAX_BLOCKS), choice.threads
    if choice.kind in ("tall", "wide"):
        n = rows if choice.kind == "tall" else cols
        units = batch * cdiv(n, 16 // choice.itemsize)
        return min(cdiv(units, choice.threads), MAX_BLOCKS), choice.threads
    raise ValueError(f"{choice.kind} launches no kernel")


# --- plan files --------------------------------------------------------------------------

def plan_dir() -> Path:
    return Path(os.environ.get("BWLAB_PLANS", Path.home() / ".cache" / "bwlab" / "plans"))


def plan_path(gpu_name: str) -> Path:
    slug = re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-") or "gpu"
    return plan_dir() / f"{slug}.json"


def plan_document(gpu_name: str, plan: dict[int, tuple[int, int, int]], measurements: list[dict]) -> dict:
    return {"schema": PLAN_SCHEMA, "gpu": gpu_name,
            "tiles": {str(e): list(cfg) for e, cfg in sorted(plan.items())},
            "measurements": measurements}


def parse_plan(doc: dict) -> dict[int, tuple[int, int, int]]:
    """The tile per element size from a plan document; a clear error for anything else."""
    if doc.get("schema") != PLAN_SCHEMA:
        raise ValueError(f"not a {PLAN_SCHEMA} document (schema {doc.get('schema')!r})")
    plan = {}
    for key, cfg in doc.get("tiles", {}).items():
        e, cfg = int(key), tuple(int(v) for v in cfg)
        if e not in ITEMSIZES or cfg not in TILE_CANDIDATES[e]:
            raise ValueError(f"plan entry {key}: {cfg} is not a known tile for {key}-byte elements")
        plan[e] = cfg
    return plan


def load_plan(gpu_name: str) -> Optional[dict[int, tuple[int, int, int]]]:
    """This GPU model's plan if `bwlab tune transpose` stored one (None otherwise)."""
    path = plan_path(gpu_name)
    if not path.is_file():
        return None
    try:
        return parse_plan(json.loads(path.read_text()))
    except (ValueError, json.JSONDecodeError) as exc:
        raise ValueError(f"plan file {path} is unreadable ({exc}); delete it or run `bwlab tune transpose` again") from None
