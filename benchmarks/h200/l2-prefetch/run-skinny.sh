#!/bin/sh
# From the repository root on the GPU machine: make3's trees (`.L2::128B` or `.L2::256B` on widePerm's
# word loads and on the 4-byte cp.async copies), each run twice (none3 1283 2563, then 2563 1283
# none3), own kernel caches.
set -e
P=benchmarks/h200/l2-prefetch/probe.py
python3 $P make3
for t in none3 1283 2563 2563 1283 none3; do
  BWLAB_CACHE=/tmp/bwc-$t PYTHONPATH=/tmp/l2p/$t/src python3 $P run $t skinny
done
