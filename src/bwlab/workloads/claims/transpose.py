"""Claims about transposes: naive row and column reads, unrolling, diagonal block order, thin
blocks, shared-memory tiles, padding, swizzling, double buffering, larger tiles, and copies as
bounds. The experiments run the transpose workload's own ladder kernels (checked against the
transpose's reference at its awkward shapes and at the timed one, then timed with the same
harness as `bwlab run`), and the copy ceilings of core."""
from __future__ import annotations

from ...core.workload import Case
from .claim import (DEPENDS, FAILS, HOLDS, Bars, Claim, Kernels, Verdict, cu, gbs, pct, ratio, speedup_verdict,
                    trend, x)

SHAPE, SMALL_SHAPE = (8192, 8192), (320, 256)   # 512 MiB moved (far above L2); a quick check size
BYTES_NOTE = "GB/s = bytes read + bytes written over the median time"
NAIVE_TOPIC = "notes on the bandwidth of naive transposes"
SMEM_TOPIC = "notes on coalescing a transpose through shared memory"
STEPS_TOPIC = "notes on optimising a transpose step by step"


def _workload():
    from ..transpose import WORKLOAD

    return WORKLOAD


def case(ctx) -> Case:
    return Case(SMALL_SHAPE if ctx.small else SHAPE, "float32")


def _input(ctx):
    w = _workload()
    return ctx.memo(("transpose input",), lambda: w.make_input(case(ctx), ctx.seed))


def kernel_gbs(ctx, name: str, block=None) -> float:
    """GB/s of one ladder kernel (once per run, whichever claim asks first)."""
    spec = _workload().kernel(name)
    block = tuple(block or spec.block)
    return ctx.memo(("transpose", name, block), lambda: _measure(ctx, spec, block))


def _measure(ctx, spec, block) -> float:
    from ...core.verify import poison

    w, c = _workload(), case(ctx)
    label = f"{spec.name} {block[0]}x{block[1]}"
    for small in w.precheck_cases(c):
        xs = w.make_input(small, ctx.seed)
        out = w.new_output(small, xs, spec.copies)
        poison(out)
        w.prepare(spec, xs, out, small, block).launch()
        ctx.require(f"{label} at {small.label}", w.check(out, w.copy_of(xs) if spec.copies else w.reference(small, xs)))
    xs = _input(ctx)
    out = w.new_output(c, xs, spec.copies)
    poison(out)
    prepared = w.prepare(spec, xs, out, c, block)
    prepared.launch()
    ctx.require(f"{label} at {c.label}", w.check(out, w.copy_of(xs) if spec.copies else w.reference(c, xs)))
    rec = ctx.time(label, prepared.launch, family=spec.family, bytes=w.bytes_moved(c), shape=c.shape,
                   dtype=c.dtype, block=block, grid=prepared.grid)
    del out
    return rec.gbs


def ceiling_gbs(ctx, name: str) -> float:
    """GB/s of cudaMemcpy or a copy ceiling kernel of core, moving the matrix's bytes."""
    return ctx.memo(("ceiling", name), lambda: _measure_ceiling(ctx, name))


def _measure_ceiling(ctx, name: str) -> float:
    import cupy

    from ...core import ceilings
    from ...core.verify import compare, poison

    src = _input(ctx).reshape(-1).view(cupy.uint8)
    dst = cupy.empty_like(src)
    poison(dst)
    if name == "cudaMemcpy":
        run, family = ceilings.memcpy(src.data.ptr, dst.data.ptr, src.nbytes), "runtime"
    else:
        spec = next(k for k in ceilings.COPY_KERNELS if k.name == name)
        run, family = ceilings.prepare_copy(spec, src, dst).launch, spec.family
    run()
    ctx.require(f"{name} of {src.nbytes} bytes", compare(dst, src))
    rec = ctx.time(name, run, family=family, bytes=2 * src.nbytes, shape=case(ctx).shape, dtype="float32")
    del dst
    return rec.gbs


