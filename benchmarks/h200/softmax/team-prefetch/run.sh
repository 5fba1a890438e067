#!/bin/sh
# From the repository root on the GPU machine, after `probe.py make`: the two trees alternately,
# three rounds each (none 256 256 none none 256), each tree with its own kernel cache.
set -e
P=benchmarks/h200/softmax/team-prefetch/probe.py
for t in none 256 256 none none 256; do
  BWLAB_CACHE=/tmp/bwc-tp-$t PYTHONPATH=/tmp/tp/$t/src python3 $P run $t
done
