# Nsight Compute on the dispatch's kernel for tall uint8 short sides (the second launch of one.py)
for spec in "8134409 33" "15790321 17" "5592407 48" "8388609 32"; do
  echo "== $spec"
  ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,"regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio" \
    -k regex:skinny --launch-skip 1 --launch-count 1 python3 one.py $spec 2>&1 | grep -v "^==PROF=="
done
