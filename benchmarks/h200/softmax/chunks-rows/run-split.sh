# From the repository root on the device: probe.py split.
cd benchmarks/h200/softmax/chunks-rows
BWLAB_CACHE=/tmp/bwc PYTHONPATH=../../../../src timeout 300 python3 probe.py split > $OUT/split.txt 2> $OUT/split.err
tail -2 $OUT/split.err
cat $OUT/split.txt
