#!/bin/sh
# From the repository root: sh benchmarks/h200/transpose/wide-after/run.sh OUTDIR ["VARIANTS"] [ROUNDS] [SET]
# probe.py on each variant's copy (variants.py, made in /tmp: base and nox from build/ab-head/src, a
# `git archive` of the tree before; m1 and m2 from $AFTER_TREE, that tree with after-mode.patch applied;
# share from ./src), each with its own kernel cache (build/bwc-wa-VARIANT), compiled first side by side;
# then alternately, ROUNDS rounds (2).
set -e
root=$(pwd)
vs=${2:-"base nox"}
cd "$root/benchmarks/h200/transpose/wide-after"
for v in $vs; do
  case $v in base|nox) tree="$root/build/ab-head/src" ;; m1|m2) tree="$AFTER_TREE" ;; *) tree="$root/src" ;; esac
  python3 variants.py "$v" "/tmp/wa-$v" "$tree"
  BWLAB_CACHE="$root/build/bwc-wa-$v" PYTHONPATH="/tmp/wa-$v" python3 probe.py --warm "${4:-few}" > "$1/warm-$v-${4:-few}.txt" 2>&1 &
done
wait
for r in $(seq "${3:-2}"); do
  for v in $vs; do
    BWLAB_CACHE="$root/build/bwc-wa-$v" PYTHONPATH="/tmp/wa-$v" python3 probe.py "$v" "${4:-few}" >> "$1/ab-$(echo $vs | tr ' ' -)-${4:-few}.txt" 2>&1
  done
done
