"""The first misses of 16-bit log-softmax on inputs of sigma 40 (reference.random_input, seed 11,
as the tests make them), against the float64 reference: each missed element's slice, the kernel's
output and the reference along it. From this folder: PYTHONPATH=../../../../src python3 misses.py"""
import cupy
import numpy as np

import bwlab
from bwlab.workloads.softmax import reference

CASES = [((70000, 17, 3), 1, "float16"), ((8, 16, 1024), 1, "bfloat16"), ((300, 8), -1, "bfloat16"),
         ((3, 517, 1001), 1, "float16"), ((517, 32), -1, "float16")]


def main():
    np.set_printoptions(linewidth=200, precision=6)
    for shape, dim, dt in CASES:
        x = reference.random_input(shape, dt, 11, scale=40.0)
        xv = x.view(cupy.float16) if dt == "float16" else x
        out = bwlab.softmax(xv, dim, log=True) if dt == "float16" else None
        if dt == "bfloat16":
            import torch
            xt = torch.from_dlpack(x).view(torch.bfloat16)
            out = cupy.from_dlpack(bwlab.softmax(xt, dim, log=True).view(torch.int16)).view(cupy.uint16)
        x64 = reference.to_float64(cupy.asnumpy(x), dt)
        ref = reference.softmax64(x64, dim, True)
        o16 = cupy.asnumpy(out)
        want = reference.from_float64(ref, dt)
        ulps = reference._ulps(np.ascontiguousarray(o16), np.ascontiguousarray(want), dt)
        bad = np.argwhere(ulps > 1)
        got = reference.to_float64(o16, dt)
        print(f"{dt} {shape} dim {dim}: {len(bad)} misses; {bwlab.explain_softmax(xv if dt == 'float16' else xt, dim=dim, log=True)[:70]}")
        seen = set()
        for idx in bad[:40]:
            key = tuple(v for d, v in enumerate(idx) if d != dim % len(shape))
            if key in seen or len(seen) >= 3:
                continue
            seen.add(key)
            sl = tuple(slice(None) if d == dim % len(shape) else int(v) for d, v in enumerate(idx))
            print(f"  at {tuple(int(v) for v in idx)} ulps {int(ulps[tuple(idx)])}")
            print("   x   ", x64[sl])
            print("   out ", got[sl])
            print("   ref ", ref[sl])


if __name__ == "__main__":
    main()
