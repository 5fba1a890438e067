# From the repository root: compile both trees, the dispatch on the tree before (ab-old/src) and
# after (src), alternately, two rounds each, then the skinny tile GPU tests on the new tree.
export BWLAB_CACHE=/tmp/bwc
t0=$(date +%s)
D=benchmarks/h200/transpose/inner-tiles
PYTHONPATH=ab-old/src python3 $D/precompile.py & PYTHONPATH=src python3 $D/precompile.py all; wait
echo "compiled at $(( $(date +%s) - t0 )) s"
cd $D
for t in old new old new; do if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  PYTHONPATH=$P timeout 100 python3 probe.py $t; done > $OUT/ab.txt 2>&1; echo "ab at $(( $(date +%s) - t0 )) s"
cd ../../../..
PYTHONPATH=src timeout $((560 - $(date +%s) + t0)) python3 -m pytest -p no:cacheprovider -q -m gpu tests/transpose/test_gpu_skinnytile.py -n 4 > $OUT/tests.txt 2>&1; tail -1 $OUT/tests.txt; echo "tests at $(( $(date +%s) - t0 )) s"
echo "ncu:"; cd $D && PYTHONPATH=../../../../src timeout 150 bash ncu.sh > $OUT/ncu.txt 2>&1; cd ../../../..; echo "ncu at $(( $(date +%s) - t0 )) s"
sort -k2,2 -k1,1 -s $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6}' | paste - - - -
