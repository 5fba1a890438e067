# tests/softmax -m gpu on this tree (the reference's t and the log-softmax tests), then parts.py.
# From the repository root: sh benchmarks/h200/softmax/chunks-parts/run.sh
export BWLAB_CACHE=/tmp/bwc PYTHONPATH=src
timeout 330 python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore tests/softmax > $OUT/tests.txt 2>&1
tail -3 $OUT/tests.txt
cd benchmarks/h200/softmax/chunks-parts && PYTHONPATH=../../../../src timeout 200 python3 parts.py > $OUT/parts.txt 2>&1
cat $OUT/parts.txt
