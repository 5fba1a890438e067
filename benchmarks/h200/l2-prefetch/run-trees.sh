#!/bin/sh
# From the repository root on the GPU machine: sh run-trees.sh MAKE SUFFIX MODE "TREES"
# makes probe.py's trees (MAKE: make2 or make3), then runs `probe.py run <tree> MODE` on each tree of
# TREES in that order (names without SUFFIX), each with its own kernel cache.
set -e
P=benchmarks/h200/l2-prefetch/probe.py
python3 $P "$1"
for t in $4; do
  BWLAB_CACHE=/tmp/bwc-$t$2 PYTHONPATH=/tmp/l2p/$t$2/src python3 $P run $t$2 "$3"
done
