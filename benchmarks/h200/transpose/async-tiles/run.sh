# From the repository root, the tree before unpacked in ab-old/ (git archive HEAD src | tar -x -C ab-old):
# compile both trees' tall tiles, the skinny tile GPU tests on this tree, the A/B of the two trees'
# dispatch (old, new, old, new), then tile sizes forced on this tree.
export BWLAB_CACHE=/tmp/bwc
D=benchmarks/h200/transpose/async-tiles
(PYTHONPATH=ab-old/src python3 $D/precompile.py & PYTHONPATH=src python3 $D/precompile.py; wait) > $OUT/precompile.txt 2>&1
PYTHONPATH=src timeout 200 python3 -m pytest -m gpu tests/transpose/test_gpu_skinnytile.py -n 4 -q -p no:cacheprovider > $OUT/tests.txt 2>&1
tail -1 $OUT/tests.txt
cd $D
for t in old new old new; do if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  PYTHONPATH=$P timeout 120 python3 probe.py $t; done > $OUT/ab.txt 2>&1
PYTHONPATH=../../../../src timeout 100 python3 probe.py sweep > $OUT/sweep.txt 2>&1
sort -k2,2 -k1,1 -s $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6}' | paste - - - -
grep -c False $OUT/ab.txt $OUT/sweep.txt; cat $OUT/sweep.txt
