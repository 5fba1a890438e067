#!/bin/sh
# Every evict-first store of the production transpose kernels plain (write-back): plain-all.patch applied to a copy
# of this tree in /tmp/plain, then probe2.py on both trees alternately, two rounds, each tree with its own
# kernel cache. From the repository root: sh benchmarks/h200/transpose/store-policy/ab2.sh OUTDIR [big]
set -e
root=$(pwd)
rm -rf /tmp/plain && mkdir /tmp/plain && cp -r "$root/src" /tmp/plain/src
(cd /tmp/plain && git apply "$root/benchmarks/h200/transpose/store-policy/plain-all.patch")
cd "$root/benchmarks/h200/transpose/store-policy"
for r in 1 2; do
  BWLAB_CACHE=/tmp/bwc-base PYTHONPATH="$root/src" python3 probe2.py "cs" $2 >> "$1/ab2$2.txt"
  BWLAB_CACHE=/tmp/bwc-plain PYTHONPATH=/tmp/plain/src python3 probe2.py "wb" $2 >> "$1/ab2$2.txt"
done
