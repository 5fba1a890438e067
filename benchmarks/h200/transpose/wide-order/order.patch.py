"""Writes variant trees of bwlab's src in which widePerm's step blocks walk the long side in k
interleaved windows (block b takes step block (b % k) * (m / k) + b / k of the first m, a multiple
of k; the rest in order), for k given on the command line: `python3 order.patch.py SRC DEST K...`
writes DEST/k<K>/bwlab for each K."""
import shutil
import sys
from pathlib import Path

OLD = "  const i64 step0 = ((i64)blockIdx.x * (WP_THREADS / 32) + warp) * K;\n  if (step0 + K <= full) {\n    wide_steps"
NEW = ("  const i64 g = (i64)gridDim.x - 1, m = g - g % WIDE_WINDOWS, b = blockIdx.x;\n"
       "  const i64 bx = b < m ? (b % WIDE_WINDOWS) * (m / WIDE_WINDOWS) + b / WIDE_WINDOWS : b;\n"
       "  const i64 step0 = (bx * (WP_THREADS / 32) + warp) * K;\n  if (step0 + K <= full) {\n    wide_steps")


def main(src, dest, *ks):
    for k in ks:
        out = Path(dest, f"k{k}")
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(Path(src, "bwlab"), out / "bwlab", ignore=shutil.ignore_patterns("__pycache__"))
        cu = out / "bwlab/workloads/transpose/kernels/skinnyperm.cu"
        s = cu.read_text()
        assert s.count(OLD) == 1
        s = s.replace(OLD, NEW).replace("#include", f"#define WIDE_WINDOWS {k}\n#include", 1)
        cu.write_text(s)


if __name__ == "__main__":
    main(*sys.argv[1:])
