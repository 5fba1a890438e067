# From this folder on the device: build the forced kernels, then the lean runs (outputs under $OUT), then the
# forced colsTeam tests (every geometry, lean ones included) from the repository root.
export BWLAB_CACHE=/tmp/bwc PYTHONPATH=../../../../src
python3 build.py > $OUT/build-lean.txt 2>&1; grep -c regs $OUT/build-lean.txt
python3 probe.py lean32 > $OUT/lean32.txt 2>&1; tail -2 $OUT/lean32.txt
python3 probe.py lean16 > $OUT/lean16.txt 2>&1; tail -2 $OUT/lean16.txt
(cd ../../../.. && PYTHONPATH=src python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -W ignore \
  tests/softmax/test_gpu_kernels.py -k "cols_team_forced" > $OUT/tests-lean.txt 2>&1; tail -3 $OUT/tests-lean.txt)
for f in lean32 lean16; do python3 ../team-width/summary.py $OUT/$f.txt; done
