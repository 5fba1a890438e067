#!/bin/sh
# Every short side from 1 to 64, both orientations (or the one named), at least 256 MiB (odd long
# sides, as in the skinny suite), of one dtype: the API against torch and CuPy, with cudaMemcpy in
# the same run.
# usage, from the repository root with PYTHONPATH=src:
#   sh benchmarks/h200/transpose/skinny-every/run.sh DTYPE OUTDIR [tall|wide]
set -e
shapes=$(python3 -c '
import sys
e = {"uint8": 1, "uint16": 2, "float32": 4, "float64": 8}[sys.argv[1]]
which = sys.argv[2:] or ["tall", "wide"]
out = []
for s in range(1, 65):
    n = -(-(256 << 20) // (s * e))
    n += 1 - n % 2
    out += [f"{n}x{s}"] * ("tall" in which) + [f"{s}x{n}"] * ("wide" in which)
print(",".join(out))' "$1" $3)
python3 -m bwlab bench transpose --shapes "$shapes" --dtypes "$1" --peers torch,cupy --reps 30 --out "$2"
