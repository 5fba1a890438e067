# The 2^64 form's device call (nvidia-h200), from the repository root; logs under $OUT. See COMMAND.
# ab.py against the 2^16 form first (a minute), then the compiler tests and the whole GPU suite.
export BWLAB_CACHE=/tmp/bwc
start=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || exit 3
(cd benchmarks/h200/softmax/log-tiny && PYTHONPATH=../../../../src timeout 120 python3 ab.py bias64.patch > $OUT/ab.txt 2>&1)
cat $OUT/ab.txt
export PYTHONPATH=src
timeout 200 python3 -m pytest -q -p no:cacheprovider -n 12 -W ignore tests/core/test_build.py > $OUT/build.txt 2>&1
tail -2 $OUT/build.txt
timeout 270 python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore > $OUT/gpu.txt 2>&1
tail -4 $OUT/gpu.txt
echo "call: $(( $(date +%s) - start )) s"