def uses(*items) -> tuple[Kernels, ...]:
    """The ladder instantiations a claim launches (names, or (name, block) pairs), by source file."""
    w, by = _workload(), {}
    for item in items:
        name, block = item if isinstance(item, tuple) else (item, None)
        spec = w.kernel(name)
        by.setdefault(spec.source, set()).add(spec.expression("float32", tuple(block or spec.block)))
    return tuple(Kernels(src, tuple(sorted(e))) for src, e in by.items())


def _ceilings() -> tuple[Kernels, ...]:
    from ...core.ceilings import COPY_KERNELS, COPY_SOURCE

    return (Kernels(COPY_SOURCE, tuple(k.template for k in COPY_KERNELS)),)


def _numbers(ctx, names, block=None) -> dict:
    return {f"{n}_gbs": kernel_gbs(ctx, n, block) for n in names}


# --- row against column reads ---------------------------------------------------------------

def measure_column_reads(ctx) -> dict:
    return _numbers(ctx, ("naiveRow", "naiveCol", "naiveColL2"))


def decide_column_reads(n: dict) -> Verdict:
    r = ratio(n["naiveCol_gbs"], n["naiveRow_gbs"])
    r2 = ratio(n["naiveColL2_gbs"], n["naiveRow_gbs"])
    why = (f" With its loads through L2 only (no L1), the column read is still {x(r2)} the row read: the "
           "coalesced stores, more than the L1 cache, make the difference." if trend(r2) > 0 else
           f" With its loads through L2 only it is {x(r2)} the row read: the L1 cache makes the difference.")
    if trend(r) > 0:
        return Verdict(HOLDS, f"naiveCol {gbs(n['naiveCol_gbs'])} against naiveRow {gbs(n['naiveRow_gbs'])}: "
                              f"{x(r)}." + why)
    return Verdict(FAILS, f"naiveCol {gbs(n['naiveCol_gbs'])} against naiveRow {gbs(n['naiveRow_gbs'])} "
                          f"({x(r)}): reading columns is not faster here.")


# --- unrolling and diagonal order -----------------------------------------------------------

def measure_unroll(ctx) -> dict:
    return _numbers(ctx, ("naiveRow", "naiveRowUnroll4", "naiveCol", "naiveColUnroll4"))


def decide_unroll(n: dict) -> Verdict:
    gains = {"row read": ratio(n["naiveRowUnroll4_gbs"], n["naiveRow_gbs"]),
             "column read": ratio(n["naiveColUnroll4_gbs"], n["naiveCol_gbs"])}
    return speedup_verdict(gains, "Unrolling by four", "the read direction: strided loads gain from more "
                                                       "loads in flight, strided stores do not")


def measure_diagonal(ctx) -> dict:
    return _numbers(ctx, ("naiveRow", "diagonalRow", "naiveCol", "diagonalCol"))


def decide_diagonal(n: dict) -> Verdict:
    gains = {"row read": ratio(n["diagonalRow_gbs"], n["naiveRow_gbs"]),
             "column read": ratio(n["diagonalCol_gbs"], n["naiveCol_gbs"])}
    return speedup_verdict(gains, "Diagonal block order", "the read direction")


# --- thin blocks ----------------------------------------------------------------------------

SEED_BLOCKS = ((32, 32), (32, 16), (32, 8), (64, 16), (64, 8), (128, 8))
EXTRA_BLOCKS = ((16, 16), (16, 32), (8, 32))   # thinner still, for context (not part of the verdict)


def _bkey(b) -> str:
    return f"naiveCol_{b[0]}x{b[1]}_gbs"


def measure_thin_blocks(ctx) -> dict:
    return {_bkey(b): kernel_gbs(ctx, "naiveCol", b) for b in SEED_BLOCKS + EXTRA_BLOCKS}


