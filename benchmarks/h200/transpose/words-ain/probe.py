"""tileWholeWords on transposes whose input rows start on 16-byte boundaries and whose output rows do
not (an odd number of rows, columns a multiple of 16 bytes): the dispatch's tile (31 words' columns
a warp, each row's segment shifted) against the same tile in 32 words' columns with no shift
(`ain`: each lane's words its own columns, a warp's 128 bytes of a row 4 whole sectors, where 124
bytes at a shift span 5). Every variant is first checked bit-exact against CuPy's transpose,
output poisoned, on small awkward aligned-input shapes (row slices of a wider parent at 16-byte
offsets, batches, extents not a multiple of the tile) and on each timed shape; then timed around
copies of the same bytes (median of 15 batches of 4 calls, the variants in a rotated order each
round). Run from the repository root with PYTHONPATH=src."""
import sys
from pathlib import Path

import cupy as cp

from bwlab.workloads.transpose import calls, plans

sys.path.insert(0, str(Path(__file__).parent.parent / "words-runs"))
from probe import timed  # noqa: E402

SHAPES = [("uint8", (1, 16389, 16384)), ("uint8", (4, 8191, 16384)), ("uint8", (1, 20011, 13440)),
          ("uint8", (1, 33331, 8192)), ("uint8", (1, 50257, 8192)),
          ("uint16", (1, 11593, 11584)), ("uint16", (4, 5793, 11584)), ("uint16", (1, 16389, 8192)),
          ("uint16", (1, 50257, 4096))]
TILES = {1: [("base", (256, 124, 512)), ("ain", (256, 128, 512))],
         2: [("base", (128, 124, 256)), ("ain", (128, 128, 256))]}
# `probe.py 3 more` (probe2.txt): more uint8 shapes, and the tile of uint8 calls under 256 MiB
SHAPES2 = [("uint8", (1, 33331, 8192)), ("uint8", (1, 16389, 16384)), ("uint8", (1, 65537, 4096)),
           ("uint8", (1, 16389, 16400)), ("uint8", (1, 24007, 11200)), ("uint8", (1, 8193, 32768)),
           ("uint8", (2, 16389, 8192)), ("uint8", (1, 40009, 6720))]
SMALL_SHAPES = [("uint8", (1, 8191, 8192)), ("uint8", (1, 4097, 4096)), ("uint8", (1, 12007, 8000))]
SMALL_TILES = [("base", (128, 124, 256)), ("ain", (128, 128, 256))]
# `probe.py 3 u8tiles` (probe3.txt): uint8 tiles of 32 words' columns (a fourth number: blocks an SM
# asked of the compiler) on the shapes the public API left under 90% or near it
SHAPES3 = [("uint8", (1, 33331, 8192)), ("uint8", (1, 50257, 8192)), ("uint8", (1, 16389, 16384)),
           ("uint8", (1, 65537, 4096)), ("uint8", (1, 16389, 16400)), ("uint8", (1, 20011, 13440))]
TILES3 = [("ain", (128, 128, 256)), ("ain-b5", (128, 128, 256, 5)), ("t64", (64, 128, 128)),
          ("t64-b12", (64, 128, 128, 12)), ("w256", (128, 256, 256)), ("t96", (96, 128, 192))]
# (batch, rows, cols, extra columns of the parent, first column): row pitches and offsets in 16 bytes
SMALL = [(1, 257, 128, 0, 0), (2, 700, 1008, 16, 16), (1, 1, 5008, 0, 0), (3, 2001, 144, 32, 16),
         (1, 4099, 2000, 0, 0), (1, 6001, 256, 16, 0), (2, 255, 4096, 0, 0)]


def runner(e, cfg, x, batch, rows, cols, ld, bstride):
    expr = plans.tile_expression(e, cfg[:3], "tileWholeWords")
    if len(cfg) > 3:
        expr = expr[:-1] + ",%d>" % cfg[3]
    ch = plans.Choice("words", e, plans.WHOLE, expr, cfg[2], "probe")
    lay = plans.Layout(batch, rows, cols, ld, 1, bstride)
    op = calls.Operand(None, "cupy", x.data.ptr, (batch, rows, cols), (bstride, ld, 1), e, None, x.device.id, "x")
    return calls.kernel_runner(ch, lay, op)


