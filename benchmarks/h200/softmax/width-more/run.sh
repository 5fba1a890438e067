# From this folder on the device: build the forced kernels, then both runs (outputs under $OUT).
export BWLAB_CACHE=/tmp/bwc PYTHONPATH=../../../../src
python3 build.py > $OUT/build.txt 2>&1; tail -6 $OUT/build.txt
python3 probe.py lbwd > $OUT/lbwd.txt 2>&1; tail -3 $OUT/lbwd.txt
python3 probe.py terms > $OUT/terms.txt 2>&1; cat $OUT/lbwd.txt $OUT/terms.txt | grep -v "^r1"
