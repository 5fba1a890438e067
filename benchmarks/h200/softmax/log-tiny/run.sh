# tests/softmax -m gpu on this tree, then the log suite of the bench. From the repository root:
# sh benchmarks/h200/softmax/log-tiny/run.sh
export BWLAB_CACHE=/tmp/bwc PYTHONPATH=src
timeout 280 python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore tests/softmax > $OUT/tests.txt 2>&1
tail -4 $OUT/tests.txt
timeout 280 python3 -m bwlab bench softmax --suite log --out $OUT/log --reps 20 > $OUT/log-bench.txt 2>&1
tail -45 $OUT/log-bench.txt
