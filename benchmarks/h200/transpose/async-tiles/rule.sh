# From the repository root, ab-old/ holding the tree before the cp.async copies (git archive of 896c63e's
# src): the skinny tile GPU tests on this tree (the dispatch's copies), then the A/B of the two trees'
# dispatch on the short sides that check plans.words_async (old, new, old, new).
export BWLAB_CACHE=/tmp/bwc
D=benchmarks/h200/transpose/async-tiles
(PYTHONPATH=ab-old/src python3 $D/precompile.py & PYTHONPATH=src python3 $D/precompile.py; wait) > $OUT/precompile.txt 2>&1
PYTHONPATH=src timeout 250 python3 -m pytest -m gpu tests/transpose/test_gpu_skinnytile.py -n 4 -q -p no:cacheprovider > $OUT/tests-rule.txt 2>&1
tail -1 $OUT/tests-rule.txt
cd $D
for t in old new old new; do if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  PYTHONPATH=$P timeout 100 python3 probe.py $t rule; done > $OUT/rule.txt 2>&1
sort -k2,2 -k1,1 -s $OUT/rule.txt | awk '{print $1, $2, $3, $5, $6, $7}' | paste - - - -
grep -c False $OUT/rule.txt
