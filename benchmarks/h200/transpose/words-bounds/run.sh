# From the repository root, ab-old/ holding the tree before (git archive of HEAD's src, launch bounds
# of 3 blocks an SM): the skinny tile GPU tests on this tree, then old, new, old, new.
export BWLAB_CACHE=/tmp/bwc
(PYTHONPATH=ab-old/src python3 -m bwlab kernels transpose & PYTHONPATH=src python3 -m bwlab kernels transpose; wait) > /dev/null 2>&1
PYTHONPATH=src timeout 200 python3 -m pytest -m gpu tests/transpose/test_gpu_skinnytile.py tests/transpose/test_gpu_api.py -n 4 -q -p no:cacheprovider > $OUT/tests.txt 2>&1
tail -1 $OUT/tests.txt
cd benchmarks/h200/transpose/words-bounds
for t in old new old new; do if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  PYTHONPATH=$P timeout 100 python3 ab.py $t; done > $OUT/ab.txt 2>&1
grep -c True $OUT/ab.txt; grep -c False $OUT/ab.txt
