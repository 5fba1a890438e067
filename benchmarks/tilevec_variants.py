"""Search the tileVec configuration space on this GPU (tile, threads, cache hints).

Every variant is checked bit-exact (awkward shape and the timed shape) before it is timed;
cudaMemcpy is timed in the same run. Usage: PYTHONPATH=src python3 benchmarks/tilevec_variants.py [OUT.json]
"""
import json
import sys

import cupy
import numpy as np

from bwlab import build, harness, peers, verify
from bwlab.catalog import cdiv
from bwlab.device import query

TILES = [(64, 64, 256), (64, 64, 128), (32, 32, 128), (64, 32, 128), (32, 64, 128), (128, 32, 256)]
HINTS = [0, 1, 2, 3, 4, 6, 7]
GROUPS = [1, 8, 32, 65535]  # tile-rows walked before moving right; 65535: whole columns first
VARIANTS = [(tr, tc, th, h, g) for tr, tc, th in TILES for h in HINTS for g in GROUPS]
SHAPE = (16384, 16384)


def main(path=None):
    dev = query()
    exprs = [f"tileVec<float,{tr},{tc},{th},{h}>" for tr, tc, th, h, _ in VARIANTS]
    b = build.compile_family("transpose_fast", exprs, dev.arch)
    x = verify.random_device(SHAPE, "float32", 3)
    ref = cupy.ascontiguousarray(x.T)
    out = cupy.empty_like(ref)
    nbytes = 2 * x.nbytes
    memcpy = harness.gbs(nbytes, harness.time_gpu(peers.get("cudaMemcpy").make(x), reps=100).median_ms)
    rows = []
    for (tr, tc, th, h, g), e in zip(VARIANTS, exprs):
        fn = build.function(b, e)
        res = b.resources[e]

        def launch(a=x, o=out, shape=SHAPE):
            fn((cdiv(shape[1], tc), cdiv(shape[0], tr), 1), (th, 1, 1),
               (a, o, np.int32(shape[0]), np.int32(shape[1]), np.int32(g)))

        small = verify.random_host((1025, 772), "float32")
        so = cupy.empty((772, 1025), cupy.float32)
        verify.poison(so)
        launch(cupy.asarray(small), so, small.shape)
        ok = verify.compare(so.get(), small.T.copy()).ok
        verify.poison(out)
        launch()
        ok = ok and verify.compare(out, ref).ok
        t = harness.time_gpu(launch, reps=50) if ok else None
        gbs = harness.gbs(nbytes, t.median_ms) if t else None
        rows.append(dict(tr=tr, tc=tc, threads=th, hint=h, group=g, ok=ok, regs=res.registers, smem=res.smem_bytes,
                         gbs=gbs, pct_memcpy=100 * gbs / memcpy if gbs else None, cv=t.cv if t else None))
    print(f"{dev.name}: {SHAPE[0]}x{SHAPE[1]} float32, cudaMemcpy {memcpy:.0f} GB/s (read+write)")
    if not all(r["ok"] for r in rows):
        print("WRONG:", [r for r in rows if not r["ok"]])
    print(f"{'TR':>4} {'TC':>4} {'thr':>4} {'hint':>4} {'group':>5} {'regs':>4} {'smem':>6} {'ok':>3} {'GB/s':>6} {'%memcpy':>8} {'CV%':>5}")
    for r in sorted(rows, key=lambda r: -(r["gbs"] or 0))[:30]:
        g = f"{r['gbs']:6.0f} {r['pct_memcpy']:8.1f} {100 * r['cv']:5.1f}" if r["gbs"] else "     -        -     -"
        print(f"{r['tr']:4} {r['tc']:4} {r['threads']:4} {r['hint']:4} {r['group']:5} {r['regs']:4} {r['smem']:6} "
              f"{'yes' if r['ok'] else 'NO':>3} {g}")
    if path:
        with open(path, "w") as f:
            json.dump({"device": dev.name, "memcpy_gbs": memcpy, "variants": rows}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
