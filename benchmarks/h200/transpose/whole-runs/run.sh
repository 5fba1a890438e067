# One device call (nvidia-h200), from the repository root; logs under $OUT. See COMMAND.
set -u
export PYTHONPATH=src
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || exit 3
timeout 230 python3 -m pytest -q -p no:cacheprovider -n 12 -W ignore tests/core/test_build.py > $OUT/build.txt 2>&1
tail -2 $OUT/build.txt
timeout 90 python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore tests/transpose/test_gpu_api.py \
  tests/transpose/test_gpu_layouts.py -k "runs_of_every or every_tile_candidate or byte_kernels_on_views or odd_extents_over" \
  > $OUT/tests-runs.txt 2>&1
tail -3 $OUT/tests-runs.txt
timeout 120 python3 benchmarks/h200/transpose/whole-runs/probe.py benchmarks/h200/transpose/whole-runs/ab-old 3 \
  > $OUT/probe.txt 2>&1
cat $OUT/probe.txt
for k in words runs; do
  echo "== $k"
  timeout 40 ncu --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis \
    --metrics smsp__inst_executed.sum,l1tex__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,"regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio" \
    -k regex:tileWhole --launch-skip 1 --launch-count 1 python3 benchmarks/h200/transpose/whole-runs/one.py $k 2>&1 | grep -v "^==PROF=="
done > $OUT/ncu.txt 2>&1
tail -n 3 $OUT/ncu.txt
timeout $((520 - SECONDS)) python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore > $OUT/gpu.txt 2>&1
tail -4 $OUT/gpu.txt; echo "call: ${SECONDS} s"
