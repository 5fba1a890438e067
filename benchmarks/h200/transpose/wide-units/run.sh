#!/bin/sh
# From the repository root: [TREE=SRC] sh benchmarks/h200/transpose/wide-units/run.sh OUTDIR ["VARIANTS"] [SET] [ROUNDS]
# (TREE: the src/ the variants are made from, ./src when not given)
# probe.py on each variant's copy (variants.py, made in /tmp), alternately, ROUNDS rounds (3), each copy with
# its own kernel cache build/bwc-wu-VARIANT; with SET "every" each copy's kernels are compiled first, the
# copies side by side (8 processes each; warm-VARIANT.txt lists registers and spills).
set -e
root=$(pwd)
vs=${2:-"base ord"}
set_=${3:-six}
cd "$root/benchmarks/h200/transpose/wide-units"
for v in $vs; do python3 variants.py "$v" "/tmp/wu-$v" "${TREE:-$root/src}"; done
if [ "$set_" = every ]; then
  for v in $vs; do
    BWLAB_CACHE="$root/build/bwc-wu-$v" PYTHONPATH="/tmp/wu-$v" python3 probe.py --warm every 8 > "$1/warm-$v.txt" 2>&1 &
  done
  wait
fi
for r in $(seq "${4:-3}"); do
  for v in $vs; do
    BWLAB_CACHE="$root/build/bwc-wu-$v" PYTHONPATH="/tmp/wu-$v" python3 probe.py "$v" "$set_" >> "$1/ab-$set_.txt" 2>&1
  done
done
