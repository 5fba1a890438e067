"""The wide 41-row uint8 transpose at the every-side runs' long side n0 (87.4-88.4% of a copy in
probe.txt) and at n0 - 65536 (90.6%), with 40 rows at theirs beside: each call twice, for Nsight
Compute to compare the same kernel's traffic and DRAM throughput at the two long sides (run from
this folder as `PYTHONPATH=../../../../src ncu ... python3 ncu.py`). Each output is checked
against CuPy's transpose (printed)."""
import cupy

import bwlab
from bwlab.core import verify


def main():
    for s, n in ((41, 6547207), (41, 6547207 - 65536), (40, 6710887)):
        x = cupy.empty((s, n), cupy.uint8)
        verify.fill_random_bits(x, seed=s + n)
        out = cupy.empty((n, s), cupy.uint8)
        for _ in range(2):
            bwlab.transpose(x, out=out)
        cupy.cuda.Device().synchronize()
        print(s, n, bool((out == x.T).all()), flush=True)


if __name__ == "__main__":
    main()
