#!/bin/sh
# From the repository root on the GPU machine, with ab-old/src the tree before the hints (`git archive
# 5022fa4 src`, unpacked at the repository root, not committed): the two trees alternately, 3 rounds
# each (old new new old old new), each with its own kernel cache.
set -e
P=benchmarks/h200/l2-prefetch/probe.py
for t in old new new old old new; do
  if [ $t = old ]; then S=ab-old/src; else S=src; fi
  BWLAB_CACHE=/tmp/bwc-ab-$t PYTHONPATH=$S python3 $P run $t ab
done
