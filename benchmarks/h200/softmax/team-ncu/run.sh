# From the repository root, on the device: the whole GPU suite's call first (see COMMAND), then this.
cd benchmarks/h200/softmax/team-ncu
PYTHONPATH=../../../../src timeout 240 ncu --clock-control none -k regex:colsTeam \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
  --section LaunchStats --section MemoryWorkloadAnalysis --section SourceCounters \
  --metrics smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__pcsamp_warps_issue_stalled_barrier,smsp__average_warp_latency_issue_stalled_barrier \
  python3 probe.py > $OUT/ncu.txt 2>&1
tail -3 $OUT/ncu.txt
