# tileWholeWords before (ab-old/src: `git archive cac1893 src` unpacked at the repository root) and
# after its shared addresses were hoisted, alternately, then the transpose GPU tests (cut off at 200 s
# on this fresh machine, 95% through and none failed; run again: ../../gpu_tests-h200-2026-11-27d.txt).
export BWLAB_CACHE=/tmp/bwc
t0=$(date +%s)
cd benchmarks/h200/transpose/whole-probe
k=0
for t in old new new old; do k=$((k+1)); if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  PYTHONPATH=$P:. timeout 120 python3 probe.py > $OUT/words-$k-$t.txt 2>&1; echo "$t done at $(( $(date +%s) - t0 )) s"; done
cd ../../../..
PYTHONPATH=src timeout 200 python3 -m pytest -p no:cacheprovider -q -m gpu tests/transpose -n 4 > $OUT/tests-transpose.txt 2>&1; tail -1 $OUT/tests-transpose.txt; echo "tests at $(( $(date +%s) - t0 )) s"
for f in $OUT/words-*.txt; do echo "== $f"; grep -E "correctness|tileWholeWords" $f | head -20; done
