# The last device call of the day (nvidia-h200), from the repository root; output under $OUT. See COMMAND.
export BWLAB_CACHE=/tmp/bwc PYTHONPATH=src
start=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || exit 3
timeout 240 python3 -m bwlab bench softmax --suite backward --out $OUT/bench-backward --reps 20 > $OUT/bench-backward.txt 2>&1
echo "bench rc $?"
grep -v "^\s*$" $OUT/bench-backward.txt | grep -A14 "^shape" | cut -c1-15,180-300
timeout 300 python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore > $OUT/gpu.txt 2>&1
tail -4 $OUT/gpu.txt
echo "call: $(( $(date +%s) - start )) s"
