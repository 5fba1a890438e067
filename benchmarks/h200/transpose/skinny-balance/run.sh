# From the repository root: the dispatch on the tree before (old: ab-old/src, `git archive` of the
# commit before) and after (new), alternately, then every R on the new tree, then the GPU tests of
# the skinny kernels.
export BWLAB_CACHE=/tmp/bwc
cd benchmarks/h200/transpose/skinny-balance
for t in old new new old; do if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  PYTHONPATH=$P timeout 100 python3 probe.py $t; done > $OUT/ab.txt 2>&1
PYTHONPATH=../../../../src timeout 200 python3 probe.py > $OUT/probe.txt 2>&1
cd ../../../..
PYTHONPATH=src timeout 200 python3 -m pytest -p no:cacheprovider -q -m gpu tests/transpose -n 4 -k "skinny or words or tall" > $OUT/tests-skinny.txt 2>&1; tail -1 $OUT/tests-skinny.txt
sort -k2,2 -s $OUT/ab.txt | cut -c1-80; cut -c1-90 $OUT/probe.txt
