# From the repository root: compile both trees, the dispatch on the tree before (ab-old/src), after
# (src), and after with skinnyTile for 2 to 4 columns (tile), alternately, two rounds each; then the
# register kernel's, the API's and the skinny tile's GPU tests on the new tree.
export BWLAB_CACHE=/tmp/bwc
t0=$(date +%s)
D=benchmarks/h200/transpose/tall-chunks
python3 -c "from bwlab.core import build; print('nvrtc', build.nvrtc_version())" 2>/dev/null
PYTHONPATH=ab-old/src python3 $D/precompile.py & PYTHONPATH=src python3 $D/precompile.py all; wait
echo "compiled at $(( $(date +%s) - t0 )) s"
cd $D
for t in old new tile old new tile; do if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  PYTHONPATH=$P timeout 120 python3 probe.py $t; done > $OUT/ab.txt 2>&1; echo "ab at $(( $(date +%s) - t0 )) s"
cd ../../../..
PYTHONPATH=src timeout $((570 - $(date +%s) + t0)) python3 -m pytest -p no:cacheprovider -q -m gpu tests/transpose/test_gpu_skinny.py tests/transpose/test_gpu_api.py tests/transpose/test_gpu_skinnytile.py -n 4 > $OUT/tests.txt 2>&1; tail -3 $OUT/tests.txt; echo "tests at $(( $(date +%s) - t0 )) s"
sort -k2,2 -k1,1 -s $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6, $7}' | paste - - - - - -
