#!/bin/sh
# From the repository root on the GPU machine: the three trees, each run twice (order none 256 128,
# then 128 256 none), each with its own kernel cache; then the SASS load forms of each tree's cubins.
set -e
P=benchmarks/h200/l2-prefetch/probe.py
python3 $P make
for t in none 256 128 128 256 none; do
  BWLAB_CACHE=/tmp/bwc-$t PYTHONPATH=/tmp/l2p/$t/src python3 $P run $t
done
for t in none 128 256; do
  echo "== $t: load instructions in the cached cubins"
  for f in /tmp/bwc-$t/*.cubin; do cuobjdump -sass "$f" | grep -oE "(LDGSTS|LDG)[.A-Z0-9_]*"; done | sort | uniq -c
done