def check_small(stream):
    bad = 0
    for dt in ("uint8", "uint16"):
        e = cp.dtype(dt).itemsize
        for batch, rows, cols, extra, c0 in SMALL:
            extra, c0 = extra // e, c0 // e  # in elements: 16-byte multiples
            parent = cp.random.randint(0, 256 if e == 1 else 65536, size=(batch, rows, cols + extra + c0)).astype(dt)
            x = parent[:, :, c0:c0 + cols]
            assert x.data.ptr % 16 == 0 and parent.shape[2] * e % 16 == 0
            ref = cp.ascontiguousarray(x.transpose(0, 2, 1))
            y = cp.empty_like(ref)
            ld, bstride = parent.shape[2], parent.shape[1] * parent.shape[2]
            for _, cfg in TILES[e]:
                r = runner(e, cfg, x, batch, rows, cols, ld, bstride)
                y.view(cp.uint8).fill(0xFF)
                r(x.data.ptr, y.data.ptr, stream)
                n = int((y != ref).sum())
                bad += n
                if n:
                    print(f"MISMATCH {dt} {(batch, rows, cols, extra, c0)} {cfg}: {n}")
    print(f"small awkward shapes: {len(SMALL) * 2} shapes, every variant, {bad} wrong elements", flush=True)


def main(rounds: int) -> None:
    stream = cp.cuda.get_current_stream().ptr
    check_small(stream)
    print("case                  dtype   variant  bad   copy GB/s  "
          + "  ".join(f"r{i + 1} %copy" for i in range(rounds)) + "   mean")
    for dt, shape in SHAPES:
        batch, rows, cols = shape
        tiles = SMALL_TILES if (dt, shape) in SMALL_SHAPES else TILES[cp.dtype(dt).itemsize]
        x = cp.random.randint(0, 256 if dt == "uint8" else 65536, size=shape).astype(dt)
        ref = cp.ascontiguousarray(x.transpose(0, 2, 1))
        y = cp.empty_like(ref)
        fns, bads, names = [], [], []
        for name, cfg in tiles:
            r = runner(x.itemsize, cfg, x, batch, rows, cols, cols, rows * cols)

            def fn(r=r, xp=x.data.ptr, yp=y.data.ptr):
                r(xp, yp, stream)
            y.view(cp.uint8).fill(0xFF)
            fn()
            bads.append(int((y != ref).sum()))
            fns.append(fn)
            names.append(name)
        pct = [[] for _ in fns]
        copies = []
        for rnd in range(rounds):
            c = timed(lambda x=x, y=y: y.data.copy_from_device(x.data, x.nbytes))
            copies.append(2 * x.nbytes / c / 1e6)
            order = list(range(len(fns)))
            order = order[rnd % len(order):] + order[:rnd % len(order)]
            for i in order:
                pct[i].append(100 * c / timed(fns[i]) if bads[i] == 0 else float("nan"))
        label = "x".join(map(str, shape[1:] if shape[0] == 1 else shape))
        for nm, bad, p in zip(names, bads, pct):
            print(f"{label:21} {dt:7} {nm:8} {bad:4d} {sum(copies) / rounds:9.0f}  "
                  + "  ".join(f"{v:8.1f}" for v in p) + f"  {sum(p) / len(p):6.1f}", flush=True)
        del x, ref, y
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    if "u8tiles" in sys.argv:
        SHAPES[:] = SHAPES3
        TILES[1] = TILES3
        TILES[2] = TILES[2][1:]
        sys.argv.remove("u8tiles")
    if "more" in sys.argv:
        SHAPES[:] = SHAPES2 + SMALL_SHAPES
        TILES[1] = TILES[1] + [("ain128", SMALL_TILES[1][1])]
        sys.argv.remove("more")
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
