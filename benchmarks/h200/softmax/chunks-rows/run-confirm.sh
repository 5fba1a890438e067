# From the repository root on the device: probe.py confirm, then the softmax GPU tests.
cd benchmarks/h200/softmax/chunks-rows
BWLAB_CACHE=/tmp/bwc PYTHONPATH=../../../../src timeout 300 python3 probe.py confirm > $OUT/confirm.txt 2> $OUT/confirm.err
tail -3 $OUT/confirm.err
cat $OUT/confirm.txt
cd ../../../..
BWLAB_CACHE=/tmp/bwc PYTHONPATH=src timeout 250 python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore tests/softmax > $OUT/tests.txt 2>&1; tail -3 $OUT/tests.txt
