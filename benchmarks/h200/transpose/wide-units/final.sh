#!/bin/sh
# From the repository root: sh benchmarks/h200/transpose/wide-units/final.sh OUTDIR [ROUNDS]
# The dispatch of this tree (src/, the ordered widePerm sides of plans.PERM_ORDERED) against the tree
# before it (build/ab-head/src: `git archive 46bd820 src`, carried): probe.py's set "final" on each,
# alternately, ROUNDS rounds (3); each tree's kernels compiled first, side by side, into its own cache.
set -e
root=$(pwd)
cd "$root/benchmarks/h200/transpose/wide-units"
BWLAB_CACHE="$root/build/bwc-fin-head" PYTHONPATH="$root/build/ab-head/src" python3 probe.py --warm final 8 > "$1/warm-head.txt" 2>&1 &
BWLAB_CACHE="$root/build/bwc-fin-new" PYTHONPATH="$root/src" python3 probe.py --warm final 8 > "$1/warm-new.txt" 2>&1 &
wait
for r in $(seq "${2:-3}"); do
  BWLAB_CACHE="$root/build/bwc-fin-head" PYTHONPATH="$root/build/ab-head/src" python3 probe.py head final >> "$1/ab-final.txt" 2>&1
  BWLAB_CACHE="$root/build/bwc-fin-new" PYTHONPATH="$root/src" python3 probe.py new final >> "$1/ab-final.txt" 2>&1
done
