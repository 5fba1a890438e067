#!/bin/sh
# Nsight Compute at the GPU's own clock on the dispatch's skinnyWords and the bulk form, one launch each
# (the second call), from this folder: sh ncu.sh > ncu.txt
M=gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
M=$M,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
M=$M,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
M=$M,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio
M=$M,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_misc_per_issue_active.ratio
M=$M,smsp__warps_active.avg.per_cycle_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for s in "1 64" "1 36" "1 12"; do
  for mode in dflt bulk; do
    echo "## $mode $s"
    PYTHONPATH=../../../../src ncu --clock-control none -k regex:skinnyWords --launch-skip 1 --launch-count 1 \
      --metrics $M python3 ncu_one.py $mode $s 2>&1 | grep -E '^\s+(gpu__|smsp__|l1tex__|dram__|sm__)'
  done
done
