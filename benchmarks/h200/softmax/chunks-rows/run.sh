# From the repository root on the device: the probe, then the colsChunks GPU tests.
cd benchmarks/h200/softmax/chunks-rows
BWLAB_CACHE=/tmp/bwc PYTHONPATH=../../../../src timeout 420 python3 probe.py > $OUT/probe.txt 2> $OUT/probe.err
tail -3 $OUT/probe.err
cat $OUT/probe.txt
