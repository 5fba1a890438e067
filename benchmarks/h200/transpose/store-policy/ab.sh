#!/bin/sh
# The tall tiles' inner stores plain (write-back) instead of evict-first: plain.patch applied to a copy
# of this tree in /tmp/plain, then probe.py on both trees alternately, two rounds, each tree with its own
# kernel cache. From the repository root: sh benchmarks/h200/transpose/store-policy/ab.sh OUTDIR
set -e
root=$(pwd)
rm -rf /tmp/plain && mkdir /tmp/plain && cp -r "$root/src" /tmp/plain/src
(cd /tmp/plain && git apply "$root/benchmarks/h200/transpose/store-policy/plain.patch")
cd "$root/benchmarks/h200/transpose/store-policy"
for r in 1 2; do
  BWLAB_CACHE=/tmp/bwc-base PYTHONPATH="$root/src" python3 probe.py "cs" >> "$1/ab.txt"
  BWLAB_CACHE=/tmp/bwc-plain PYTHONPATH=/tmp/plain/src python3 probe.py "wb" >> "$1/ab.txt"
done
