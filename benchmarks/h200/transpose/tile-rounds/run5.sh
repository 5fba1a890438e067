# From the repository root, with the balanced tiles (plans.tile_rlog): the dispatch on the tree
# before (ab-old/src) and on the new tree, alternately, two rounds; then the bench command on the
# skinny suite's float32 shapes whose kernel or tile changed (bench-f32/).
export BWLAB_CACHE=/tmp/bwc
t0=$(date +%s)
D=benchmarks/h200/transpose/tile-rounds
PYTHONPATH=ab-old/src python3 benchmarks/h200/transpose/inner-tiles/precompile.py all > /dev/null 2>&1 &
PYTHONPATH=src python3 benchmarks/h200/transpose/inner-tiles/precompile.py all > /dev/null 2>&1 &
PYTHONPATH=src python3 benchmarks/h200/transpose/tall-chunks/precompile.py all > /dev/null 2>&1; wait; echo "compiled at $(( $(date +%s) - t0 )) s"
cd $D
for t in old new old new; do if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  PYTHONPATH=$P timeout 100 python3 probe.py $t; done > $OUT/balanced.txt 2>&1; echo "probe at $(( $(date +%s) - t0 )) s"
PYTHONPATH=../../../../src timeout 150 python3 -m bwlab bench transpose --shapes 33554433x2,22369623x3,16777217x4,3947581x17,2033603x33 --dtypes float32 --peers torch,cupy --reps 30 --out $OUT/bench-f32 > $OUT/bench-f32.out 2>&1
echo "bench at $(( $(date +%s) - t0 )) s"; grep -E "float32" $OUT/bench-f32/bench.txt | head -6 | cut -c1-200
sort -k2,2 -k1,1 -s $OUT/balanced.txt | awk '{print $1, $2, $3, $5, $6}' | paste - - - -
