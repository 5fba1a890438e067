# Nsight Compute on the dispatch's kernel for tall float32 with 2 to 4 columns (the register kernel,
# skinny.cu) and one on the shared tile for comparison: the second launch of one.py
for spec in "33554433 2 float32" "22369623 3 float32" "16777217 4 float32" "13421773 5 float32"; do
  echo "== $spec"
  ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
    --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,"regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio" \
    -k regex:skinny --launch-skip 1 --launch-count 1 python3 one.py $spec 2>&1 | grep -v "^==PROF=="
done
