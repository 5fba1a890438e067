# Nsight Compute at the GPU's own clocks (--clock-control none), the dispatch beside LEAN, tall uint8
# 16, 36 and 44 columns. From this folder, PYTHONPATH=../../../../src.
for spec in "16777217 16" "7456541 36" "6100807 44"; do
  for v in disp lean; do
    echo "== $spec $v"
    ncu --clock-control none --section SpeedOfLight --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,"regex:smsp__average_warps_issue_stalled_(math_pipe_throttle|long_scoreboard|barrier|not_selected|wait|mio_throttle)_per_issue_active.ratio" \
      -k regex:skinny --launch-skip 1 --launch-count 1 python3 one.py $spec $v 2>&1 | grep -E "skinnyWords<|inst_executed|issue_active|pipe_|stalled|DRAM Through|Duration|SM Freq"
  done
done
