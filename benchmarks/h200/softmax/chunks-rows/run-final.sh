# From the repository root on the device (a fresh machine): the compiler tests (filling the kernel
# cache), probe.py final, then the backward suite through bwlab's own command.
export BWLAB_CACHE=/tmp/bwc PYTHONPATH=src
timeout 200 python3 -m pytest -q -p no:cacheprovider -n 12 -W ignore tests/core/test_build.py > $OUT/build.txt 2>&1; tail -1 $OUT/build.txt
(cd benchmarks/h200/softmax/chunks-rows && PYTHONPATH=../../../../src timeout 200 python3 probe.py final > $OUT/final.txt 2> $OUT/final.err; tail -2 $OUT/final.err; cat $OUT/final.txt)
timeout 150 python3 -m bwlab bench softmax --suite backward --out $OUT/backward-split --reps 20 > $OUT/backward-split.txt 2>&1; tail -30 $OUT/backward-split.txt
