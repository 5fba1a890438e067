# One device call (nvidia-h200), from the repository root, on the tree with runs.patch applied; logs
# under $OUT. See COMMAND.
export PYTHONPATH=src
D=benchmarks/h200/transpose/words-wide
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || exit 3
timeout 150 python3 $D/runs.py 3 > $OUT/runs.txt 2>&1
cat $OUT/runs.txt
for r in 1 4; do
  echo "== run $r"
  timeout 40 ncu --section SpeedOfLight --metrics l1tex__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum \
    -k regex:tileWhole --launch-skip 1 --launch-count 1 python3 $D/runs.py one $r 2>&1 | grep -v "^==PROF=="
done > $OUT/ncu-runs.txt 2>&1
grep -E "^== |Duration|L2 Cache Throughput|hit_rate|lts__t_sectors_op" $OUT/ncu-runs.txt
echo "call: done"
