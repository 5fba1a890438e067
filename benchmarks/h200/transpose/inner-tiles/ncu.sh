# Nsight Compute on the dispatch's kernel (the second launch of ../skinny-balance/one.py), tall uint8
for spec in "8134409 33" "15790321 17" "29826163 9" "4194305 64"; do
  echo "== $spec"
  ncu --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_uniform.sum,"regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio" \
    -k regex:skinny --launch-skip 1 --launch-count 1 python3 ../skinny-balance/one.py $spec 2>&1 | grep -v "^==PROF=="
done
