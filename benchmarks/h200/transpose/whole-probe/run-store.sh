# tileWholeWords' store phase from a thread's one row phase (new) against the tree before (old:
# ab-old/src, `git archive` of the commit before, unpacked at the repository root), alternately,
# then the transpose GPU tests and rowRelay's (its counts moved to lines of their own in the same
# tree). From the repository root. (ncu-store.txt: Nsight Compute on the new kernels, one launch each
# through one.py, --section SpeedOfLight --section WarpStateStats and the metrics named there.)
export BWLAB_CACHE=/tmp/bwc
t0=$(date +%s)
cd benchmarks/h200/transpose/whole-probe
k=0
for t in old new new old; do k=$((k+1)); if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  PYTHONPATH=$P:. timeout 150 python3 probe.py > $OUT/store-$k-$t.txt 2>&1; echo "$t done at $(( $(date +%s) - t0 )) s"; done
cd ../../../..
PYTHONPATH=src timeout 330 python3 -m pytest -p no:cacheprovider -q -m gpu tests/transpose -n 4 > $OUT/tests-transpose.txt 2>&1; tail -1 $OUT/tests-transpose.txt; echo "tests at $(( $(date +%s) - t0 )) s"
for f in $OUT/store-*.txt; do echo "== $f"; grep -E "correctness|tileWholeWords" $f | head -12; done
PYTHONPATH=src timeout 100 python3 -m pytest -p no:cacheprovider -q -m gpu tests/softmax/test_gpu_kernels.py -k "relay or split or long" -n 4 > $OUT/tests-relay.txt 2>&1; tail -1 $OUT/tests-relay.txt
