"""tileWholeWords in clusters (its CL template argument: the CL blocks of a cluster take consecutive
tiles down one strip, and a tile whose next one is in the cluster borrows the rows it shares with
it from that block's shared memory, distributed shared memory, instead of loading them from L2)
against the committed kernel (`old`: compiled from the folder given as the first argument, which
holds the committed whole.cu, tile.cuh, vec.cuh and common.cuh), on misaligned 1- and 2-byte
transposes of 256-512 MiB. Every variant's output is poisoned, then checked bit-exact against
CuPy's transpose, on the timed shapes and on small awkward ones; then timed around copies of the
same bytes (median of 15 batches of 4 calls, the variants in a rotated order each round). Run
from the repository root with PYTHONPATH=src."""
import re
import sys
from pathlib import Path

import cupy as cp

from bwlab.workloads.transpose import calls, plans

sys.path.insert(0, str(Path(__file__).parent.parent / "words-runs"))
from probe import SHAPES, SMALL, timed  # noqa: E402

TILE = {1: ((256, 124, 512), 3), 2: ((128, 124, 256), 4)}
CLUSTERS = {1: (1, 2, 4), 2: (1, 2, 4)}
_geometry = plans.launch_geometry


def geometry(choice, batch, rows, cols, sms=132):
    blocks, threads = _geometry(choice, batch, rows, cols, sms)
    m = re.fullmatch(r"tileWholeWords<\d+,\d+,\d+,\d+,\d+,(\d+)>", choice.expression)
    cl = int(m[1]) if m else 1
    return -(-blocks // cl) * cl, threads


plans.launch_geometry = geometry


def runner(e, v, x, batch, rows, cols, ld, bstride, old):
    cfg, blocks = TILE[e]
    if v == "old":
        source, expr = old, "tileWholeWords<%d,%d,%d,%d,%d>" % (e, *cfg, blocks)
    else:
        source, expr = plans.WHOLE, "tileWholeWords<%d,%d,%d,%d,%d,%d>" % (e, *cfg, blocks, v)
    ch = plans.Choice("words", e, source, expr, cfg[2], "probe")
    lay = plans.Layout(batch, rows, cols, ld, 1, bstride)
    op = calls.Operand(None, "cupy", x.data.ptr, (batch, rows, cols), (bstride, ld, 1), e, None, x.device.id, "x")
    return calls.kernel_runner(ch, lay, op)


def variants(e, old):
    return (["old"] if old else []) + list(CLUSTERS[e])


def name(v):
    return v if v == "old" else f"cluster{v}"


def check_small(stream, old):
    bad = 0
    for dt in ("uint8", "uint16"):
        e = cp.dtype(dt).itemsize
        for batch, rows, cols, extra, c0 in SMALL:
            parent = cp.random.randint(0, 256 if e == 1 else 65536, size=(batch, rows, cols + extra + c0)).astype(dt)
            x = parent[:, :, c0:c0 + cols]
            ref = cp.ascontiguousarray(x.transpose(0, 2, 1))
            y = cp.empty_like(ref)
            ld, bstride = parent.shape[2], parent.shape[1] * parent.shape[2]
            for v in variants(e, old):
                r = runner(e, v, x, batch, rows, cols, ld, bstride, old)
                y.view(cp.uint8).fill(0xFF)
                r(x.data.ptr, y.data.ptr, stream)
                n = int((y != ref).sum())
                bad += n
                if n:
                    print(f"MISMATCH {dt} {(batch, rows, cols, extra, c0)} {name(v)}: {n}")
    print(f"small awkward shapes: {len(SMALL) * 2} shapes, every variant, {bad} wrong elements", flush=True)


def main(rounds: int, old) -> None:
    stream = cp.cuda.get_current_stream().ptr
    check_small(stream, old)
    print("case                  dtype   variant          bad   copy GB/s  "
          + "  ".join(f"r{i + 1} %copy" for i in range(rounds)) + "   mean")
    for dt, shape in SHAPES:
        batch, rows, cols = shape
        x = cp.random.randint(0, 256 if dt == "uint8" else 65536, size=shape).astype(dt)
        ref = cp.ascontiguousarray(x.transpose(0, 2, 1))
        y = cp.empty_like(ref)
        fns, bads, names = [], [], []
        for v in variants(x.itemsize, old):
            r = runner(x.itemsize, v, x, batch, rows, cols, cols, rows * cols, old)

            def fn(r=r, xp=x.data.ptr, yp=y.data.ptr):
                r(xp, yp, stream)
            y.view(cp.uint8).fill(0xFF)
            fn()
            bads.append(int((y != ref).sum()))
            fns.append(fn)
            names.append(name(v))
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
            print(f"{label:21} {dt:7} {nm:15} {bad:5d} {sum(copies) / rounds:9.0f}  "
                  + "  ".join(f"{v:8.1f}" for v in p) + f"  {sum(p) / len(p):6.1f}", flush=True)
        del x, ref, y
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "whole.cu" if len(sys.argv) > 1 else None
    main(int(sys.argv[2]) if len(sys.argv) > 2 else 3, folder if folder and folder.is_file() else None)
