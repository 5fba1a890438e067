# From the repository root on the device: probe.py partial (colsPartial's packs in flight and blocks an SM).
cd benchmarks/h200/softmax/chunks-rows
BWLAB_CACHE=/tmp/bwc PYTHONPATH=../../../../src timeout 420 python3 probe.py partial > $OUT/partial.txt 2> $OUT/partial.err
tail -3 $OUT/partial.err
cat $OUT/partial.txt
