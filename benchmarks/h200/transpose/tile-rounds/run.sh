# From the repository root: every workload's kernels compiled (the tree before's skinnyTile too); the
# tile sizes on the new tree and the dispatch on the tree before (ab-old/src), alternately, two rounds;
# then the GPU tests of transpose and permute, and of every other workload but softmax.
export BWLAB_CACHE=/tmp/bwc
t0=$(date +%s)
D=benchmarks/h200/transpose/tile-rounds
PYTHONPATH=ab-old/src python3 benchmarks/h200/transpose/inner-tiles/precompile.py all > /dev/null 2>&1 &
PYTHONPATH=src python3 -m bwlab kernels > /dev/null 2>&1; wait; echo "kernels at $(( $(date +%s) - t0 )) s"
cd $D
for t in old r old r; do if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  PYTHONPATH=$P timeout 100 python3 probe.py $t; done > $OUT/rounds.txt 2>&1; echo "probe at $(( $(date +%s) - t0 )) s"
cd ../../../..
PYTHONPATH=src timeout 260 python3 -m pytest -p no:cacheprovider -q -m gpu tests/transpose tests/permute -n 4 > $OUT/tests-transpose.txt 2>&1; tail -1 $OUT/tests-transpose.txt; echo "at $(( $(date +%s) - t0 )) s"
PYTHONPATH=src timeout 130 python3 -m pytest -p no:cacheprovider -q -m gpu tests/core tests/cli tests/claims tests/matmul tests/streams tests/distributed tests/lab tests/report -n 4 > $OUT/tests-others.txt 2>&1; tail -1 $OUT/tests-others.txt; echo "at $(( $(date +%s) - t0 )) s"
sort -k2,2 -k1,1 -s $OUT/rounds.txt | awk '{print $1, $2, $3, $4, $5, $7, $8}'