def decide_thin_blocks(n: dict) -> Verdict:
    seed = {b: n[_bkey(b)] for b in SEED_BLOCKS}
    best = max(seed, key=seed.get)
    thin = seed[(32, 16)]
    extra = {b: n[_bkey(b)] for b in EXTRA_BLOCKS if _bkey(b) in n}
    best_all = max({**seed, **extra}.items(), key=lambda kv: kv[1])
    tail = (f" Of all shapes tried, {best_all[0][0]}x{best_all[0][1]} is fastest ({gbs(best_all[1])}, "
            f"{x(best_all[1] / thin)} the 32x16 block).")
    if thin >= seed[best] / 1.02:
        return Verdict(HOLDS, f"32x16 reaches {gbs(thin)}, the best of the six shapes (32x32: "
                              f"{gbs(seed[(32, 32)])}).{tail}")
    return Verdict(FAILS, f"{best[0]}x{best[1]} is the fastest of the six ({gbs(seed[best])}); 32x16 reaches "
                          f"{gbs(thin)} ({x(thin / seed[best])}).{tail}")


# --- shared-memory tiles --------------------------------------------------------------------

def measure_smem_tile(ctx) -> dict:
    return _numbers(ctx, ("naiveRow", "naiveCol", "smem"))


def decide_smem_tile(n: dict) -> Verdict:
    r, rc = ratio(n["smem_gbs"], n["naiveRow_gbs"]), ratio(n["smem_gbs"], n["naiveCol_gbs"])
    text = (f"The unpadded 32x16 shared-memory tile reaches {gbs(n['smem_gbs'])}, {x(r)} the row-read naive "
            f"transpose and {x(rc)} the column-read one.")
    return Verdict(HOLDS if trend(r) > 0 else FAILS, text)


def measure_padding(ctx) -> dict:
    from .memory import bank_cycles

    out = _numbers(ctx, ("tile32", "tile32Pad", "smem", "smemPad", "smemPad2"))
    out.update(bank_cycles(ctx))
    return out


def decide_padding(n: dict) -> Verdict:
    conflict = ratio(n["columnReads_unpadded_cycles"], n["columnReads_padded_cycles"])
    r = ratio(n["tile32Pad_gbs"], n["tile32_gbs"])
    r2 = ratio(n["smemPad2_gbs"], n["smemPad_gbs"])
    micro = (f"A warp reading a column of a 32x32 tile takes {n['columnReads_unpadded_cycles']:.1f} SM cycles "
             f"unpadded and {n['columnReads_padded_cycles']:.1f} padded ({x(conflict)}).")
    tile = (f" The 32x32 tiled transpose goes from {gbs(n['tile32_gbs'])} to {gbs(n['tile32Pad_gbs'])} ({x(r)}); "
            f"for a 32x16 tile one padding word leaves a 2-way conflict: two words give {x(r2)} more.")
    if conflict >= 4 and trend(r) > 0:
        return Verdict(HOLDS, micro + tile)
    if conflict >= 4:
        return Verdict(DEPENDS, micro + tile, "whether shared memory limits the kernel")
    return Verdict(FAILS, micro + tile)


def measure_swizzle(ctx) -> dict:
    from .memory import bank_cycles

    out = _numbers(ctx, ("tile32", "tile32Pad", "tile32Swizzle"))
    out.update(bank_cycles(ctx))
    return out


def decide_swizzle(n: dict) -> Verdict:
    sw, pad = n["columnReads_swizzled_cycles"], n["columnReads_padded_cycles"]
    r = ratio(n["tile32Swizzle_gbs"], n["tile32_gbs"])
    rp = ratio(n["tile32Swizzle_gbs"], n["tile32Pad_gbs"])
    text = (f"A swizzled column read takes {sw:.1f} SM cycles per warp against {pad:.1f} padded and "
            f"{n['columnReads_unpadded_cycles']:.1f} unpadded. The swizzled 32x32 tile reaches "
            f"{gbs(n['tile32Swizzle_gbs'])}: {x(r)} the unpadded tile, {pct(rp)} of the padded one.")
    removed = ratio(n["columnReads_unpadded_cycles"], sw) >= 4   # a 32-way conflict gone, index arithmetic left
    if removed and trend(r) > 0:
        return Verdict(HOLDS, text)
    if removed:
        return Verdict(DEPENDS, text, "whether the index arithmetic costs more than the conflicts saved")
    return Verdict(FAILS, text)


