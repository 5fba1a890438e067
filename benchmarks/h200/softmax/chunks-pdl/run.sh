# The device call (nvidia-h200), from the repository root; logs under $OUT. See COMMAND.
export BWLAB_CACHE=/tmp/bwc
start=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || exit 3
(cd benchmarks/h200/softmax/chunks-pdl && PYTHONPATH=../../../../src timeout 200 python3 pdl.py > $OUT/pdl.txt 2>&1)
cat $OUT/pdl.txt | grep -v Warning
export PYTHONPATH=src
timeout 250 python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore tests/softmax tests/core > $OUT/tests.txt 2>&1
tail -4 $OUT/tests.txt
echo "call: $(( $(date +%s) - start )) s"
