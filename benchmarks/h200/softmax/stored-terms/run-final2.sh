# The last tree's device call (nvidia-h200), from the repository root; logs under $OUT. See COMMAND.
export PYTHONPATH=src
start=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || exit 3
timeout 230 python3 -m pytest -q -p no:cacheprovider -n 12 -W ignore tests/core/test_build.py > $OUT/build.txt 2>&1
tail -2 $OUT/build.txt
timeout 300 python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore > $OUT/gpu.txt 2>&1
tail -4 $OUT/gpu.txt
echo "call: $(( $(date +%s) - start )) s"
