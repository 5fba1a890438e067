# The final tree's device call (nvidia-h200), from the repository root; logs under $OUT. See COMMAND.
export PYTHONPATH=src
start=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || exit 3
timeout 230 python3 -m pytest -q -p no:cacheprovider -n 12 -W ignore tests/core/test_build.py > $OUT/build.txt 2>&1
tail -2 $OUT/build.txt
timeout 260 python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore > $OUT/gpu.txt 2>&1
tail -4 $OUT/gpu.txt
for run in 1 2; do
  timeout 60 python3 -m bwlab bench transpose --suite misaligned --reps 30 --out $OUT/bench-$run > $OUT/bench-$run.txt 2>&1
  tail -25 $OUT/bench-$run.txt
done
echo "call: $(( $(date +%s) - start )) s"
