#!/bin/sh
# The device call that made this folder's records (nvidia-h200), from the repository root, with
# ab-old/ the previous tree's src (git archive 67427e2 src) beside src/.
export BWLAB_CACHE=/tmp/bwc
PYTHONPATH=src python3 -m bwlab kernels > /dev/null 2>&1 &
PYTHONPATH=ab-old/src python3 -m bwlab kernels softmax > /dev/null 2>&1 &
wait
cd benchmarks/h200/softmax/tiny-probs
for r in 1 2; do
  PYTHONPATH=../../../../ab-old/src python3 ab.py old
  PYTHONPATH=../../../../src python3 ab.py new
done > $OUT/ab.txt 2>&1
PYTHONPATH=../../../../ab-old/src python3 ab.py old wide > $OUT/wide.txt 2>&1
PYTHONPATH=../../../../src python3 ab.py new wide >> $OUT/wide.txt 2>&1
cd ../../../..
PYTHONPATH=ab-old/src python3 -m pytest -p no:cacheprovider -q -m gpu tests/softmax/test_gpu_kernels.py \
  -k "tiny and bfloat16" > $OUT/tests-old.txt 2>&1
tail -3 $OUT/tests-old.txt
PYTHONPATH=src python3 -m pytest -p no:cacheprovider -q -m gpu tests/softmax -n 4 > $OUT/tests-softmax.txt 2>&1
tail -5 $OUT/tests-softmax.txt
cat $OUT/wide.txt; cat $OUT/ab.txt