def measure_double_buffer(ctx) -> dict:
    out = _numbers(ctx, ("tile32Swizzle",))
    out["tile32DoubleBuffer_gbs"] = kernel_gbs(ctx, "tile32DoubleBuffer", (32, 8))
    out["tile32DoubleBuffer_32x32_gbs"] = kernel_gbs(ctx, "tile32DoubleBuffer", (32, 32))
    return out


def decide_double_buffer(n: dict) -> Verdict:
    best = max(n["tile32DoubleBuffer_gbs"], n["tile32DoubleBuffer_32x32_gbs"])
    r = ratio(best, n["tile32Swizzle_gbs"])
    text = (f"Double buffering (blocks 32x8 / 32x32) reaches {gbs(n['tile32DoubleBuffer_gbs'])} / "
            f"{gbs(n['tile32DoubleBuffer_32x32_gbs'])} against {gbs(n['tile32Swizzle_gbs'])} for one swizzled tile "
            f"per block: {x(r)} at best.")
    return Verdict({1: HOLDS, 0: FAILS, -1: FAILS}[trend(r)], text)


def measure_larger_tiles(ctx) -> dict:
    out = _numbers(ctx, ("tile32Swizzle", "tile32Pad", "tile64Pad"))
    out["tile64x32_gbs"] = kernel_gbs(ctx, "tile64x32", (32, 8))
    out["tile64x32_32x32_gbs"] = kernel_gbs(ctx, "tile64x32", (32, 32))
    return out


def decide_larger_tiles(n: dict) -> Verdict:
    best = max(n["tile64x32_gbs"], n["tile64x32_32x32_gbs"])
    r = ratio(best, n["tile32Swizzle_gbs"])
    r2 = ratio(n["tile64Pad_gbs"], n["tile32Pad_gbs"])
    text = (f"Swizzled tiles: 64x32 reaches {gbs(best)} against {gbs(n['tile32Swizzle_gbs'])} for 32x32 "
            f"({x(r)}); padded tiles: 64x64 {gbs(n['tile64Pad_gbs'])} against 32x32 {gbs(n['tile32Pad_gbs'])} "
            f"({x(r2)}).")
    ups = [trend(r) > 0, trend(r2) > 0]
    if all(ups):
        return Verdict(HOLDS, text)
    if not any(ups):
        return Verdict(FAILS, text)
    return Verdict(DEPENDS, text, "the tile layout (swizzled or padded)")


def measure_smem_unroll(ctx) -> dict:
    return _numbers(ctx, ("smemPad2", "smemUnrollPad"))


def decide_smem_unroll(n: dict) -> Verdict:
    r = ratio(n["smemUnrollPad_gbs"], n["smemPad2_gbs"])
    text = (f"Two padded 32x16 tiles per block reach {gbs(n['smemUnrollPad_gbs'])} against "
            f"{gbs(n['smemPad2_gbs'])} for one ({x(r)}).")
    return Verdict(HOLDS if trend(r) > 0 else FAILS, text)


# --- copies as bounds -----------------------------------------------------------------------

FAST = ("tile64Pad", "tileVec")


def measure_upper_bound(ctx) -> dict:
    out = _numbers(ctx, ("copyRow",) + FAST)
    for name in ("cudaMemcpy", "copyVec"):
        out[f"{name}_gbs"] = ceiling_gbs(ctx, name)
    return out


def decide_upper_bound(n: dict) -> Verdict:
    best = max(FAST, key=lambda k: n[f"{k}_gbs"])
    r = ratio(n[f"{best}_gbs"], n["copyRow_gbs"])
    text = (f"copyRow (one float per thread) reaches {gbs(n['copyRow_gbs'])}, {pct(n['copyRow_gbs'] / n['cudaMemcpy_gbs'])}"
            f" of cudaMemcpy ({gbs(n['cudaMemcpy_gbs'])}); the transpose {best} reaches {gbs(n[f'{best}_gbs'])} "
            f"({x(r)} the bound). A copy with 16 bytes per thread (copyVec, {gbs(n['copyVec_gbs'])}) is the "
            "real bound: bytes in flight per thread decide the copy's speed.")
    return Verdict(FAILS if trend(r) > 0 else HOLDS, text)


