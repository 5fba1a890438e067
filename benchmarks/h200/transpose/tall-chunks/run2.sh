# From the repository root: the dispatch on the tree before (ab-old/src), on the new tree with the
# register kernel unbounded (lb1: ab-lb1/src, launch bounds of one block an SM) and on the new tree
# (three blocks an SM for tall 4 columns and fewer; misaligned 4- and 8-byte rows on skinnyTile),
# alternately, two rounds each; then the changed GPU tests.
export BWLAB_CACHE=/tmp/bwc
t0=$(date +%s)
D=benchmarks/h200/transpose/tall-chunks
PYTHONPATH=ab-old/src python3 $D/precompile.py & PYTHONPATH=ab-lb1/src python3 $D/precompile.py & PYTHONPATH=src python3 $D/precompile.py all; wait
echo "compiled at $(( $(date +%s) - t0 )) s"
cd $D
for t in old lb1 new old lb1 new; do case $t in old) P=../../../../ab-old/src;; lb1) P=../../../../ab-lb1/src;; *) P=../../../../src;; esac
  PYTHONPATH=$P timeout 120 python3 probe.py $t; done > $OUT/ab2.txt 2>&1; echo "ab at $(( $(date +%s) - t0 )) s"
cd ../../../..
PYTHONPATH=src timeout $((570 - $(date +%s) + t0)) python3 -m pytest -p no:cacheprovider -q -m gpu tests/transpose/test_gpu_skinny.py tests/transpose/test_gpu_skinnytile.py -n 4 > $OUT/tests2.txt 2>&1; tail -3 $OUT/tests2.txt; echo "tests at $(( $(date +%s) - t0 )) s"
sort -k2,2 -k1,1 -s $OUT/ab2.txt | awk '{print $1, $2, $3, $5, $6, $7}' | paste - - - - - -
