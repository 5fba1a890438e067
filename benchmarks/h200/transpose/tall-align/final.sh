# The tests and the runs of every side on the final tree, one device call from the repository root.
export BWLAB_CACHE=/tmp/bwc PYTHONPATH=src
python3 -m pytest -m gpu -q -p no:cacheprovider -n 8 tests/transpose tests/permute tests/softmax/test_gpu_api.py 2>&1 | tail -4 > $OUT/gpu.txt
cat $OUT/gpu.txt
mkdir -p /tmp/ev
sh benchmarks/h200/transpose/skinny-every/run.sh uint16 /tmp/ev/uint16 > /tmp/ev/uint16.log 2>&1
(cd /tmp/ev && tar czf $OUT/every-uint16.tgz uint16 uint16.log)
tail -1 /tmp/ev/uint16.log
sh benchmarks/h200/transpose/skinny-every/run.sh float32 /tmp/ev/float32 > /tmp/ev/float32.log 2>&1
(cd /tmp/ev && tar czf $OUT/every-float32.tgz float32 float32.log)
tail -1 /tmp/ev/float32.log
