# From the repository root, after the after_all fix (packed_to_shared's dependency on a kernel
# argument the compiler cannot bound): the tile sizes on the new tree and the dispatch on the tree
# before, alternately, two rounds; the skinny suite re-run; the GPU tests of the register kernel,
# skinnyTile and the API.
export BWLAB_CACHE=/tmp/bwc
t0=$(date +%s)
D=benchmarks/h200/transpose/tile-rounds
PYTHONPATH=ab-old/src python3 benchmarks/h200/transpose/inner-tiles/precompile.py all > /dev/null 2>&1 &
PYTHONPATH=src python3 benchmarks/h200/transpose/inner-tiles/precompile.py all > /dev/null 2>&1 &
PYTHONPATH=src python3 benchmarks/h200/transpose/tall-chunks/precompile.py all > /dev/null 2>&1; wait; echo "compiled at $(( $(date +%s) - t0 )) s"
cd $D
for t in old r old r; do if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  PYTHONPATH=$P timeout 100 python3 probe.py $t; done > $OUT/rounds-fixed.txt 2>&1; echo "probe at $(( $(date +%s) - t0 )) s"
cd ..
PYTHONPATH=../../../src timeout 200 python3 -m bwlab bench transpose --suite skinny --reps 30 --out bench-skinny --force > bench-skinny/bench.txt 2>&1
cp bench-skinny/bench.json bench-skinny/bench.png bench-skinny/bench.txt $OUT/; echo "bench at $(( $(date +%s) - t0 )) s"
cd ../../..
PYTHONPATH=src timeout $((585 - $(date +%s) + t0)) python3 -m pytest -p no:cacheprovider -q -m gpu tests/transpose/test_gpu_skinny.py tests/transpose/test_gpu_skinnytile.py tests/transpose/test_gpu_api.py -n 4 > $OUT/tests4.txt 2>&1; tail -1 $OUT/tests4.txt; echo "tests at $(( $(date +%s) - t0 )) s"
grep -E "short side" $OUT/bench.txt | tail -1
sort -k2,2 -k1,1 -s $OUT/rounds-fixed.txt | awk '{print $1, $2, $3, $4, $5, $7}'
