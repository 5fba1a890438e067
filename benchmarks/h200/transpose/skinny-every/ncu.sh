# Nsight Compute on the dispatch's kernel (the second launch of ../skinny-balance/one.py), tall uint8:
# 16 and 24 columns (93.6 and 90.9% of a copy in the run of every side) beside 41 (cp.async, 85.4%)
# and 47 (through registers, 84.6%). From this folder, PYTHONPATH=../../../../src.
for spec in "16777217 16" "11184811 24" "6547207 41" "5711393 47"; do
  echo "== $spec"
  ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
    --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,"regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio" \
    -k regex:skinny --launch-skip 1 --launch-count 1 python3 ../skinny-balance/one.py $spec 2>&1 | grep -v "^==PROF=="
done
