# The final tree's device call (nvidia-h200), from the repository root; logs under $OUT. See COMMAND.
export PYTHONPATH=src
start=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || exit 3
timeout 230 python3 -m pytest -q -p no:cacheprovider -n 12 -W ignore tests/core/test_build.py > $OUT/build.txt 2>&1
tail -2 $OUT/build.txt
timeout 260 python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore > $OUT/gpu.txt 2>&1
tail -4 $OUT/gpu.txt
echo "tests: $(( $(date +%s) - start )) s"
left=$(( 580 - ($(date +%s) - start) ))
timeout $left python3 -m bwlab bench softmax --suite main,backward --out $OUT/main-backward --reps 20 > $OUT/bench.txt 2>&1
tail -45 $OUT/bench.txt | cut -c1-20,150-260
echo "call: $(( $(date +%s) - start )) s"
