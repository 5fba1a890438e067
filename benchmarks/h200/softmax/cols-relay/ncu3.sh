# Nsight Compute: where colsRelay's warps wait (X8 R256 S8 and X32 R256 S8, float32 [4, 32768, 1024])
M="regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__bytes_read.sum"
run() { echo "== $*"; ncu --metrics "$M" --launch-skip 2 --launch-count 1 -k "regex:cols" python3 one.py "$@" 2>&1 | grep -E "gpu__|dram__|smsp__|sm__" | awk '$NF+0 > 0.05'; }
run 4x32768x1024 1 float32 fwd 256 8 8
run 4x32768x1024 1 float32 fwd 256 32 8
run 4x32768x1024 1 bfloat16 fwd 256 8 8