SLOW = ("naiveRow", "naiveRowUnroll4", "diagonalRow")


def measure_lower_bound(ctx) -> dict:
    return _numbers(ctx, ("copyCol",) + SLOW)


def decide_lower_bound(n: dict) -> Verdict:
    worst = min(SLOW, key=lambda k: n[f"{k}_gbs"])
    r = ratio(n[f"{worst}_gbs"], n["copyCol_gbs"])
    text = (f"copyCol reaches {gbs(n['copyCol_gbs'])}; the slowest transpose, {worst}, "
            f"{gbs(n[f'{worst}_gbs'])} ({x(r)}).")
    return Verdict(FAILS if trend(r) < 0 else HOLDS, text)


def _bars(names, title) -> Bars:
    return Bars(title, "GB/s", tuple((n, f"{n}_gbs") for n in names))


TRANSPOSE_KERNELS = (Kernels(cu("banks"), ("columnReads<0>", "columnReads<1>", "columnReads<2>")),)
_SETUP = f"8192x8192 float32 (512 MiB moved, far above L2); {BYTES_NOTE}"

CLAIMS = (
    Claim("column-reads", "transpose", NAIVE_TOPIC,
          "A naive transpose that reads columns (strided loads) and writes rows (coalesced stores) is faster than "
          "one that reads rows and writes columns.",
          f"naiveRow and naiveCol, 32x16 blocks, {_SETUP}; naiveCol again with its loads through L2 only "
          "(__ldcg), to see what the L1 cache does.",
          measure_column_reads, decide_column_reads,
          kernels=uses("naiveRow", "naiveCol", "naiveColL2")),
    Claim("naive-unroll", "transpose", NAIVE_TOPIC,
          "Unrolling the naive transpose so that each thread moves four elements raises its bandwidth.",
          f"naiveRowUnroll4 and naiveColUnroll4 (all four loads issued before the stores) against naiveRow and "
          f"naiveCol, 32x16 blocks, {_SETUP}.",
          measure_unroll, decide_unroll,
          kernels=uses("naiveRow", "naiveRowUnroll4", "naiveCol", "naiveColUnroll4")),
    Claim("diagonal-order", "transpose", NAIVE_TOPIC,
          "Launching the blocks of a naive transpose in diagonal order speeds it up, because concurrent blocks "
          "spread over the DRAM partitions.",
          f"diagonalRow and diagonalCol (block ids remapped along diagonals) against naiveRow and naiveCol, "
          f"32x16 blocks, {_SETUP}.",
          measure_diagonal, decide_diagonal,
          kernels=uses("naiveRow", "diagonalRow", "naiveCol", "diagonalCol")),
    Claim("thin-blocks", "transpose", NAIVE_TOPIC,
          "For the naive column-read transpose, the thin 32x16 block is the fastest of the block shapes 32x32, "
          "32x16, 32x8, 64x16, 64x8 and 128x8.",
          f"naiveCol with each of those blocks, and 16x16, 16x32 and 8x32 for context, {_SETUP}.",
          measure_thin_blocks, decide_thin_blocks,
          kernels=uses(*(("naiveCol", b) for b in SEED_BLOCKS + EXTRA_BLOCKS)),
          charts=(Bars("naiveCol by block shape", "GB/s",
                       tuple((f"{b[0]}x{b[1]}", _bkey(b)) for b in SEED_BLOCKS + EXTRA_BLOCKS)),)),
    Claim("smem-tile", "transpose", SMEM_TOPIC,
          "Staging a tile in shared memory, so that global reads and writes are both coalesced, beats the naive "
          "transpose even with the tile's bank conflicts.",
          f"smem (an unpadded 32x16 tile, block 32x16) against naiveRow and naiveCol, {_SETUP}.",
          measure_smem_tile, decide_smem_tile,
          kernels=uses("naiveRow", "naiveCol", "smem")),
    Claim("padding", "transpose", SMEM_TOPIC,
          "Padding each row of the shared-memory tile by one word removes the bank conflicts of its column reads "
          "and speeds the transpose up.",
          "A warp reading a 32x32 tile of words column by column, unpadded and padded to 33 words, in SM cycles "
          "per warp-wide read (shared memory only, at the maximum SM clock); the 32x32 tiled transpose "
          f"(block 32x8) without and with padding, and the 32x16 tile with 0, 1 and 2 padding words, {_SETUP}.",
          measure_padding, decide_padding,
          kernels=TRANSPOSE_KERNELS + uses("tile32", "tile32Pad", "smem", "smemPad", "smemPad2"),
          charts=(_bars(("smem", "smemPad", "smemPad2", "tile32", "tile32Pad"), "tiles without and with padding"),)),
    Claim("swizzle", "transpose", STEPS_TOPIC,
          "Rotating the tile's column index by its row (a swizzle) removes the bank conflicts without padding "
          "and speeds the tiled transpose up.",
          "The column-read microbenchmark with the swizzled layout, and the 32x32 tiled transpose (block 32x8) "
          f"unpadded, padded and swizzled, {_SETUP}.",
          measure_swizzle, decide_swizzle,
          kernels=TRANSPOSE_KERNELS + uses("tile32", "tile32Pad", "tile32Swizzle")),
    Claim("double-buffer", "transpose", STEPS_TOPIC,
          "Double buffering (loading the next tile while the current one is stored, four tiles per block) speeds "
          "up the swizzled 32x32 tiled transpose.",
          f"tile32DoubleBuffer with 32x8 and 32x32 blocks against tile32Swizzle (block 32x8), {_SETUP}.",
          measure_double_buffer, decide_double_buffer,
          kernels=uses("tile32Swizzle", ("tile32DoubleBuffer", (32, 8)), ("tile32DoubleBuffer", (32, 32)))),
    Claim("larger-tiles", "transpose", STEPS_TOPIC,
          "A larger tile per block (fewer barriers per byte moved) makes the tiled transpose faster.",
          "Swizzled tiles: 64x32 (blocks 32x8 and 32x32) against 32x32 (block 32x8); padded tiles: 64x64 against "
          f"32x32 (block 32x8); {_SETUP}.",
          measure_larger_tiles, decide_larger_tiles,
          kernels=uses("tile32Swizzle", "tile32Pad", "tile64Pad", ("tile64x32", (32, 8)), ("tile64x32", (32, 32)))),
    Claim("smem-unroll", "transpose", SMEM_TOPIC,
          "Having each block transpose two tiles, so that each thread has two loads in flight, raises the "
          "bandwidth of the padded shared-memory transpose.",
          f"smemUnrollPad against smemPad2 (32x16 tiles padded by two words, block 32x16), {_SETUP}.",
          measure_smem_unroll, decide_smem_unroll,
          kernels=uses("smemPad2", "smemUnrollPad")),
    Claim("copy-upper-bound", "transpose", NAIVE_TOPIC,
          "A copy kernel that reads and writes rows, one element per thread, is an upper bound that no "
          "transpose passes.",
          f"copyRow (32x16 blocks) against the fastest tiled transposes (tile64Pad, tileVec), cudaMemcpy and the "
          f"16-byte copy kernel copyVec, {_SETUP}.",
          measure_upper_bound, decide_upper_bound,
          kernels=uses("copyRow", *FAST) + _ceilings(),
          charts=(_bars(("copyRow", "tile64Pad", "tileVec", "copyVec", "cudaMemcpy"), "copies as bounds"),)),
    Claim("copy-lower-bound", "transpose", NAIVE_TOPIC,
          "A copy kernel that reads and writes columns, one element per thread, is a lower bound that no "
          "transpose falls below.",
          f"copyCol (32x16 blocks) against the slowest naive transposes (naiveRow, naiveRowUnroll4, diagonalRow), "
          f"{_SETUP}.",
          measure_lower_bound, decide_lower_bound,
          kernels=uses("copyCol", *SLOW)),
)
