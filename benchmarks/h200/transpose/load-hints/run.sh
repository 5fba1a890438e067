#!/bin/sh
# From the repository root: sh benchmarks/h200/transpose/load-hints/run.sh OUTDIR ["VARIANTS"] [ROUNDS]
# segments.txt: segments_hints.py on this tree; ab.txt: probe.py on each variant's copy (variants.py, made in
# /tmp), the variants in turn, ROUNDS rounds (2), each copy with its own kernel cache build/bwc-lh-VARIANT
# (precompiled with NVRTC 13.0 and carried, or compiled on first use).
set -e
root=$(pwd)
vs=${2:-"base ef el efel"}
cd "$root/benchmarks/h200/transpose/load-hints"
for v in $vs; do python3 variants.py "$v" "/tmp/lh-$v"; done
PYTHONPATH="$root/src" python3 segments_hints.py > "$1/segments.txt" 2>&1
for r in $(seq "${3:-2}"); do
  for v in $vs; do
    BWLAB_CACHE="$root/build/bwc-lh-$v" PYTHONPATH="/tmp/lh-$v" python3 probe.py "$v" >> "$1/ab.txt" 2>&1
  done
done
