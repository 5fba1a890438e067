#!/bin/sh
# A/B of skinnyWords' leaner row side (lean.patch applied to a copy of the tree) against the tree, two
# rounds alternately, then Nsight Compute on both. From the repository root, on the device:
# sh benchmarks/h200/transpose/words-lean/run.sh OUTDIR
set -e
out=$1
root=$(pwd)
rm -rf /tmp/lean && mkdir /tmp/lean && cp -r src /tmp/lean/ && (cd /tmp/lean && patch -s -p1 < "$root/benchmarks/h200/transpose/words-lean/lean.patch")
cd benchmarks/h200/transpose/words-lean
for r in 1 2; do
  echo "# round $r"
  PYTHONPATH=../../../../src python3 probe.py before
  PYTHONPATH=/tmp/lean/src python3 probe.py lean
done > "$out/probe.txt" 2>&1
for spec in "16777217 16" "7456541 36" "6100807 44"; do
  for tree in ../../../.. /tmp/lean; do
    echo "== $spec $tree"
    PYTHONPATH=$tree/src ncu --clock-control none --section SpeedOfLight --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,"regex:smsp__average_warps_issue_stalled_(math_pipe_throttle|long_scoreboard|barrier|not_selected|mio_throttle)_per_issue_active.ratio" \
      -k regex:skinny --launch-skip 1 --launch-count 1 python3 ../skinny-balance/one.py $spec 2>&1 | grep -E "skinnyWords<|inst_executed|issue_active|pipe_|stalled|DRAM Through|Duration|SM Freq"
  done
done > "$out/ncu.txt" 2>&1
