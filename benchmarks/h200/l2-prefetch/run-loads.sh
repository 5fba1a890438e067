#!/bin/sh
# From the repository root on the GPU machine: make2's trees (the hints on the two-read kernels'
# plain 16-byte loads), each run twice (none2 2562 1282, then 1282 2562 none2), own kernel caches.
set -e
P=benchmarks/h200/l2-prefetch/probe.py
python3 $P make2
for t in none2 2562 1282 1282 2562 none2; do
  BWLAB_CACHE=/tmp/bwc-$t PYTHONPATH=/tmp/l2p/$t/src python3 $P run $t loads
done
