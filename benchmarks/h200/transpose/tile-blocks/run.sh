#!/bin/sh
# From the repository root: sh benchmarks/h200/transpose/tile-blocks/run.sh OUTDIR [ROUNDS]
# probe.py on two trees alternately, ROUNDS rounds (3): base (build/tb/base: `git archive` of the tree's
# src) and st4 (the same with skinnyTile's launch bound at four blocks for E = 2, H = 1), each with its own
# kernel cache (build/tb/c-base, build/tb/c-st4: skinnyTile<2,true> precompiled under NVRTC 13.0).
set -e
root=$(pwd)
cd "$root/benchmarks/h200/transpose/tile-blocks"
for r in $(seq "${2:-3}"); do
  for v in base st4; do
    BWLAB_CACHE="$root/build/tb/c-$v" PYTHONPATH="$root/build/tb/$v" python3 probe.py "$v" >> "$1/ab.txt" 2>&1
  done
done
