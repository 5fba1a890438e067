# ab.py, then tests/softmax -m gpu, on this tree. From the repository root:
# sh benchmarks/h200/softmax/log-tiny/run2.sh
export BWLAB_CACHE=/tmp/bwc
(cd benchmarks/h200/softmax/log-tiny && PYTHONPATH=../../../../src timeout 200 python3 ab.py > $OUT/ab.txt 2>&1)
cat $OUT/ab.txt
PYTHONPATH=src timeout 300 python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore tests/softmax > $OUT/tests.txt 2>&1
tail -4 $OUT/tests.txt
