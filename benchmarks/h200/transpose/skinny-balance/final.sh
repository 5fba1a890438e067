# From the repository root, the final tree (words_rlog keeps skinnyTile's tile unless the warps
# are under 70% busy): compile, the transpose and permute GPU tests, the dispatch on the tree
# before (old: ab-old/src) and after (new) alternately, then the skinny suite re-run.
export BWLAB_CACHE=/tmp/bwc
t0=$(date +%s)
PYTHONPATH=src python3 -m bwlab kernels transpose > /dev/null 2>&1; echo "kernels at $(( $(date +%s) - t0 )) s"
PYTHONPATH=src timeout 150 python3 -m pytest -p no:cacheprovider -q -m gpu tests/transpose tests/permute -n 4 > $OUT/tests.txt 2>&1; tail -1 $OUT/tests.txt; echo "tests at $(( $(date +%s) - t0 )) s"
cd benchmarks/h200/transpose/skinny-balance
for t in old new new old; do if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  PYTHONPATH=$P timeout 60 python3 probe.py $t; done > $OUT/ab.txt 2>&1; echo "ab at $(( $(date +%s) - t0 )) s"
cd ..
PYTHONPATH=../../../src timeout 150 python3 -m bwlab bench transpose --suite skinny --reps 30 --out bench-skinny --force > bench-skinny/bench.txt 2>&1
cp bench-skinny/bench.json bench-skinny/bench.png bench-skinny/bench.txt $OUT/; echo "bench at $(( $(date +%s) - t0 )) s"
grep -E "short side" bench-skinny/bench.txt | tail -2
