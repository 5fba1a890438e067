#!/bin/sh
# From the repository root: sh benchmarks/h200/transpose/tall-words/run.sh OUTDIR [ROUNDS]
# probe.py on the tree before (build/ab-head/src: `git archive <rev> src`) and on this tree, alternately,
# ROUNDS rounds (3), each with its own kernel cache (build/bwc-tw-base, build/bwc-tw-new).
set -e
root=$(pwd)
cd "$root/benchmarks/h200/transpose/tall-words"
for r in $(seq "${2:-3}"); do
  BWLAB_CACHE="$root/build/bwc-tw-base" PYTHONPATH="$root/build/ab-head/src" python3 probe.py base >> "$1/ab.txt" 2>&1
  BWLAB_CACHE="$root/build/bwc-tw-new" PYTHONPATH="$root/src" python3 probe.py new >> "$1/ab.txt" 2>&1
done
